/* A running high quantile (core/quantile.h). */
#include "core/quantile.h"

#define STEP_DIV 8

int64_t itg__quantile_step(int64_t estimate, int64_t sample, int per_mille,
                           int64_t lo, int64_t hi) {
  int64_t step = estimate / STEP_DIV;
  if (sample > estimate)
    estimate += step * per_mille / 1000;
  else
    estimate -= step * (1000 - per_mille) / 1000;
  return estimate < lo ? lo : estimate > hi ? hi : estimate;
}
