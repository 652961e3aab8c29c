/* A log file as itg-dec reads it: the input is the file. It is decoded
 * into statistics and an interval series, which are then reported (text
 * of the JSON report and the CSV), as the decoder does. Every report is
 * of bounded size and decoding ends (a record with sequence number 2^64-1
 * once made it loop for ever). */
#include <string.h>

#include "fuzz.h"
#include "itg/stats.h"

static void report(const itg_stats *s, const itg_series *ser) {
  static char buf[1 << 16];
  size_t need = 0;
  itg_flow_stats f;
  size_t n = itg_stats_flow_count(s);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(itg_stats_flow(s, i, &f) == 0);
    FUZZ_CHECK(f.lost <= f.expected);
    FUZZ_CHECK(f.loss_pct >= 0 && f.loss_pct <= 100);
  }
  (void)itg_stats_json(s, buf, sizeof buf, &need);
  if (ser != NULL)
    (void)itg_series_csv(ser, ITG_SERIES_COMBINED, 0, 64, buf, sizeof buf,
                         &need);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  itg_decode_status st;
  itg_stats *s = NULL;
  itg_series *ser = NULL;
  FUZZ_CHECK(itg_stats_new(&s) == 0);
  /* 10 ms intervals: a log's span often exceeds the series' cell limit,
   * which is then refused (ITG_ELIMIT), as itg-dec reports it. */
  FUZZ_CHECK(itg_series_new(10000000, ITG_STATS_OWD, &ser) == 0);
  if (itg_decode_files(&path, 1, s, ser, &st) == ITG_ELIMIT) {
    itg_series_free(ser);
    ser = NULL;
  }
  FUZZ_CHECK(st.opened || st.records == 0);
  FUZZ_CHECK(!st.opened || st.offset <= size);
  report(s, ser);
  itg_series_free(ser);
  itg_stats_free(s);
  return 0;
}
