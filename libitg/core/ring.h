/* A single-producer single-consumer ring of log records, lock-free.
 *
 * Threading contract: exactly one thread pushes and exactly one thread pops
 * (they may be the same thread). The producer publishes a record with a
 * release store of the head index and the consumer takes it after an
 * acquire load of it; the consumer hands slots back the same way through
 * the tail index, so neither side ever sees a half-written record. The
 * indices run freely and wrap modulo 2^32; the capacity is a power of two
 * no larger than 2^30, so head - tail is always the number held. */
#ifndef ITG_RING_H
#define ITG_RING_H

#include <stddef.h>
#include <stdint.h>

#include "itg/log.h"

#define ITG__RING_MAX_CAPACITY (1u << 30)

typedef struct itg__ring itg__ring;

/* Creates a ring holding at least `capacity` records (rounded up to a power
 * of two). Returns 0, ITG_EINVAL (capacity 0 or above
 * ITG__RING_MAX_CAPACITY) or ITG_ENOMEM. */
int itg__ring_new(uint32_t capacity, itg__ring **out);

/* Frees the ring; NULL is accepted. */
void itg__ring_free(itg__ring *r);

/* Returns the capacity (the rounded-up power of two). */
uint32_t itg__ring_capacity(const itg__ring *r);

/* Producer only: appends a copy of *rec. Returns the number of records the
 * ring holds with this one (1 to capacity), or 0 if the ring was full and
 * nothing was stored. */
uint32_t itg__ring_push(itg__ring *r, const itg_logrec *rec);

/* Consumer only: moves up to n of the oldest records to out[0..n).
 * Returns how many were moved (0 if the ring is empty). */
size_t itg__ring_pop(itg__ring *r, itg_logrec *out, size_t n);

/* Consumer only: returns how many records the ring holds now (the producer
 * may add more at once). */
uint32_t itg__ring_held(itg__ring *r);

#endif
