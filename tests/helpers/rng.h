/* splitmix64: a small random generator for the cmocka tests, so that a
 * fixed seed gives the same numbers on every machine. */
#ifndef ITG_TEST_RNG_H
#define ITG_TEST_RNG_H

#include <stdint.h>

/* Advances the state *s and returns the next number. */
uint64_t rng_next(uint64_t *s);

#endif
