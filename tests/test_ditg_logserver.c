/* D-ITG's log clients at libitg's log server, and the codec of D-ITG's
 * log protocol (log/ditg_proto.h, the records' wire form in
 * core/ditg_rec.h). A client speaking as ITGSend -L does is greeted, gets
 * a data port, and its records, over UDP or TCP, land in a D-ITG log
 * under the last part of the name it asked for, each field kept; a jump
 * in a flow's sequence numbers over UDP is counted missing, a piece of a
 * record counted malformed; a malformed request, a name that is nothing
 * but a directory's, a client that never opens its data channel and one
 * that vanishes each end with their own error, while a libitg client
 * beside them ships its log whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "core/ditg_rec.h"
#include "log/ditg_proto.h"
#include "log/proto.h"
#include "helpers/stall_logserver.h"
#include "helpers/tmpdir.h"
#include "itg.h"
#include "platform/platform.h"

#define SEC 1000000000LL
#define WAIT (10 * SEC)

/* ---- the codec ----------------------------------------------------------- */

static void sniff_tells_ditg_from_libitg(void **state) {
  static const uint8_t udp[] = {ITG__DLP_UDP, 0}, tcp[] = {ITG__DLP_TCP, 0},
                       reg[] = {ITG__LP_REGISTER, ITG__LP_VERSION, 0, 0},
                       other[] = {3, 0};
  (void)state;
  assert_int_equal(itg__dlp_sniff(udp, 1), ITG_ETRUNC);
  assert_int_equal(itg__dlp_sniff(udp, 2), 1);
  assert_int_equal(itg__dlp_sniff(tcp, 2), 1);
  assert_int_equal(itg__dlp_sniff(reg, sizeof reg), 0);
  assert_int_equal(itg__dlp_sniff(other, 2), 0);
}

static void sig_codec(void **state) {
  uint8_t buf[ITG__DLP_SIG_LEN];
  itg__dlp_sig m, got;
  (void)state;
  memset(&m, 0, sizeof m);
  m.transport = ITG__DLP_UDP;
  snprintf(m.name, sizeof m.name, "/tmp/ITGSend.log");
  itg__dlp_sig_encode(&m, buf);
  assert_int_equal(buf[0], ITG__DLP_UDP);
  assert_int_equal(buf[1], 0);
  assert_string_equal((const char *)buf + 4, "/tmp/ITGSend.log");
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf - 1, &got), ITG_ETRUNC);
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf, &got), ITG__DLP_SIG_LEN);
  assert_int_equal(got.transport, ITG__DLP_UDP);
  assert_int_equal(got.stop, 0);
  assert_string_equal(got.name, "/tmp/ITGSend.log");
  /* A stop: D-ITG leaves the other fields as its memory was. */
  memset(buf, 0xa5, sizeof buf);
  buf[1] = 1;
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf, &got), ITG__DLP_SIG_LEN);
  assert_int_equal(got.stop, 1);
  /* Malformed: a stop of 2, an unknown transport, a name without end. */
  buf[1] = 2;
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf, &got), ITG_EBADMSG);
  itg__dlp_sig_encode(&m, buf);
  buf[0] = 3;
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf, &got), ITG_EBADMSG);
  itg__dlp_sig_encode(&m, buf);
  memset(buf + 4, 'a', ITG__DLP_NAME_LEN);
  assert_int_equal(itg__dlp_sig_decode(buf, sizeof buf, &got), ITG_EBADMSG);
}

static void port_and_name(void **state) {
  uint8_t buf[ITG__DLP_PORT_LEN];
  char name[ITG__LP_NAME_MAX + 1];
  uint16_t port;
  (void)state;
  itg__dlp_port_encode(9003, buf);
  assert_int_equal(buf[0] | buf[1], 0);
  assert_int_equal(buf[2] << 8 | buf[3], 9003);
  assert_int_equal(itg__dlp_port_decode(buf, &port), 0);
  assert_int_equal(port, 9003);
  memset(buf, 0, sizeof buf);
  assert_int_equal(itg__dlp_port_decode(buf, &port), ITG_EBADMSG);
  buf[1] = 1;
  assert_int_equal(itg__dlp_port_decode(buf, &port), ITG_EBADMSG);
  assert_int_equal(itg__dlp_file_name("/tmp/ITGSend.log", name, sizeof name), 0);
  assert_string_equal(name, "ITGSend.log");
  assert_int_equal(itg__dlp_file_name("C:\\logs\\recv.log", name, sizeof name),
                   0);
  assert_string_equal(name, "recv.log");
  assert_int_equal(itg__dlp_file_name("plain", name, sizeof name), 0);
  assert_string_equal(name, "plain");
  assert_int_equal(itg__dlp_file_name("/tmp/", name, sizeof name), ITG_EINVAL);
  assert_int_equal(itg__dlp_file_name("/tmp/..", name, sizeof name), ITG_EINVAL);
  assert_int_equal(itg__dlp_file_name("a/.hidden", name, sizeof name),
                   ITG_EINVAL);
  assert_int_equal(itg__dlp_file_name("x.spill", name, sizeof name), ITG_EINVAL);
  assert_int_equal(itg__dlp_file_name("", name, sizeof name), ITG_EINVAL);
}

static itg__ditg_rec test_rec(uint32_t flow, uint32_t seq) {
  itg__ditg_rec r;
  memset(&r, 0, sizeof r);
  r.flow_id = flow;
  r.seq = seq;
  r.src_port = 40000;
  r.dst_port = 45000;
  r.size = 100 + seq % 900;
  r.tx_tod_ns = (int64_t)(13 * 3600 + seq) * SEC + 250000 * 1000LL;
  r.rx_tod_ns = r.tx_tod_ns + 1500000; /* 1.5 ms later, whole us */
  snprintf(r.src_addr, sizeof r.src_addr, "127.0.0.1");
  snprintf(r.dst_addr, sizeof r.dst_addr, "127.0.0.%u", (unsigned)flow);
  return r;
}

static void wire_record_codec(void **state) {
  uint8_t buf[ITG_DITG_RECORD_LEN];
  itg__ditg_rec r = test_rec(3, 77), got;
  (void)state;
  itg__ditg_rec_encode_wire(&r, buf);
  /* Network byte order, the time as a second of the day and microseconds,
   * the doubles 0: what ITGSend's infosHostToNet sends. */
  assert_int_equal(buf[3], 3);
  assert_int_equal(buf[7], 77);
  assert_int_equal(((uint32_t)buf[16] << 24 | (uint32_t)buf[17] << 16 |
                    (uint32_t)buf[18] << 8 | buf[19]),
                   13 * 3600 + 77);
  assert_int_equal(((uint32_t)buf[22] << 8 | buf[23]), 250000 & 0xffff);
  for (int i = 128; i < 144; i++)
    assert_int_equal(buf[i], 0);
  assert_int_equal(itg__ditg_rec_decode_wire(buf, &got), 0);
  assert_memory_equal(&got, &r, sizeof r);
  /* Out of range: a second past the day, a million microseconds, a size
   * of 0, an address without its end. */
  buf[16] = 0xff;
  assert_int_equal(itg__ditg_rec_decode_wire(buf, &got), ITG_EBADMSG);
  itg__ditg_rec_encode_wire(&r, buf);
  buf[21] = 0x0f, buf[22] = 0x42, buf[23] = 0x40; /* 1 000 000 */
  assert_int_equal(itg__ditg_rec_decode_wire(buf, &got), ITG_EBADMSG);
  itg__ditg_rec_encode_wire(&r, buf);
  memset(buf + 32, 0, 4);
  assert_int_equal(itg__ditg_rec_decode_wire(buf, &got), ITG_EBADMSG);
  itg__ditg_rec_encode_wire(&r, buf);
  memset(buf + 36, 'a', ITG_DITG_ADDR_LEN);
  assert_int_equal(itg__ditg_rec_decode_wire(buf, &got), ITG_EBADMSG);
}

/* ---- the server ---------------------------------------------------------- */

enum { MAX_EVENTS = 32 };

typedef struct fixture {
  char dir[400];
  itg_logserver *srv;
  uint16_t port;
  uv_mutex_t lock;
  itg_log_session_event ev[MAX_EVENTS];
  int nev;
} fixture;

static void on_session(const itg_log_session_event *ev, void *user) {
  fixture *f = user;
  uv_mutex_lock(&f->lock);
  if (f->nev < MAX_EVENTS)
    f->ev[f->nev++] = *ev;
  uv_mutex_unlock(&f->lock);
}

static void start_server(fixture *f, uint32_t handshake_ms) {
  itg_logserver_cfg cfg;
  itg_logserver_cfg_init(&cfg);
  cfg.port = 0;
  strcpy(cfg.bind_host, "127.0.0.1");
  snprintf(cfg.dir, sizeof cfg.dir, "%s", f->dir);
  if (handshake_ms != 0)
    cfg.handshake_ms = handshake_ms;
  cfg.on_session = on_session;
  cfg.user = f;
  assert_int_equal(itg_logserver_new(&cfg, &f->srv), 0);
  assert_int_equal(itg_logserver_start(f->srv), 0);
  f->port = itg_logserver_port(f->srv);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_int_equal(uv_mutex_init(&f->lock), 0);
  assert_int_equal(tmpdir_make(f->dir, sizeof f->dir, "itg_test_ditg_ls_"), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  itg_logserver_free(f->srv);
  assert_int_equal(tmpdir_remove(f->dir), 0);
  uv_mutex_destroy(&f->lock);
  free(f);
  return 0;
}

/* Waits (at most WAIT) for the event of kind `kind` about the file `file`
 * (any file if NULL) and copies it into *out. */
static void wait_event(fixture *f, itg_log_session_kind kind, const char *file,
                       itg_log_session_event *out) {
  int64_t end = (int64_t)uv_hrtime() + WAIT;
  for (;;) {
    int i, found = 0;
    uv_mutex_lock(&f->lock);
    for (i = 0; i < f->nev && !found; i++)
      if (f->ev[i].kind == kind &&
          (file == NULL || strcmp(f->ev[i].file, file) == 0)) {
        *out = f->ev[i];
        found = 1;
      }
    uv_mutex_unlock(&f->lock);
    if (found)
      return;
    assert_true((int64_t)uv_hrtime() < end);
    uv_sleep(5);
  }
}

static void send_all(itg__sock s, const uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    int k = itg__stream_send(s, buf + at, len - at);
    assert_true(k > 0);
    at += (size_t)k;
  }
}

/* Reads exactly len bytes (within WAIT). Returns 0, or -1 if the server
 * closed first. */
static int recv_all(itg__sock s, uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    int k;
    assert_int_equal(itg__sock_wait_readable(s, WAIT), 1);
    k = itg__stream_recv(s, buf + at, len - at);
    if (k <= 0)
      return -1;
    at += (size_t)k;
  }
  return 0;
}

static itg__sock connect_tcp(uint16_t port) {
  itg__addr a;
  itg__sock s;
  assert_int_equal(itg__addr_resolve("127.0.0.1", port, 0, &a), 0);
  assert_int_equal(itg__sock_open(&a, 0, &s), 0);
  assert_int_equal(itg__sock_connect(s, &a, WAIT), 0);
  return s;
}

/* Does what ITGSend does up to its data channel: waits for the greeting,
 * asks for `name` over `transport`. Returns the data port, or 0 if the
 * server closed the connection instead of answering. */
static uint16_t ditg_ask(const fixture *f, uint8_t transport, const char *name,
                         itg__sock *sig) {
  uint8_t hello, buf[ITG__DLP_SIG_LEN];
  itg__dlp_sig m;
  uint16_t port;
  *sig = connect_tcp(f->port);
  assert_int_equal(recv_all(*sig, &hello, 1), 0);
  assert_int_equal(hello, ITG__DLP_CONNECT);
  memset(&m, 0, sizeof m);
  m.transport = transport;
  snprintf(m.name, sizeof m.name, "%s", name);
  itg__dlp_sig_encode(&m, buf);
  send_all(*sig, buf, sizeof buf);
  if (recv_all(*sig, buf, ITG__DLP_PORT_LEN) != 0)
    return 0;
  assert_int_equal(itg__dlp_port_decode(buf, &port), 0);
  return port;
}

static void ditg_stop(itg__sock sig) {
  uint8_t buf[ITG__DLP_SIG_LEN];
  memset(buf, 0x5a, sizeof buf); /* D-ITG's stop: fields left as they were */
  buf[1] = 1;
  send_all(sig, buf, sizeof buf);
}

/* Checks that the D-ITG log `file` holds the records test_rec(1, seq) for
 * the sequence numbers seqs[0..n). */
static void check_file(const fixture *f, const char *file, const uint32_t *seqs,
                       size_t n) {
  char path[1200];
  uint8_t buf[ITG_DITG_RECORD_LEN];
  FILE *in;
  size_t i;
  snprintf(path, sizeof path, "%s/%s", f->dir, file);
  in = fopen(path, "rb");
  assert_non_null(in);
  for (i = 0; i < n; i++) {
    itg__ditg_rec got, want = test_rec(1, seqs[i]);
    assert_int_equal(fread(buf, 1, sizeof buf, in), sizeof buf);
    assert_int_equal(itg__ditg_rec_decode(buf, &got), 0);
    assert_int_equal(got.flow_id, want.flow_id);
    assert_int_equal(got.seq, want.seq);
    assert_int_equal(got.size, want.size);
    assert_int_equal(got.src_port, want.src_port);
    assert_int_equal(got.dst_port, want.dst_port);
    assert_string_equal(got.src_addr, want.src_addr);
    assert_string_equal(got.dst_addr, want.dst_addr);
    /* to the microsecond: the file keeps seconds as a double */
    assert_true(llabs(got.tx_tod_ns - want.tx_tod_ns) < 1000);
    assert_true(llabs(got.rx_tod_ns - want.rx_tod_ns) < 1000);
  }
  assert_int_equal(fread(buf, 1, 1, in), 0);
  fclose(in);
}

static void put_recs(uint8_t *buf, uint32_t first, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; i++) {
    itg__ditg_rec r = test_rec(1, first + i);
    itg__ditg_rec_encode_wire(&r, buf + (size_t)i * ITG_DITG_RECORD_LEN);
  }
}

/* ITGSend -L over UDP: datagrams of whole records, one flow's sequence
 * numbers jumping over 3 (counted missing), a datagram ending in a piece
 * of a record (the piece counted malformed), a datagram from another
 * address (ignored). */
static void udp_session(void **state) {
  fixture *f = *state;
  uint8_t dg[12 * ITG_DITG_RECORD_LEN + 50];
  uint32_t seqs[20];
  itg_log_session_event ev;
  itg_logserver_stats st;
  itg__sock sig, us;
  itg__addr ua;
  itg__dgram d;
  uint16_t port;
  uint32_t i;
  start_server(f, 0);
  port = ditg_ask(f, ITG__DLP_UDP, "/tmp/some/where/udp.log", &sig);
  assert_true(port != 0 && port != f->port);
  wait_event(f, ITG_LOG_SESSION_OPENED, "udp.log", &ev);
  assert_int_equal(ev.transport, ITG_LOG_UDP);
  assert_int_equal(ev.role, 0);
  assert_int_equal(itg__addr_resolve("127.0.0.1", port, 0, &ua), 0);
  assert_int_equal(itg__sock_open(&ua, 1, &us), 0);
  assert_int_equal(itg__sock_connect(us, &ua, SEC), 0);
  memset(&d, 0, sizeof d);
  d.buf = dg;
  put_recs(dg, 1, 10); /* 1..10 */
  d.len = 10 * ITG_DITG_RECORD_LEN;
  assert_int_equal(itg__send_batch(us, &d, 1), 1);
  put_recs(dg, 14, 10); /* 14..23, and a piece of 24 */
  d.len = 10 * ITG_DITG_RECORD_LEN + 50;
  assert_int_equal(itg__send_batch(us, &d, 1), 1);
#ifndef _WIN32
  /* Another address of loopback, not the client's: dropped. (Wine sends
   * a UDP socket's datagrams bound to 127.0.0.2 from another source
   * address, so this case is not one there.) */
  itg__sock other;
  itg__addr oa;
  assert_int_equal(itg__addr_resolve("127.0.0.2", 0, 1, &oa), 0);
  assert_int_equal(itg__sock_open(&oa, 1, &other), 0);
  assert_int_equal(itg__sock_bind(other, &oa), 0);
  assert_int_equal(itg__sock_connect(other, &ua, SEC), 0);
  put_recs(dg, 30, 2);
  d.len = 2 * ITG_DITG_RECORD_LEN;
  assert_int_equal(itg__send_batch(other, &d, 1), 1);
  itg__sock_close(other);
#endif
  ditg_stop(sig);
  wait_event(f, ITG_LOG_SESSION_CLOSED, "udp.log", &ev);
  assert_int_equal(ev.complete, 1);
  assert_int_equal(ev.records, 20);
  assert_int_equal(ev.missing, 3);
  assert_int_equal(ev.status, ITG_EBADMSG);
  assert_non_null(strstr(ev.message, "1 malformed"));
  for (i = 0; i < 20; i++)
    seqs[i] = i < 10 ? i + 1 : i + 4;
  check_file(f, "udp.log", seqs, 20);
  itg_logserver_get_stats(f->srv, &st);
  assert_int_equal(st.sessions_total, 1);
  assert_int_equal(st.sessions_open, 0);
  assert_int_equal(st.records, 20);
  assert_int_equal(st.missing, 3);
  assert_int_equal(st.incomplete, 0);
  itg__sock_close(us);
  itg__sock_close(sig);
}

/* ITGSend -L over TCP: records cut at any byte across writes, all in
 * order; a record cut short by the close counted malformed; the same name
 * again gets NAME.1. */
static void tcp_session(void **state) {
  fixture *f = *state;
  static uint8_t buf[300 * ITG_DITG_RECORD_LEN];
  static uint32_t seqs[300];
  itg_log_session_event ev;
  itg__sock sig, data;
  uint16_t port;
  size_t at = 0, step = 1;
  uint32_t i;
  start_server(f, 0);
  port = ditg_ask(f, ITG__DLP_TCP, "tcp.log", &sig);
  assert_true(port != 0);
  data = connect_tcp(port);
  put_recs(buf, 1, 300);
  while (at < sizeof buf) {
    size_t n = step < sizeof buf - at ? step : sizeof buf - at;
    send_all(data, buf + at, n);
    at += n;
    step = step * 3 + 7;
  }
  send_all(data, buf, 100); /* a piece */
  ditg_stop(sig);
  itg__sock_close(data);
  wait_event(f, ITG_LOG_SESSION_CLOSED, "tcp.log", &ev);
  assert_int_equal(ev.complete, 1);
  assert_int_equal(ev.records, 300);
  assert_int_equal(ev.missing, 0);
  assert_int_equal(ev.status, ITG_EBADMSG);
  for (i = 0; i < 300; i++)
    seqs[i] = i + 1;
  check_file(f, "tcp.log", seqs, 300);
  itg__sock_close(sig);

  port = ditg_ask(f, ITG__DLP_TCP, "tcp.log", &sig);
  data = connect_tcp(port);
  send_all(data, buf, 2 * ITG_DITG_RECORD_LEN);
  ditg_stop(sig);
  itg__sock_close(data);
  wait_event(f, ITG_LOG_SESSION_CLOSED, "tcp.log.1", &ev);
  assert_int_equal(ev.records, 2);
  assert_int_equal(ev.status, 0);
  check_file(f, "tcp.log.1", seqs, 2);
  itg__sock_close(sig);
}

/* Hostile or broken D-ITG clients, each turned away or ended with its own
 * error, none of them holding up a libitg client. */
static void hostile_clients(void **state) {
  fixture *f = *state;
  uint8_t hello, buf[ITG__DLP_SIG_LEN];
  itg_log_session_event ev;
  itg_logserver_stats st;
  itg_logger_cfg lc;
  itg_logger *l;
  itg_logger_stats ls;
  itg__sock bad, dir_only, no_data, vanish, silent;
  uint32_t flow = 5;
  char path[1200];
  int i;
  start_server(f, 1000);
  /* A silent client is greeted, then closed at handshake_ms. */
  silent = connect_tcp(f->port);
  /* A malformed request: refused and closed, nothing created. */
  bad = connect_tcp(f->port);
  assert_int_equal(recv_all(bad, &hello, 1), 0);
  memset(buf, 0, sizeof buf);
  buf[0] = ITG__DLP_UDP;
  memset(buf + 4, 'n', ITG__DLP_NAME_LEN); /* no NUL */
  send_all(bad, buf, sizeof buf);
  assert_int_equal(recv_all(bad, &hello, 1), -1);
  /* A name that is a directory's only. */
  assert_int_equal(ditg_ask(f, ITG__DLP_UDP, "/tmp/..", &dir_only), 0);
  /* TCP asked, and no data connection ever made: ended at handshake_ms. */
  assert_true(ditg_ask(f, ITG__DLP_TCP, "nodata.log", &no_data) != 0);
  /* Gone without its stop: its file is kept, .incomplete. */
  assert_true(ditg_ask(f, ITG__DLP_UDP, "vanish.log", &vanish) != 0);
  wait_event(f, ITG_LOG_SESSION_OPENED, "vanish.log", &ev);
  itg__sock_close(vanish);

  /* Meanwhile a libitg client ships its log whole. */
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = f->port;
  lc.transport = ITG_LOG_TCP;
  lc.path = "libitg.log";
  snprintf(path, sizeof path, "%s/libitg.spill", f->dir);
  lc.spill_path = path;
  lc.flow_ids = &flow;
  lc.n_flow_ids = 1;
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  for (i = 0; i < 1000; i++) {
    itg_logrec r;
    memset(&r, 0, sizeof r);
    r.flow_id = flow;
    r.flags = ITG_REC_TX;
    r.size = 100;
    r.seq = (uint64_t)i;
    r.tx_ns = SEC + i;
    assert_int_equal(itg_logger_push(l, 0, &r), 0);
  }
  assert_int_equal(itg_logger_close_stats(l, &ls), 0);
  assert_int_equal(ls.records, 1000);
  assert_int_equal(ls.spilled, 0);
  wait_event(f, ITG_LOG_SESSION_CLOSED, "libitg.log", &ev);
  assert_int_equal(ev.complete, 1);
  assert_int_equal(ev.records, 1000);

  wait_event(f, ITG_LOG_SESSION_CLOSED, "vanish.log.incomplete", &ev);
  assert_int_equal(ev.complete, 0);
  wait_event(f, ITG_LOG_SESSION_CLOSED, "nodata.log.incomplete", &ev);
  assert_int_equal(ev.status, ITG_ETIMEDOUT);
  assert_int_equal(recv_all(no_data, &hello, 1), -1);
  assert_int_equal(recv_all(silent, &hello, 1), 0);
  assert_int_equal(hello, ITG__DLP_CONNECT);
  assert_int_equal(recv_all(silent, &hello, 1), -1);
  itg_logserver_get_stats(f->srv, &st);
  assert_int_equal(st.refused, 2);
  assert_int_equal(st.expired, 1);
  assert_int_equal(st.sessions_total, 3);
  assert_int_equal(st.sessions_open, 0);
  assert_int_equal(st.incomplete, 2);
  itg__sock_close(silent);
  itg__sock_close(no_data);
  itg__sock_close(dir_only);
  itg__sock_close(bad);
}

/* A logger shipping to a D-ITG log server (ITG_LOG_SERVER_DITG), here
 * libitg's own, which speaks the same protocol: each packet sent becomes
 * a D-ITG record with its flow, sequence number, size and send time (in
 * both places, as ITGSend logs), other records are left out; without a
 * name the logger is refused. */
static void ship_to_ditg_server(itg_log_transport t, fixture *f,
                                const char *name) {
  enum { N = 777 };
  itg_logger_cfg lc;
  itg_logger *l;
  itg_logger_stats ls;
  itg_log_session_event ev;
  uint8_t buf[ITG_DITG_RECORD_LEN];
  char path[1200];
  FILE *in;
  int i;
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = f->port;
  lc.transport = t;
  lc.server_kind = ITG_LOG_SERVER_DITG;
  lc.path = "/any/where/"; /* no file name: the server closes at once */
  assert_int_equal(itg_logger_new(&lc, &l), ITG_ECLOSED);
  lc.path = name;
  lc.capacity = 4 * N;
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  for (i = 0; i < N; i++) {
    itg_logrec r;
    memset(&r, 0, sizeof r);
    r.flow_id = 4;
    r.flags = ITG_REC_TX;
    r.seq = (uint64_t)i + 1;
    r.size = (uint16_t)(64 + i);
    r.tx_ns = 1700000000LL * SEC + (int64_t)i * 1000000 + 123000;
    assert_int_equal(itg_logger_push(l, 0, &r), 0);
    if (i % 100 == 0) { /* a flow's end: not a packet */
      r.flags = ITG_REC_FLOW_END;
      assert_int_equal(itg_logger_push(l, 0, &r), 0);
    }
  }
  assert_int_equal(itg_logger_close_stats(l, &ls), 0);
  assert_int_equal(ls.lost, 0);
  wait_event(f, ITG_LOG_SESSION_CLOSED, name, &ev);
  assert_int_equal(ev.complete, 1);
  assert_int_equal(ev.records, N);
  assert_int_equal(ev.missing, 0);
  assert_int_equal(ev.status, 0);
  snprintf(path, sizeof path, "%s/%s", f->dir, name);
  in = fopen(path, "rb");
  assert_non_null(in);
  for (i = 0; i < N; i++) {
    itg__ditg_rec r;
    int64_t tod = (1700000000LL * SEC + (int64_t)i * 1000000 + 123000) %
                  ITG__DAY_NS;
    assert_int_equal(fread(buf, 1, sizeof buf, in), sizeof buf);
    assert_int_equal(itg__ditg_rec_decode(buf, &r), 0);
    assert_int_equal(r.flow_id, 4);
    assert_int_equal(r.seq, i + 1);
    assert_int_equal(r.size, 64 + i);
    assert_true(llabs(r.tx_tod_ns - tod) < 1000);
    assert_true(r.rx_tod_ns == r.tx_tod_ns);
    assert_string_equal(r.src_addr, "0.0.0.0");
  }
  assert_int_equal(fread(buf, 1, 1, in), 0);
  fclose(in);
}

static void ditg_sink(void **state) {
  fixture *f = *state;
  itg_logger_cfg lc;
  itg_logger *l = NULL;
  start_server(f, 0);
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = f->port;
  lc.server_kind = ITG_LOG_SERVER_DITG;
  assert_int_equal(itg_logger_new(&lc, &l), ITG_EINVAL); /* no name */
  ship_to_ditg_server(ITG_LOG_UDP, f, "sink-udp.log");
  ship_to_ditg_server(ITG_LOG_TCP, f, "sink-tcp.log");
}

/* A libitg client that its server greets first, as itg-log greets a
 * client slow to speak, still registers and ships every record: the
 * greeting is passed over before the REGISTER_ACK. */
static void greeted_client_ships(void **state) {
  fixture *f = *state;
  enum { N = 10 };
  itg_logger_cfg lc;
  itg_logger *l;
  itg_logger_stats ls;
  itg_logrec *got;
  stall_logserver *s;
  uint16_t port;
  char spill[1200];
  size_t n;
  int i;
  s = stall_logserver_start(&port);
  stall_logserver_greet(s);
  stall_logserver_resume(s);
  itg_logger_cfg_init(&lc);
  lc.server_host = "127.0.0.1";
  lc.server_port = port;
  lc.path = "greeted.log";
  snprintf(spill, sizeof spill, "%s/greeted.spill", f->dir);
  lc.spill_path = spill;
  assert_int_equal(itg_logger_new(&lc, &l), 0);
  for (i = 0; i < N; i++) {
    itg_logrec r;
    memset(&r, 0, sizeof r);
    r.flow_id = 1;
    r.flags = ITG_REC_TX;
    r.size = 100;
    r.seq = (uint64_t)i;
    r.tx_ns = SEC + i;
    assert_int_equal(itg_logger_push(l, 0, &r), 0);
  }
  assert_int_equal(itg_logger_close_stats(l, &ls), 0);
  assert_int_equal(ls.spilled, 0);
  got = stall_logserver_stop(s, &n);
  assert_int_equal(n, N);
  for (i = 0; i < N; i++)
    assert_int_equal(got[i].seq, i);
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sniff_tells_ditg_from_libitg),
      cmocka_unit_test(sig_codec),
      cmocka_unit_test(port_and_name),
      cmocka_unit_test(wire_record_codec),
      cmocka_unit_test_setup_teardown(udp_session, setup, teardown),
      cmocka_unit_test_setup_teardown(tcp_session, setup, teardown),
      cmocka_unit_test_setup_teardown(hostile_clients, setup, teardown),
      cmocka_unit_test_setup_teardown(ditg_sink, setup, teardown),
      cmocka_unit_test_setup_teardown(greeted_client_ships, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
