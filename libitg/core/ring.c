/* The SPSC record ring (see ring.h). */
#include "core/ring.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "itg/common.h"

/* Keeps the two indices on different cache lines, so the producer's
 * stores to head do not keep taking the line holding tail away from the
 * consumer, and back. Padding rather than _Alignas: malloc does not promise
 * 64-byte alignment, but 64 bytes apart two fields never share a line. */
#define ITG__CACHE_LINE 64

struct itg__ring {
  uint32_t mask;
  char pad0[ITG__CACHE_LINE];
  _Atomic uint32_t head; /* next slot to fill; written by the producer */
  char pad1[ITG__CACHE_LINE];
  _Atomic uint32_t tail; /* next slot to empty; written by the consumer */
  char pad2[ITG__CACHE_LINE];
  itg_logrec slot[];
};

int itg__ring_new(uint32_t capacity, itg__ring **out) {
  uint32_t cap = 1;
  itg__ring *r;
  if (capacity == 0 || capacity > ITG__RING_MAX_CAPACITY)
    return ITG_EINVAL;
  while (cap < capacity)
    cap <<= 1;
  r = malloc(sizeof *r + (size_t)cap * sizeof r->slot[0]);
  if (r == NULL)
    return ITG_ENOMEM;
  r->mask = cap - 1;
  atomic_init(&r->head, 0);
  atomic_init(&r->tail, 0);
  *out = r;
  return 0;
}

void itg__ring_free(itg__ring *r) { free(r); }

uint32_t itg__ring_capacity(const itg__ring *r) { return r->mask + 1; }

uint32_t itg__ring_push(itg__ring *r, const itg_logrec *rec) {
  uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  uint32_t held = head - tail;
  if (held > r->mask)
    return 0;
  r->slot[head & r->mask] = *rec;
  atomic_store_explicit(&r->head, head + 1, memory_order_release);
  return held + 1;
}

size_t itg__ring_pop(itg__ring *r, itg_logrec *out, size_t n) {
  uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  uint32_t held = head - tail;
  uint32_t first = tail & r->mask;
  size_t take = n < held ? n : held;
  size_t before_wrap = (size_t)r->mask + 1 - first;
  size_t part = take < before_wrap ? take : before_wrap;
  if (take == 0)
    return 0;
  memcpy(out, &r->slot[first], part * sizeof *out);
  memcpy(out + part, &r->slot[0], (take - part) * sizeof *out);
  atomic_store_explicit(&r->tail, tail + (uint32_t)take, memory_order_release);
  return take;
}

uint32_t itg__ring_held(itg__ring *r) {
  uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  return atomic_load_explicit(&r->head, memory_order_acquire) - tail;
}
