/* A log-bucketed histogram of signed 64-bit values (delays in ns) with
 * bounded memory, for percentiles.
 *
 * A magnitude m below 2^ITG__HIST_SUB_BITS has a bucket of its own; above,
 * each power of two [2^e, 2^(e+1)) is cut into 2^ITG__HIST_SUB_BITS equal
 * buckets, so a bucket is at most 1/1024 of its lower bound wide and its
 * midpoint is within 2^-11 (0.05 %) of any value in it. Negative values
 * go to a mirror set of buckets. Buckets are counted in chunks allocated
 * when first hit: at most 8 KiB per power of two the values span. */
#ifndef ITG_HISTOGRAM_H
#define ITG_HISTOGRAM_H

#include <stdint.h>

#define ITG__HIST_SUB_BITS 10
#define ITG__HIST_KEYS ((64 - ITG__HIST_SUB_BITS + 1) << ITG__HIST_SUB_BITS)
#define ITG__HIST_CHUNK 256
#define ITG__HIST_CHUNKS (ITG__HIST_KEYS / ITG__HIST_CHUNK)

typedef struct itg__hist {
  uint64_t count;
  uint64_t *chunk[2][ITG__HIST_CHUNKS]; /* [0] values >= 0, [1] < 0 */
} itg__hist;

/* Sets up an empty histogram (no allocation). */
void itg__hist_init(itg__hist *h);

/* Releases the chunks; the histogram is empty afterwards. */
void itg__hist_clear(itg__hist *h);

/* Counts one value. Returns 0 or ITG_ENOMEM. */
int itg__hist_add(itg__hist *h, int64_t v);

/* Adds every count of src to dst. Returns 0 or ITG_ENOMEM. */
int itg__hist_merge(itg__hist *dst, const itg__hist *src);

/* Returns the nearest-rank quantile for ppm parts per million (0 < ppm <=
 * 1000000): the representative of the bucket holding the sample of rank
 * ceil(count * ppm / 1e6). Returns 0 for an empty histogram. */
int64_t itg__hist_quantile(const itg__hist *h, uint32_t ppm);

#endif
