/* A running estimate of a high quantile of a stream of durations, kept
 * without storing them: the pacer's sleep margin follows the 90th
 * percentile of its wake-ups' lateness, a flow's catch-up slack the 99th
 * of its departures'. */
#ifndef ITG_CORE_QUANTILE_H
#define ITG_CORE_QUANTILE_H

#include <stdint.h>

/* Returns the estimate after one more sample: a Robbins-Monro step of an
 * eighth of the estimate (so it is as quick at 20 us as at 2 ms), split
 * per_mille : 1000 - per_mille between rising on a sample above the
 * estimate and falling on one at or below it, which settles where
 * per_mille / 1000 of the samples are below. Kept within [lo, hi]. */
int64_t itg__quantile_step(int64_t estimate, int64_t sample, int per_mille,
                           int64_t lo, int64_t hi);

#endif
