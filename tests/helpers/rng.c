/* The tests' generator is the library's splitmix64 (see rng.h). */
#include "rng.h"

#include "core/mix.h"

uint64_t rng_next(uint64_t *s) { return itg__splitmix64(s); }
