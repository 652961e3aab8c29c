/* The pacer's state, for the library's own pacers: the sender keeps one on
 * its sending thread's stack rather than on the heap. Callers outside the
 * library see only the opaque itg_pacer (itg/pacer.h). */
#ifndef ITG_CORE_PACER_H
#define ITG_CORE_PACER_H

#include "itg/pacer.h"

struct itg_pacer {
  int64_t next_ns;   /* the next departure instant, monotonic clock */
  int64_t margin_ns; /* how early HYBRID's last sleep ends */
  int64_t coarse_ns; /* how much earlier HYBRID's first sleep ends than
                        its last one (0: one sleep) */
  itg_wait_mode mode;
  int margin_tracks; /* 1: margin_ns follows the sleeps' overshoots, and
                        HYBRID spins for it only where that pays
                        (core/margin.h) */
  int spun;          /* HYBRID's last wait spun for margin_ns (0: for
                        ITG__MARGIN_MIN_NS only) */
  int32_t preempted; /* share of HYBRID's spins that lost the CPU */
  itg_pacer_stats stats;
};

/* Sets up *p as itg_pacer_new sets up the pacer it creates. Returns 0,
 * ITG_EINVAL (an unknown mode) or an error of the platform's set-up. */
int itg__pacer_init(itg_pacer *p, itg_wait_mode mode, int64_t start_ns);

#endif
