/* A receiver against peers that mean it harm, in one process over
 * loopback with the signal dispositions a program starts with: a peer
 * that resets its connections while the receiver answers or echoes never
 * kills the process (SIGPIPE), and the receiver still serves an honest
 * sender afterwards. Every wait is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/control.h"
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
  rd->len = 0;
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

/* n native packets of flow id, `size` bytes each, framed for TCP or not. */
static size_t make_packets(uint8_t *buf, uint32_t id, int tcp, size_t size,
                           int n) {
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
    assert_true(itg_wire_encode(ITG_WIRE_NATIVE, tcp, &h,
                                buf + (size_t)i * size, size) > 0);
  }
  return size * (size_t)n;
}

/* An honest sender from `from` gets a UDP flow of 10 packets through,
 * end to end. */
static void serves_a_flow(itg_receiver *r, const char *from) {
  itg__ctl_reader rd;
  itg__ctl_msg m;
  itg__addr to;
  itg__sock sig = ask_flow(r, from, ITG_PROTO_UDP, ITG_METER_OWD, &rd, &m);
  itg__sock fd;
  uint8_t pkt[10 * 64];
  uint32_t id = m.flow_id;
  int i;
  assert_int_equal(m.status, 0);
  to = loopback("127.0.0.1", m.port);
  assert_int_equal(itg__sock_open(&to, 1, &fd), 0);
  make_packets(pkt, id, 0, 64, 10);
  for (i = 0; i < 10; i++) {
    itg__dgram d;
    memset(&d, 0, sizeof d);
    d.buf = pkt + i * 64;
    d.len = 64;
    d.peer = &to;
    assert_int_equal(itg__send_batch(fd, &d, 1), 1);
  }
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
      rd.len = 0;
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
    len = make_packets(pkts, m.flow_id, 1, 100, 200);
    send_all(data, pkts, len);
    reset_close(data);
    reset_close(sig);
  }
  serves_a_flow(r, "127.0.0.1");
  stop_receiver(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reset_signaling),
      cmocka_unit_test(test_reset_echoing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
