/* The logger: configuration checks, several producer threads pushing
 * through small rings with no record lost, duplicated or reordered, the
 * writer's timed flush, a full disk told at once with the records
 * lost counted exactly, and a sink of the test's own plugged into the
 * sink table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "helpers/smallfs.h"
#include "helpers/tmpdir.h"
#include "itg/log.h"
#include "log/logger.h"

static void tmp_path(const char *name, char *buf, size_t len) {
  char dir[1024];
  size_t n = sizeof dir;
  assert_int_equal(uv_os_tmpdir(dir, &n), 0);
  snprintf(buf, len, "%s/itg_test_logger_%d_%s", dir, (int)uv_os_getpid(),
           name);
}

static int64_t wall_ns(void) {
  uv_timeval64_t tv;
  assert_int_equal(uv_gettimeofday(&tv), 0);
  return tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* The record a producer pushes as number seq of its lane: every field
 * follows from (lane, seq), so the reader can check each one. */
static itg_logrec lane_rec(uint32_t lane, uint64_t seq) {
  itg_logrec r;
  memset(&r, 0, sizeof r);
  r.flow_id = lane;
  r.size = (uint16_t)(1 + seq % 1400);
  r.flags = ITG_REC_RX;
  r.seq = seq;
  r.tx_ns = (int64_t)(seq * 1000 + lane);
  r.rx_ns = (int64_t)(seq * 1000 + lane + 500);
  return r;
}

static int rec_matches(const itg_logrec *r, uint32_t lane, uint64_t seq) {
  itg_logrec w = lane_rec(lane, seq);
  return r->flow_id == w.flow_id && r->size == w.size && r->flags == w.flags &&
         r->seq == w.seq && r->tx_ns == w.tx_ns && r->rx_ns == w.rx_ns;
}

/* Reads the log at path and checks that lane l holds exactly the records
 * 1..per_lane[l], in order; returns the header. */
static itg_log_hdr check_log(const char *path, uint32_t lanes,
                             const uint64_t *per_lane) {
  itg_logreader *r = NULL;
  itg_log_hdr hdr;
  itg_logrec rec;
  uint64_t next[8] = {0};
  uint32_t l;
  int rc;
  assert_true(lanes <= 8);
  for (l = 0; l < lanes; l++)
    next[l] = 1;
  assert_int_equal(itg_logreader_open(path, &r), 0);
  itg_logreader_header(r, &hdr);
  while ((rc = itg_logreader_next(r, &rec)) == 1) {
    assert_true(rec.flow_id < lanes);
    if (!rec_matches(&rec, rec.flow_id, next[rec.flow_id]))
      fail_msg("lane %u: expected seq %llu, found seq %llu", rec.flow_id,
               (unsigned long long)next[rec.flow_id],
               (unsigned long long)rec.seq);
    next[rec.flow_id]++;
  }
  assert_int_equal(rc, 0);
  for (l = 0; l < lanes; l++)
    assert_true(next[l] - 1 == per_lane[l]);
  itg_logreader_close(r);
  return hdr;
}

static void test_cfg_defaults(void **state) {
  itg_logger_cfg cfg;
  (void)state;
  memset(&cfg, 0xA5, sizeof cfg);
  itg_logger_cfg_init(&cfg);
  assert_null(cfg.path);
  assert_int_equal(cfg.role, ITG_LOG_ROLE_SENDER);
  assert_int_equal(cfg.clock, ITG_LOG_CLOCK_REALTIME);
  assert_int_equal(cfg.batch, 64);
  assert_int_equal(cfg.capacity, 65536);
  assert_int_equal(cfg.lanes, 1);
  assert_int_equal(cfg.flush_ms, 200);
}

static void test_bad_cfg(void **state) {
  char path[1100], missing[1100];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  FILE *f;
  (void)state;
  tmp_path("bad.log", path, sizeof path);
  tmp_path("no-such-dir/x.log", missing, sizeof missing);
  itg_logger_cfg_init(&cfg);
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL); /* no path */
  cfg.path = path;
  assert_int_equal(itg_logger_new(NULL, &l), ITG_EINVAL);
  assert_int_equal(itg_logger_new(&cfg, NULL), ITG_EINVAL);
  cfg.batch = 0;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.batch = 64;
  cfg.capacity = 0;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.capacity = (1u << 30) + 1;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.capacity = 1024;
  cfg.lanes = 0;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.lanes = 1;
  cfg.flush_ms = 0;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.flush_ms = 200;
  cfg.role = (itg_log_role)7;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_EINVAL);
  cfg.role = ITG_LOG_ROLE_SENDER;
  cfg.path = missing;
  assert_int_equal(itg_logger_new(&cfg, &l), ITG_ENOENT);
  assert_null(l);
  /* None of the refused configurations created the file. */
  f = fopen(path, "rb");
  assert_null(f);
  assert_int_equal(itg_logger_close(NULL), 0);
}

static void test_push_bad_arguments(void **state) {
  char path[1100];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  itg_logrec rec = lane_rec(0, 1);
  uint64_t per_lane[2] = {1, 0};
  (void)state;
  tmp_path("args.log", path, sizeof path);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.lanes = 2;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  assert_int_equal(itg_logger_push(l, 2, &rec), ITG_EINVAL);
  assert_int_equal(itg_logger_push(l, 0, NULL), ITG_EINVAL);
  assert_int_equal(itg_logger_push(NULL, 0, &rec), ITG_EINVAL);
  assert_int_equal(itg_logger_push(l, 0, &rec), 0);
  assert_int_equal(itg_logger_close(l), 0);
  check_log(path, 2, per_lane);
  remove(path);
}

/* Closing at once leaves a valid log with no records, and a header
 * describing this host and this moment. */
static void test_close_empty(void **state) {
  char path[1100], host[UV_MAXHOSTNAMESIZE];
  size_t hn = sizeof host;
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  itg_log_hdr hdr;
  uint64_t none = 0;
  int64_t before, after;
  (void)state;
  tmp_path("empty.log", path, sizeof path);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.role = ITG_LOG_ROLE_RECEIVER;
  cfg.clock = ITG_LOG_CLOCK_KERNEL;
  before = wall_ns();
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  after = wall_ns();
  assert_int_equal(itg_logger_close(l), 0);
  hdr = check_log(path, 1, &none);
  assert_int_equal(hdr.role, ITG_LOG_ROLE_RECEIVER);
  assert_int_equal(hdr.clock, ITG_LOG_CLOCK_KERNEL);
  /* uv_gettimeofday has microseconds: allow for the rounding. */
  assert_true(hdr.created_ns >= before - 1000 && hdr.created_ns <= after);
  assert_int_equal(uv_os_gethostname(host, &hn), 0);
  assert_true(strlen(hdr.host) == (hn < 31 ? hn : 31));
  assert_memory_equal(hdr.host, host, strlen(hdr.host));
  remove(path);
}

/* create_new: the file at path is left as it is and the log goes to
 * path.1, which itg_logger_path tells; without it, path itself. */
static void test_create_new(void **state) {
  char path[1100], made[1200], want[1200];
  uint64_t none = 0;
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  FILE *f;
  (void)state;
  tmp_path("taken.log", path, sizeof path);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs("kept", f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.create_new = 1;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  assert_int_equal(itg_logger_path(l, made, sizeof made), 0);
  snprintf(want, sizeof want, "%s.1", path);
  assert_string_equal(made, want);
  assert_int_equal(itg_logger_close(l), 0);
  check_log(want, 1, &none);
  f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(made, 1, sizeof made, f), 4);
  fclose(f);
  assert_memory_equal(made, "kept", 4);
  remove(want);
  cfg.create_new = 0;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  assert_int_equal(itg_logger_path(l, made, sizeof made), 0);
  assert_string_equal(made, path);
  assert_int_equal(itg_logger_close(l), 0);
  check_log(path, 1, &none);
  remove(path);
}

#define LANES 3
#define PER_LANE 200000u

typedef struct producer {
  itg_logger *l;
  uint32_t lane;
  int failures;
} producer;

static void producer_main(void *arg) {
  producer *p = arg;
  uint64_t s;
  for (s = 1; s <= PER_LANE; s++) {
    itg_logrec rec = lane_rec(p->lane, s);
    if (itg_logger_push(p->l, p->lane, &rec) != 0)
      p->failures++;
  }
}

/* Three producers, each with its own lane of 256 records, push faster than
 * the writer takes batches of 32: they must wait for room, and the file
 * still holds every record once, in each lane's order. */
static void test_three_lanes(void **state) {
  char path[1100];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  itg_logger_stats st;
  uv_thread_t th[LANES];
  producer p[LANES];
  uint64_t per_lane[LANES];
  uint32_t i;
  (void)state;
  tmp_path("lanes.log", path, sizeof path);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.lanes = LANES;
  cfg.capacity = 256;
  cfg.batch = 32;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  for (i = 0; i < LANES; i++) {
    p[i].l = l;
    p[i].lane = i;
    p[i].failures = 0;
    assert_int_equal(uv_thread_create(&th[i], producer_main, &p[i]), 0);
  }
  for (i = 0; i < LANES; i++) {
    assert_int_equal(uv_thread_join(&th[i]), 0);
    assert_int_equal(p[i].failures, 0);
    per_lane[i] = PER_LANE;
  }
  itg_logger_get_stats(l, &st);
  assert_true(st.full_waits > 0);
  assert_true(st.records <= (uint64_t)LANES * PER_LANE);
  assert_int_equal(st.error, 0);
  assert_int_equal(itg_logger_close(l), 0);
  check_log(path, LANES, per_lane);
  remove(path);
}

/* A batch larger than the ring: the writer is woken when the lane fills. */
static void test_batch_above_capacity(void **state) {
  char path[1100];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  uint64_t s, n = 20000;
  (void)state;
  tmp_path("bigbatch.log", path, sizeof path);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.capacity = 5; /* rounded up to 8 */
  cfg.batch = 64;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  for (s = 1; s <= n; s++) {
    itg_logrec rec = lane_rec(0, s);
    assert_int_equal(itg_logger_push(l, 0, &rec), 0);
  }
  assert_int_equal(itg_logger_close(l), 0);
  check_log(path, 1, &n);
  remove(path);
}

/* Returns how many whole records the log at path holds now. */
static uint64_t records_in(const char *path) {
  itg_logreader *r = NULL;
  itg_logrec rec;
  uint64_t n = 0;
  assert_int_equal(itg_logreader_open(path, &r), 0);
  while (itg_logreader_next(r, &rec) == 1)
    n++;
  itg_logreader_close(r);
  return n;
}

/* Fewer records than a batch still reach the file within flush_ms while
 * the logger runs. The test waits for that (polling, bounded by 10 s)
 * rather than guessing a delay. */
static void test_timed_flush(void **state) {
  char path[1100];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  itg_logger_stats st;
  itg_logrec rec;
  uint64_t s, five = 5, six = 6;
  uint64_t give_up;
  (void)state;
  tmp_path("flush.log", path, sizeof path);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.flush_ms = 20;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  for (s = 1; s <= 5; s++) {
    rec = lane_rec(0, s);
    assert_int_equal(itg_logger_push(l, 0, &rec), 0);
  }
  give_up = uv_hrtime() + 10000000000ull;
  while (records_in(path) < 5 && uv_hrtime() < give_up)
    uv_sleep(5);
  check_log(path, 1, &five);
  itg_logger_get_stats(l, &st);
  assert_int_equal(st.records, 5);
  assert_true(st.batches >= 1 && st.batches <= 5);
  assert_int_equal(st.full_waits, 0);
  assert_int_equal(st.error, 0);
  rec = lane_rec(0, 6);
  assert_int_equal(itg_logger_push(l, 0, &rec), 0);
  assert_int_equal(itg_logger_close(l), 0);
  check_log(path, 1, &six);
  remove(path);
}

typedef struct told {
  atomic_int calls;
  int error;
  uint64_t lost;
  char path[1100];
} told;

static void note_log_error(const itg_log_error *e, void *user) {
  told *t = user;
  t->error = e->error;
  t->lost = e->lost;
  snprintf(t->path, sizeof t->path, "%s", e->path);
  atomic_fetch_add(&t->calls, 1);
}

#define FULL_RECS 100000u

/* A log on a disk that fills up (a 256 KiB tmpfs: about 8 000 of the
 * 100 000 records fit). The error is told while the logger runs, once,
 * naming the file and ITG_ENOSPC; after close the counts match the file:
 * the records in it are the first ones, in order, and every other record
 * is counted lost. */
static void test_full_disk(void **state) {
  char dir[1024], path[1100], why[256];
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  itg_logger_stats st;
  itg_logreader *r = NULL;
  itg_logrec rec;
  told t;
  uint64_t s, in_file = 0, give_up;
  int rc;
  (void)state;
  memset(&t, 0, sizeof t);
  atomic_init(&t.calls, 0);
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg_test_logger_full_"), 0);
  if (smallfs_mount(dir, 256 * 1024, why, sizeof why) != 0) {
    fprintf(stderr, "test_full_disk skipped: %s\n", why);
    assert_int_equal(tmpdir_remove(dir), 0);
    skip();
  }
  snprintf(path, sizeof path, "%s/full.log", dir);
  itg_logger_cfg_init(&cfg);
  cfg.path = path;
  cfg.on_error = note_log_error;
  cfg.error_user = &t;
  assert_int_equal(itg_logger_new(&cfg, &l), 0);
  for (s = 1; s <= FULL_RECS; s++) {
    rec = lane_rec(0, s);
    assert_int_equal(itg_logger_push(l, 0, &rec), 0);
  }
  give_up = uv_hrtime() + 10000000000ull;
  while (atomic_load(&t.calls) == 0 && uv_hrtime() < give_up)
    uv_sleep(5);
  assert_int_equal(atomic_load(&t.calls), 1);
  assert_int_equal(t.error, ITG_ENOSPC);
  assert_string_equal(t.path, path);
  assert_true(t.lost > 0);
  assert_int_equal(itg_logger_close_stats(l, &st), ITG_ENOSPC);
  assert_int_equal(atomic_load(&t.calls), 1);
  assert_int_equal(st.error, ITG_ENOSPC);
  assert_true(st.lost >= t.lost);
  assert_int_equal(itg_logreader_open(path, &r), 0);
  while ((rc = itg_logreader_next(r, &rec)) == 1)
    assert_true(rec_matches(&rec, 0, ++in_file));
  /* The last write may have put part of a record. */
  assert_true(rc == 0 || rc == ITG_ETRUNC);
  itg_logreader_close(r);
  assert_true(in_file > 0);
  assert_int_equal(in_file + st.lost, FULL_RECS);
  assert_int_equal(smallfs_unmount(dir), 0);
  assert_int_equal(tmpdir_remove(dir), 0);
}

/* A sink kept in memory: what the sink table hands it, in order. */
#define MEM_SINK_MAX 4096
typedef struct mem_sink {
  itg_log_hdr hdr;
  uint32_t batch;
  itg_logrec recs[MEM_SINK_MAX];
  size_t n, writes, largest;
  int flushes, closed, overflow;
} mem_sink;

static mem_sink the_mem_sink;

static int mem_open(const itg_logger_cfg *cfg, void *arg,
                    const itg_log_hdr *hdr,
                    int (*hurry)(void *arg), void *hurry_arg, void **state) {
  mem_sink *m = &the_mem_sink;
  memset(m, 0, sizeof *m);
  m->hdr = *hdr;
  m->batch = cfg->batch;
  assert_non_null(hurry);
  assert_int_equal(hurry(hurry_arg), 0); /* nothing pushed yet */
  *state = m;
  return 0;
}

static int mem_write(void *state, const itg_logrec *recs, size_t n) {
  mem_sink *m = state;
  /* The writer thread's: the test thread checks what it noted. */
  if (n == 0 || m->n + n > MEM_SINK_MAX) {
    m->overflow = 1;
    return ITG_EINVAL;
  }
  memcpy(m->recs + m->n, recs, n * sizeof *recs);
  m->n += n;
  m->writes++;
  if (n > m->largest)
    m->largest = n;
  return 0;
}

static int mem_flush(void *state) {
  ((mem_sink *)state)->flushes++;
  return 0;
}

/* Its counters tell what it holds, so the test sees them published. */
static void mem_stats(void *state, itg__log_sink_stats *out) {
  memset(out, 0, sizeof *out);
  out->spilled = ((mem_sink *)state)->n;
  out->connected = 1;
}

static int mem_close(void *state, itg__log_sink_stats *final) {
  mem_sink *m = state;
  mem_stats(m, final);
  m->closed++;
  return 0;
}

static const char *mem_path(void *state) {
  (void)state;
  return "memory";
}

static const itg__log_sink_ops mem_ops = {
    .open = mem_open,
    .write = mem_write,
    .flush = mem_flush,
    .stats = mem_stats,
    .close = mem_close,
    .path = mem_path,
    .spills = 0,
    .flush_each_pass = 1,
};

/* Two lanes through a sink of the test's own: it gets every record once,
 * each lane's in order, in blocks of at most D; it is flushed and closed
 * once, and its counters and path are the logger's. */
static void test_sink_table(void **state) {
  enum { SINK_PER_LANE = 1000 };
  itg_logger_cfg cfg;
  itg_logger *l;
  itg_logger_stats st;
  uint64_t next[2] = {0, 0};
  char path[64];
  uint32_t lane;
  uint64_t seq;
  size_t i;
  (void)state;
  itg_logger_cfg_init(&cfg);
  cfg.path = "unused";
  cfg.role = ITG_LOG_ROLE_RECEIVER;
  cfg.lanes = 2;
  cfg.batch = 16;
  cfg.capacity = 64;
  assert_int_equal(itg__logger_new_sink(&cfg, NULL, NULL, &l), ITG_EINVAL);
  assert_int_equal(itg__logger_new_sink(&cfg, &mem_ops, NULL, &l), 0);
  assert_int_equal(the_mem_sink.hdr.role, ITG_LOG_ROLE_RECEIVER);
  assert_int_equal(the_mem_sink.batch, 16);
  assert_int_equal(itg_logger_path(l, path, sizeof path), 0);
  assert_string_equal(path, "memory");
  assert_int_equal(itg_logger_spill_path(l, path, sizeof path), ITG_EINVAL);
  for (seq = 0; seq < SINK_PER_LANE; seq++)
    for (lane = 0; lane < 2; lane++) {
      itg_logrec r = lane_rec(lane, seq);
      assert_int_equal(itg_logger_push(l, lane, &r), 0);
    }
  assert_int_equal(itg_logger_close_stats(l, &st), 0);
  assert_int_equal(the_mem_sink.closed, 1);
  assert_int_equal(the_mem_sink.overflow, 0);
  assert_true(the_mem_sink.flushes >= 1);
  assert_int_equal(the_mem_sink.n, 2 * SINK_PER_LANE);
  assert_true(the_mem_sink.largest <= 16);
  assert_int_equal(st.records, 2 * SINK_PER_LANE);
  assert_int_equal(st.batches, the_mem_sink.writes);
  assert_int_equal(st.spilled, 2 * SINK_PER_LANE);
  assert_int_equal(st.connected, 1);
  assert_int_equal(st.error, 0);
  for (i = 0; i < the_mem_sink.n; i++) {
    const itg_logrec *r = &the_mem_sink.recs[i];
    assert_true(r->flow_id < 2);
    assert_true(rec_matches(r, r->flow_id, next[r->flow_id]++));
  }
  assert_int_equal(next[0], SINK_PER_LANE);
  assert_int_equal(next[1], SINK_PER_LANE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cfg_defaults),
      cmocka_unit_test(test_bad_cfg),
      cmocka_unit_test(test_push_bad_arguments),
      cmocka_unit_test(test_close_empty),
      cmocka_unit_test(test_create_new),
      cmocka_unit_test(test_three_lanes),
      cmocka_unit_test(test_batch_above_capacity),
      cmocka_unit_test(test_timed_flush),
      cmocka_unit_test(test_full_disk),
      cmocka_unit_test(test_sink_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
