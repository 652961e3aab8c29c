/* How early a hybrid wait's last sleep ends before its instant, kept in
 * step with the machine: the timer's wake-up latency changes with load, CPU
 * idle states and, on a virtual machine, with what the host does, so a
 * margin measured once at start-up goes stale. */
#ifndef ITG_CORE_MARGIN_H
#define ITG_CORE_MARGIN_H

#include <stdint.h>

/* The bounds every margin is kept within: below 20 us the spin saves too
 * little to matter, above 2 ms the hybrid mode is a spin. */
#define ITG__MARGIN_MIN_NS 20000
#define ITG__MARGIN_MAX_NS 2000000

/* Returns the margin to use after a sleep that was asked to end `margin`
 * before its instant and woke `overshoot_ns` late. Repeated over many
 * sleeps the margin settles at the 90th percentile of the overshoots (a
 * Robbins-Monro quantile estimate with a step proportional to the margin,
 * so it is equally quick at 20 us and at 2 ms): an overshoot beyond the
 * margin raises it by 9 parts of the step, one within it lowers it by
 * one part. Kept within [ITG__MARGIN_MIN_NS, ITG__MARGIN_MAX_NS]. */
int64_t itg__margin_update(int64_t margin, int64_t overshoot_ns);

#endif
