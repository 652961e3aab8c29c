/* D-ITG 2.8.1's signaling, byte by byte: the codec against the bytes
 * ITGSend sends, truncation and malformed messages; then a receiver
 * talked to as ITGSend talks to it (CONNECT, SEND_FLOW, data, CLOSED_FLOW,
 * RELEASE), and peers that break the conversation. Every wait is
 * bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "core/checksum.h"
#include "engine/ditg_sig.h"
#include "itg/receiver.h"
#include "itg/wire.h"
#include "platform/platform.h"

#define SEC INT64_C(1000000000)
#define WAIT (30 * SEC)

/* SEND_FLOW as ITGSend 2.8.1 sent it for "-a 127.0.0.1 -rp 12345" (UDP,
 * one-way, flow 1), captured on loopback. */
static const uint8_t itgsend_flow[] = {
    0x03, 0x02, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
    0x00, 'n',  'o',  'S',  'e',  'r',  'i',  'a',  'l',  0x00,
    0x00, 0x39, 0x30, 0x7f, 0x00, 0x00, 0x01};

static void test_decode_itgsend(void **state) {
  itg__ditg_msg m;
  (void)state;
  assert_int_equal(itg__ditg_decode(itgsend_flow, sizeof itgsend_flow, &m),
                   (int)sizeof itgsend_flow);
  assert_int_equal(m.type, ITG__DITG_SEND_FLOW);
  assert_int_equal(m.l4, ITG__DITG_L4_UDP);
  assert_int_equal(m.meter, ITG__DITG_METER_OWDM);
  assert_int_equal(m.l3, 4);
  assert_int_equal(m.flow_id, 1);
  assert_int_equal(m.payload, 0);
  assert_string_equal(m.serial, "noSerial");
  assert_int_equal(m.port, 12345); /* little endian on the wire */
  assert_memory_equal(m.addr, "\x7f\x00\x00\x01", 4);
}

/* Every message round-trips, and every proper prefix is truncated. */
static void test_round_trip_and_prefixes(void **state) {
  static const int types[] = {
      ITG__DITG_CONNECT,       ITG__DITG_ACK_CONNECT,
      ITG__DITG_SEND_FLOW,     ITG__DITG_CLOSED_FLOW,
      ITG__DITG_ACK_SEND_FLOW, ITG__DITG_ACK_CLOSED_FLOW,
      ITG__DITG_RELEASE,       ITG__DITG_ACK_RELEASE,
      ITG__DITG_ERR_MSG_2,     ITG__DITG_SEND_NAME_LOG,
      ITG__DITG_SEND_FLOW_LOG, ITG__DITG_CLOSED_ERR,
      ITG__DITG_ERR_MSG_1,     ITG__DITG_SENDER_DOWN};
  /* ERR_MSG_1 has no body: ITGRecv reads none after its type. */
  static const int lens[] = {1, 1, 39, 5, 7, 5, 1, 1, 5, 201, 224, 5, 1, 1};
  size_t i, k;
  (void)state;
  for (i = 0; i < sizeof types / sizeof types[0]; i++) {
    itg__ditg_msg m, out;
    uint8_t buf[ITG__DITG_MAX_MSG];
    int n;
    itg__ditg_init(&m, (itg__ditg_type)types[i]);
    m.flow_id = 0x01020304u;
    m.port = 0xA1B2;
    m.l4 = ITG__DITG_L4_TCP;
    m.meter = ITG__DITG_METER_RTTM;
    m.l3 = 6;
    m.addr_len = 16;
    m.family = 10;
    memset(m.addr, 0xEE, sizeof m.addr);
    if (types[i] == ITG__DITG_SEND_NAME_LOG ||
        types[i] == ITG__DITG_SEND_FLOW_LOG)
      strcpy(m.name, "run.log");
    n = itg__ditg_encode(&m, buf, sizeof buf);
    assert_int_equal(n, lens[i]);
    assert_int_equal(itg__ditg_encode(&m, buf, (size_t)n - 1), ITG_ETRUNC);
    assert_int_equal(itg__ditg_decode(buf, (size_t)n, &out), n);
    assert_int_equal(out.type, types[i]);
    if (lens[i] == 5 || lens[i] == 7)
      assert_int_equal(out.flow_id, m.flow_id);
    if (types[i] == ITG__DITG_SEND_FLOW ||
        types[i] == ITG__DITG_ACK_SEND_FLOW)
      assert_int_equal(out.port, m.port);
    if (types[i] == ITG__DITG_SEND_NAME_LOG)
      assert_string_equal(out.name, "run.log");
    for (k = 0; k < (size_t)n; k++)
      assert_int_equal(itg__ditg_decode(buf, k, &out), ITG_ETRUNC);
  }
}

static void test_malformed(void **state) {
  uint8_t buf[ITG__DITG_MAX_MSG];
  itg__ditg_msg m;
  (void)state;
  /* Types D-ITG does not have. */
  buf[0] = 0;
  assert_int_equal(itg__ditg_decode(buf, 1, &m), ITG_EBADMSG);
  buf[0] = 10;
  assert_int_equal(itg__ditg_decode(buf, 1, &m), ITG_EBADMSG);
  buf[0] = 0xFF;
  assert_int_equal(itg__ditg_decode(buf, 1, &m), ITG_EBADMSG);
  /* SEND_FLOW with an l3 that gives it no length. */
  memcpy(buf, itgsend_flow, sizeof itgsend_flow);
  buf[5] = 5;
  assert_int_equal(itg__ditg_decode(buf, sizeof itgsend_flow, &m),
                   ITG_EBADMSG);
  assert_int_equal(itg__ditg_decode(buf, 6, &m), ITG_EBADMSG);
  /* A name filling its field without a NUL. */
  buf[0] = ITG__DITG_SEND_NAME_LOG;
  memset(buf + 1, 'a', ITG__DITG_NAME_LEN);
  assert_int_equal(itg__ditg_decode(buf, 1 + ITG__DITG_NAME_LEN, &m),
                   ITG_EBADMSG);
  /* SEND_FLOW_LOG of an unknown address family. */
  memset(buf, 0, sizeof buf);
  buf[0] = ITG__DITG_SEND_FLOW_LOG;
  buf[4] = 99;
  assert_int_equal(itg__ditg_decode(buf, sizeof buf, &m), ITG_EBADMSG);
}

static void test_sniff(void **state) {
  static const uint8_t connect[] = {1}, hello[] = {1, 2, 0, 0};
  static const uint8_t other[] = {0x47};
  (void)state;
  assert_int_equal(itg__ditg_sniff(connect, 0), ITG__DITG_NONE);
  assert_int_equal(itg__ditg_sniff(connect, 1), ITG__DITG_MAYBE);
  assert_int_equal(itg__ditg_sniff(hello, 2), ITG__DITG_NOT);
  assert_int_equal(itg__ditg_sniff(hello, 4), ITG__DITG_NOT);
  assert_int_equal(itg__ditg_sniff(other, 1), ITG__DITG_NOT);
}

/* ---- against a receiver ----------------------------------------------- */

typedef struct events {
  _Atomic int dropped, refused, ended;
  char last_drop[160];
  char refusals[800]; /* every refusal's reason, one a line: read once
                         the receiver has stopped */
} events;

static void on_flow(const itg_flow_event *ev, void *user) {
  events *e = user;
  if (ev->kind == ITG_PEER_DROPPED) {
    snprintf(e->last_drop, sizeof e->last_drop, "%s", ev->message);
    atomic_fetch_add(&e->dropped, 1);
  } else if (ev->kind == ITG_FLOW_REFUSED) {
    size_t n = strlen(e->refusals);
    snprintf(e->refusals + n, sizeof e->refusals - n, "%s\n", ev->message);
    atomic_fetch_add(&e->refused, 1);
  } else if (ev->kind == ITG_FLOW_ENDED) {
    atomic_fetch_add(&e->ended, 1);
  }
}

static itg_receiver *start_receiver(events *e, uint32_t handshake_ms) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg_receiver_cfg_init(&cfg);
  strcpy(cfg.bind_host, "127.0.0.1");
  cfg.sig_port = 0;
  cfg.handshake_ms = handshake_ms;
  cfg.on_flow = on_flow;
  cfg.user = e;
  memset(e, 0, sizeof *e);
  assert_int_equal(itg_receiver_new(&cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);
  return r;
}

static itg__addr loopback(uint16_t port) {
  itg__addr a;
  assert_int_equal(itg__addr_resolve("127.0.0.1", port, 0, &a), 0);
  return a;
}

static itg__sock connect_to(uint16_t port, int udp) {
  itg__addr dst = loopback(port);
  itg__sock fd;
  assert_int_equal(itg__sock_open(&dst, udp, &fd), 0);
  assert_int_equal(itg__sock_connect(fd, &dst, 5 * SEC), 0);
  return fd;
}

static void send_all(itg__sock fd, const uint8_t *buf, size_t len) {
  size_t off = 0;
  while (off < len) {
    int n = itg__stream_send(fd, buf + off, len - off);
    assert_true(n >= 0);
    if (n == 0)
      assert_true(itg__sock_wait_readable(fd, SEC / 100) >= 0);
    off += (size_t)n;
  }
}

static void send_msg(itg__sock fd, const itg__ditg_msg *m) {
  uint8_t buf[ITG__DITG_MAX_MSG];
  int n = itg__ditg_encode(m, buf, sizeof buf);
  assert_true(n > 0);
  send_all(fd, buf, (size_t)n);
}

/* Reads exactly len bytes within WAIT; returns 0, or -1 at the peer's
 * close first. */
static int recv_exact(itg__sock fd, uint8_t *buf, size_t len) {
  int64_t deadline = (int64_t)uv_hrtime() + WAIT;
  size_t got = 0;
  while (got < len) {
    int n;
    assert_true((int64_t)uv_hrtime() < deadline);
    assert_true(itg__sock_wait_readable(fd, SEC / 10) >= 0);
    n = itg__stream_recv(fd, buf + got, len - got);
    if (n == ITG_ECLOSED || n == ITG_ESOCKET)
      return -1;
    assert_true(n >= 0);
    got += (size_t)n;
  }
  return 0;
}

/* The peer's close, within WAIT, after at most `said` bytes (libitg's
 * ERROR to a client that never spoke). */
static void expect_closed_after(itg__sock fd, size_t said) {
  uint8_t b[ITG__DITG_MAX_MSG];
  assert_true(said < sizeof b);
  assert_int_equal(recv_exact(fd, b, said + 1), -1);
}

/* The peer's close, within WAIT, with no byte before it: D-ITG has no
 * message saying why. */
static void expect_closed(itg__sock fd) { expect_closed_after(fd, 0); }

static void expect_byte(itg__sock fd, uint8_t want) {
  uint8_t b = 0;
  assert_int_equal(recv_exact(fd, &b, 1), 0);
  assert_int_equal(b, want);
}

/* CONNECT, answered. */
static itg__sock ditg_connect(itg_receiver *r) {
  itg__sock fd = connect_to(itg_receiver_port(r), 0);
  itg__ditg_msg m;
  itg__ditg_init(&m, ITG__DITG_CONNECT);
  send_msg(fd, &m);
  expect_byte(fd, ITG__DITG_ACK_CONNECT);
  return fd;
}

static void send_flow_msg(itg__ditg_msg *m, uint32_t id, uint8_t l4) {
  itg__ditg_init(m, ITG__DITG_SEND_FLOW);
  m->l4 = l4;
  m->meter = ITG__DITG_METER_OWDM;
  m->l3 = 4;
  m->flow_id = id;
  strcpy(m->serial, "noSerial");
  memcpy(m->addr, "\x7f\x00\x00\x01", 4);
}

/* Sends SEND_FLOW for flow id; returns the answer's type, its port in
 * *port. */
static uint8_t ask(itg__sock fd, uint32_t id, uint8_t l4, uint16_t *port) {
  itg__ditg_msg m;
  uint8_t ans[7];
  send_flow_msg(&m, id, l4);
  send_msg(fd, &m);
  assert_int_equal(recv_exact(fd, ans, 5), 0);
  assert_int_equal(itg__ditg_decode(ans, 5, &m) == 5 ||
                       ans[0] == ITG__DITG_ACK_SEND_FLOW, 1);
  if (ans[0] == ITG__DITG_ACK_SEND_FLOW) {
    assert_int_equal(recv_exact(fd, ans + 5, 2), 0);
    assert_int_equal(itg__ditg_decode(ans, 7, &m), 7);
    *port = m.port;
  }
  assert_int_equal(m.flow_id, id);
  return ans[0];
}

static void close_flow(itg__sock fd, uint32_t id) {
  itg__ditg_msg m;
  uint8_t ans[5];
  itg__ditg_init(&m, ITG__DITG_CLOSED_FLOW);
  m.flow_id = id;
  send_msg(fd, &m);
  assert_int_equal(recv_exact(fd, ans, 5), 0);
  assert_int_equal(itg__ditg_decode(ans, 5, &m), 5);
  assert_int_equal(m.type, ITG__DITG_ACK_CLOSED_FLOW);
  assert_int_equal(m.flow_id, id);
}

static void release(itg__sock fd) {
  itg__ditg_msg m;
  itg__ditg_init(&m, ITG__DITG_RELEASE);
  send_msg(fd, &m);
  expect_byte(fd, ITG__DITG_ACK_RELEASE);
  expect_closed(fd);
  itg__sock_close(fd);
}

/* n D-ITG packets of flow id (over TCP with their size field). */
static void send_packets(uint16_t port, uint32_t id, int tcp, int n) {
  itg__sock fd = connect_to(port, !tcp);
  uint8_t pkt[64];
  int i;
  for (i = 0; i < n; i++) {
    itg_pkt_hdr h;
    memset(&h, 0, sizeof h);
    memset(pkt, 0, sizeof pkt);
    h.flow_id = id;
    h.seq = (uint64_t)i + 1;
    h.tx_ns = itg__real_ns();
    h.length = sizeof pkt;
    assert_true(itg_wire_encode(ITG_WIRE_DITG, tcp, &h, pkt, sizeof pkt) > 0);
    send_all(fd, pkt, sizeof pkt);
  }
  itg__sock_close(fd);
}

static uint64_t wait_packets(itg_receiver *r, uint64_t want) {
  int64_t deadline = (int64_t)uv_hrtime() + WAIT;
  for (;;) {
    itg_receiver_stats st;
    itg_receiver_get_stats(r, &st);
    if (st.packets >= want || (int64_t)uv_hrtime() >= deadline)
      return st.packets;
    itg__sleep_until((int64_t)uv_hrtime() + SEC / 200);
  }
}

static void stop(itg_receiver *r) {
  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  assert_int_equal(itg_receiver_stop(r), 0);
  itg_receiver_free(r);
}

/* The whole conversation, UDP then TCP on one connection, as ITGSend
 * holds it. */
static void test_conversation(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  itg__sock fd = ditg_connect(r);
  uint16_t port = 0;
  itg_receiver_stats st;
  (void)state;
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_UDP, &port), ITG__DITG_ACK_SEND_FLOW);
  assert_true(port != 0);
  send_packets(port, 1, 0, 20);
  assert_int_equal(wait_packets(r, 20), 20);
  close_flow(fd, 1);
  assert_int_equal(ask(fd, 2, ITG__DITG_L4_TCP, &port), ITG__DITG_ACK_SEND_FLOW);
  send_packets(port, 2, 1, 30);
  assert_int_equal(wait_packets(r, 50), 50);
  close_flow(fd, 2);
  release(fd);
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.flows_served, 2);
  assert_int_equal(st.malformed, 0);
  assert_int_equal(atomic_load(&e.ended), 2);
  assert_int_equal(atomic_load(&e.dropped), 0);
  stop(r);
}

/* One ICMP message to the receiver: its type, then D-ITG's header naming
 * flow id with sequence number seq, as ITGSend sends it (the identifier
 * left to chance); its checksum spoilt if bad. */
static void send_icmp(itg__sock raw, uint8_t type, uint32_t id, int seq,
                      int bad) {
  uint8_t msg[8 + 64];
  itg_pkt_hdr h;
  uint16_t c;
  memset(msg, 0, sizeof msg);
  memset(&h, 0, sizeof h);
  h.flow_id = id;
  h.seq = (uint64_t)seq;
  h.tx_ns = itg__real_ns();
  h.length = sizeof msg - 8;
  assert_true(itg_wire_encode(ITG_WIRE_DITG, 0, &h, msg + 8, h.length) > 0);
  msg[0] = type;
  msg[4] = 0x42; /* ITGSend's identifier and sequence: whatever was there */
  msg[7] = (uint8_t)seq;
  c = (uint16_t)(itg__inet_checksum(msg, sizeof msg) ^ (bad ? 1 : 0));
  msg[2] = (uint8_t)(c >> 8);
  msg[3] = (uint8_t)c;
  send_all(raw, msg, sizeof msg);
}

/* An ICMP flow, as ITGSend asks for it: answered port 0, as ITGRecv does,
 * when the receiver may open a raw socket (root), else refused with
 * ITGRecv's ERR_MSG_3 (ICMP needs root). Its messages are counted, and only them: not the kernel's
 * echo replies to them (the same body, type 0), nor a message naming
 * another flow id, nor one with a wrong checksum. */
static void test_icmp_flow(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  itg__sock fd = ditg_connect(r), raw;
  itg__addr dst = loopback(0);
  itg_receiver_stats st;
  uint16_t port = 1;
  int i, probe;
  (void)state;
  probe = itg__sock_probe(ITG_PROTO_ICMP);
  if (probe != 0) {
    /* Without the privilege ITGRecv's own answer (ITGSend then says
     * both ends must be root); where the system has no raw ICMP socket
     * (Windows), the refusal of a protocol not served. */
    assert_int_equal(ask(fd, 1, ITG__DITG_L4_ICMP, &port),
                     probe == ITG_EPERM ? ITG__DITG_ERR_MSG_3
                                        : ITG__DITG_ERR_MSG_2);
    release(fd);
    stop(r);
    return;
  }
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_ICMP, &port),
                   ITG__DITG_ACK_SEND_FLOW);
  assert_int_equal(port, 0);
  assert_int_equal(itg__sock_open_icmp(&dst, &raw), 0);
  assert_int_equal(itg__sock_connect(raw, &dst, 5 * SEC), 0);
  for (i = 1; i <= 20; i++) {
    send_icmp(raw, 8, 1, i, 0); /* echo requests: the kernel answers */
    send_icmp(raw, 8, 9, i, 0);
    send_icmp(raw, 8, 1, 100 + i, 1);
  }
  itg__sock_close(raw);
  assert_int_equal(wait_packets(r, 20), 20);
  close_flow(fd, 1); /* after a linger without packets: all are in */
  release(fd);
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.packets, 20);
  assert_int_equal(st.malformed, 0);
  assert_int_equal(st.flows_served, 1);
  stop(r);
}

/* Flows side by side on one connection, as an ITGSend script opens them:
 * each answered with its own id, its packets its own, its end answered
 * when asked, in any order. What this receiver does not take is refused
 * (ERR_MSG_2 with the flow's id): an id open already, SCTP, payloads
 * without send times (-p 1, -p 2), each with its reason; a log server
 * (ERR_MSG_4). The open flows go on. */
static void test_flows_side_by_side(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  itg__sock fd = ditg_connect(r);
  itg__ditg_msg m;
  uint16_t port = 0, port2 = 0;
  uint8_t ans[5];
  (void)state;
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_UDP, &port), ITG__DITG_ACK_SEND_FLOW);
  assert_int_equal(ask(fd, 2, ITG__DITG_L4_TCP, &port2), ITG__DITG_ACK_SEND_FLOW);
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_UDP, &port), ITG__DITG_ERR_MSG_2);
  assert_int_equal(ask(fd, 3, 4 /* SCTP */, &port), ITG__DITG_ERR_MSG_2);
  send_flow_msg(&m, 4, ITG__DITG_L4_UDP);
  m.payload = 1; /* -p 1: no send time */
  send_msg(fd, &m);
  assert_int_equal(recv_exact(fd, ans, 5), 0);
  assert_int_equal(ans[0], ITG__DITG_ERR_MSG_2);
  send_flow_msg(&m, 5, ITG__DITG_L4_UDP);
  m.payload = 2; /* -p 2: no header */
  send_msg(fd, &m);
  assert_int_equal(recv_exact(fd, ans, 5), 0);
  assert_int_equal(ans[0], ITG__DITG_ERR_MSG_2);
  /* A log server asked for once flows are open: ITGRecv takes it only
   * before them. */
  itg__ditg_init(&m, ITG__DITG_SEND_FLOW_LOG);
  m.family = 2;
  m.addr_len = 4;
  send_msg(fd, &m);
  expect_byte(fd, ITG__DITG_ERR_MSG_4);
  send_packets(port, 1, 0, 5);
  send_packets(port2, 2, 1, 7);
  assert_int_equal(wait_packets(r, 12), 12);
  close_flow(fd, 2);
  close_flow(fd, 1);
  release(fd);
  assert_int_equal(atomic_load(&e.refused), 4);
  assert_int_equal(atomic_load(&e.ended), 2);
  stop(r);
  /* ITGSend has no message for these refusals: the receiver says why. */
  assert_non_null(strstr(e.refusals, "D-ITG flow: -p 1 (flow id and "
                                     "sequence only) is refused: this "
                                     "receiver logs each packet's send "
                                     "time, which only -p 0 carries\n"));
  assert_non_null(strstr(e.refusals, "D-ITG flow: -p 2 (no header) is "
                                     "refused"));
}

/* ITGSend -X: SEND_FLOW_LOG before the first flow is taken (the flows'
 * log goes to that D-ITG log server), with a plain name only; a second
 * one, or one with a name that could leave a directory, is refused. */
static void test_flow_log_asked(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  itg__sock fd = ditg_connect(r), fd2 = ditg_connect(r);
  itg__ditg_msg m;
  (void)state;
  itg__ditg_init(&m, ITG__DITG_SEND_FLOW_LOG);
  m.family = ITG__DITG_FAMILY_INET;
  m.addr_len = 4;
  m.addr[0] = 127;
  m.addr[3] = 1;
  m.log_transport = ITG__DITG_L4_UDP;
  snprintf(m.name, sizeof m.name, "../../etc/passwd");
  send_msg(fd, &m);
  expect_byte(fd, ITG__DITG_ERR_MSG_4);
  snprintf(m.name, sizeof m.name, "recv.log");
  send_msg(fd2, &m);
  expect_byte(fd2, ITG__DITG_ACK_SEND_FLOW_LOG);
  release(fd2);
  release(fd);
  stop(r);
}

/* One connection holds at most 64 flows (the 65th is refused); its
 * RELEASE, or its loss, ends every one. */
static void test_flow_limit(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  uint16_t port;
  itg_receiver_stats st;
  int round;
  (void)state;
  for (round = 0; round < 2; round++) {
    itg__sock fd = ditg_connect(r);
    uint32_t id;
    for (id = 1; id <= 64; id++)
      assert_int_equal(ask(fd, id, ITG__DITG_L4_UDP, &port),
                       ITG__DITG_ACK_SEND_FLOW);
    assert_int_equal(ask(fd, 65, ITG__DITG_L4_UDP, &port),
                     ITG__DITG_ERR_MSG_2);
    itg_receiver_get_stats(r, &st);
    assert_int_equal(st.flows_active, 64);
    if (round == 0) {
      release(fd);
    } else {
      itg__sock_close(fd); /* gone without a word: orphaned, then ended */
    }
    assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
    itg_receiver_get_stats(r, &st);
    assert_int_equal(st.flows_active, 0);
  }
  assert_int_equal(atomic_load(&e.ended), 128);
  stop(r);
}

/* Malformed or out-of-place messages close the connection (and end its
 * flow), with a DROPPED event; the receiver serves the next peer. */
static void test_malformed_peers(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 10000);
  itg__ditg_msg m;
  uint8_t bad[sizeof itgsend_flow];
  uint16_t port;
  itg__sock fd;
  (void)state;
  /* An l3 protocol that is neither 4 nor 6. */
  fd = ditg_connect(r);
  memcpy(bad, itgsend_flow, sizeof bad);
  bad[5] = 7;
  send_all(fd, bad, sizeof bad);
  expect_closed(fd);
  itg__sock_close(fd);
  /* A type D-ITG does not have, while a flow runs. */
  fd = ditg_connect(r);
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_UDP, &port), ITG__DITG_ACK_SEND_FLOW);
  bad[0] = 0xF0;
  send_all(fd, bad, 1);
  expect_closed(fd);
  itg__sock_close(fd);
  /* Closing a flow that is not open. */
  fd = ditg_connect(r);
  itg__ditg_init(&m, ITG__DITG_CLOSED_FLOW);
  m.flow_id = 9;
  send_msg(fd, &m);
  expect_closed(fd);
  itg__sock_close(fd);
  assert_int_equal(atomic_load(&e.dropped), 3);
  /* Still served. */
  fd = ditg_connect(r);
  assert_int_equal(ask(fd, 1, ITG__DITG_L4_UDP, &port), ITG__DITG_ACK_SEND_FLOW);
  close_flow(fd, 1);
  release(fd);
  stop(r);
}

/* A truncated SEND_FLOW, and a client that sends nothing, are dropped
 * at the handshake timeout, counted and told. */
static void test_handshake_timeout(void **state) {
  events e;
  itg_receiver *r = start_receiver(&e, 300);
  itg__sock half = ditg_connect(r), silent;
  itg_receiver_stats st;
  (void)state;
  send_all(half, itgsend_flow, 12);
  silent = connect_to(itg_receiver_port(r), 0);
  expect_closed(half);
  expect_closed_after(silent, 64);
  itg__sock_close(half);
  itg__sock_close(silent);
  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.conns_expired, 2);
  assert_int_equal(atomic_load(&e.dropped), 2);
  assert_string_equal(e.last_drop, "no flow opened in time");
  stop(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_itgsend),
      cmocka_unit_test(test_round_trip_and_prefixes),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_sniff),
      cmocka_unit_test(test_conversation),
      cmocka_unit_test(test_icmp_flow),
      cmocka_unit_test(test_flows_side_by_side),
      cmocka_unit_test(test_flow_log_asked),
      cmocka_unit_test(test_flow_limit),
      cmocka_unit_test(test_malformed_peers),
      cmocka_unit_test(test_handshake_timeout),
  };
  assert_int_equal(itg__platform_init(), 0);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
