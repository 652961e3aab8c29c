/* The remote control: an agent on loopback driven by the client API and
 * by raw sockets speaking (or breaking) its protocol. The handshake's
 * refusals: a wrong token, a replayed proof, a network not allowed, a
 * silent client dropped after the timeout, garbage and commands before
 * the proof, each leaving the agent as it was; the commands: clock, flows
 * started at an instant and their results on both ends, status, stop,
 * busy, logs; the limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/remote_msg.h"
#include "engine/control.h"
#include "helpers/tmpdir.h"
#include "itg.h"
#include "platform/platform.h"

#define SEC INT64_C(1000000000)
#define MS INT64_C(1000000)
#define TIMEOUT (10 * SEC)

static const char token[] = "a token of the tests, 32 bytes..";

static char logdir[512];

/* An agent on loopback, ports of the system's choice, its logs in
 * logdir. */
static itg_agent *agent_up(uint32_t auth_ms, const char *allow) {
  itg_agent_cfg cfg;
  itg_agent *a;
  char err[256];
  itg_agent_cfg_init(&cfg);
  cfg.listen_port = 0;
  cfg.recv_port = 0;
  snprintf(cfg.recv_host, sizeof cfg.recv_host, "127.0.0.1");
  memcpy(cfg.token, token, sizeof token - 1);
  cfg.token_len = sizeof token - 1;
  cfg.auth_timeout_ms = auth_ms;
  snprintf(cfg.log_dir, sizeof cfg.log_dir, "%s", logdir);
  snprintf(cfg.send_log, sizeof cfg.send_log, "send.log");
  if (allow != NULL)
    assert_int_equal(itg_logserver_net_list_parse(allow, cfg.allow,
                                                  ITG_AGENT_MAX_NETS,
                                                  &cfg.allow_count, NULL, 0),
                     0);
  assert_int_equal(itg_agent_new(&cfg, &a, err, sizeof err), 0);
  assert_int_equal(itg_agent_start(a, err, sizeof err), 0);
  assert_int_not_equal(itg_agent_port(a), 0);
  assert_int_not_equal(itg_agent_receiver_port(a), 0);
  return a;
}

static itg_remote *client(itg_agent *a) {
  itg_remote *r = NULL;
  char err[256];
  int rc = itg_remote_connect("127.0.0.1", itg_agent_port(a), token,
                              sizeof token - 1, TIMEOUT, &r, err, sizeof err);
  if (rc != 0)
    fail_msg("connect: %s", err);
  return r;
}

/* ---- raw clients ---------------------------------------------------- */

typedef struct raw {
  itg__sock s;
  itg__frame_reader fr;
  uint8_t buf[ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER];
} raw;

static raw *raw_open(itg_agent *a, const char *from) {
  raw *c = calloc(1, sizeof *c);
  itg__addr to, src;
  assert_non_null(c);
  assert_int_equal(itg__addr_resolve("127.0.0.1", itg_agent_port(a), 0, &to),
                   0);
  assert_int_equal(itg__sock_open(&to, 0, &c->s), 0);
  if (from != NULL) {
    assert_int_equal(itg__addr_resolve(from, 0, 1, &src), 0);
    assert_int_equal(itg__sock_bind(c->s, &src), 0);
  }
  assert_int_equal(itg__sock_connect(c->s, &to, TIMEOUT), 0);
  return c;
}

static void raw_close(raw *c) {
  itg__sock_close(c->s);
  free(c);
}

static int raw_next(void *reader, void *out) {
  raw *c = reader;
  static const uint32_t max = ITG__RM_MAX_ANSWER;
  uint8_t *frame;
  int len = itg__frame_reader_next(&c->fr, c->buf, sizeof c->buf,
                                   itg__rm_measure, (void *)&max, &frame);
  if (len <= 0)
    return len;
  len = itg__rm_decode(frame, (size_t)len, max, out);
  return len < 0 ? len : 1;
}

static int raw_fill(itg__sock s, void *reader) {
  raw *c = reader;
  size_t room;
  uint8_t *p = itg__frame_reader_space(&c->fr, c->buf, sizeof c->buf, &room);
  int n = itg__stream_recv(s, p, room);
  if (n > 0)
    itg__frame_reader_commit(&c->fr, (size_t)n);
  return n;
}

/* The next message, or the error that ended the wait. */
static int raw_recv(raw *c, itg__rm_msg *m, int64_t timeout) {
  static const itg__msg_source src = {raw_next, raw_fill};
  return itg__recv_msg(c->s, &src, c, m, timeout);
}

static void raw_send(raw *c, const itg__rm_msg *m) {
  uint8_t frame[ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY];
  int len = itg__rm_encode(m, frame, sizeof frame);
  assert_true(len > 0);
  assert_int_equal(itg__ctl_send_bytes(c->s, frame, (size_t)len, TIMEOUT), 0);
}

/* Reads the challenge and returns the AUTH answering it with key. */
static void raw_auth_for(raw *c, const void *key, size_t keylen,
                         itg__rm_msg *auth, uint8_t nonce[ITG__RM_NONCE]) {
  itg__rm_msg m;
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_CHALLENGE);
  memcpy(nonce, m.nonce, ITG__RM_NONCE);
  itg__rm_init(auth, ITG__RM_AUTH);
  memset(auth->nonce, 0x5a, sizeof auth->nonce);
  itg__rm_proof(key, keylen, ITG__RM_LABEL_CLIENT, m.nonce, auth->nonce,
                auth->mac);
}

/* Expects an ERR of code `code`, then the agent's close. */
static void raw_expect_refusal(raw *c, int code) {
  itg__rm_msg m;
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_ERR);
  assert_int_equal(m.code, code);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), ITG_ECLOSED);
}

/* The agent as a fresh client sees it: no flows, nothing received. */
static void expect_untouched(itg_agent *a) {
  itg_remote *r = client(a);
  itg_remote_status st;
  assert_int_equal(itg_remote_status(r, &st), 0);
  assert_int_equal(st.state, ITG_REMOTE_IDLE);
  assert_int_equal(st.flows, 0);
  assert_int_equal(st.rx_flows_served, 0);
  itg_remote_close(r);
}

/* ---- the handshake -------------------------------------------------- */

static void test_connect_and_clock(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = client(a);
  int64_t off = INT64_MAX, rtt = -1;
  (void)state;
  assert_int_equal(itg_remote_receiver_port(r), itg_agent_receiver_port(a));
  assert_non_null(strstr(itg_remote_agent_software(r), "libitg"));
  assert_int_equal(itg_remote_clock(r, 5, &off, &rtt), 0);
  /* One host, one clock: the offset is within the round trip. */
  assert_true(rtt >= 0 && rtt < TIMEOUT);
  assert_true(off <= rtt && off >= -rtt);
  assert_int_equal(itg_remote_clock(r, 0, &off, &rtt), ITG_EINVAL);
  itg_remote_close(r);
  itg_agent_free(a);
}

static void test_wrong_token(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = NULL;
  char err[256];
  raw *c;
  itg__rm_msg auth;
  uint8_t nonce[ITG__RM_NONCE];
  (void)state;
  assert_int_equal(itg_remote_connect("127.0.0.1", itg_agent_port(a),
                                      "another token", 13, TIMEOUT, &r, err,
                                      sizeof err),
                   ITG_EPERM);
  assert_null(r);
  assert_non_null(strstr(err, "wrong token"));
  /* The same over a raw socket: ERR EPERM, then the close. */
  c = raw_open(a, NULL);
  raw_auth_for(c, "x", 1, &auth, nonce);
  raw_send(c, &auth);
  raw_expect_refusal(c, ITG_EPERM);
  raw_close(c);
  expect_untouched(a);
  itg_agent_free(a);
}

/* A proof recorded from one connection does not open another: each
 * challenge is new. */
static void test_replay(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg__rm_msg auth, m;
  uint8_t n1[ITG__RM_NONCE], n2[ITG__RM_NONCE];
  raw *c = raw_open(a, NULL);
  (void)state;
  raw_auth_for(c, token, sizeof token - 1, &auth, n1);
  raw_send(c, &auth);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_AUTH_OK);
  raw_close(c);
  c = raw_open(a, NULL);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_CHALLENGE);
  memcpy(n2, m.nonce, sizeof n2);
  assert_memory_not_equal(n1, n2, sizeof n1);
  raw_send(c, &auth);
  raw_expect_refusal(c, ITG_EPERM);
  raw_close(c);
  itg_agent_free(a);
}

/* Only the networks named: 127.0.0.2 alone allows neither 127.0.0.1 (not
 * even loopback is kept) ... */
static void test_not_allowed(void **state) {
  itg_agent *a = agent_up(5000, "127.0.0.2/32");
  itg_remote *r = NULL;
  itg__rm_msg m;
  char err[256];
  raw *c;
  (void)state;
  assert_int_equal(itg_remote_connect("127.0.0.1", itg_agent_port(a), token,
                                      sizeof token - 1, TIMEOUT, &r, err,
                                      sizeof err),
                   ITG_ECLOSED);
  assert_null(r);
  /* ... the agent closes without a challenge ... */
  c = raw_open(a, "127.0.0.1");
  assert_int_equal(raw_recv(c, &m, TIMEOUT), ITG_ECLOSED);
  raw_close(c);
  /* ... while a client from 127.0.0.2 is challenged. */
  c = raw_open(a, "127.0.0.2");
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_CHALLENGE);
  raw_close(c);
  itg_agent_free(a);
}

/* A client that says nothing is told so and dropped once the timeout has
 * passed, not before. The clock starts before the connection: the agent
 * may accept it before raw_open returns. */
static void test_silent_dropped(void **state) {
  itg_agent *a = agent_up(300, NULL);
  itg__rm_msg m;
  int64_t t0 = itg_clock_mono_ns();
  raw *c = raw_open(a, NULL);
  (void)state;
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_CHALLENGE);
  raw_expect_refusal(c, ITG_ETIMEDOUT);
  assert_true(itg_clock_mono_ns() - t0 >= 300 * MS);
  raw_close(c);
  itg_agent_free(a);
}

/* Garbage, an oversized header, a command before the proof: each is
 * refused on its connection and the agent is as it was. */
static void test_garbage(void **state) {
  static const uint8_t junk[] = "GET / HTTP/1.0\r\n\r\n";
  uint8_t big[ITG__FRAME_HDR_LEN];
  itg_agent *a = agent_up(5000, NULL);
  itg__rm_msg m;
  raw *c;
  (void)state;
  c = raw_open(a, NULL);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(itg__ctl_send_bytes(c->s, junk, sizeof junk - 1, TIMEOUT),
                   0);
  raw_expect_refusal(c, ITG_EVERSION);
  raw_close(c);
  /* A START's size before the proof: refused on its header alone. */
  c = raw_open(a, NULL);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  itg__frame_hdr_put(big, ITG__RM_START, ITG_REMOTE_VERSION,
                     ITG__RM_MAX_REQUEST);
  assert_int_equal(itg__ctl_send_bytes(c->s, big, sizeof big, TIMEOUT), 0);
  raw_expect_refusal(c, ITG_EBADMSG);
  raw_close(c);
  /* A command before the proof. */
  c = raw_open(a, NULL);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  itg__rm_init(&m, ITG__RM_STOP);
  raw_send(c, &m);
  raw_expect_refusal(c, ITG_EPERM);
  raw_close(c);
  expect_untouched(a);
  itg_agent_free(a);
}

/* An impostor: a server that challenges and accepts any proof, as one
 * that does not hold the token must, then answers with a proof of its
 * own made without the token. */
typedef struct impostor {
  uv_loop_t loop;
  uv_tcp_t server, conn;
  uv_thread_t thread;
  uint16_t port;
  itg__frame_reader fr;
  uint8_t buf[ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY];
  uv_write_t w1, w2;
  uint8_t out1[64], out2[128];
} impostor;

static void imp_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b) {
  impostor *im = h->data;
  size_t room;
  uint8_t *p = itg__frame_reader_space(&im->fr, im->buf, sizeof im->buf, &room);
  (void)hint;
  *b = uv_buf_init((char *)p, (unsigned)room);
}

static void imp_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  impostor *im = s->data;
  const uint32_t max = ITG__RM_MAX_AUTH_BODY;
  uint8_t *frame;
  itg__rm_msg m;
  uv_buf_t out;
  int len;
  (void)b;
  if (n < 0) {
    uv_close((uv_handle_t *)&im->conn, NULL);
    uv_close((uv_handle_t *)&im->server, NULL);
    return;
  }
  itg__frame_reader_commit(&im->fr, (size_t)n);
  len = itg__frame_reader_next(&im->fr, im->buf, sizeof im->buf,
                               itg__rm_measure, (void *)&max, &frame);
  if (len <= 0)
    return;
  itg__rm_init(&m, ITG__RM_AUTH_OK);
  memset(m.mac, 0x11, sizeof m.mac);
  snprintf(m.text, sizeof m.text, "impostor");
  m.port = 9;
  len = itg__rm_encode(&m, im->out2, sizeof im->out2);
  out = uv_buf_init((char *)im->out2, (unsigned)len);
  uv_write(&im->w2, (uv_stream_t *)&im->conn, &out, 1, NULL);
}

static void imp_conn(uv_stream_t *s, int status) {
  impostor *im = s->data;
  itg__rm_msg m;
  uv_buf_t out;
  int len;
  (void)status;
  uv_tcp_init(&im->loop, &im->conn);
  im->conn.data = im;
  uv_accept(s, (uv_stream_t *)&im->conn);
  itg__rm_init(&m, ITG__RM_CHALLENGE);
  len = itg__rm_encode(&m, im->out1, sizeof im->out1);
  out = uv_buf_init((char *)im->out1, (unsigned)len);
  uv_write(&im->w1, (uv_stream_t *)&im->conn, &out, 1, NULL);
  uv_read_start((uv_stream_t *)&im->conn, imp_alloc, imp_read);
}

static void imp_main(void *arg) {
  impostor *im = arg;
  uv_run(&im->loop, UV_RUN_DEFAULT);
}

/* The client checks the agent's proof too: a server without the token is
 * not taken for the agent, though it let the client in. */
static void test_agent_proof(void **state) {
  impostor *im = calloc(1, sizeof *im);
  struct sockaddr_in sin;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  itg__addr addr;
  itg_remote *r = NULL;
  char err[256];
  (void)state;
  assert_non_null(im);
  assert_int_equal(uv_loop_init(&im->loop), 0);
  uv_tcp_init(&im->loop, &im->server);
  im->server.data = im;
  assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &sin), 0);
  assert_int_equal(uv_tcp_bind(&im->server, (struct sockaddr *)&sin, 0), 0);
  assert_int_equal(uv_listen((uv_stream_t *)&im->server, 1, imp_conn), 0);
  uv_tcp_getsockname(&im->server, (struct sockaddr *)&ss, &len);
  memcpy(&addr.ss, &ss, sizeof ss);
  addr.len = (socklen_t)len;
  im->port = itg__addr_port(&addr);
  assert_int_equal(uv_thread_create(&im->thread, imp_main, im), 0);
  assert_int_equal(itg_remote_connect("127.0.0.1", im->port, token,
                                      sizeof token - 1, TIMEOUT, &r, err,
                                      sizeof err),
                   ITG_EPERM);
  assert_null(r);
  assert_non_null(strstr(err, "did not prove"));
  uv_thread_join(&im->thread);
  uv_loop_close(&im->loop);
  free(im);
}

/* ---- the commands --------------------------------------------------- */

static int collect(const void *data, size_t len, void *user) {
  FILE *f = user;
  return fwrite(data, 1, len, f) == len ? 0 : -1;
}

/* Asks the agent's status until its receiver has ended n flows (they may
 * end there a moment after their senders have their counts), within
 * TIMEOUT; *st is the last answer. */
static void wait_rx_flows(itg_remote *r, itg_remote_status *st, uint32_t n) {
  for (int64_t end = itg_clock_mono_ns() + TIMEOUT;
       st->rx_flows < n && itg_clock_mono_ns() < end;)
    assert_int_equal(itg_remote_status(r, st), 0);
  assert_int_equal(st->rx_flows, n);
}

/* Fetches the log `name` from the agent and checks it is byte for byte
 * the file of that name in logdir (not empty); removes the file. */
static void assert_fetched(itg_remote *r, const char *name) {
  FILE *f = tmpfile(), *g;
  long n;
  char *x, *y, path[600];
  assert_non_null(f);
  assert_int_equal(itg_remote_fetch_log(r, name, collect, f), 0);
  snprintf(path, sizeof path, "%s/%s", logdir, name);
  g = fopen(path, "rb");
  assert_non_null(g);
  fseek(g, 0, SEEK_END);
  n = ftell(g);
  assert_true(n > 0);
  assert_int_equal(ftell(f), n);
  x = malloc((size_t)n);
  y = malloc((size_t)n);
  rewind(f);
  rewind(g);
  assert_int_equal(fread(x, 1, (size_t)n, f), n);
  assert_int_equal(fread(y, 1, (size_t)n, g), n);
  assert_memory_equal(x, y, (size_t)n);
  free(x);
  free(y);
  fclose(f);
  fclose(g);
  remove(path);
}

/* Flows towards the agent's own receiver, released at an instant a little
 * ahead: they leave at it, and both ends count them. */
static void test_start_results(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = client(a);
  itg_remote_status st;
  itg_flow_result fr;
  itg_remote_rx_flow rx;
  char l1[256], l2[256], err[256];
  const char *lines[3] = {l1, "  # a comment", l2};
  int64_t off, rtt, at;
  (void)state;
  snprintf(l1, sizeof l1,
           "-a 127.0.0.1 -rp 0 -Sdp %u -T UDP -C 200 -c 100 -z 20",
           (unsigned)itg_remote_receiver_port(r));
  snprintf(l2, sizeof l2,
           "-a 127.0.0.1 -rp 0 -Sdp %u -T TCP -C 200 -c 64 -z 10",
           (unsigned)itg_remote_receiver_port(r));
  assert_int_equal(itg_remote_clock(r, 3, &off, &rtt), 0);
  at = itg_clock_real_ns() + off + 300 * MS;
  assert_int_equal(itg_remote_start(r, lines, 3, at, err, sizeof err), 0);
  /* A START while these run is refused. */
  assert_int_equal(itg_remote_start(r, lines, 1, 0, err, sizeof err),
                   ITG_ESTATE);
  assert_int_equal(itg_remote_status(r, &st), 0);
  assert_true(st.state == ITG_REMOTE_HELD || st.state == ITG_REMOTE_RUNNING ||
              st.state == ITG_REMOTE_ENDED);
  assert_int_equal(st.flows, 2);
  assert_int_equal(itg_remote_results(r, 20 * SEC, &st), 0);
  assert_int_equal(st.state, ITG_REMOTE_ENDED);
  assert_true(st.start_wall_ns == at);
  assert_int_equal(st.flows, 2);
  assert_int_equal(itg_remote_flow_result(r, 0, &fr), 0);
  assert_int_equal(fr.status, 0);
  assert_int_equal(fr.packets, 20);
  assert_int_equal(fr.received, 20);
  assert_int_equal(fr.ended, 1);
  /* Not before the instant (the conversion to the monotonic clock is
   * exact to within a clock read). */
  assert_true(fr.first_tx_ns >= at - MS);
  assert_int_equal(itg_remote_flow_result(r, 1, &fr), 0);
  assert_int_equal(fr.packets, 10);
  assert_int_equal(fr.received, 10);
  assert_true(fr.first_tx_ns >= at - MS);
  assert_int_equal(itg_remote_flow_result(r, 2, &fr), ITG_EINVAL);
  /* The receiver's side. */
  wait_rx_flows(r, &st, 2);
  assert_int_equal(st.rx_packets, 30);
  assert_int_equal(itg_remote_rx_flow(r, 0, &rx), 0);
  assert_true(rx.packets == 20 || rx.packets == 10);
  assert_int_equal(rx.sent, rx.packets);
  assert_int_equal(rx.sent_known, 1);
  /* The sender log: byte for byte the file the agent wrote. */
  assert_fetched(r, "send.log");
  /* Only the logs it wrote, and no path. */
  assert_int_equal(itg_remote_fetch_log(r, "../send.log", collect, NULL),
                   ITG_ENOENT);
  assert_int_equal(itg_remote_fetch_log(r, "other.log", collect, NULL),
                   ITG_ENOENT);
  /* Still usable after the refusals. */
  assert_int_equal(itg_remote_stop(r), 0);
  itg_remote_close(r);
  itg_agent_free(a);
}

/* A second run naming the same receiver log: the agent keeps the first
 * run's file, and the receiver flow tells where the second's went, which
 * is what a fetch of that name gives. */
static void test_log_name_taken(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = client(a);
  itg_remote_status st;
  itg_remote_rx_flow rx[2];
  char line[256], err[256];
  const char *lines[1] = {line};
  (void)state;
  for (int run = 0; run < 2; run++) {
    snprintf(line, sizeof line,
             "-a 127.0.0.1 -rp 0 -Sdp %u -C 500 -c 64 -z %d -x taken.log",
             (unsigned)itg_remote_receiver_port(r), 10 + 5 * run);
    assert_int_equal(itg_remote_start(r, lines, 1, 0, err, sizeof err), 0);
    assert_int_equal(itg_remote_results(r, 20 * SEC, &st), 0);
    wait_rx_flows(r, &st, (uint32_t)run + 1);
  }
  assert_int_equal(itg_remote_rx_flow(r, 0, &rx[0]), 0);
  assert_int_equal(itg_remote_rx_flow(r, 1, &rx[1]), 0);
  assert_int_equal(rx[0].packets, 10);
  assert_string_equal(rx[0].log_file, "taken.log");
  assert_int_equal(rx[1].packets, 15);
  assert_string_equal(rx[1].log_file, "taken.log.1");
  assert_fetched(r, rx[1].log_file);
  assert_fetched(r, rx[0].log_file);
  itg_remote_close(r);
  itg_agent_free(a);
}

/* A line the agent cannot parse is named and nothing starts; a second
 * client is told the agent is busy; STOP ends long flows at once. */
static void test_refusals_busy_stop(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = client(a), *r2 = NULL;
  itg_remote_status st;
  itg_flow_result fr;
  char good[256], err[256];
  const char *bad[2] = {good, "-a 127.0.0.1 -T UDP --no-such-option"};
  const char *one[1] = {good};
  (void)state;
  snprintf(good, sizeof good,
           "-a 127.0.0.1 -rp 0 -Sdp %u -T UDP -C 100 -c 100 -t 60000",
           (unsigned)itg_remote_receiver_port(r));
  assert_int_equal(itg_remote_start(r, bad, 2, 0, err, sizeof err),
                   ITG_EINVAL);
  assert_non_null(strstr(err, "line 2"));
  assert_int_equal(itg_remote_status(r, &st), 0);
  assert_int_equal(st.state, ITG_REMOTE_IDLE);
  assert_int_equal(itg_remote_results(r, 0, &st), ITG_ESTATE);
  assert_int_equal(itg_remote_connect("127.0.0.1", itg_agent_port(a), token,
                                      sizeof token - 1, TIMEOUT, &r2, err,
                                      sizeof err),
                   ITG_EBUSY);
  assert_null(r2);
  assert_int_equal(itg_remote_start(r, one, 1, 0, err, sizeof err), 0);
  assert_int_equal(itg_remote_results(r, 0, &st), ITG_ETIMEDOUT);
  assert_int_equal(itg_remote_stop(r), 0);
  assert_int_equal(itg_remote_results(r, 20 * SEC, &st), 0);
  assert_int_equal(itg_remote_flow_result(r, 0, &fr), 0);
  assert_true(fr.packets < 6000);
  /* Once the controller says BYE, another client may take its place and
   * finds the results. */
  itg_remote_close(r);
  r = client(a);
  assert_int_equal(itg_remote_status(r, &st), 0);
  assert_int_equal(st.state, ITG_REMOTE_ENDED);
  assert_int_equal(st.flows, 1);
  itg_remote_close(r);
  itg_agent_free(a);
}

/* A receiver that never answers: a port that listens but never accepts
 * (the kernel completes the connections, nobody reads them). */
typedef struct mute {
  uv_loop_t loop;
  uv_tcp_t tcp;
  uint16_t port;
} mute;

static void on_mute_conn(uv_stream_t *s, int status) {
  (void)s;
  (void)status;
}

static void mute_up(mute *m) {
  struct sockaddr_in sin;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  itg__addr addr;
  assert_int_equal(uv_loop_init(&m->loop), 0);
  assert_int_equal(uv_tcp_init(&m->loop, &m->tcp), 0);
  assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &sin), 0);
  assert_int_equal(uv_tcp_bind(&m->tcp, (struct sockaddr *)&sin, 0), 0);
  assert_int_equal(uv_listen((uv_stream_t *)&m->tcp, 8, on_mute_conn), 0);
  assert_int_equal(
      uv_tcp_getsockname(&m->tcp, (struct sockaddr *)&ss, &len), 0);
  memcpy(&addr.ss, &ss, sizeof ss);
  addr.len = (socklen_t)len;
  m->port = itg__addr_port(&addr);
}

static void mute_down(mute *m) {
  uv_close((uv_handle_t *)&m->tcp, NULL);
  uv_run(&m->loop, UV_RUN_DEFAULT);
  uv_loop_close(&m->loop);
}

/* While a START's flows are set up with a receiver that does not answer
 * (seconds, up to the sender's connect timeout), the agent goes on
 * serving: a silent client is still dropped in time, a client that came
 * after the controller left is told to wait rather than given the sender
 * in the middle of its set-up, and STOP ends the set-up. */
static void test_setup_off_loop(void **state) {
  itg_agent *a = agent_up(300, NULL);
  itg__rm_msg auth, m;
  uint8_t nonce[ITG__RM_NONCE];
  uint8_t frame[ITG__FRAME_HDR_LEN + 256];
  char line[128];
  const char *lines[1] = {line};
  itg_remote *r;
  itg_remote_status st;
  mute mu;
  raw *c, *silent;
  int64_t t0;
  int len;
  (void)state;
  mute_up(&mu);
  snprintf(line, sizeof line, "-a 127.0.0.1 -rp 0 -Sdp %u -C 10 -z 5",
           (unsigned)mu.port);
  c = raw_open(a, NULL);
  raw_auth_for(c, token, sizeof token - 1, &auth, nonce);
  raw_send(c, &auth);
  assert_int_equal(raw_recv(c, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_AUTH_OK);
  itg__rm_init(&m, ITG__RM_START);
  m.lines = lines;
  m.n = 1;
  len = itg__rm_encode(&m, frame, sizeof frame);
  assert_true(len > 0);
  assert_int_equal(itg__ctl_send_bytes(c->s, frame, (size_t)len, TIMEOUT), 0);
  t0 = itg_clock_mono_ns();
  silent = raw_open(a, NULL);
  /* The controller leaves during the set-up. */
  raw_close(c);
  assert_int_equal(raw_recv(silent, &m, TIMEOUT), 0);
  assert_int_equal(m.type, ITG__RM_CHALLENGE);
  raw_expect_refusal(silent, ITG_ETIMEDOUT);
  raw_close(silent);
  r = client(a);
  assert_int_equal(itg_remote_status(r, &st), ITG_EBUSY);
  /* Dropped within its timeout, long before the set-up's 5 s. */
  assert_true(itg_clock_mono_ns() - t0 < 4 * SEC);
  assert_int_equal(itg_remote_stop(r), 0);
  for (int64_t end = itg_clock_mono_ns() + TIMEOUT;
       itg_clock_mono_ns() < end;) {
    int rc = itg_remote_status(r, &st);
    if (rc == 0)
      break;
    assert_int_equal(rc, ITG_EBUSY);
    uv_sleep(20); /* the poll's period */
  }
  assert_int_equal(st.state, ITG_REMOTE_ENDED);
  assert_int_equal(st.flows, 1);
  itg_remote_close(r);
  itg_agent_free(a);
  mute_down(&mu);
}

static void test_limits(void **state) {
  itg_agent *a = agent_up(5000, NULL);
  itg_remote *r = client(a);
  const char **lines = calloc(ITG_REMOTE_MAX_FLOWS + 1, sizeof *lines);
  char *longline = malloc(ITG_REMOTE_LINE_MAX + 2);
  char err[256];
  itg_agent_cfg cfg;
  itg_agent *b;
  (void)state;
  for (size_t i = 0; i <= ITG_REMOTE_MAX_FLOWS; i++)
    lines[i] = "-a 127.0.0.1 -z 1";
  assert_int_equal(itg_remote_start(r, lines, ITG_REMOTE_MAX_FLOWS + 1, 0, err,
                                    sizeof err),
                   ITG_EINVAL);
  memset(longline, 'x', ITG_REMOTE_LINE_MAX + 1);
  longline[ITG_REMOTE_LINE_MAX + 1] = '\0';
  lines[0] = longline;
  assert_int_equal(itg_remote_start(r, lines, 1, 0, err, sizeof err),
                   ITG_EINVAL);
  assert_int_equal(itg_remote_connect("127.0.0.1", 1, token, 0, TIMEOUT, &r,
                                      err, sizeof err),
                   ITG_EINVAL);
  /* Sizes no layout has (itg/common.h). */
  {
    itg_remote_status st[2];
    assert_int_equal(itg_remote_status_size(r, st, sizeof st), ITG_EINVAL);
    assert_int_equal(itg_remote_status_size(r, st, 1), ITG_EINVAL);
    assert_int_equal(itg_remote_status_size(r, st, sizeof st[0]), 0);
    assert_int_equal(itg_agent_cfg_init_size(&cfg, 1), ITG_EINVAL);
    assert_int_equal(itg_agent_cfg_init_size(&cfg, sizeof cfg + 1),
                     ITG_EINVAL);
  }
  itg_remote_close(r);
  /* No agent without a token. */
  itg_agent_cfg_init(&cfg);
  assert_int_equal(itg_agent_new(&cfg, &b, err, sizeof err), ITG_EINVAL);
  assert_non_null(strstr(err, "token"));
  free(lines);
  free(longline);
  itg_agent_free(a);
}

static int setup(void **state) {
  (void)state;
  return tmpdir_make(logdir, sizeof logdir, "itg-remote-") == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tmpdir_remove(logdir);
  return 0;
}

/* A flow's result crosses the wire whole: STATUS_OK's encoding keeps every
 * field of itg_flow_result, the catch-up counts among them, and a
 * receiver flow's log file name at its longest. */
static void test_flow_result_codec(void **state) {
  itg_remote_status st, got;
  itg_flow_result f, *flows = NULL;
  itg_remote_rx_flow x, *rx = NULL;
  itg__rm_msg m;
  static uint8_t buf[ITG__RM_MAX_ANSWER];
  int n;
  (void)state;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  st.state = ITG_REMOTE_ENDED;
  st.flows = 1;
  memset(&f, 0, sizeof f);
  f.struct_size = sizeof f;
  f.flow_id = 7;
  f.status = ITG_ETIMEDOUT;
  snprintf(f.error, sizeof f.error, "no answer");
  f.seed = 42;
  f.packets = 1000;
  f.bytes = 512000;
  f.first_tx_ns = 1700000000000000000LL;
  f.last_tx_ns = f.first_tx_ns + 999000000;
  f.late = 3;
  f.late_max_ns = 80000;
  f.late_sum_ns = 120000;
  f.data_port = 4321;
  f.ended = 1;
  f.skipped = 17;
  f.shifted = 150;
  memset(&x, 0, sizeof x);
  x.struct_size = sizeof x;
  x.flow_id = 9;
  x.packets = 30;
  x.sent = 30;
  x.sent_known = 1;
  snprintf(x.peer, sizeof x.peer, "127.0.0.1:4000");
  memset(x.log_file, 'n', sizeof x.log_file - 1);
  n = itg__rm_status_put(buf, sizeof buf, &st, &f, 1, &x, 1);
  assert_true(n > 0);
  assert_int_equal(itg__rm_decode(buf, (size_t)n, ITG__RM_MAX_ANSWER, &m), n);
  assert_int_equal(itg__rm_status_get(m.data, m.data_len, &got, &flows, &rx),
                   0);
  assert_non_null(flows);
  assert_int_equal(got.flows, 1);
  assert_int_equal(flows[0].flow_id, 7);
  assert_int_equal(flows[0].status, ITG_ETIMEDOUT);
  assert_string_equal(flows[0].error, "no answer");
  assert_int_equal(flows[0].packets, 1000);
  assert_int_equal(flows[0].last_tx_ns, f.last_tx_ns);
  assert_int_equal(flows[0].late_sum_ns, 120000);
  assert_int_equal(flows[0].data_port, 4321);
  assert_int_equal(flows[0].ended, 1);
  assert_int_equal(flows[0].skipped, 17);
  assert_int_equal(flows[0].shifted, 150);
  assert_non_null(rx);
  assert_int_equal(got.rx_flows, 1);
  assert_int_equal(rx[0].flow_id, 9);
  assert_int_equal(rx[0].sent_known, 1);
  assert_string_equal(rx[0].peer, x.peer);
  assert_string_equal(rx[0].log_file, x.log_file);
  free(flows);
  free(rx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flow_result_codec),
      cmocka_unit_test(test_connect_and_clock),
      cmocka_unit_test(test_wrong_token),
      cmocka_unit_test(test_replay),
      cmocka_unit_test(test_not_allowed),
      cmocka_unit_test(test_silent_dropped),
      cmocka_unit_test(test_garbage),
      cmocka_unit_test(test_agent_proof),
      cmocka_unit_test(test_start_results),
      cmocka_unit_test(test_log_name_taken),
      cmocka_unit_test(test_refusals_busy_stop),
      cmocka_unit_test(test_setup_off_loop),
      cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
