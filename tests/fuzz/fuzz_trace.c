/* Trace files (-Ft, -Fs): the input is the file. What reads is bounded
 * (at most ITG_DIST_TRACE_MAX values, lines of at most ITG_DIST_LINE_MAX
 * bytes) and replays as an empirical law, each draw one of its values. */
#include <math.h>

#include "fuzz.h"
#include "itg/dist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  double *v = NULL;
  size_t n = 0, bad = 0;
  itg_dist *d = NULL;
  int rc = itg_dist_read_file(path, &v, &n, &bad);
  if (rc != 0) {
    FUZZ_CHECK(v == NULL);
    FUZZ_CHECK((rc == ITG_EBADMSG) == (bad > 0));
    return 0;
  }
  FUZZ_CHECK(n > 0 && n <= ITG_DIST_TRACE_MAX && n <= size);
  FUZZ_CHECK(itg_dist_new_empirical(v, n, &d) == 0);
  for (size_t i = 0; i < n && i < 64; i++)
    FUZZ_CHECK(itg_dist_next(d) == v[i]);
  FUZZ_CHECK(isfinite(itg_dist_mean(d)));
  itg_dist_free(d);
  itg_free(v);
  return 0;
}
