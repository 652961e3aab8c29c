/* splitmix64 (Steele, Lea and Flood, 2014), the library's one 64-bit
 * mixer: its output function spreads nearby inputs far apart (a flow's
 * laws get seeds of their own from the flow's seed, as itg/sender.h
 * documents), and the generator built on it numbers the log server's
 * sessions. The tests draw their numbers from it too. */
#ifndef ITG_CORE_MIX_H
#define ITG_CORE_MIX_H

#include <stdint.h>

/* splitmix64's increment: 2^64 divided by the golden ratio, odd. */
#define ITG__GOLDEN 0x9E3779B97F4A7C15ull

/* splitmix64's output function. */
static inline uint64_t itg__mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Advances the generator's state and returns its next number. */
static inline uint64_t itg__splitmix64(uint64_t *state) {
  return itg__mix64(*state += ITG__GOLDEN);
}

#endif
