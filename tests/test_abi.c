/* The growable structs (include/itg/common.h) as a program built against
 * an older header would use them: its layouts lack the fields added since
 * (declared here as the structs without their last fields), the memory
 * past them belongs to the program (filled with a pattern here), and the
 * library must neither read nor write it, and must give the fields the
 * program does not know their defaults. Sizes no layout has are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "itg.h"

#define SEC INT64_C(1000000000)
#define WAIT (30 * SEC)
/* What the program keeps past its structs. */
#define PATTERN 0xA5

/* itg_flow_cfg without the receiver log server's fields. */
typedef struct flow_cfg_v0 {
  size_t struct_size;
  uint32_t flow_id;
  char dst_host[ITG_HOST_MAX];
  uint16_t dst_port;
  char src_host[ITG_HOST_MAX];
  uint16_t src_port;
  uint16_t sig_port;
  itg_proto proto;
  int nodelay;
  itg_meter meter;
  itg_wire_profile wire;
  itg_dist_spec idt;
  itg_dist_spec size;
  int64_t duration_ns;
  uint64_t max_packets;
  uint64_t max_bytes;
  int64_t start_delay_ns;
  uint64_t seed;
  int has_seed;
  int tos;
  int ttl;
  char recv_log[ITG_PATH_MAX];
} flow_cfg_v0;
_Static_assert(offsetof(flow_cfg_v0, recv_log) ==
                   offsetof(itg_flow_cfg, recv_log),
               "flow_cfg_v0 is a prefix of itg_flow_cfg");

/* itg_receiver_cfg without its callbacks and their user pointer. */
typedef struct receiver_cfg_v0 {
  size_t struct_size;
  char bind_host[ITG_HOST_MAX];
  uint16_t sig_port;
  char log_path[ITG_PATH_MAX];
  char log_dir[ITG_PATH_MAX];
  uint32_t log_batch;
  uint32_t max_flows;
  int rcvbuf;
  int cpu;
  int allow_privileged_ports;
  char log_servers[ITG_PATH_MAX];
  uint32_t handshake_ms;
  uint32_t idle_ms;
  uint32_t max_peer_conns;
  uint32_t max_peer_flows;
  uint32_t fd_reserve;
  uint32_t echo_queue;
} receiver_cfg_v0;
_Static_assert(offsetof(receiver_cfg_v0, echo_queue) ==
                   offsetof(itg_receiver_cfg, echo_queue),
               "receiver_cfg_v0 is a prefix of itg_receiver_cfg");

/* itg_sender_cfg without the log error callback. */
typedef struct sender_cfg_v0 {
  size_t struct_size;
  itg_wait_mode wait;
  char log_path[ITG_PATH_MAX];
  uint32_t log_batch;
  char log_server[ITG_HOST_MAX];
  uint16_t log_server_port;
  itg_log_transport log_transport;
  int64_t connect_timeout_ns;
  int cpu;
} sender_cfg_v0;
_Static_assert(offsetof(sender_cfg_v0, cpu) == offsetof(itg_sender_cfg, cpu),
               "sender_cfg_v0 is a prefix of itg_sender_cfg");

/* itg_flow_result without the lateness's maximum and sum. */
typedef struct flow_result_v0 {
  size_t struct_size;
  uint32_t flow_id;
  int status;
  char error[160];
  char receiver_note[160];
  uint64_t seed;
  uint64_t packets;
  uint64_t bytes;
  uint64_t send_errors;
  uint64_t echoes;
  uint64_t received;
  int64_t first_tx_ns;
  int64_t last_tx_ns;
  uint64_t late;
} flow_result_v0;
_Static_assert(offsetof(flow_result_v0, late) ==
                   offsetof(itg_flow_result, late),
               "flow_result_v0 is a prefix of itg_flow_result");

/* itg_receiver_stats without the connection counters. */
typedef struct receiver_stats_v0 {
  size_t struct_size;
  uint64_t packets;
  uint64_t bytes;
  uint64_t malformed;
  uint64_t flows_served;
  uint64_t flows_active;
  uint64_t flows_refused;
  uint64_t echoes;
  uint64_t echoes_dropped;
  uint64_t echo_backlog;
} receiver_stats_v0;
_Static_assert(offsetof(receiver_stats_v0, echo_backlog) ==
                   offsetof(itg_receiver_stats, echo_backlog),
               "receiver_stats_v0 is a prefix of itg_receiver_stats");

/* Each old struct in a buffer with the program's own bytes after it, as
 * many as the library's layout has more (and then some), so that a read or
 * write past the old struct meets the pattern, not another variable. */
#define OLD(type, full)                                                        \
  struct {                                                                     \
    type c;                                                                    \
    unsigned char after[sizeof(full)];                                         \
  }

static void fill(void *p, size_t n) { memset(p, PATTERN, n); }

static void assert_untouched(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != PATTERN)
      fail_msg("byte %zu past the old struct was changed to 0x%02x", i,
               p[i]);
}

/* A program with the old flow layout: init fills exactly its bytes, the
 * options land in its fields, and the library's checks and description see
 * the defaults, not the program's memory, where the fields it lacks are. */
static void test_old_flow_cfg(void **state) {
  OLD(flow_cfg_v0, itg_flow_cfg) old;
  itg_flow_cfg *as_new = (itg_flow_cfg *)&old.c;
  itg_flow_cfg now;
  const char *argv[] = {"-a", "127.0.0.2", "-C", "50", "-c", "100",
                        "-t", "1000", "-x", "flow.log"};
  char err[256] = "", d_old[256], d_now[256];
  (void)state;

  fill(&old, sizeof old);
  assert_int_equal(itg_flow_cfg_init_size(as_new, sizeof old.c), 0);
  assert_int_equal(old.c.struct_size, sizeof old.c);
  assert_untouched(old.after, sizeof old.after);
  itg_flow_cfg_init(&now);
  assert_memory_equal(&old.c.flow_id, &now.flow_id,
                      sizeof old.c - offsetof(flow_cfg_v0, flow_id));

  assert_int_equal(itg_flow_parse_args(as_new, 10, argv, err, sizeof err), 0);
  assert_int_equal(itg_flow_parse_args(&now, 10, argv, err, sizeof err), 0);
  assert_untouched(old.after, sizeof old.after);
  assert_string_equal(old.c.dst_host, "127.0.0.2");
  assert_string_equal(old.c.recv_log, "flow.log");
  assert_memory_equal(&old.c.flow_id, &now.flow_id,
                      sizeof old.c - offsetof(flow_cfg_v0, flow_id));

  /* The pattern where recv_log_server would be is not terminated within
   * its array: read, it would fail the check. */
  assert_int_equal(itg_flow_validate(as_new, err, sizeof err), 0);
  itg_flow_describe(as_new, d_old, sizeof d_old);
  itg_flow_describe(&now, d_now, sizeof d_now);
  assert_string_equal(d_old, d_now);

  /* A script line, through the same copy. */
  assert_int_equal(itg_flow_parse_line(as_new, "-z 5 -d 10", err, sizeof err),
                   4);
  assert_int_equal(old.c.max_packets, 5);
  assert_untouched(old.after, sizeof old.after);
}

/* An option for a field the program's layout lacks is refused, not
 * dropped, and the struct is left as it was. */
static void test_old_flow_cfg_refuses_newer_option(void **state) {
  OLD(flow_cfg_v0, itg_flow_cfg) old;
  flow_cfg_v0 before;
  const char *argv[] = {"-C", "20", "-X", "127.0.0.1:45001"};
  char err[256] = "";
  (void)state;

  fill(&old, sizeof old);
  assert_int_equal(itg_flow_cfg_init_size((itg_flow_cfg *)&old.c,
                                          sizeof old.c),
                   0);
  before = old.c;
  assert_int_equal(itg_flow_parse_args((itg_flow_cfg *)&old.c, 4, argv, err,
                                       sizeof err),
                   ITG_EINVAL);
  assert_non_null(strstr(err, "itg_flow_cfg"));
  assert_memory_equal(&old.c, &before, sizeof before);
  assert_untouched(old.after, sizeof old.after);
}

/* A whole run with old layouts everywhere: receiver and sender
 * configurations without their callbacks (the pattern there would be
 * called as a function if read), a flow without its receiver log server,
 * results without their last counters. */
static void test_old_layouts_run(void **state) {
  OLD(receiver_cfg_v0, itg_receiver_cfg) rc;
  OLD(sender_cfg_v0, itg_sender_cfg) sc;
  OLD(flow_cfg_v0, itg_flow_cfg) fc;
  OLD(flow_result_v0, itg_flow_result) res;
  OLD(receiver_stats_v0, itg_receiver_stats) rst;
  itg_receiver *r;
  itg_sender *s;
  char line[128], err[256] = "";
  (void)state;

  fill(&rc, sizeof rc);
  assert_int_equal(itg_receiver_cfg_init_size((itg_receiver_cfg *)&rc.c,
                                              sizeof rc.c),
                   0);
  strcpy(rc.c.bind_host, "127.0.0.1");
  rc.c.sig_port = 0;
  assert_int_equal(itg_receiver_new((itg_receiver_cfg *)&rc.c, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);

  fill(&fc, sizeof fc);
  assert_int_equal(
      itg_flow_cfg_init_size((itg_flow_cfg *)&fc.c, sizeof fc.c), 0);
  snprintf(line, sizeof line, "-a 127.0.0.1 -Sdp %u -rp 0 -C 1000 -c 100 -z 20",
           (unsigned)itg_receiver_port(r));
  assert_true(
      itg_flow_parse_line((itg_flow_cfg *)&fc.c, line, err, sizeof err) > 0);

  fill(&sc, sizeof sc);
  assert_int_equal(itg_sender_cfg_init_size((itg_sender_cfg *)&sc.c,
                                            sizeof sc.c),
                   0);
  assert_int_equal(itg_sender_new((itg_sender_cfg *)&sc.c, &s), 0);
  assert_int_equal(itg_sender_add_flow(s, (itg_flow_cfg *)&fc.c, NULL, 0), 0);
  assert_int_equal(itg_sender_run(s), 0);

  fill(&res, sizeof res);
  assert_int_equal(itg_sender_flow_result_size(
                       s, 0, (itg_flow_result *)&res.c, sizeof res.c),
                   0);
  assert_int_equal(res.c.struct_size, sizeof res.c);
  assert_int_equal(res.c.status, 0);
  assert_int_equal(res.c.packets, 20);
  assert_int_equal(res.c.bytes, 20 * 100);
  assert_int_equal(res.c.received, 20);
  assert_untouched(res.after, sizeof res.after);
  itg_sender_free(s);

  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  fill(&rst, sizeof rst);
  assert_int_equal(itg_receiver_get_stats_size(
                       r, (itg_receiver_stats *)&rst.c, sizeof rst.c),
                   0);
  assert_int_equal(rst.c.packets, 20);
  assert_int_equal(rst.c.flows_served, 1);
  assert_untouched(rst.after, sizeof rst.after);
  itg_receiver_free(r);
  assert_untouched(rc.after, sizeof rc.after);
  assert_untouched(sc.after, sizeof sc.after);
  assert_untouched(fc.after, sizeof fc.after);
}

/* Sizes no layout has: below the size member itself, past the library's
 * own layout, or garbage. Each is refused and changes nothing. */
static const size_t bad_sizes[] = {0, 1, sizeof(size_t) - 1, SIZE_MAX,
                                   (size_t)0xA5A5A5A5u};

static void test_bad_sizes_refused(void **state) {
  itg_flow_cfg flow, before;
  itg_receiver_cfg rcfg;
  itg_sender_cfg scfg;
  itg_logger_cfg lcfg;
  itg_logserver_cfg lscfg;
  itg_receiver *r = NULL;
  itg_sender *s = NULL;
  itg_logger *l = NULL;
  itg_logserver *ls = NULL;
  const char *argv[] = {"-C", "10"};
  char err[256], desc[256];
  (void)state;

  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    size_t size = bad_sizes[i];
    fill(&flow, sizeof flow);
    assert_int_equal(itg_flow_cfg_init_size(&flow, size), ITG_EINVAL);
    assert_untouched((unsigned char *)&flow, sizeof flow);

    itg_flow_cfg_init(&flow);
    flow.struct_size = size;
    before = flow;
    assert_int_equal(itg_flow_parse_args(&flow, 2, argv, err, sizeof err),
                     ITG_EINVAL);
    assert_non_null(strstr(err, "itg_flow_cfg_init"));
    assert_int_equal(itg_flow_parse_line(&flow, "-C 10", err, sizeof err),
                     ITG_EINVAL);
    assert_int_equal(itg_flow_validate(&flow, err, sizeof err), ITG_EINVAL);
    assert_non_null(strstr(err, "itg_flow_cfg"));
    itg_flow_describe(&flow, desc, sizeof desc);
    assert_non_null(strstr(desc, "itg_flow_cfg"));
    assert_memory_equal(&flow, &before, sizeof flow);

    itg_receiver_cfg_init(&rcfg);
    rcfg.struct_size = size;
    assert_int_equal(itg_receiver_new(&rcfg, &r), ITG_EINVAL);
    itg_sender_cfg_init(&scfg);
    scfg.struct_size = size;
    assert_int_equal(itg_sender_new(&scfg, &s), ITG_EINVAL);
    itg_logger_cfg_init(&lcfg);
    lcfg.path = "unused.log";
    lcfg.struct_size = size;
    assert_int_equal(itg_logger_new(&lcfg, &l), ITG_EINVAL);
    itg_logserver_cfg_init(&lscfg);
    lscfg.struct_size = size;
    assert_int_equal(itg_logserver_new(&lscfg, &ls), ITG_EINVAL);
    assert_int_equal(itg_logserver_cfg_allow(&lscfg, "10.0.0.0/8"),
                     ITG_EINVAL);
    assert_int_equal(lscfg.n_allow, 0);
  }
  assert_null(r);
  assert_null(s);
  assert_null(l);
  assert_null(ls);
}

/* Results of a size no layout has are refused and left alone. */
static void test_bad_result_sizes_refused(void **state) {
  itg_receiver_cfg rcfg;
  itg_receiver *r;
  itg_receiver_stats st;
  itg_stats *stats;
  itg_flow_stats fs;
  itg_pacer *p;
  itg_pacer_stats ps;
  (void)state;

  itg_receiver_cfg_init(&rcfg);
  assert_int_equal(itg_receiver_new(&rcfg, &r), 0);
  assert_int_equal(itg_stats_new(&stats), 0);
  assert_int_equal(itg_pacer_new(ITG_WAIT_SPIN, 0, &p), 0);
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    size_t size = bad_sizes[i];
    fill(&st, sizeof st);
    assert_int_equal(itg_receiver_get_stats_size(r, &st, size), ITG_EINVAL);
    assert_untouched((unsigned char *)&st, sizeof st);
    fill(&fs, sizeof fs);
    assert_int_equal(itg_stats_total_size(stats, ITG_STATS_OWD, &fs, size),
                     ITG_EINVAL);
    assert_untouched((unsigned char *)&fs, sizeof fs);
    fill(&ps, sizeof ps);
    assert_int_equal(itg_pacer_get_stats_size(p, &ps, size), ITG_EINVAL);
    assert_untouched((unsigned char *)&ps, sizeof ps);
  }
  /* The smallest layout: the size alone. */
  fill(&st, sizeof st);
  assert_int_equal(itg_receiver_get_stats_size(r, &st, sizeof(size_t)), 0);
  assert_int_equal(st.struct_size, sizeof(size_t));
  assert_untouched((unsigned char *)&st + sizeof(size_t),
                   sizeof st - sizeof(size_t));
  itg_pacer_free(p);
  itg_stats_free(stats);
  itg_receiver_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_old_flow_cfg),
      cmocka_unit_test(test_old_flow_cfg_refuses_newer_option),
      cmocka_unit_test(test_old_layouts_run),
      cmocka_unit_test(test_bad_sizes_refused),
      cmocka_unit_test(test_bad_result_sizes_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
