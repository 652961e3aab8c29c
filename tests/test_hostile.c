/* A receiver against peers that mean it harm, in one process over
 * loopback with the signal dispositions a program starts with: a peer
 * that resets its connections while the receiver answers or echoes never
 * kills the process (SIGPIPE); connections that never open a flow or go
 * quiet are closed; one address cannot take every connection or flow; a
 * round-trip sender that does not read its echoes holds a bounded amount
 * of memory. Each time an honest sender from another address (127.0.0.2)
 * is still served. The log server closes clients that do not register.
 * Every wait is bounded. */
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
#include "engine/control.h"
#include "itg/logserver.h"
#include "itg/receiver.h"
#include "itg/wire.h"
#include "platform/platform.h"

#define SEC INT64_C(1000000000)
#define WAIT (30 * SEC)
#define ROUNDS 50

static itg__addr loopback(const char *host, uint16_t port) {
  itg__addr a;
  assert_int_equal(itg__addr_resolve(host, port, 0, &a), 0);
  return a;
}

static itg_receiver *start_receiver(itg_receiver_cfg *cfg) {
  itg_receiver *r;
  strcpy(cfg->bind_host, "127.0.0.1");
  cfg->sig_port = 0;
  assert_int_equal(itg_receiver_new(cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);
  return r;
}

/* A TCP connection from `from` (an address of loopback) to port. */
static itg__sock connect_from(const char *from, uint16_t port) {
  itg__addr src = loopback(from, 0), dst = loopback("127.0.0.1", port);
  itg__sock fd;
  assert_int_equal(itg__sock_open(&dst, 0, &fd), 0);
  assert_int_equal(itg__sock_bind(fd, &src), 0);
  assert_int_equal(itg__sock_connect(fd, &dst, 5 * SEC), 0);
  return fd;
}

/* Closes with a reset (SO_LINGER 0) instead of an orderly close. */
static void reset_close(itg__sock fd) {
  struct linger lg;
  lg.l_onoff = 1;
  lg.l_linger = 0;
  assert_int_equal(
      setsockopt(fd, SOL_SOCKET, SO_LINGER, (const char *)&lg, sizeof lg), 0);
  itg__sock_close(fd);
}

/* Appends the frame of m to buf at *len. */
static void put_frame(const itg__ctl_msg *m, uint8_t *buf, size_t cap,
                      size_t *len) {
  int n = itg__ctl_encode(m, buf + *len, cap - *len);
  assert_true(n > 0);
  *len += (size_t)n;
}

static void hello_msg(itg__ctl_msg *m) {
  itg__ctl_init(m, ITG__CTL_HELLO);
  m->version = ITG__CTL_VERSION;
}

static void flow_open_msg(itg__ctl_msg *m, uint32_t id, itg_proto proto,
                          itg_meter meter) {
  itg__ctl_init(m, ITG__CTL_FLOW_OPEN);
  m->flow_id = id;
  m->id_auto = 1;
  m->proto = (uint8_t)proto;
  m->meter = (uint8_t)meter;
  m->wire = ITG_WIRE_NATIVE;
  m->tos = -1;
  m->ttl = -1;
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

/* HELLO and FLOW_OPEN on a new signaling connection from `from`; returns
 * the connection with the answer to FLOW_OPEN in *ack. */
static itg__sock ask_flow(itg_receiver *r, const char *from, itg_proto proto,
                          itg_meter meter, itg__ctl_reader *rd,
                          itg__ctl_msg *ack) {
  itg__sock fd = connect_from(from, itg_receiver_port(r));
  itg__ctl_msg m;
  itg__frame_reader_reset(&rd->fr);
  hello_msg(&m);
  assert_int_equal(itg__ctl_send(fd, &m, 5 * SEC), 0);
  assert_int_equal(itg__ctl_recv(fd, rd, ack, 5 * SEC), 0);
  assert_int_equal(ack->type, ITG__CTL_HELLO_ACK);
  flow_open_msg(&m, 1, proto, meter);
  assert_int_equal(itg__ctl_send(fd, &m, 5 * SEC), 0);
  assert_int_equal(itg__ctl_recv(fd, rd, ack, 5 * SEC), 0);
  assert_int_equal(ack->type, ITG__CTL_FLOW_OPEN_ACK);
  return fd;
}

/* n native packets of flow id with its token, `size` bytes each, framed
 * for TCP or not. */
static size_t make_packets(uint8_t *buf, uint32_t id, uint64_t token,
                           int tcp, size_t size, int n) {
  int i;
  memset(buf, 0, size * (size_t)n);
  for (i = 0; i < n; i++) {
    itg_pkt_hdr h;
    memset(&h, 0, sizeof h);
    h.flow_id = id;
    h.seq = (uint64_t)i + 1;
    h.tx_ns = itg__real_ns();
    h.length = (uint32_t)size;
    h.flags = ITG_PKT_ECHO_REQUEST;
    h.token = token;
    assert_true(itg_wire_encode(ITG_WIRE_NATIVE, tcp, &h,
                                buf + (size_t)i * size, size) > 0);
  }
  return size * (size_t)n;
}

/* An honest sender from `from` gets a flow of 10 packets through, end to
 * end (over TCP: wine gives a UDP socket bound to 127.0.0.2 another
 * source address). */
static void serves_a_flow(itg_receiver *r, const char *from) {
  itg__ctl_reader rd;
  itg__ctl_msg m;
  itg__sock sig = ask_flow(r, from, ITG_PROTO_TCP, ITG_METER_OWD, &rd, &m);
  itg__sock fd;
  uint8_t pkt[10 * 64];
  assert_int_equal(m.status, 0);
  fd = connect_from(from, m.port);
  send_all(fd, pkt, make_packets(pkt, m.flow_id, m.token, 1, 64, 10));
  itg__ctl_init(&m, ITG__CTL_FLOW_CLOSE);
  m.packets = 10;
  m.bytes = 640;
  assert_int_equal(itg__ctl_send(sig, &m, 5 * SEC), 0);
  assert_int_equal(itg__ctl_recv(sig, &rd, &m, 10 * SEC), 0);
  assert_int_equal(m.type, ITG__CTL_FLOW_CLOSE_ACK);
  assert_int_equal(m.packets, 10);
  itg__sock_close(fd);
  itg__sock_close(sig);
}

/* Polls the receiver's counters until field (an offset in
 * itg_receiver_stats) reaches want, at most WAIT; returns its value. */
static uint64_t wait_stat(itg_receiver *r, size_t field, uint64_t want) {
  int64_t deadline = (int64_t)uv_hrtime() + WAIT;
  uint64_t v;
  for (;;) {
    itg_receiver_stats st;
    itg_receiver_get_stats(r, &st);
    memcpy(&v, (const uint8_t *)&st + field, sizeof v);
    if (v >= want || (int64_t)uv_hrtime() >= deadline)
      return v;
    itg__sleep_until((int64_t)uv_hrtime() + SEC / 200);
  }
}

/* The next message on fd, which must come within WAIT. */
static itg__ctl_msg next_msg(itg__sock fd, itg__ctl_reader *rd) {
  itg__ctl_msg m;
  assert_int_equal(itg__ctl_recv(fd, rd, &m, WAIT), 0);
  return m;
}

static void stop_receiver(itg_receiver *r) {
  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  assert_int_equal(itg_receiver_stop(r), 0);
  itg_receiver_free(r);
}

/* A peer sends FLOW_OPEN and HELLO (after HELLO, answered first, or with
 * it, as a burst of three) in one segment and resets: the receiver's
 * answers go to a reset connection. */
static void test_reset_signaling(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  int i;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  r = start_receiver(&cfg);
  for (i = 0; i < 2 * ROUNDS; i++) {
    itg__sock fd = connect_from("127.0.0.1", itg_receiver_port(r));
    uint8_t buf[3 * ITG__CTL_MAX_FRAME];
    size_t len = 0;
    itg__ctl_msg m;
    hello_msg(&m);
    if (i % 2 == 0) {
      itg__ctl_reader rd;
      itg__frame_reader_reset(&rd.fr);
      assert_int_equal(itg__ctl_send(fd, &m, 5 * SEC), 0);
      assert_int_equal(itg__ctl_recv(fd, &rd, &m, 5 * SEC), 0);
      assert_int_equal(m.type, ITG__CTL_HELLO_ACK);
    } else {
      put_frame(&m, buf, sizeof buf, &len);
    }
    flow_open_msg(&m, (uint32_t)i + 1, ITG_PROTO_UDP, ITG_METER_OWD);
    put_frame(&m, buf, sizeof buf, &len);
    hello_msg(&m);
    put_frame(&m, buf, sizeof buf, &len);
    send_all(fd, buf, len);
    reset_close(fd);
  }
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

/* A round-trip TCP sender resets its data connection with a burst of
 * packets still to be echoed. */
static void test_reset_echoing(void **state) {
  static uint8_t pkts[200 * 100];
  itg_receiver_cfg cfg;
  itg_receiver *r;
  int i;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  r = start_receiver(&cfg);
  for (i = 0; i < ROUNDS; i++) {
    itg__ctl_reader rd;
    itg__ctl_msg m;
    itg__sock sig = ask_flow(r, "127.0.0.1", ITG_PROTO_TCP, ITG_METER_RTT,
                             &rd, &m);
    itg__sock data;
    size_t len;
    assert_int_equal(m.status, 0);
    data = connect_from("127.0.0.1", m.port);
    len = make_packets(pkts, m.flow_id, m.token, 1, 100, 200);
    send_all(data, pkts, len);
    reset_close(data);
    reset_close(sig);
  }
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

/* A flood of connections that never say HELLO from one address: those
 * over max_peer_conns are told so and closed at once, the rest when
 * handshake_ms runs out; a sender from another address is served
 * meanwhile. */
static void test_idle_flood(void **state) {
  enum { FLOOD = 40, PER_PEER = 8 };
  itg__sock idle[FLOOD];
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg_receiver_stats st;
  int i, limited = 0, expired = 0;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  cfg.handshake_ms = 1000;
  cfg.max_peer_conns = PER_PEER;
  r = start_receiver(&cfg);
  for (i = 0; i < FLOOD; i++)
    idle[i] = connect_from("127.0.0.1", itg_receiver_port(r));
  assert_int_equal(wait_stat(r, offsetof(itg_receiver_stats, conns_refused),
                             FLOOD - PER_PEER),
                   FLOOD - PER_PEER);
  serves_a_flow(r, "127.0.0.2");
  assert_int_equal(wait_stat(r, offsetof(itg_receiver_stats, conns_expired),
                             PER_PEER),
                   PER_PEER);
  for (i = 0; i < FLOOD; i++) {
    itg__ctl_reader rd;
    itg__ctl_msg m;
    itg__frame_reader_reset(&rd.fr);
    m = next_msg(idle[i], &rd);
    assert_int_equal(m.type, ITG__CTL_ERROR);
    limited += m.status == ITG_ELIMIT;
    expired += m.status == ITG_ETIMEDOUT;
    assert_int_equal(itg__ctl_recv(idle[i], &rd, &m, WAIT), ITG_ECLOSED);
    itg__sock_close(idle[i]);
  }
  assert_int_equal(limited, FLOOD - PER_PEER);
  assert_int_equal(expired, PER_PEER);
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.conns_refused, FLOOD - PER_PEER);
  assert_int_equal(st.conns_expired, PER_PEER);
  stop_receiver(r);
}

/* A flow whose sender says nothing and sends nothing for idle_ms is
 * ended and its connection closed; one whose packets keep coming for
 * longer than that is not. */
static void test_idle_flow(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg__ctl_reader rd, rd2;
  itg__ctl_msg m;
  itg__sock quiet, busy, fd;
  uint8_t pkt[64];
  int64_t start, until;
  uint64_t seq = 0;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  cfg.idle_ms = 2000;
  r = start_receiver(&cfg);
  start = (int64_t)uv_hrtime();
  quiet = ask_flow(r, "127.0.0.1", ITG_PROTO_UDP, ITG_METER_OWD, &rd, &m);
  assert_int_equal(m.status, 0);
  busy = ask_flow(r, "127.0.0.2", ITG_PROTO_TCP, ITG_METER_OWD, &rd2, &m);
  assert_int_equal(m.status, 0);
  fd = connect_from("127.0.0.2", m.port);
  /* Packets every 10 ms on the busy flow until the quiet one is gone. */
  until = start + WAIT;
  while (itg__sock_wait_readable(quiet, SEC / 100) == 0) {
    assert_true((int64_t)uv_hrtime() < until);
    send_all(fd, pkt, make_packets(pkt, m.flow_id, m.token, 1, sizeof pkt, 1));
    seq++;
  }
  /* The quiet flow went no sooner than idle_ms after its FLOW_OPEN (less
   * the little the loop's cached clock may lag), the busy one lives on. */
  assert_true((int64_t)uv_hrtime() - start >=
              ((int64_t)cfg.idle_ms - 50) * 1000000);
  m = next_msg(quiet, &rd);
  assert_int_equal(m.type, ITG__CTL_ERROR);
  assert_int_equal(m.status, ITG_ETIMEDOUT);
  itg__sock_close(quiet);
  itg__ctl_init(&m, ITG__CTL_FLOW_CLOSE);
  m.packets = seq;
  assert_int_equal(itg__ctl_send(busy, &m, 5 * SEC), 0);
  m = next_msg(busy, &rd2);
  assert_int_equal(m.type, ITG__CTL_FLOW_CLOSE_ACK);
  assert_int_equal(m.packets, seq);
  itg__sock_close(busy);
  itg__sock_close(fd);
  assert_int_equal(wait_stat(r, offsetof(itg_receiver_stats, conns_expired),
                             1),
                   1);
  stop_receiver(r);
}

/* One address opens max_peer_flows flows: its next is refused, another
 * address is served, and once its flows are gone it is served again. */
static void test_peer_flows(void **state) {
  enum { PER_PEER = 4 };
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg__ctl_reader rd[PER_PEER + 1];
  itg__sock sig[PER_PEER + 1];
  itg__ctl_msg m;
  itg_receiver_stats st;
  int i;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  cfg.max_peer_flows = PER_PEER;
  r = start_receiver(&cfg);
  for (i = 0; i <= PER_PEER; i++) {
    sig[i] = ask_flow(r, "127.0.0.1", ITG_PROTO_UDP, ITG_METER_OWD, &rd[i],
                      &m);
    assert_int_equal(m.status, i < PER_PEER ? 0 : ITG_ELIMIT);
  }
  serves_a_flow(r, "127.0.0.2");
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.flows_refused, 1);
  for (i = 0; i <= PER_PEER; i++)
    itg__sock_close(sig[i]);
  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

/* D-ITG's SCTP and DCCP flows: each is refused alone, with the reason,
 * and the receiver serves the next flow, even on the same connection
 * (D-ITG's receiver exits). */
static void test_unsupported_proto(void **state) {
  static const itg_proto protos[] = {ITG_PROTO_SCTP, ITG_PROTO_DCCP};
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg__ctl_reader rd;
  itg__sock sig;
  itg__ctl_msg m;
  itg_receiver_stats st;
  size_t i;
  char want[64];
  (void)state;
  itg_receiver_cfg_init(&cfg);
  r = start_receiver(&cfg);
  for (i = 0; i < sizeof protos / sizeof protos[0]; i++) {
    sig = ask_flow(r, "127.0.0.1", protos[i], ITG_METER_OWD, &rd, &m);
    assert_int_equal(m.status, ITG_ENOTSUP);
    snprintf(want, sizeof want, "%s flows are not received here",
             itg_proto_name(protos[i]));
    assert_non_null(strstr(m.text, want));
    flow_open_msg(&m, 2, ITG_PROTO_UDP, ITG_METER_OWD);
    assert_int_equal(itg__ctl_send(sig, &m, 5 * SEC), 0);
    assert_int_equal(itg__ctl_recv(sig, &rd, &m, 5 * SEC), 0);
    assert_int_equal(m.type, ITG__CTL_FLOW_OPEN_ACK);
    assert_int_equal(m.status, 0);
    itg__sock_close(sig);
  }
  itg_receiver_get_stats(r, &st);
  assert_int_equal(st.flows_refused, 2);
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

/* ICMP flows: a round-trip one is refused (ICMP is one-way, as D-ITG's);
 * a one-way one is answered port 0, as ITGRecv does, when the receiver
 * may open a raw socket (root), else refused alone with that reason. The
 * receiver serves the next flow either way. */
static void test_icmp_flow(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg__ctl_reader rd;
  itg__sock sig;
  itg__ctl_msg m;
  int probe;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  r = start_receiver(&cfg);
  sig = ask_flow(r, "127.0.0.1", ITG_PROTO_ICMP, ITG_METER_RTT, &rd, &m);
  assert_int_equal(m.status, ITG_ENOTSUP);
  assert_non_null(strstr(m.text, "ICMP flows are one-way"));
  itg__sock_close(sig);
  sig = ask_flow(r, "127.0.0.1", ITG_PROTO_ICMP, ITG_METER_OWD, &rd, &m);
  probe = itg__sock_probe(ITG_PROTO_ICMP);
  if (probe == 0) {
    assert_int_equal(m.status, 0);
    assert_int_equal(m.port, 0);
  } else {
    /* Refused with the system's reason: no privilege, or (Windows) no
     * raw ICMP socket at all. */
    assert_int_equal(m.status, probe);
    if (probe == ITG_EPERM)
      assert_non_null(strstr(m.text, "it needs root, or CAP_NET_RAW"));
  }
  itg__sock_close(sig);
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

/* A round-trip TCP sender that never reads its echoes: once the sockets'
 * buffers are full (at most 256 MB sent), the receiver holds at most
 * echo_queue bytes of them, drops the rest (counted), and still takes
 * every packet. */
static void test_echo_queue(void **state) {
  enum { SIZE = 1000, BURST = 64, MAX_BURSTS = 4096 };
  static uint8_t pkts[BURST * SIZE];
  uint64_t packets = 0, first_drop = 0;
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg_receiver_stats st;
  itg__ctl_reader rd;
  itg__ctl_msg m;
  itg__sock sig, data;
  uint64_t most = 0;
  int i;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  cfg.echo_queue = 64 * 1024;
  r = start_receiver(&cfg);
  sig = ask_flow(r, "127.0.0.1", ITG_PROTO_TCP, ITG_METER_RTT, &rd, &m);
  assert_int_equal(m.status, 0);
  {
    itg__addr src = loopback("127.0.0.1", 0), dst = loopback("127.0.0.1",
                                                             m.port);
    assert_int_equal(itg__sock_open(&dst, 0, &data), 0);
    itg__sock_set_bufs(data, 0, 4096);
    assert_int_equal(itg__sock_bind(data, &src), 0);
    assert_int_equal(itg__sock_connect(data, &dst, 5 * SEC), 0);
  }
  /* Bursts until echoes are dropped, then as many again. */
  for (i = 0; i < MAX_BURSTS; i++) {
    make_packets(pkts, m.flow_id, m.token, 1, SIZE, BURST);
    send_all(data, pkts, sizeof pkts);
    packets += BURST;
    itg_receiver_get_stats(r, &st);
    if (st.echo_backlog > most)
      most = st.echo_backlog;
    if (first_drop == 0 && st.echoes_dropped > 0)
      first_drop = packets;
    if (first_drop != 0 && packets >= 2 * first_drop)
      break;
  }
  assert_true(first_drop != 0);
  itg__ctl_init(&m, ITG__CTL_FLOW_CLOSE);
  m.packets = packets;
  assert_int_equal(itg__ctl_send(sig, &m, 5 * SEC), 0);
  m = next_msg(sig, &rd);
  assert_int_equal(m.type, ITG__CTL_FLOW_CLOSE_ACK);
  assert_int_equal(m.packets, packets);
  itg_receiver_get_stats(r, &st);
  print_message("echoes %llu, dropped %llu, most held %llu bytes\n",
                (unsigned long long)st.echoes,
                (unsigned long long)st.echoes_dropped,
                (unsigned long long)most);
  assert_true(most <= cfg.echo_queue);
  assert_true(st.echoes_dropped > 0);
  assert_int_equal(st.echoes + st.echoes_dropped, packets);
  reset_close(data);
  itg__sock_close(sig);
  assert_int_equal(wait_stat(r, offsetof(itg_receiver_stats, flows_served),
                             1),
                   1);
  stop_receiver(r);
}

/* Sends m to the log server on fd and returns its answer, passing over a
 * greeting (a client slow to speak is greeted as D-ITG's are). */
static itg__lp_msg lp_ask(itg__sock fd, const itg__lp_msg *m) {
  static uint8_t buf[ITG__LP_MAX_FRAME];
  int64_t deadline = (int64_t)uv_hrtime() + WAIT;
  size_t len = 0;
  itg__lp_msg a;
  int n = itg__lp_encode(m, NULL, buf, sizeof buf);
  assert_true(n > 0);
  send_all(fd, buf, (size_t)n);
  while ((n = itg__lp_decode(buf, len, &a)) == ITG_ETRUNC) {
    int got;
    assert_true((int64_t)uv_hrtime() < deadline);
    assert_true(itg__sock_wait_readable(fd, SEC / 10) >= 0);
    got = itg__stream_recv(fd, buf + len, sizeof buf - len);
    assert_true(got >= 0);
    len += (size_t)got;
    if (len > 0 && buf[0] == ITG__DLP_CONNECT)
      memmove(buf, buf + 1, --len);
  }
  assert_true(n > 0);
  return a;
}

/* A new directory under TMPDIR for a log server's files. */
static void make_dir(char *dir, size_t len) {
  const char *tmp = getenv("TMPDIR");
  char tpl[ITG_PATH_MAX];
  uv_fs_t req;
  snprintf(tpl, sizeof tpl, "%s/itg-hostile-XXXXXX",
           tmp != NULL && tmp[0] ? tmp : ".");
  assert_int_equal(uv_fs_mkdtemp(NULL, &req, tpl, NULL), 0);
  snprintf(dir, len, "%s", req.path);
  uv_fs_req_cleanup(&req);
}

/* Removes dir and the files in it. */
static void remove_dir(const char *dir) {
  char path[2 * ITG_PATH_MAX];
  uv_dirent_t ent;
  uv_fs_t req;
  assert_true(uv_fs_scandir(NULL, &req, dir, 0, NULL) >= 0);
  while (uv_fs_scandir_next(&req, &ent) == 0) {
    snprintf(path, sizeof path, "%s/%s", dir, ent.name);
    remove(path);
  }
  uv_fs_req_cleanup(&req);
  assert_int_equal(uv_fs_rmdir(NULL, &req, dir, NULL), 0);
  uv_fs_req_cleanup(&req);
}

/* Connections to the log server that never register: those over
 * max_peer_clients are refused at once, the rest closed when
 * handshake_ms runs out, and a client from another address registers
 * meanwhile. */
static void test_logserver_idle(void **state) {
  enum { FLOOD = 12, PER_PEER = 4 };
  itg__sock idle[FLOOD], fd;
  itg_logserver_cfg cfg;
  itg_logserver *s;
  itg_logserver_stats st;
  itg__lp_msg m;
  int i;
  (void)state;
  itg_logserver_cfg_init(&cfg);
  strcpy(cfg.bind_host, "127.0.0.1");
  cfg.port = 0;
  make_dir(cfg.dir, sizeof cfg.dir);
  cfg.max_peer_clients = PER_PEER;
  cfg.handshake_ms = 1000;
  assert_int_equal(itg_logserver_new(&cfg, &s), 0);
  assert_int_equal(itg_logserver_start(s), 0);
  for (i = 0; i < FLOOD; i++)
    idle[i] = connect_from("127.0.0.1", itg_logserver_port(s));

  fd = connect_from("127.0.0.2", itg_logserver_port(s));
  itg__lp_init(&m, ITG__LP_REGISTER);
  m.transport = ITG__LP_TCP;
  m.role = ITG_LOG_ROLE_SENDER;
  m = lp_ask(fd, &m);
  assert_int_equal(m.type, ITG__LP_REGISTER_ACK);
  assert_int_equal(m.status, 0);
  itg__lp_init(&m, ITG__LP_LEAVE);
  m = lp_ask(fd, &m);
  assert_int_equal(m.type, ITG__LP_LEAVE_ACK);
  itg__sock_close(fd);

  /* Every idle connection is closed, at once or at handshake_ms, and
   * counted before; one that was let in is greeted first, as D-ITG's
   * clients wait to be (log/ditg_proto.h). */
  for (i = 0; i < FLOOD; i++) {
    uint8_t b;
    int n;
    assert_int_equal(itg__sock_wait_readable(idle[i], WAIT), 1);
    n = itg__stream_recv(idle[i], &b, 1);
    if (n == 1) {
      assert_int_equal(b, ITG__DLP_CONNECT);
      assert_int_equal(itg__sock_wait_readable(idle[i], WAIT), 1);
      n = itg__stream_recv(idle[i], &b, 1);
    }
    assert_true(n < 0);
    itg__sock_close(idle[i]);
  }
  itg_logserver_get_stats(s, &st);
  assert_int_equal(st.refused, FLOOD - PER_PEER);
  assert_int_equal(st.expired, PER_PEER);
  assert_int_equal(st.sessions_total, 1);
  assert_int_equal(itg_logserver_stop(s), 0);
  itg_logserver_free(s);
  remove_dir(cfg.dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reset_signaling),
      cmocka_unit_test(test_reset_echoing),
      cmocka_unit_test(test_idle_flood),
      cmocka_unit_test(test_idle_flow),
      cmocka_unit_test(test_peer_flows),
      cmocka_unit_test(test_unsupported_proto),
      cmocka_unit_test(test_icmp_flow),
      cmocka_unit_test(test_echo_queue),
      cmocka_unit_test(test_logserver_idle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
