/* A D-ITG log as itg-dec reads it: the input is the file, told binary or
 * text by its content, decoded into statistics and an interval series,
 * its records written back out as a D-ITG log (to /dev/null), with the
 * first record's day given and from the file's modification time. Every
 * record placed keeps its send time within half a day of its receive
 * time, and its date within ITG_DITG_MAX_DAYS of the first day (so no
 * computed time overflows); decoding ends and its memory stays bounded. */
#include <string.h>

#include "fuzz.h"
#include "itg/ditg.h"

#define DAY (INT64_C(86400) * 1000000000)
#define DAY0 (INT64_C(20416) * DAY)

typedef struct seen {
  itg_ditg_writer *w;
  int64_t day;
} seen;

static void check_batch(itg_logrec *recs, size_t n, size_t file, void *user) {
  seen *s = user;
  (void)file;
  for (size_t i = 0; i < n; i++) {
    int64_t d = recs[i].rx_ns - recs[i].tx_ns;
    FUZZ_CHECK(recs[i].flags == ITG_REC_RX);
    FUZZ_CHECK(recs[i].size > 0);
    FUZZ_CHECK(d >= -DAY / 2 && d <= DAY / 2);
    if (s->day != ITG_DITG_DAY_MTIME)
      FUZZ_CHECK(recs[i].rx_ns - s->day <= (ITG_DITG_MAX_DAYS + 1) * DAY &&
                 s->day - recs[i].rx_ns <= ITG_DITG_MAX_DAYS * DAY);
  }
  FUZZ_CHECK(itg_ditg_writer_write(s->w, recs, n) == 0);
}

static void decode(const char *path, size_t size, int64_t day) {
  itg_decode_status st;
  itg_ditg_cfg cfg;
  itg_stats *stats = NULL;
  itg_series *ser = NULL;
  seen s = {NULL, day};
  itg_decode_map map = {check_batch, &s};
  itg_flow_stats f;
  FUZZ_CHECK(itg_stats_new(&stats) == 0);
  FUZZ_CHECK(itg_series_new(10000000, ITG_STATS_OWD, &ser) == 0);
  FUZZ_CHECK(itg_ditg_writer_open("/dev/null", ITG_STATS_OWD, &s.w) == 0);
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = day;
  (void)itg_ditg_decode_files(&path, 1, &cfg, &map, stats, ser, &st);
  FUZZ_CHECK(st.opened || st.records == 0);
  FUZZ_CHECK(st.offset <= size);
  FUZZ_CHECK(st.records <= size / 40 + 1);
  for (size_t i = 0; i < itg_stats_flow_count(stats); i++) {
    FUZZ_CHECK(itg_stats_flow(stats, i, &f) == 0);
    FUZZ_CHECK(f.lost <= f.expected);
    FUZZ_CHECK(f.loss_pct >= 0 && f.loss_pct <= 100);
  }
  FUZZ_CHECK(itg_ditg_writer_close(s.w) == 0);
  itg_series_free(ser);
  itg_stats_free(stats);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  itg_log_format fmt;
  FUZZ_CHECK(itg_log_format_of(path, &fmt) == 0);
  FUZZ_CHECK(fmt == itg_log_format_detect(data, size));
  decode(path, size, DAY0);
  decode(path, size, ITG_DITG_DAY_MTIME);
  return 0;
}
