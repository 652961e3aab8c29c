/* The timeouts' check period (see sweep.h). */
#include "core/sweep.h"

uint64_t itg__sweep_every(uint64_t shortest_ms) {
  /* A quarter of it: a connection goes at most 25 % late. */
  uint64_t every = shortest_ms / 4;
  if (every < ITG__SWEEP_MIN_MS)
    return ITG__SWEEP_MIN_MS;
  return every > ITG__SWEEP_MAX_MS ? ITG__SWEEP_MAX_MS : every;
}
