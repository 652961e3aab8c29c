/* The log server and the logger's remote sink, on loopback, in process:
 * a TCP session written complete; UDP datagrams dropped on purpose counted
 * exactly as gap records; names that could leave the directory and wrong
 * tokens refused; a client that vanishes leaves an .incomplete file with
 * its records; an unreachable server makes the logger spill everything; a
 * server that stops reading never holds up the producer, and every record
 * ends in its file or the spill file, once; so does a server whose disk
 * fills up; 64 clients at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "log/ditg_proto.h"
#include "log/proto.h"
#include "helpers/smallfs.h"
#include "helpers/stall_logserver.h"
#include "helpers/tmpdir.h"
#include "itg.h"
#include "platform/platform.h"

typedef struct fixture {
  char dir[400];
  itg_logserver *srv;
  uint16_t port;
  int mounted; /* a small tmpfs on dir (smallfs_mount) */
} fixture;

static itg_logrec test_rec(uint32_t flow, uint64_t seq) {
  itg_logrec r;
  memset(&r, 0, sizeof r);
  r.flow_id = flow;
  r.size = (uint16_t)(20 + seq % 1000);
  r.flags = ITG_REC_TX;
  r.seq = seq;
  r.tx_ns = (int64_t)(1000000000 + seq * 1000);
  return r;
}

static void start_server(fixture *f, const char *token) {
  itg_logserver_cfg cfg;
  itg_logserver_cfg_init(&cfg);
  cfg.port = 0;
  snprintf(cfg.dir, sizeof cfg.dir, "%s", f->dir);
  if (token != NULL)
    snprintf(cfg.token, sizeof cfg.token, "%s", token);
  assert_int_equal(itg_logserver_new(&cfg, &f->srv), 0);
  assert_int_equal(itg_logserver_start(f->srv), 0);
  f->port = itg_logserver_port(f->srv);
  assert_true(f->port != 0);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_int_equal(tmpdir_make(f->dir, sizeof f->dir, "itg_test_logserver_"),
                   0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  itg_logserver_free(f->srv);
  if (f->mounted)
    assert_int_equal(smallfs_unmount(f->dir), 0);
  assert_int_equal(tmpdir_remove(f->dir), 0);
  free(f);
  return 0;
}

/* Reads a log: counts packet records (checking they are test_rec(flow, 0..)
 * in order when flow is given) and sums gap records. Returns the count. */
static uint64_t read_log(const char *path, int64_t flow, uint64_t *gaps) {
  itg_logreader *r = NULL;
  itg_logrec rec;
  uint64_t n = 0, g = 0;
  int rc;
  assert_int_equal(itg_logreader_open(path, &r), 0);
  while ((rc = itg_logreader_next(r, &rec)) == 1) {
    if (rec.flags & ITG_REC_GAP) {
      g += rec.seq;
      continue;
    }
    if (flow >= 0) {
      itg_logrec want = test_rec((uint32_t)flow, n);
      assert_memory_equal(&rec, &want, sizeof rec);
    }
    n++;
  }
  assert_int_equal(rc, 0);
  itg_logreader_close(r);
  if (gaps != NULL)
    *gaps = g;
  return n;
}

static void in_dir(const fixture *f, const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s", f->dir, name);
}

static int file_exists(const char *path) {
  uv_fs_t req;
  int rc = uv_fs_stat(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  return rc == 0;
}

/* Opens a logger that ships flow's records to the fixture's server as
 * name over t, spilling to the file spill, and pushes test_rec(flow, 0)
 * to test_rec(flow, n - 1). */
static itg_logger *push_to_server(const fixture *f, itg_log_transport t,
                                  const char *name, uint32_t flow,
                                  const char *spill, uint64_t n) {
  itg_logger_cfg lc;
  itg_logger *l = NULL;
  uint64_t i;
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = f->port;
  lc.transport = t;
  lc.path = name;
  lc.spill_path = spill;
  lc.flow_ids = &flow;
  lc.n_flow_ids = 1;
  /* Room for every record: a producer this fast outruns any server, and
   * a lane filling up would spill rather than wait. */
  lc.capacity = (uint32_t)(2 * n);
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  for (i = 0; i < n; i++) {
    itg_logrec r = test_rec(flow, i);
    assert_int_equal(itg_logger_push(l, 0, &r), 0);
  }
  return l;
}

/* Logs n records of flow to the fixture's server as name, spilling to
 * NAME.spill in the test's directory. Returns what closing the logger
 * returned. */
static int ship(const fixture *f, itg_log_transport t, const char *name,
                uint32_t flow, uint64_t n, itg_logger_stats *st) {
  char spill[1200], spill_name[64];
  snprintf(spill_name, sizeof spill_name, "%s.spill", name);
  in_dir(f, spill_name, spill, sizeof spill);
  return itg_logger_close_stats(push_to_server(f, t, name, flow, spill, n),
                                st);
}

static void tcp_session_complete(void **state) {
  fixture *f = *state;
  itg_logger_stats st;
  itg_logserver_stats ss;
  char path[1200];
  start_server(f, NULL);
  assert_int_equal(ship(f, ITG_LOG_TCP, "tcp.log", 7, 50000, &st), 0);
  assert_int_equal(st.records, 50000);
  assert_int_equal(st.spilled, 0);
  in_dir(f, "tcp.log", path, sizeof path);
  assert_int_equal(read_log(path, 7, NULL), 50000);
  itg_logserver_get_stats(f->srv, &ss);
  assert_int_equal(ss.sessions_total, 1);
  assert_int_equal(ss.sessions_open, 0);
  assert_int_equal(ss.incomplete, 0);
  assert_int_equal(ss.records, 50000);
  /* The same name again never overwrites: the second session gets .1. */
  assert_int_equal(ship(f, ITG_LOG_TCP, "tcp.log", 7, 10, &st), 0);
  in_dir(f, "tcp.log.1", path, sizeof path);
  assert_int_equal(read_log(path, 7, NULL), 10);
}

static void udp_session_without_loss(void **state) {
  fixture *f = *state;
  itg_logger_stats st;
  char path[1200];
  uint64_t gaps;
  start_server(f, NULL);
  assert_int_equal(ship(f, ITG_LOG_UDP, "udp.log", 3, 5000, &st), 0);
  assert_int_equal(st.missing, 0);
  assert_int_equal(st.unconfirmed, 0);
  in_dir(f, "udp.log", path, sizeof path);
  assert_int_equal(read_log(path, 3, &gaps), 5000);
  assert_int_equal(gaps, 0);
}

/* ---- a raw client, to do what a well-behaved logger never does -------- */

typedef struct raw {
  itg__sock s;
  uint8_t in[ITG__LP_MAX_FRAME];
  size_t in_len;
} raw;

static void raw_send(raw *c, const itg__lp_msg *m, const itg_logrec *recs) {
  static uint8_t buf[ITG__LP_MAX_FRAME];
  int n = itg__lp_encode(m, recs, buf, sizeof buf);
  size_t at = 0;
  assert_true(n > 0);
  while (at < (size_t)n) {
    int k = itg__stream_send(c->s, buf + at, (size_t)n - at);
    assert_true(k > 0);
    at += (size_t)k;
  }
}

/* Waits (at most 5 s) for the next message from the server. A greeting
 * (a client slow to speak on a loaded machine is greeted as D-ITG's are,
 * log/ditg_proto.h) is passed over, as the logger does. */
static void raw_recv(raw *c, itg__lp_msg *m) {
  for (;;) {
    int n;
    if (c->in_len > 0 && c->in[0] == ITG__DLP_CONNECT) {
      memmove(c->in, c->in + 1, --c->in_len);
      continue;
    }
    n = itg__lp_decode(c->in, c->in_len, m);
    if (n > 0) {
      memmove(c->in, c->in + n, c->in_len - (size_t)n);
      c->in_len -= (size_t)n;
      return;
    }
    assert_int_equal(n, ITG_ETRUNC);
    assert_int_equal(itg__sock_wait_readable(c->s, 5000000000LL), 1);
    n = itg__stream_recv(c->s, c->in + c->in_len, sizeof c->in - c->in_len);
    assert_true(n > 0);
    c->in_len += (size_t)n;
  }
}

/* Connects and registers; returns the REGISTER_ACK's status. */
static int raw_register(const fixture *f, raw *c, uint8_t transport,
                        const char *name, const char *token, itg__lp_msg *ack) {
  itg__addr a;
  itg__lp_msg m;
  memset(c, 0, sizeof *c);
  assert_int_equal(itg__addr_resolve("127.0.0.1", f->port, 0, &a), 0);
  assert_int_equal(itg__sock_open(&a, 0, &c->s), 0);
  assert_int_equal(itg__sock_connect(c->s, &a, 5000000000LL), 0);
  itg__lp_init(&m, ITG__LP_REGISTER);
  m.transport = transport;
  m.role = ITG_LOG_ROLE_RECEIVER;
  m.nflows = 1;
  m.flows[0] = 9;
  snprintf(m.host, sizeof m.host, "tester");
  snprintf(m.name, sizeof m.name, "%s", name);
  if (token != NULL)
    snprintf(m.token, sizeof m.token, "%s", token);
  raw_send(c, &m, NULL);
  raw_recv(c, ack);
  assert_int_equal(ack->type, ITG__LP_REGISTER_ACK);
  return ack->status;
}

static void udp_injected_loss(void **state) {
  fixture *f = *state;
  itg_logrec recs[10];
  uint8_t dgram[ITG__LP_MAX_DGRAM];
  itg__lp_msg ack, m;
  itg__addr ua;
  itg__sock us;
  itg__dgram d;
  raw c;
  char path[1200];
  uint64_t gaps, seq, sent = 0;
  int i;
  start_server(f, NULL);
  assert_int_equal(raw_register(f, &c, ITG__LP_UDP, "loss.log", NULL, &ack), 0);
  assert_true(ack.udp_port != 0);
  assert_int_equal(itg__addr_resolve("127.0.0.1", ack.udp_port, 0, &ua), 0);
  assert_int_equal(itg__sock_open(&ua, 1, &us), 0);
  assert_int_equal(itg__sock_connect(us, &ua, 1000000000LL), 0);
  /* 20 batches of 10; batches 3, 4, 11 and the last one are "lost". */
  for (seq = 0; seq < 200; seq += 10) {
    uint64_t b = seq / 10;
    for (i = 0; i < 10; i++)
      recs[i] = test_rec(9, seq + (uint64_t)i);
    if (b == 3 || b == 4 || b == 11 || b == 19)
      continue;
    memset(&d, 0, sizeof d);
    d.buf = dgram;
    d.len = itg__lp_dgram_encode(ack.session, ack.key, seq, recs, 10, dgram);
    assert_int_equal(itg__send_batch(us, &d, 1), 1);
    sent += 10;
  }
  /* A datagram with a wrong key is ignored. */
  d.len = itg__lp_dgram_encode(ack.session, ack.key ^ 1u, 190, recs, 10, dgram);
  assert_int_equal(itg__send_batch(us, &d, 1), 1);
  itg__lp_init(&m, ITG__LP_LEAVE);
  m.seq = 200;
  raw_send(&c, &m, NULL);
  raw_recv(&c, &m);
  assert_int_equal(m.type, ITG__LP_LEAVE_ACK);
  assert_int_equal(m.seq, sent);
  assert_int_equal(m.missing, 40);
  in_dir(f, "loss.log", path, sizeof path);
  assert_int_equal(read_log(path, -1, &gaps), sent);
  assert_int_equal(gaps, 40);
  itg__sock_close(us);
  itg__sock_close(c.s);
}

static void bad_names_refused(void **state) {
  fixture *f = *state;
  static const char *const bad[] = {"../evil", "a/b", "a\\b", "..", ".hidden",
                                    "x..y"};
  itg__lp_msg ack;
  itg_logserver_stats ss;
  char path[1200];
  size_t i;
  raw c;
  start_server(f, NULL);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(raw_register(f, &c, ITG__LP_TCP, bad[i], NULL, &ack),
                     ITG_EINVAL);
    itg__sock_close(c.s);
  }
  snprintf(path, sizeof path, "%s/../evil", f->dir);
  assert_false(file_exists(path));
  itg_logserver_get_stats(f->srv, &ss);
  assert_int_equal(ss.refused, sizeof bad / sizeof bad[0]);
  assert_int_equal(ss.sessions_total, 0);
}

/* What the server said about the clients it refused. */
typedef struct refusals {
  uv_mutex_t lock;
  int n;
  char peer[ITG_HOST_MAX];
} refusals;

static void on_refusal(const itg_log_session_event *ev, void *user) {
  refusals *rf = user;
  if (ev->kind != ITG_LOG_SESSION_REFUSED)
    return;
  uv_mutex_lock(&rf->lock);
  rf->n++;
  snprintf(rf->peer, sizeof rf->peer, "%s", ev->peer);
  uv_mutex_unlock(&rf->lock);
}

/* A client turned away at the door (here: past max_clients) is named by
 * its address, as every other client is. */
static void refused_client_named(void **state) {
  fixture *f = *state;
  itg_logserver_cfg cfg;
  refusals rf;
  itg__lp_msg ack;
  itg__addr a, local;
  itg__sock late;
  char want[ITG_HOST_MAX];
  int i, n = 0;
  raw c;
  memset(&rf, 0, sizeof rf);
  assert_int_equal(uv_mutex_init(&rf.lock), 0);
  itg_logserver_cfg_init(&cfg);
  cfg.port = 0;
  cfg.max_clients = 1;
  snprintf(cfg.dir, sizeof cfg.dir, "%s", f->dir);
  cfg.on_session = on_refusal;
  cfg.user = &rf;
  assert_int_equal(itg_logserver_new(&cfg, &f->srv), 0);
  assert_int_equal(itg_logserver_start(f->srv), 0);
  f->port = itg_logserver_port(f->srv);
  assert_int_equal(raw_register(f, &c, ITG__LP_TCP, "first.log", NULL, &ack),
                   0);
  assert_int_equal(itg__addr_resolve("127.0.0.1", f->port, 0, &a), 0);
  assert_int_equal(itg__sock_open(&a, 0, &late), 0);
  assert_int_equal(itg__sock_connect(late, &a, 5000000000LL), 0);
  assert_int_equal(itg__sock_local(late, &local), 0);
  snprintf(want, sizeof want, ":%u", (unsigned)itg__addr_port(&local));
  /* The refusal closes the connection: once read, the event is out. */
  assert_int_equal(itg__sock_wait_readable(late, 5000000000LL), 1);
  for (i = 0; i < 250 && n == 0; i++) {
    uv_mutex_lock(&rf.lock);
    n = rf.n;
    uv_mutex_unlock(&rf.lock);
    if (n == 0)
      itg__sleep_until((int64_t)uv_hrtime() + 20000000);
  }
  assert_int_equal(n, 1);
  /* "127.0.0.1:PORT", or "[::ffff:127.0.0.1]:PORT" on a dual-stack
   * server. */
  assert_non_null(strstr(rf.peer, "127.0.0.1"));
  assert_string_equal(rf.peer + strlen(rf.peer) - strlen(want), want);
  itg__sock_close(late);
  itg__sock_close(c.s);
  itg_logserver_free(f->srv);
  f->srv = NULL;
  uv_mutex_destroy(&rf.lock);
}

static void token_checked(void **state) {
  fixture *f = *state;
  itg__lp_msg ack;
  char path[1200];
  raw c;
  start_server(f, "s3cret");
  assert_int_equal(raw_register(f, &c, ITG__LP_TCP, "t.log", "wrong", &ack),
                   ITG_EPERM);
  itg__sock_close(c.s);
  assert_int_equal(raw_register(f, &c, ITG__LP_TCP, "t.log", NULL, &ack),
                   ITG_EPERM);
  itg__sock_close(c.s);
  in_dir(f, "t.log", path, sizeof path);
  assert_false(file_exists(path));
  assert_int_equal(raw_register(f, &c, ITG__LP_TCP, "t.log", "s3cret", &ack), 0);
  itg__sock_close(c.s);
}

/* Registers as `name`, ships n records of `flow`, sees them acknowledged
 * and vanishes; waits (bounded) until the server counts `incomplete`
 * sessions. */
static void ship_and_vanish(const fixture *f, const char *name, uint32_t flow,
                            uint32_t n, uint64_t incomplete) {
  itg_logrec recs[50];
  itg__lp_msg ack, m;
  itg_logserver_stats ss;
  raw c;
  uint32_t i;
  assert_true(n <= 50);
  assert_int_equal(raw_register(f, &c, ITG__LP_TCP, name, NULL, &ack), 0);
  for (i = 0; i < n; i++)
    recs[i] = test_rec(flow, i);
  itg__lp_init(&m, ITG__LP_BATCH);
  m.seq = 0;
  m.nrecs = n;
  raw_send(&c, &m, recs);
  raw_recv(&c, &m);
  assert_int_equal(m.type, ITG__LP_ACK);
  assert_int_equal(m.seq, n);
  itg__sock_close(c.s);
  for (i = 0; i < 500; i++) {
    itg_logserver_get_stats(f->srv, &ss);
    if (ss.incomplete == incomplete)
      break;
    itg__sleep_until((int64_t)uv_hrtime() + 10000000);
  }
  assert_int_equal(ss.incomplete, incomplete);
}

/* A client that vanishes leaves NAME.incomplete; one of the same name
 * that vanishes later (a client that registered again after a failure)
 * leaves NAME.incomplete.1: the first one's acknowledged records stay
 * (the rename replaced the first file before). */
static void vanished_client_incomplete(void **state) {
  fixture *f = *state;
  char path[1200];
  start_server(f, NULL);
  ship_and_vanish(f, "v.log", 4, 50, 1);
  in_dir(f, "v.log", path, sizeof path);
  assert_false(file_exists(path));
  in_dir(f, "v.log.incomplete", path, sizeof path);
  assert_int_equal(read_log(path, 4, NULL), 50);
  ship_and_vanish(f, "v.log", 5, 30, 2);
  in_dir(f, "v.log", path, sizeof path);
  assert_false(file_exists(path));
  in_dir(f, "v.log.incomplete", path, sizeof path);
  assert_int_equal(read_log(path, 4, NULL), 50);
  in_dir(f, "v.log.incomplete.1", path, sizeof path);
  assert_int_equal(read_log(path, 5, NULL), 30);
}

static void unreachable_server_spills(void **state) {
  fixture *f = *state;
  itg_logger_cfg lc;
  itg_logger *l = NULL;
  itg_logger_stats st;
  char spill[1200], got[1200];
  uint64_t i;
  uint32_t flow = 5;
  start_server(f, NULL);
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = f->port;
  lc.path = "gone.log";
  in_dir(f, "gone.spill", spill, sizeof spill);
  lc.spill_path = spill;
  lc.flow_ids = &flow;
  lc.n_flow_ids = 1;
  /* The server goes before the logger comes: nothing listens there. */
  itg_logserver_stop(f->srv);
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  assert_int_equal(itg_logger_spill_path(l, got, sizeof got), 0);
  assert_string_equal(got, spill);
  for (i = 0; i < 3000; i++) {
    itg_logrec r = test_rec(flow, i);
    assert_int_equal(itg_logger_push(l, 0, &r), 0);
  }
  assert_int_equal(itg_logger_close_stats(l, &st), 0);
  assert_int_equal(st.spilled, 3000);
  assert_int_equal(read_log(spill, 5, NULL), 3000);
}

#define STALL_RECS 60000u
#define STALL_MAX_RECS (8 * STALL_RECS)
#define STALL_SLICE 64
#define STALL_SLICE_WAIT_NS 5000000u
#define STALL_RESUME_MAX_NS 30000000000LL
/* Half the time after which a logger gives a server up: a push that
 * waited for the stalled server took all of it. */
#define STALL_PUSH_MAX_NS 2500000000LL

/* Marks record seq as found; each may be found once only. */
static void found_once(uint8_t *seen, const itg_logrec *r) {
  assert_true(r->seq < STALL_MAX_RECS);
  assert_int_equal(seen[r->seq], 0);
  seen[r->seq] = 1;
}

/* Pushes record i of flow, keeping in *worst the longest push. */
static void timed_push(itg_logger *l, uint32_t flow, uint64_t i,
                       int64_t *worst) {
  itg_logrec r = test_rec(flow, i);
  int64_t t0 = (int64_t)uv_hrtime();
  assert_int_equal(itg_logger_push(l, 0, &r), 0);
  if ((int64_t)uv_hrtime() - t0 > *worst)
    *worst = (int64_t)uv_hrtime() - t0;
}

/* The server registers the logger and then reads nothing while STALL_RECS
 * records are pushed, then reads again. No push waits for it (a push that
 * did waited seconds before: the ring filled behind a window the server
 * never acknowledged); what it could not take is in the spill file;
 * shipping goes on once it reads: records go on being pushed, a slice at a
 * time with a wait for the server between slices, until the server took
 * one pushed after it resumed (within bounds of count and time); each
 * record is in exactly one place. */
static void stalled_server_spills(void **state) {
  fixture *f = *state;
  uint8_t *seen = calloc(STALL_MAX_RECS, 1);
  itg_logger_cfg lc;
  itg_logger *l = NULL;
  itg_logger_stats st;
  itg_logreader *rd = NULL;
  itg_logrec rec, *got;
  stall_logserver *srv;
  char spill[1200];
  uint64_t i, shipped_late = 0, in_spill = 0;
  int64_t worst = 0, give_up;
  size_t n, k;
  uint32_t flow = 6;
  uint16_t port;
  int rc;
  assert_non_null(seen);
  srv = stall_logserver_start(&port);
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = port;
  lc.path = "stall.log";
  lc.capacity = 4096;
  in_dir(f, "stall.spill", spill, sizeof spill);
  lc.spill_path = spill;
  lc.flow_ids = &flow;
  lc.n_flow_ids = 1;
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  for (i = 0; i < STALL_RECS; i++)
    timed_push(l, flow, i, &worst);
  stall_logserver_resume(srv);
  give_up = (int64_t)uv_hrtime() + STALL_RESUME_MAX_NS;
  while (i < STALL_MAX_RECS && (int64_t)uv_hrtime() < give_up) {
    uint64_t end = i + STALL_SLICE;
    for (; i < end && i < STALL_MAX_RECS; i++)
      timed_push(l, flow, i, &worst);
    if (stall_logserver_wait_seq(srv, STALL_RECS, STALL_SLICE_WAIT_NS))
      break;
  }
  assert_int_equal(itg_logger_close_stats(l, &st), 0);
  got = stall_logserver_stop(srv, &n);
  assert_true(worst < STALL_PUSH_MAX_NS);
  assert_true(st.spilled > 0);
  for (k = 0; k < n; k++) {
    itg_logrec want = test_rec(flow, got[k].seq);
    assert_memory_equal(&got[k], &want, sizeof want);
    found_once(seen, &got[k]);
    shipped_late += got[k].seq >= STALL_RECS;
  }
  assert_true(shipped_late > 0);
  assert_int_equal(itg_logreader_open(spill, &rd), 0);
  while ((rc = itg_logreader_next(rd, &rec)) == 1) {
    itg_logrec want = test_rec(flow, rec.seq);
    assert_memory_equal(&rec, &want, sizeof want);
    found_once(seen, &rec);
    in_spill++;
  }
  assert_int_equal(rc, 0);
  itg_logreader_close(rd);
  assert_int_equal(in_spill, st.spilled);
  assert_int_equal(n + in_spill, i);
  free(got);
  free(seen);
}

/* Reads the records of flow `flow` in path (test_rec(flow, seq) each, in
 * any order), marking each seq in seen: once only unless `again` (a record
 * may then be in this file and in one read before). Gap records add their
 * count to *gaps, and none may be there if gaps is NULL. A file cut short
 * in a record is read up to there. Returns the count of the others. */
static uint64_t mark_records(const char *path, uint32_t flow, uint8_t *seen,
                             uint64_t max, int again, uint64_t *gaps) {
  itg_logreader *rd = NULL;
  itg_logrec rec;
  uint64_t n = 0;
  int rc;
  assert_int_equal(itg_logreader_open(path, &rd), 0);
  while ((rc = itg_logreader_next(rd, &rec)) == 1) {
    itg_logrec want = test_rec(flow, rec.seq);
    if (rec.flags & ITG_REC_GAP) {
      assert_non_null(gaps);
      *gaps += rec.seq;
      continue;
    }
    assert_true(rec.seq < max);
    assert_memory_equal(&rec, &want, sizeof want);
    assert_true(again || seen[rec.seq] == 0);
    seen[rec.seq] = 1;
    n++;
  }
  assert_true(rc == 0 || rc == ITG_ETRUNC);
  itg_logreader_close(rd);
  return n;
}

#define GONE_RECS 3000u
#define GONE_WAIT_MS 10000

/* The server goes away once it has taken some of a UDP session's
 * datagrams, before the client leaves: the client cannot learn how many
 * it missed, and says so (unconfirmed); what it had not sent is in the
 * spill file; the server's file is NAME.incomplete; no record is in both,
 * and together they hold at most what was pushed. */
static void udp_server_gone_unconfirmed(void **state) {
  fixture *f = *state;
  uint8_t seen[GONE_RECS];
  itg_logger *l;
  itg_logger_stats st;
  itg_logserver_stats ss;
  char path[1200], spill[1200];
  uint64_t gaps = 0, in_file = 0, in_spill = 0;
  uint32_t flow = 9;
  int ms;
  start_server(f, NULL);
  in_dir(f, "gone.log.spill", spill, sizeof spill);
  l = push_to_server(f, ITG_LOG_UDP, "gone.log", flow, spill, GONE_RECS);
  for (ms = 0; ms < GONE_WAIT_MS; ms++) {
    itg_logserver_get_stats(f->srv, &ss);
    if (ss.records > 0)
      break;
    uv_sleep(1);
  }
  assert_true(ss.records > 0);
  itg_logserver_stop(f->srv);
  assert_int_equal(itg_logger_close_stats(l, &st), 0);
  assert_int_equal(st.unconfirmed, 1);
  assert_int_equal(st.missing, 0);
  memset(seen, 0, sizeof seen);
  in_dir(f, "gone.log", path, sizeof path);
  assert_false(file_exists(path));
  in_dir(f, "gone.log.incomplete", path, sizeof path);
  in_file = mark_records(path, flow, seen, GONE_RECS, 0, &gaps);
  assert_true(in_file > 0);
  if (st.spilled > 0)
    in_spill = mark_records(spill, flow, seen, GONE_RECS, 0, NULL);
  assert_int_equal(in_spill, st.spilled);
  assert_true(in_file + gaps + in_spill <= GONE_RECS);
}

#define FULL_RECS 100000u

/* The server's disk fills up (a 256 KiB tmpfs) during a TCP session: the
 * session ends incomplete with the records written whole, which it counts
 * and acknowledges; the client spills exactly the others (none in both
 * places, as there were before); registrations refused for the full disk
 * leave no empty file behind. */
static void full_disk_session(void **state) {
  fixture *f = *state;
  uint8_t *seen = calloc(FULL_RECS, 1);
  char spill_dir[400], spill[1200], path[1200], why[256];
  itg_logserver_stats ss;
  itg_logger_stats st;
  uv_fs_t req;
  uv_dirent_t ent;
  uint64_t in_file, in_spill;
  int files = 0;
  assert_non_null(seen);
  if (smallfs_mount(f->dir, 256 * 1024, why, sizeof why) != 0) {
    fprintf(stderr, "full_disk_session skipped: %s\n", why);
    free(seen);
    skip();
  }
  f->mounted = 1;
  assert_int_equal(tmpdir_make(spill_dir, sizeof spill_dir, "itg_test_spill_"),
                   0);
  snprintf(spill, sizeof spill, "%s/full.spill", spill_dir);
  start_server(f, NULL);
  assert_int_equal(itg_logger_close_stats(push_to_server(f, ITG_LOG_TCP,
                                                         "full.log", 8, spill,
                                                         FULL_RECS),
                                          &st),
                   0);
  itg_logserver_stop(f->srv);
  itg_logserver_get_stats(f->srv, &ss);
  assert_int_equal(st.lost, 0);
  assert_true(st.spilled > 0);
  assert_int_equal(ss.incomplete, 1);
  in_dir(f, "full.log.incomplete", path, sizeof path);
  in_file = mark_records(path, 8, seen, FULL_RECS, 0, NULL);
  in_spill = mark_records(spill, 8, seen, FULL_RECS, 0, NULL);
  assert_true(in_file > 0);
  assert_int_equal(ss.records, in_file);
  assert_int_equal(in_spill, st.spilled);
  assert_int_equal(in_file + in_spill, FULL_RECS);
  /* Only the session's file: none from the refused registrations. */
  assert_true(uv_fs_scandir(NULL, &req, f->dir, 0, NULL) >= 0);
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    assert_string_equal(ent.name, "full.log.incomplete");
    files++;
  }
  uv_fs_req_cleanup(&req);
  assert_int_equal(files, 1);
  assert_int_equal(tmpdir_remove(spill_dir), 0);
  free(seen);
}

#define MANY 64
#define MANY_RECS 2000u

typedef struct many_arg {
  const fixture *f;
  uint32_t id;
  int rc;
  itg_logger_stats st;
} many_arg;

static void many_main(void *p) {
  many_arg *a = p;
  char name[32];
  snprintf(name, sizeof name, "c%02u.log", (unsigned)a->id);
  a->rc = ship(a->f, a->id % 2 ? ITG_LOG_UDP : ITG_LOG_TCP, name, a->id,
               MANY_RECS, &a->st);
}

/* Marks in seen the records client id left in the test's directory: in
 * its sessions' files (NAME, or NAME.incomplete) and in its spill file
 * (NAME.spill); a record may be in two (one the server wrote but had not
 * acknowledged when the client gave it up). Gap records' counts go to
 * *gaps. Returns how many records the spill file holds. */
static uint64_t mark_client(const fixture *f, uint32_t id, uint8_t *seen,
                            uint64_t *gaps) {
  uv_fs_t req;
  uv_dirent_t ent;
  char name[32], spill_name[40], path[1200];
  uint64_t in_spill = 0;
  snprintf(name, sizeof name, "c%02u.log", (unsigned)id);
  snprintf(spill_name, sizeof spill_name, "%s.spill", name);
  assert_true(uv_fs_scandir(NULL, &req, f->dir, 0, NULL) >= 0);
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    uint64_t n;
    if (strncmp(ent.name, name, strlen(name)) != 0)
      continue;
    in_dir(f, ent.name, path, sizeof path);
    n = mark_records(path, id, seen, MANY_RECS, 1, gaps);
    if (strcmp(ent.name, spill_name) == 0)
      in_spill = n;
  }
  uv_fs_req_cleanup(&req);
  return in_spill;
}

/* 64 clients at once, half over TCP, half over UDP: every record is
 * written, counted missing or spilled. A loaded machine (sanitizers, an
 * emulator) may keep the server from answering in time: a client that
 * waited a second for its registration spills its records (the session,
 * if it opens late, ends incomplete); one that waited seconds for the end
 * of its session spills what was not acknowledged, and its session ends
 * incomplete. Over UDP nothing is acknowledged: such a session counts as
 * unconfirmed, and what of it did not arrive is counted nowhere. */
static void sixty_four_clients(void **state) {
  fixture *f = *state;
  uv_thread_t th[MANY];
  many_arg args[MANY];
  itg_logserver_stats ss;
  uint32_t i, spilled_clients = 0, unconfirmed = 0;
  start_server(f, NULL);
  for (i = 0; i < MANY; i++) {
    args[i].f = f;
    args[i].id = i;
    assert_int_equal(uv_thread_create(&th[i], many_main, &args[i]), 0);
  }
  for (i = 0; i < MANY; i++)
    assert_int_equal(uv_thread_join(&th[i]), 0);
  for (i = 0; i < MANY; i++) {
    uint8_t seen[MANY_RECS];
    uint64_t gaps = 0, found = 0, k;
    assert_int_equal(args[i].rc, 0);
    memset(seen, 0, sizeof seen);
    assert_int_equal(mark_client(f, i, seen, &gaps), args[i].st.spilled);
    for (k = 0; k < MANY_RECS; k++)
      found += seen[k];
    if (args[i].st.unconfirmed == 0) {
      assert_int_equal(found + gaps, MANY_RECS);
    } else {
      assert_true(i % 2 == 1);
      assert_true(found + gaps <= MANY_RECS);
      unconfirmed++;
    }
    spilled_clients += args[i].st.spilled > 0;
  }
  itg_logserver_get_stats(f->srv, &ss);
  if (spilled_clients + unconfirmed > 0)
    print_message("%u of %u clients spilled, %u ended unconfirmed\n",
                  spilled_clients, MANY, unconfirmed);
  assert_true(ss.sessions_total + spilled_clients >= MANY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(tcp_session_complete, setup, teardown),
      cmocka_unit_test_setup_teardown(udp_session_without_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(udp_server_gone_unconfirmed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(udp_injected_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_names_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(refused_client_named, setup, teardown),
      cmocka_unit_test_setup_teardown(token_checked, setup, teardown),
      cmocka_unit_test_setup_teardown(vanished_client_incomplete, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(unreachable_server_spills, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(stalled_server_spills, setup, teardown),
      cmocka_unit_test_setup_teardown(full_disk_session, setup, teardown),
      cmocka_unit_test_setup_teardown(sixty_four_clients, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
