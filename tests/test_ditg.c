/* D-ITG's logs (itg/ditg.h): records packed here by the layout D-ITG
 * 2.8.1 writes (struct info of its common/ITG.h, as its ITGRecv wrote it on
 * this kind of machine), decoded into the statistics; runs across
 * midnight, dated by a given day or by the file's modification time;
 * ITGDec's text lines; malformed and truncated logs; flows D-ITG tells
 * apart by address; and the writer's records read back. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "helpers/tmpdir.h"
#include "itg.h"

#define REC ITG_DITG_RECORD_LEN
#define SEC INT64_C(1000000000)
#define MS INT64_C(1000000)
#define US INT64_C(1000)
#define DAY (86400 * SEC)
/* 2025-11-24, midnight UTC. */
#define DAY0 (INT64_C(20416) * DAY)

static char dir[1024];

static int setup(void **state) {
  (void)state;
  return tmpdir_make(dir, sizeof dir, "itg_test_ditg_") == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return tmpdir_remove(dir) == 0 ? 0 : -1;
}

static void path_of(const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s", dir, name);
}

/* ---- D-ITG's record, packed by its layout -------------------------------- */

typedef struct drec {
  uint32_t flow, seq, sport, dport, size;
  int64_t tx_us, rx_us; /* times of the day, microseconds */
  const char *src, *dst;
} drec;

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static void put_tod(uint8_t *hm, uint8_t *sec, int64_t us) {
  /* As D-ITG does: hour, minute, then sec % 60 + usec / 1e6. */
  double s = (double)(us / 1000000 % 60) + (double)(us % 1000000) / 1e6;
  put32(hm, (uint32_t)(us / 3600000000));
  put32(hm + 4, (uint32_t)(us / 60000000 % 60));
  memcpy(sec, &s, 8);
}

/* Host byte order (little endian here), no padding: 9 u32, two char[46],
 * two doubles at 128 and 136. */
static void pack(uint8_t *b, const drec *r) {
  memset(b, 0, REC);
  put32(b, r->flow);
  put32(b + 4, r->seq);
  put32(b + 8, r->sport);
  put32(b + 12, r->dport);
  put_tod(b + 16, b + 128, r->tx_us);
  put_tod(b + 24, b + 136, r->rx_us);
  put32(b + 32, r->size);
  strcpy((char *)b + 36, r->src);
  strcpy((char *)b + 82, r->dst);
}

static void put_file(const char *path, const void *bytes, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* Writes n records to path. */
static void put_log(const char *path, const drec *r, size_t n) {
  uint8_t *b = calloc(n ? n : 1, REC);
  assert_non_null(b);
  for (size_t i = 0; i < n; i++)
    pack(b + i * REC, &r[i]);
  put_file(path, b, n * REC);
  free(b);
}

/* ITGDec -l's line for r (its writeline). */
static int line_of(char *buf, size_t len, const drec *r) {
  return snprintf(buf, len,
                  "Flow>%04u Seq>%7u Src>%46s/%hu Dest>%46s/%hu "
                  "txTime>%u:%u:%lf rxTime>%u:%u:%lf Size>%5u\n",
                  r->flow, r->seq, r->src, (unsigned short)r->sport, r->dst,
                  (unsigned short)r->dport,
                  (unsigned)(r->tx_us / 3600000000),
                  (unsigned)(r->tx_us / 60000000 % 60),
                  (double)(r->tx_us % 60000000) / 1e6,
                  (unsigned)(r->rx_us / 3600000000),
                  (unsigned)(r->rx_us / 60000000 % 60),
                  (double)(r->rx_us % 60000000) / 1e6, r->size);
}

static void put_text(const char *path, const drec *r, size_t n) {
  FILE *f = fopen(path, "wb");
  char line[600];
  assert_non_null(f);
  for (size_t i = 0; i < n; i++) {
    int k = line_of(line, sizeof line, &r[i]);
    assert_int_equal(fwrite(line, 1, (size_t)k, f), (size_t)k);
  }
  assert_int_equal(fclose(f), 0);
}

/* Decodes one file with the first record's day given (or the mtime's,
 * for day ITG_DITG_DAY_MTIME) into a new stats object. */
static int decode(const char *path, int64_t day, itg_stats **s,
                  itg_decode_status *st) {
  itg_ditg_cfg cfg;
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = day;
  assert_int_equal(itg_stats_new(s), 0);
  return itg_ditg_decode_files(&path, 1, &cfg, NULL, *s, NULL, st);
}

/* A flow of 10 packets, 10 ms apart from 12:00:00, delays 1, 2, 3, ...
 * ms but seq 4 lost. */
static size_t noon_flow(drec *r) {
  size_t n = 0;
  for (uint32_t seq = 1; seq <= 10; seq++) {
    int64_t tx = (int64_t)12 * 3600000000 + (int64_t)seq * 10000;
    if (seq == 4)
      continue;
    r[n++] = (drec){1, seq, 40000, 5001, 100, tx, tx + seq * 1000,
                    "127.0.0.1", "127.0.0.2"};
  }
  return n;
}

/* The statistics of noon_flow, computed here from its definition. */
static void check_noon(const itg_stats *s) {
  itg_flow_stats f;
  double jit = 0, mean = 0;
  uint32_t prev = 0, pairs = 0, k = 0;
  assert_int_equal(itg_stats_flow_count(s), 1);
  assert_int_equal(itg_stats_flow(s, 0, &f), 0);
  assert_int_equal(f.flow_id, 1);
  assert_int_equal(f.meter, ITG_STATS_OWD);
  assert_int_equal(f.packets, 9);
  assert_int_equal(f.bytes, 900);
  assert_int_equal(f.expected, 10);
  assert_int_equal(f.lost, 1);
  assert_int_equal(f.delay_min_ns, 1 * MS);
  assert_int_equal(f.delay_max_ns, 10 * MS);
  for (uint32_t seq = 1; seq <= 10; seq++) {
    if (seq == 4)
      continue;
    mean += seq;
    if (k++ > 0) {
      jit += seq - prev;
      pairs++;
    }
    prev = seq;
  }
  assert_true(fabs(f.delay_avg_ns - mean / 9 * 1e6) < 1);
  assert_true(fabs(f.jitter_avg_ns - jit / pairs * 1e6) < 1);
  /* First arrival 12:00:00.011, last 12:00:00.110. */
  assert_int_equal(f.first_ns, DAY0 + 12 * 3600 * SEC + 11 * MS);
  assert_int_equal(f.duration_ns, 99 * MS);
}

/* ---- detection ----------------------------------------------------------- */

static void test_detect(void **state) {
  uint8_t b[REC + 8];
  drec r = {1, 1, 40000, 5001, 100, 1000, 2000, "127.0.0.1", "::1"};
  char line[600];
  (void)state;
  assert_int_equal(itg_log_format_detect((const uint8_t *)"ITGLOG\r\n", 8),
                   ITG_LOG_FORMAT_LIBITG);
  assert_int_equal(itg_log_format_detect((const uint8_t *)"ITG", 3),
                   ITG_LOG_FORMAT_LIBITG);
  pack(b, &r);
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_DITG);
  assert_int_equal(itg_log_format_detect(b, REC - 1), ITG_LOG_FORMAT_UNKNOWN);
  /* Each field out of its range makes it something else. */
  put32(b + 16, 24);
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  pack(b, &r);
  put32(b + 28, 60);
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  pack(b, &r);
  {
    double bad = NAN;
    memcpy(b + 136, &bad, 8);
    assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
    bad = 60.0;
    memcpy(b + 128, &bad, 8);
    assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  }
  pack(b, &r);
  memset(b + 36, 'a', 46); /* no NUL */
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  pack(b, &r);
  b[82] = ' ';
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  pack(b, &r);
  put32(b + 32, 0);
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  pack(b, &r);
  put32(b + 8, 65536);
  assert_int_equal(itg_log_format_detect(b, REC), ITG_LOG_FORMAT_UNKNOWN);
  /* Text: the first line whole. */
  line_of(line, sizeof line, &r);
  assert_int_equal(itg_log_format_detect((uint8_t *)line, strlen(line)),
                   ITG_LOG_FORMAT_DITG_TEXT);
  assert_int_equal(itg_log_format_detect((uint8_t *)line, strlen(line) - 1),
                   ITG_LOG_FORMAT_UNKNOWN);
  memcpy(strstr(line, "Size>"), "Sixe>", 5);
  assert_int_equal(itg_log_format_detect((uint8_t *)line, strlen(line)),
                   ITG_LOG_FORMAT_UNKNOWN);
}

/* ---- decoding ------------------------------------------------------------ */

static void test_binary(void **state) {
  drec r[10];
  size_t n = noon_flow(r);
  char path[1100];
  itg_decode_status st;
  itg_stats *s;
  (void)state;
  path_of("noon.log", path, sizeof path);
  put_log(path, r, n);
  assert_int_equal(decode(path, DAY0, &s, &st), 0);
  assert_int_equal(st.opened, 1);
  assert_int_equal(st.records, n);
  assert_int_equal(st.offset, n * REC);
  check_noon(s);
  itg_stats_free(s);
}

static void test_text(void **state) {
  drec r[10];
  size_t n = noon_flow(r);
  char path[1100];
  itg_decode_status st;
  itg_log_format fmt;
  itg_stats *s;
  (void)state;
  path_of("noon.txt", path, sizeof path);
  put_text(path, r, n);
  assert_int_equal(itg_log_format_of(path, &fmt), 0);
  assert_int_equal(fmt, ITG_LOG_FORMAT_DITG_TEXT);
  assert_int_equal(decode(path, DAY0, &s, &st), 0);
  assert_int_equal(st.records, n);
  check_noon(s);
  itg_stats_free(s);
}

/* 100 packets 1 ms apart, each 20 ms on the way, the 10th received at
 * midnight: the ones before it were sent and received on the day before,
 * the ones after on the next day, and two were sent before midnight and
 * received after. */
static size_t midnight_flow(drec *r) {
  for (uint32_t i = 0; i < 100; i++) {
    int64_t rx = INT64_C(86399991000) + (int64_t)i * 1000;
    int64_t tx = rx - 20000;
    r[i] = (drec){7, i + 1, 40000, 5001, 64, tx % 86400000000,
                  rx % 86400000000, "10.0.0.1", "10.0.0.2"};
  }
  return 100;
}

static void check_midnight(const itg_stats *s, int64_t first_day) {
  itg_flow_stats f;
  assert_int_equal(itg_stats_flow(s, 0, &f), 0);
  assert_int_equal(f.packets, 100);
  assert_int_equal(f.lost, 0);
  assert_int_equal(f.delay_min_ns, 20 * MS);
  assert_int_equal(f.delay_max_ns, 20 * MS);
  assert_int_equal(f.jitter_avg_ns, 0);
  assert_int_equal(f.first_ns, first_day + DAY - 9 * MS);
  assert_int_equal(f.duration_ns, 99 * MS);
}

static void test_midnight(void **state) {
  drec r[100];
  size_t n = midnight_flow(r);
  char path[1100];
  itg_decode_status st;
  itg_stats *s;
  uv_fs_t req;
  (void)state;
  path_of("midnight.log", path, sizeof path);
  put_log(path, r, n);
  /* The day given. */
  assert_int_equal(decode(path, DAY0, &s, &st), 0);
  check_midnight(s, DAY0);
  itg_stats_free(s);
  /* The file's modification time, a few minutes after the last record:
   * the last record is on the next day, so the first on DAY0. */
  assert_int_equal(uv_fs_utime(NULL, &req, path, (double)(DAY0 + DAY) / 1e9,
                               (double)(DAY0 + DAY + 300 * SEC) / 1e9, NULL),
                   0);
  uv_fs_req_cleanup(&req);
  assert_int_equal(decode(path, ITG_DITG_DAY_MTIME, &s, &st), 0);
  check_midnight(s, DAY0);
  itg_stats_free(s);
  /* Written a moment (within the slack) before the last record: the same
   * day still. */
  assert_int_equal(uv_fs_utime(NULL, &req, path, (double)(DAY0 + DAY) / 1e9,
                               (double)(DAY0 + DAY + 80 * MS) / 1e9, NULL),
                   0);
  uv_fs_req_cleanup(&req);
  assert_int_equal(decode(path, ITG_DITG_DAY_MTIME, &s, &st), 0);
  check_midnight(s, DAY0);
  itg_stats_free(s);
}

/* Records of two flows written out of time order around midnight (as
 * ITGRecv's per-flow buffers flush): a time of day far above the previous
 * one is the day before. */
static void test_midnight_out_of_order(void **state) {
  drec r[4] = {
      {1, 1, 1, 2, 10, 86399000000, 86399500000, "10.0.0.1", "10.0.0.2"},
      {2, 1, 3, 2, 10, 500000, 1000000, "10.0.0.3", "10.0.0.2"},
      {1, 2, 1, 2, 10, 86399900000, 86399950000, "10.0.0.1", "10.0.0.2"},
      /* Sent 1 ms before midnight by a clock ahead of the receiver's. */
      {2, 2, 3, 2, 10, 86399999000, 86399990000, "10.0.0.3", "10.0.0.2"},
  };
  char path[1100];
  itg_decode_status st;
  itg_flow_stats f;
  itg_stats *s;
  (void)state;
  path_of("order.log", path, sizeof path);
  put_log(path, r, 4);
  assert_int_equal(decode(path, DAY0, &s, &st), 0);
  assert_int_equal(itg_stats_flow(s, 0, &f), 0);
  assert_int_equal(f.delay_min_ns, 50 * MS);
  assert_int_equal(f.delay_max_ns, 500 * MS);
  assert_int_equal(f.first_ns, DAY0 + 86399500 * MS);
  assert_int_equal(itg_stats_flow(s, 1, &f), 0);
  assert_int_equal(f.flow_id, 2);
  assert_int_equal(f.delay_min_ns, -9 * MS);
  assert_int_equal(f.delay_max_ns, 500 * MS);
  assert_int_equal(f.first_ns, DAY0 + 86399990 * MS);
  assert_int_equal(f.last_ns, DAY0 + DAY + 1000 * MS);
  itg_stats_free(s);
}

static void test_malformed(void **state) {
  drec r[10];
  size_t n = noon_flow(r);
  uint8_t b[11 * REC];
  char path[1100];
  itg_decode_status st;
  itg_flow_stats f;
  itg_stats *s;
  (void)state;
  path_of("bad.log", path, sizeof path);
  for (size_t i = 0; i < n; i++)
    pack(b + i * REC, &r[i]);
  /* Record 3 damaged: its receive hour out of range. */
  put32(b + 3 * REC + 24, 99);
  put_file(path, b, n * REC);
  assert_int_equal(decode(path, DAY0, &s, &st), ITG_EBADMSG);
  assert_int_equal(st.opened, 1);
  assert_int_equal(st.error, ITG_EBADMSG);
  assert_int_equal(st.damaged, 1);
  assert_int_equal(st.skipped, 1);
  assert_int_equal(st.first_damage.block, 3);
  assert_int_equal(st.first_damage.offset, 3 * REC);
  assert_int_equal(st.records, n - 1);
  assert_int_equal(itg_stats_flow(s, 0, &f), 0);
  assert_int_equal(f.packets, n - 1);
  itg_stats_free(s);
  /* Cut inside the last record: the whole ones are counted. */
  pack(b + 3 * REC, &r[3]);
  put_file(path, b, n * REC - 50);
  assert_int_equal(decode(path, DAY0, &s, &st), ITG_ETRUNC);
  assert_int_equal(st.error, ITG_ETRUNC);
  assert_int_equal(st.records, n - 1);
  assert_int_equal(st.offset, (n - 1) * REC);
  itg_stats_free(s);
  /* Dated by a modification time before 1970: refused, not misdated. */
  {
    uv_fs_t req;
    assert_int_equal(uv_fs_utime(NULL, &req, path, 0.0, -86400.0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(decode(path, ITG_DITG_DAY_MTIME, &s, &st), ITG_ERANGE);
    assert_int_equal(st.opened, 0);
    assert_int_equal(st.error, ITG_ERANGE);
    itg_stats_free(s);
  }
  /* Not a D-ITG log. */
  put_file(path, "ITGLOG\r\n", 8);
  assert_int_equal(decode(path, DAY0, &s, &st), ITG_EBADMSG);
  assert_int_equal(st.opened, 0);
  itg_stats_free(s);
  /* Missing. */
  path_of("none.log", path, sizeof path);
  assert_int_equal(decode(path, DAY0, &s, &st), ITG_ENOENT);
  itg_stats_free(s);
}

static void test_text_malformed(void **state) {
  drec r[10];
  size_t n = noon_flow(r);
  char path[1100], text[8192], line[600], long_line[700];
  size_t len = 0;
  itg_decode_status st;
  itg_stats *s;
  (void)state;
  path_of("bad.txt", path, sizeof path);
  text[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    len += (size_t)line_of(line, sizeof line, &r[i]);
    strcat(text, line);
    if (i == 2) {
      memset(long_line, 'x', sizeof long_line - 2);
      long_line[sizeof long_line - 2] = '\n';
      long_line[sizeof long_line - 1] = '\0';
      strcat(text, long_line);
      len += sizeof long_line - 1;
    }
  }
  /* The last line cut before its newline. */
  put_file(path, text, len - 1);
  assert_int_equal(decode(path, DAY0, &s, &st), ITG_ETRUNC);
  assert_int_equal(st.damaged, 1);
  assert_int_equal(st.first_damage.block, 3);
  assert_int_equal(st.records, n - 1);
  assert_int_equal(st.offset, len - (size_t)line_of(line, sizeof line,
                                                     &r[n - 1]));
  itg_stats_free(s);
}

static uint32_t renamed[8][2];
static size_t nrenamed;

static void on_flow(const itg_ditg_flow *f, void *user) {
  (void)user;
  if (nrenamed < 8) {
    renamed[nrenamed][0] = f->ditg_flow_id;
    renamed[nrenamed][1] = f->flow_id;
  }
  nrenamed++;
}

/* Two senders' flows 1 to one receiver, then a flow 2 of a third: the
 * second flow 1 takes id 2 (above every id seen), so the third's becomes
 * 3. Sequence numbers per flow start at 1 each and show no loss. */
static void test_flows_apart(void **state) {
  drec r[6] = {
      {1, 1, 5000, 5001, 10, 0, 1000, "10.0.0.1", "10.0.0.9"},
      {1, 1, 5000, 5001, 10, 0, 1000, "10.0.0.2", "10.0.0.9"},
      {1, 2, 5000, 5001, 10, 2000, 3000, "10.0.0.1", "10.0.0.9"},
      {2, 1, 5000, 5001, 10, 2000, 3000, "10.0.0.3", "10.0.0.9"},
      {1, 2, 5000, 5001, 10, 2000, 3000, "10.0.0.2", "10.0.0.9"},
      {2, 2, 5000, 5001, 10, 4000, 5000, "10.0.0.3", "10.0.0.9"},
  };
  const char *path;
  char buf[1100];
  itg_ditg_cfg cfg;
  itg_stats *s;
  itg_flow_stats f;
  (void)state;
  path_of("apart.log", buf, sizeof buf);
  path = buf;
  put_log(path, r, 6);
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = DAY0;
  cfg.on_flow = on_flow;
  nrenamed = 0;
  assert_int_equal(itg_stats_new(&s), 0);
  assert_int_equal(itg_ditg_decode_files(&path, 1, &cfg, NULL, s, NULL,
                                         (itg_decode_status *)NULL),
                   0);
  assert_int_equal(nrenamed, 3);
  assert_int_equal(renamed[0][1], 1);
  assert_int_equal(renamed[1][0], 1);
  assert_int_equal(renamed[1][1], 2);
  assert_int_equal(renamed[2][0], 2);
  assert_int_equal(renamed[2][1], 3);
  assert_int_equal(itg_stats_flow_count(s), 3);
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(itg_stats_flow(s, i, &f), 0);
    assert_int_equal(f.packets, 2);
    assert_int_equal(f.lost, 0);
    assert_int_equal(f.duplicates, 0);
  }
  itg_stats_free(s);
}

static void test_bad_args(void **state) {
  const char *path = "x";
  itg_ditg_cfg cfg;
  (void)state;
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = DAY0 + 1; /* not a midnight */
  assert_int_equal(itg_ditg_decode_files(&path, 1, &cfg, NULL, NULL, NULL,
                                         (itg_decode_status *)NULL),
                   ITG_EINVAL);
  cfg.day_ns = ITG_DITG_DAY_MAX + DAY;
  assert_int_equal(itg_ditg_decode_files(&path, 1, &cfg, NULL, NULL, NULL,
                                         (itg_decode_status *)NULL),
                   ITG_EINVAL);
  assert_int_equal(itg_ditg_decode_files(NULL, 1, NULL, NULL, NULL, NULL,
                                         (itg_decode_status *)NULL),
                   ITG_EINVAL);
  assert_int_equal(itg_ditg_writer_open("x", ITG_STATS_MAIN, NULL),
                   ITG_EINVAL);
}

/* ---- writing ------------------------------------------------------------- */

static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static itg_ditg_flow seen_flow;

static void on_flow_seen(const itg_ditg_flow *f, void *user) {
  (void)user;
  seen_flow = *f;
}

/* A flow's addresses and ports go into every record written with it, and
 * read back the same; an address too long for D-ITG is refused. */
static void test_writer_flow(void **state) {
  itg_logrec rec = {7, 100, ITG_REC_RX, 1, DAY0 + SEC, DAY0 + SEC + MS};
  itg_ditg_flow fl, bad;
  char path[1100];
  const char *p = path;
  uint8_t b[REC];
  itg_ditg_writer *w;
  itg_ditg_cfg cfg;
  FILE *fp;
  (void)state;
  memset(&fl, 0, sizeof fl);
  strcpy(fl.src_addr, "10.1.2.3");
  strcpy(fl.dst_addr, "fe80::1");
  fl.src_port = 4321;
  fl.dst_port = 5001;
  bad = fl;
  memset(bad.dst_addr, 'a', sizeof bad.dst_addr);
  path_of("flow.log", path, sizeof path);
  assert_int_equal(itg_ditg_writer_open(path, ITG_STATS_OWD, &w), 0);
  assert_int_equal(itg_ditg_writer_write_flow(w, &rec, 1, &bad), ITG_EINVAL);
  assert_int_equal(itg_ditg_writer_write_flow(w, &rec, 1, &fl), 0);
  assert_int_equal(itg_ditg_writer_close(w), 0);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fread(b, 1, sizeof b, fp), REC);
  fclose(fp);
  assert_int_equal(get32(b), 7);
  assert_int_equal(get32(b + 8), 4321);
  assert_int_equal(get32(b + 12), 5001);
  assert_string_equal((char *)b + 36, "10.1.2.3");
  assert_string_equal((char *)b + 82, "fe80::1");
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = DAY0;
  cfg.on_flow = on_flow_seen;
  seen_flow.flow_id = 0;
  assert_int_equal(itg_ditg_decode_files(&p, 1, &cfg, NULL, NULL, NULL,
                                         (itg_decode_status *)NULL),
                   0);
  assert_int_equal(seen_flow.flow_id, 7);
  assert_int_equal(seen_flow.src_port, 4321);
  assert_int_equal(seen_flow.dst_port, 5001);
  assert_string_equal(seen_flow.src_addr, "10.1.2.3");
  assert_string_equal(seen_flow.dst_addr, "fe80::1");
}

static void test_writer(void **state) {
  itg_logrec recs[12];
  char path[1100];
  const char *p = path;
  uint8_t b[12 * REC];
  itg_ditg_writer *w;
  itg_stats *orig, *back;
  itg_flow_stats f, g;
  itg_ditg_cfg cfg;
  size_t n = 0;
  FILE *fp;
  (void)state;
  /* One-way records of flow 3 (seq 5 lost), its end, and a sender's
   * record, which an OWD writer passes over. */
  for (uint64_t seq = 1; seq <= 10; seq++) {
    int64_t tx = DAY0 + 7 * 3600 * SEC + (int64_t)seq * 10 * MS + 123;
    if (seq == 5)
      continue;
    recs[n++] = (itg_logrec){3, 200, ITG_REC_RX, seq, tx,
                             tx + (int64_t)seq * 37 * US + 456};
  }
  recs[n++] = (itg_logrec){3, 0, ITG_REC_RX | ITG_REC_FLOW_END, 10,
                           DAY0 + 8 * 3600 * SEC, 0};
  recs[n++] = (itg_logrec){3, 200, ITG_REC_TX, 11, DAY0, 0};
  path_of("export.log", path, sizeof path);
  assert_int_equal(itg_ditg_writer_open(path, ITG_STATS_OWD, &w), 0);
  assert_int_equal(itg_ditg_writer_write(w, recs, n), 0);
  assert_int_equal(itg_ditg_writer_count(w), 9);
  assert_int_equal(itg_ditg_writer_close(w), 0);
  /* D-ITG's layout, read here by its offsets. */
  fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fread(b, 1, sizeof b, fp), 9 * REC);
  fclose(fp);
  assert_int_equal(get32(b), 3);
  assert_int_equal(get32(b + 4), 1);
  assert_int_equal(get32(b + 8), 0);
  assert_int_equal(get32(b + 16), 7);
  assert_int_equal(get32(b + 20), 0);
  assert_int_equal(get32(b + 32), 200);
  assert_string_equal((char *)b + 36, "0.0.0.0");
  assert_string_equal((char *)b + 82, "0.0.0.0");
  {
    double tx, rx;
    memcpy(&tx, b + 128, 8);
    memcpy(&rx, b + 136, 8);
    assert_true(fabs(tx - 0.010000123) < 1e-12);
    assert_true(fabs(rx - 0.010037579) < 1e-12);
  }
  assert_int_equal(get32(b + 4 * REC + 4), 6);
  /* Read back: the same packets, delays to the nanosecond, bytes, loss. */
  assert_int_equal(itg_stats_new(&orig), 0);
  assert_int_equal(itg_stats_add(orig, recs, n - 2), 0);
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = DAY0;
  assert_int_equal(itg_stats_new(&back), 0);
  assert_int_equal(itg_ditg_decode_files(&p, 1, &cfg, NULL, back, NULL,
                                         (itg_decode_status *)NULL),
                   0);
  assert_int_equal(itg_stats_flow(orig, 0, &f), 0);
  assert_int_equal(itg_stats_flow(back, 0, &g), 0);
  assert_int_equal(g.flow_id, f.flow_id);
  assert_int_equal(g.packets, f.packets);
  assert_int_equal(g.bytes, f.bytes);
  assert_int_equal(g.lost, 1);
  assert_int_equal(g.lost, f.lost);
  assert_int_equal(g.delay_min_ns, f.delay_min_ns);
  assert_int_equal(g.delay_max_ns, f.delay_max_ns);
  assert_int_equal(g.first_ns, f.first_ns);
  assert_int_equal(g.duration_ns, f.duration_ns);
  assert_true(fabs(g.jitter_avg_ns - f.jitter_avg_ns) < 1e-3);
  itg_stats_free(orig);
  itg_stats_free(back);
  /* A sender's packets: receive time = send time, as ITGSend logs. */
  assert_int_equal(itg_ditg_writer_open(path, ITG_STATS_SENT, &w), 0);
  assert_int_equal(itg_ditg_writer_write(w, recs, n), 0);
  assert_int_equal(itg_ditg_writer_count(w), 1);
  assert_int_equal(itg_ditg_writer_close(w), 0);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fread(b, 1, sizeof b, fp), REC);
  fclose(fp);
  assert_int_equal(get32(b + 4), 11);
  assert_memory_equal(b + 16, b + 24, 8);
  assert_memory_equal(b + 128, b + 136, 8);
  /* A sequence number D-ITG cannot hold. */
  recs[0].seq = UINT64_C(1) << 32;
  assert_int_equal(itg_ditg_writer_open(path, ITG_STATS_OWD, &w), 0);
  assert_int_equal(itg_ditg_writer_write(w, recs, n), ITG_ERANGE);
  assert_int_equal(itg_ditg_writer_write(w, recs, 1), ITG_ERANGE);
  assert_int_equal(itg_ditg_writer_close(w), ITG_ERANGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_detect),
      cmocka_unit_test(test_binary),
      cmocka_unit_test(test_text),
      cmocka_unit_test(test_midnight),
      cmocka_unit_test(test_midnight_out_of_order),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_text_malformed),
      cmocka_unit_test(test_flows_apart),
      cmocka_unit_test(test_bad_args),
      cmocka_unit_test(test_writer),
      cmocka_unit_test(test_writer_flow),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
