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

/* The spin is worth its CPU only while it holds the CPU. Past a margin of
 * ITG__SPIN_CAP_NS the timer is not what makes a sleep late: the machine
 * is busy, and a thread that spins for that long uses its share of the
 * CPU and is the first one the scheduler takes it from, for milliseconds,
 * where a thread that sleeps is woken ahead of the busy ones. Two clock
 * readings of a spin more than ITG__SPIN_GAP_NS apart mean the spin lost
 * the CPU in between (an interrupt, another thread, a virtual machine's
 * host). */
#define ITG__SPIN_CAP_NS 200000
#define ITG__SPIN_GAP_NS 20000

/* The share of spins that lose the CPU, in 1/ITG__SHARE_ONE: a hybrid
 * wait spins for ITG__MARGIN_MIN_NS only when it passes ITG__PREEMPT_ON
 * (above 1 %, the spin's 99th percentile is the scheduler's), and for its
 * tracked margin again once it is back under ITG__PREEMPT_OFF. */
#define ITG__SHARE_ONE 65536
#define ITG__PREEMPT_ON (ITG__SHARE_ONE / 50)
#define ITG__PREEMPT_OFF (ITG__SHARE_ONE / 1000)

/* Returns the share of preempted spins after one more hybrid wait: an
 * exponential average over about 256 spins of `preempted` (1: the spin
 * lost the CPU). A wait that spun for ITG__MARGIN_MIN_NS only (`spun` 0)
 * lets the share decay over about 1 024 waits, so that a pacer that fell
 * back tries the long spin again about 1 000 waits later. */
int32_t itg__preempt_update(int32_t share, int spun, int preempted);

/* Returns 1 if a hybrid wait is to spin for its tracked margin, 0 if for
 * ITG__MARGIN_MIN_NS only (its sleep then ends that much before the
 * instant: a wake-up later than that is no later than a plain sleep's),
 * from the tracked margin, the share of preempted spins and whether the
 * wait before spun for its margin: never where the margin is past
 * ITG__SPIN_CAP_NS, and with the hysteresis of ITG__PREEMPT_ON and
 * ITG__PREEMPT_OFF on the share. */
int itg__spin_pays(int spun, int64_t margin, int32_t preempt_share);

#endif
