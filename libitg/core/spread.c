#include "core/spread.h"

#include <math.h>
#include <stdlib.h>

#include "itg/common.h"

typedef struct member {
  int64_t delay_ns;
  size_t index;
} member;

/* By delay, then by the order the flows were given. */
static int by_delay(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->delay_ns != y->delay_ns)
    return x->delay_ns < y->delay_ns ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static double period_of(double mean_ns) {
  if (!isfinite(mean_ns) || mean_ns <= 0)
    return 0;
  return fmin(mean_ns, (double)ITG__SPREAD_MAX_NS);
}

int itg__spread(const int64_t *delay_ns, const double *period_ns, size_t n,
                int64_t *offset_ns) {
  member *m;
  size_t i, start = 0;
  if (n == 0)
    return 0;
  m = malloc(n * sizeof *m);
  if (m == NULL)
    return ITG_ENOMEM;
  for (i = 0; i < n; i++) {
    m[i].delay_ns = delay_ns[i];
    m[i].index = i;
  }
  qsort(m, n, sizeof *m, by_delay);
  while (start < n) {
    size_t end = start + 1, k;
    while (end < n && m[end].delay_ns == m[start].delay_ns)
      end++;
    for (k = start; k < end; k++)
      offset_ns[m[k].index] = (int64_t)llround(
          period_of(period_ns[m[k].index]) * (double)(k - start) /
          (double)(end - start));
    start = end;
  }
  free(m);
  return 0;
}
