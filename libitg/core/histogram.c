/* Log-bucketed histogram (see histogram.h). */
#include "core/histogram.h"

#include <stdlib.h>
#include <string.h>

#include "itg/common.h"

#define SUB ITG__HIST_SUB_BITS

/* Position of the highest set bit of m (m > 0), by halving. */
static int top_bit(uint64_t m) {
  int e = 0;
  for (int step = 32; step > 0; step /= 2) {
    if (m >> step) {
      m >>= step;
      e += step;
    }
  }
  return e;
}

/* The bucket key of a magnitude. */
static uint32_t key_of(uint64_t m) {
  int e;
  if (m < ((uint64_t)1 << SUB))
    return (uint32_t)m;
  e = top_bit(m);
  return (uint32_t)(((uint64_t)(e - SUB + 1) << SUB) +
                    ((m >> (e - SUB)) - ((uint64_t)1 << SUB)));
}

/* The midpoint magnitude of a bucket, the inverse of key_of. */
static uint64_t mid_of(uint32_t key) {
  uint32_t group = key >> SUB;
  uint64_t lo, width;
  int e;
  if (group == 0)
    return key;
  e = (int)group + SUB - 1;
  width = (uint64_t)1 << (e - SUB);
  lo = ((uint64_t)1 << e) + (uint64_t)(key & ((1u << SUB) - 1)) * width;
  return lo + (width - 1) / 2;
}

/* -m as int64, saturating at INT64_MIN (the top bucket's midpoint lies
 * beyond it). */
static int64_t negate(uint64_t m) {
  if (m >= (uint64_t)INT64_MAX + 1)
    return INT64_MIN;
  return -(int64_t)m;
}

void itg__hist_init(itg__hist *h) { memset(h, 0, sizeof *h); }

void itg__hist_clear(itg__hist *h) {
  for (int side = 0; side < 2; side++)
    for (int c = 0; c < ITG__HIST_CHUNKS; c++)
      free(h->chunk[side][c]);
  itg__hist_init(h);
}

/* Adds n to the bucket key of one side, allocating its chunk. */
static int bump(itg__hist *h, int side, uint32_t key, uint64_t n) {
  uint64_t **slot = &h->chunk[side][key / ITG__HIST_CHUNK];
  if (*slot == NULL) {
    *slot = calloc(ITG__HIST_CHUNK, sizeof **slot);
    if (*slot == NULL)
      return ITG_ENOMEM;
  }
  (*slot)[key % ITG__HIST_CHUNK] += n;
  h->count += n;
  return 0;
}

int itg__hist_add(itg__hist *h, int64_t v) {
  if (v >= 0)
    return bump(h, 0, key_of((uint64_t)v), 1);
  return bump(h, 1, key_of((uint64_t)0 - (uint64_t)v), 1);
}

int itg__hist_merge(itg__hist *dst, const itg__hist *src) {
  for (int side = 0; side < 2; side++) {
    for (uint32_t c = 0; c < ITG__HIST_CHUNKS; c++) {
      const uint64_t *from = src->chunk[side][c];
      if (from == NULL)
        continue;
      for (uint32_t k = 0; k < ITG__HIST_CHUNK; k++) {
        if (from[k] == 0)
          continue;
        int rc = bump(dst, side, c * ITG__HIST_CHUNK + k, from[k]);
        if (rc != 0)
          return rc;
      }
    }
  }
  return 0;
}

/* ceil(n * ppm / 1e6) without overflow, at least 1. */
static uint64_t rank_of(uint64_t n, uint32_t ppm) {
  uint64_t r =
      (n / 1000000u) * ppm + ((n % 1000000u) * ppm + 999999u) / 1000000u;
  return r == 0 ? 1 : r;
}

int64_t itg__hist_quantile(const itg__hist *h, uint32_t ppm) {
  uint64_t rank, seen = 0;
  if (h->count == 0)
    return 0;
  rank = rank_of(h->count, ppm);
  /* Negative values first, the largest magnitude (smallest value) first. */
  for (int c = ITG__HIST_CHUNKS - 1; c >= 0; c--) {
    const uint64_t *ch = h->chunk[1][c];
    if (ch == NULL)
      continue;
    for (int k = ITG__HIST_CHUNK - 1; k >= 0; k--) {
      seen += ch[k];
      if (ch[k] != 0 && seen >= rank)
        return negate(mid_of((uint32_t)(c * ITG__HIST_CHUNK + k)));
    }
  }
  for (int c = 0; c < ITG__HIST_CHUNKS; c++) {
    const uint64_t *ch = h->chunk[0][c];
    if (ch == NULL)
      continue;
    for (int k = 0; k < ITG__HIST_CHUNK; k++) {
      seen += ch[k];
      if (ch[k] != 0 && seen >= rank)
        return (int64_t)mid_of((uint32_t)(c * ITG__HIST_CHUNK + k));
    }
  }
  return 0;
}
