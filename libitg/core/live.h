/* One flow's counts for live reports, taken while the flow runs: totals
 * since it opened, and an interval accumulator that each take reads and
 * starts anew. The interval's numbers follow the interval series of
 * itg/stats.h: a packet counts where it arrives; the sequence numbers it
 * skips over the highest one before it count as lost in its interval (the
 * far-number rule of seqwin.h applies), a late packet gives none back;
 * jitter is D-ITG's, over the pairs whose later packet falls in the
 * interval; p99 is the nearest rank read from a histogram.h histogram,
 * emptied at each take, so memory follows one interval's delays. */
#ifndef ITG_CORE_LIVE_H
#define ITG_CORE_LIVE_H

#include <stdint.h>

#include "core/histogram.h"
#include "itg/log.h"
#include "itg/receiver.h"

typedef struct itg__live {
  uint64_t packets, bytes, lost; /* since the flow opened */
  uint64_t top, held;            /* highest sequence number, a far one held */
  int64_t prev_delay;
  int have_prev;
  /* the interval */
  int64_t i_start; /* when it began, on the caller's clock */
  uint64_t i_packets, i_bytes, i_lost, i_jit_n;
  double i_delay_sum, i_jit_sum;
  itg__hist i_hist;
} itg__live;

/* Sets up empty counts (no allocation), the interval beginning at now
 * (a monotonic clock of the caller's). */
void itg__live_init(itg__live *l, int64_t now);

/* Counts one arrival. Returns 0, or ITG_ENOMEM when the histogram could
 * not grow (the packet is counted all the same, but is no p99 sample). */
int itg__live_add(itg__live *l, const itg_logrec *rec);

/* The flow ended having sent `sent` packets (0: not known): those after
 * the highest number received count as lost in this interval. */
void itg__live_end(itg__live *l, uint64_t sent);

/* Fills the count fields of *out (packets ... int_jitter_avg_ns) and
 * starts a new interval at now (the clock of itg__live_init). */
void itg__live_take(itg__live *l, int64_t now, itg_receiver_flow_live *out);

/* Releases the histogram's memory. */
void itg__live_clear(itg__live *l);

#endif
