/* The pacer: turns a stream of inter-departure times into departure
 * instants on an absolute schedule, t_k = t_0 + IDT_1 + ... + IDT_k, on the
 * monotonic clock. A departure that comes late does not push the ones after
 * it: lateness never accumulates.
 *
 * Wait modes:
 *   HYBRID (default)  sleep until a calibrated margin before the instant,
 *                     then spin on the monotonic clock: microsecond
 *                     precision at a small CPU cost;
 *   SLEEP             sleep only: lowest CPU, precision of the OS timer;
 *   SPIN              spin only: best precision, a whole core.
 * In every mode a wait never returns before its instant.
 *
 * HYBRID's margins are measured once per process, by the first HYBRID
 * itg_pacer_new (about 30 ms: 25 sleeps of 100 us and 25 of 1 ms). The
 * margin, how early the last sleep ends before the spin, is the 90th
 * percentile of how late the short sleeps woke plus 10 us, kept within
 * [20 us, 2 ms]. Where long sleeps wake markedly later than short ones (deep
 * CPU idle states, virtual machines), a far instant is approached in two
 * sleeps: the first ends early by the long sleeps' 90th percentile plus
 * the margin, the second by the margin. From then on each pacer keeps both
 * at the 90th percentile of how late its own sleeps of each stage woke,
 * so that it follows the machine as the timer's latency changes (load,
 * idle states, a virtual machine's host). The spin pays only while it
 * holds the CPU: where the tracked margin passes 200 us (a busy machine,
 * whose scheduler takes the CPU first from a thread that spins long), or
 * more than 2 % of the spins lose the CPU (two clock readings 20 us
 * apart), a HYBRID wait sleeps until 20 us before its instant and spins
 * only those, so that it is never later than a plain sleep would be; it
 * spins for its margin again once the sleeps wake within 200 us and,
 * after lost spins, once a trial about 1 000 waits later keeps the CPU.
 * Setting the environment variable
 * ITG_PACER_MARGIN_NS to a number of nanoseconds (0 to 1e9) before that
 * replaces the measurement, the tracking and the fallback, for
 * experiments: one sleep ending that early, then the spin.
 *
 * A pacer is used by one thread at a time. On Linux the thread that waits
 * gets a timer slack of 1 ns (a per-thread setting) on its first sleep.
 */
#ifndef ITG_PACER_H
#define ITG_PACER_H

#include "itg/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum itg_wait_mode {
  ITG_WAIT_HYBRID = 0,
  ITG_WAIT_SLEEP = 1,
  ITG_WAIT_SPIN = 2
} itg_wait_mode;

typedef struct itg_pacer_stats {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint64_t departures;   /* instants waited for */
  uint64_t late;         /* departures reached after their instant + 1 us */
  int64_t late_max_ns;   /* largest lateness seen */
  int64_t late_sum_ns;   /* sum of lateness, for the mean */
} itg_pacer_stats;

/* A pacer is opaque: it may gain fields in any release. The per-packet
 * calls (itg_pacer_wait, _advance, _wait_until) reach it through the one
 * pointer the caller holds, which costs nothing measurable next to
 * reading the clock. */
typedef struct itg_pacer itg_pacer;

/* Returns the monotonic clock in nanoseconds (arbitrary origin). */
ITG_API int64_t itg_clock_mono_ns(void);

/* Returns the wall clock in nanoseconds since the Unix epoch (UTC). */
ITG_API int64_t itg_clock_real_ns(void);

/* Creates a pacer whose schedule starts at start_ns (monotonic clock; the
 * first departure is at start_ns + the first IDT passed to
 * itg_pacer_wait), with zeroed counters. Returns 0, ITG_EINVAL (NULL out
 * or an unknown mode) or ITG_ENOMEM. */
ITG_API int itg_pacer_new(itg_wait_mode mode, int64_t start_ns,
                          itg_pacer **out);

/* Frees a pacer; NULL is accepted. */
ITG_API void itg_pacer_free(itg_pacer *p);

/* Advances the schedule by idt_ns without waiting (a negative idt_ns
 * counts as 0; the instant stops at INT64_MAX rather than wrap), and
 * returns the new instant. Used to see which departures are already due;
 * it counts no departure. */
ITG_API int64_t itg_pacer_advance(itg_pacer *p, int64_t idt_ns);

/* Returns the next scheduled instant. */
ITG_API int64_t itg_pacer_next(const itg_pacer *p);

/* Waits until the instant `deadline_ns` (monotonic) in the pacer's mode and
 * records how late it woke as one departure; the schedule is not touched.
 * Returns the lateness in ns (>= 0), at once if the instant has passed. */
ITG_API int64_t itg_pacer_wait_until(itg_pacer *p, int64_t deadline_ns);

/* Advances the schedule by idt_ns and waits for the new instant: the usual
 * call once per packet. Returns the lateness in ns (>= 0). */
ITG_API int64_t itg_pacer_wait(itg_pacer *p, int64_t idt_ns);

/* Copies the pacer's lateness counters into *out. Returns 0, or
 * ITG_EINVAL (NULL argument, or a size this library does not know: the
 * macro passes sizeof *out). */
ITG_API int itg_pacer_get_stats_size(const itg_pacer *p, itg_pacer_stats *out,
                                     size_t size);
#ifndef SWIG
#define itg_pacer_get_stats(p, out)                                            \
  itg_pacer_get_stats_size((p), (out), sizeof *(out))
#endif

#ifdef __cplusplus
}
#endif
#endif
