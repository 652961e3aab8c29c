/* A libitg sender with a D-ITG receiver (--peer ditg): D-ITG's signaling
 * codec (engine/ditg_sig.h), then whole flows against a fake ITGRecv
 * written here, which speaks D-ITG 2.8.1's signaling byte by byte as
 * ITGRecv does (read from its source), so these run wherever the tests
 * run. The fake also misbehaves: an answer D-ITG has no message for, a
 * close in the middle of an exchange, silence; each must end the flow
 * with a clear error within the sender's connect timeout. The fake's
 * every wait is bounded (FAKE_WAIT), and it records what it saw for the
 * test to check after joining it (cmocka asserts only on the main
 * thread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/checksum.h"
#include "engine/ditg_sig.h"
#include "itg/sender.h"

#define SEC INT64_C(1000000000)
#define FAKE_WAIT (20 * SEC)
#define WAIT (30 * SEC)

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

/* ---- the codec, on the messages of this side -------------------------- */

/* What the sender says, byte for byte as ITGRecv reads it. */
static void test_encode(void **state) {
  static const uint8_t want4[27] = {
      3, 1, 0, 2, 0xb8, 4, 0x01, 0x02, 0x03, 0x04, 0,
      'n', 'o', 'S', 'e', 'r', 'i', 'a', 'l', 0, 0,
      0x34, 0x12, /* port 0x1234, little endian as ITGSend sends it */
      127, 0, 0, 1};
  static const uint8_t alone[] = {ITG__DITG_CONNECT, ITG__DITG_RELEASE,
                                  ITG__DITG_ACK_DISCOVERY};
  itg__ditg_msg m;
  uint8_t buf[ITG__DITG_MAX_MSG];
  size_t i;
  (void)state;
  itg__ditg_init(&m, ITG__DITG_SEND_FLOW);
  m.l4 = ITG__DITG_L4_TCP;
  m.meter = ITG__DITG_METER_RTTM;
  m.ds = 0xb8;
  m.l3 = ITG__DITG_L3_IPV4;
  m.flow_id = 0x01020304;
  m.port = 0x1234;
  strcpy(m.serial, "noSerial");
  memcpy(m.addr, "\x7f\x00\x00\x01", 4);
  assert_int_equal(itg__ditg_encode(&m, buf, sizeof buf), 27);
  assert_memory_equal(buf, want4, sizeof want4);
  assert_int_equal(itg__ditg_encode(&m, buf, 26), ITG_ETRUNC);
  m.l3 = ITG__DITG_L3_IPV6;
  memset(m.addr, 0, 16);
  m.addr[15] = 1;
  assert_int_equal(itg__ditg_encode(&m, buf, sizeof buf), 39);
  assert_int_equal(buf[5], 6);
  assert_int_equal(buf[38], 1);
  assert_int_equal(buf[23], 0);
  m.l3 = 5;
  assert_int_equal(itg__ditg_encode(&m, buf, sizeof buf), ITG_EINVAL);

  itg__ditg_init(&m, ITG__DITG_CLOSED_FLOW);
  m.flow_id = 0x0a0b0c0d;
  assert_int_equal(itg__ditg_encode(&m, buf, 5), 5);
  assert_memory_equal(buf, "\x04\x0a\x0b\x0c\x0d", 5);
  assert_int_equal(itg__ditg_encode(&m, buf, 4), ITG_ETRUNC);
  for (i = 0; i < sizeof alone; i++) {
    itg__ditg_init(&m, (itg__ditg_type)alone[i]);
    assert_int_equal(itg__ditg_encode(&m, buf, 1), 1);
    assert_int_equal(buf[0], alone[i]);
    assert_int_equal(itg__ditg_encode(&m, buf, 0), ITG_ETRUNC);
  }
}

/* ITGRecv's answers, byte for byte as it writes them. */
static void test_decode(void **state) {
  static const uint8_t ack[7] = {5, 0, 0, 1, 2, 0x2A, 0x1B};
  static const uint8_t closed[5] = {6, 0, 0, 1, 2};
  itg__ditg_msg m;
  (void)state;
  assert_int_equal(itg__ditg_decode(ack, 7, &m), 7);
  assert_int_equal(m.type, ITG__DITG_ACK_SEND_FLOW);
  assert_int_equal(m.flow_id, 258);
  assert_int_equal(m.port, 0x2A1B); /* big endian, unlike SEND_FLOW's */
  assert_int_equal(itg__ditg_decode(ack, 6, &m), ITG_ETRUNC);
  assert_int_equal(itg__ditg_decode(closed, 5, &m), 5);
  assert_int_equal(m.type, ITG__DITG_ACK_CLOSED_FLOW);
  assert_int_equal(m.flow_id, 258);
  assert_int_equal(itg__ditg_decode(closed, 4, &m), ITG_ETRUNC);
}

/* The reader takes messages however the stream cuts them, one byte at a
 * time here, and refuses a type D-ITG does not have. */
static void test_reader(void **state) {
  static const uint8_t stream[] = {2, 8, 5, 0, 0, 0, 7, 0x30, 0x39,
                                   6, 0, 0, 0, 7, 7, 99};
  static const uint8_t types[] = {2, 8, 5, 6, 7};
  itg__ditg_reader r;
  itg__ditg_msg m;
  size_t i, got = 0;
  (void)state;
  memset(&r, 0, sizeof r);
  for (i = 0; i < sizeof stream; i++) {
    size_t room;
    uint8_t *p = itg__ditg_reader_space(&r, &room);
    int rc;
    assert_true(room > 0);
    *p = stream[i];
    itg__ditg_reader_commit(&r, 1);
    while ((rc = itg__ditg_reader_next(&r, &m)) == 1) {
      assert_true(got < sizeof types);
      assert_int_equal(m.type, types[got]);
      if (m.type == ITG__DITG_ACK_SEND_FLOW) {
        assert_int_equal(m.flow_id, 7);
        assert_int_equal(m.port, 12345);
      }
      got++;
    }
    if (i + 1 < sizeof stream)
      assert_int_equal(rc, 0);
    else
      assert_int_equal(rc, ITG_EBADMSG);
  }
  assert_int_equal(got, sizeof types);
}

/* ---- a fake ITGRecv ----------------------------------------------------- */

typedef enum fake_mode {
  FK_OK,               /* D-ITG's conversation, with a DISCOVERY */
  FK_GARBAGE_CONNECT,  /* answers CONNECT with a type D-ITG lacks */
  FK_SILENT_CONNECT,   /* never answers CONNECT */
  FK_CLOSE_SEND_FLOW,  /* closes on reading SEND_FLOW */
  FK_ERR_BIND,         /* answers SEND_FLOW with ERR_MSG_2 */
  FK_WRONG_ID,         /* acknowledges another flow id */
  FK_CLOSE_CLOSED,     /* closes on reading CLOSED_FLOW */
  FK_SILENT_CLOSED,    /* never answers CLOSED_FLOW */
  FK_GARBAGE_CLOSED,   /* answers CLOSED_FLOW with a type D-ITG lacks */
  FK_SILENT_RELEASE    /* never answers RELEASE */
} fake_mode;

typedef struct fake {
  fake_mode mode;
  itg__sock lst;
  uint16_t port;
  uv_thread_t th;
  /* what it saw, read after the join */
  uint8_t send_flow[27];
  int got_send_flow;
  uint16_t data_port;
  uint64_t packets, bytes;
  int64_t last_tx_tod; /* the last packet's send time, ns of the UTC day */
  int64_t closed_tod;  /* when CLOSED_FLOW came, ns of the UTC day */
  int acks_discovery;
  int got_closed, got_release;
  int done;       /* went through its whole script */
  char why[160];  /* where the sender left D-ITG's script */
} fake;

static void fake_fail(fake *k, const char *why) {
  if (k->why[0] == '\0')
    snprintf(k->why, sizeof k->why, "%s", why);
}

/* Reads what has arrived, up to n bytes, waiting for it until deadline
 * (uv_hrtime). Returns the bytes read, ITG_ECLOSED or ITG_ETIMEDOUT. */
static int read_some(itg__sock s, uint8_t *buf, size_t n, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - (int64_t)uv_hrtime();
    int rc = left > 0 ? itg__sock_wait_readable(s, left) : 0;
    if (rc <= 0)
      return ITG_ETIMEDOUT;
    rc = itg__stream_recv(s, buf, n);
    if (rc != 0)
      return rc < 0 ? ITG_ECLOSED : rc;
  }
}

/* Reads exactly n bytes within FAKE_WAIT. Returns 0, ITG_ECLOSED or
 * ITG_ETIMEDOUT. */
static int read_exact(itg__sock s, uint8_t *buf, size_t n) {
  int64_t deadline = (int64_t)uv_hrtime() + FAKE_WAIT;
  size_t got = 0;
  while (got < n) {
    int rc = read_some(s, buf + got, n - got, deadline);
    if (rc < 0)
      return rc;
    got += (size_t)rc;
  }
  return 0;
}

static void say(itg__sock s, const uint8_t *buf, size_t n) {
  itg__stream_send(s, buf, n);
}

/* Waits for the sender to close (what it says meanwhile is dropped). */
static void await_close(fake *k, itg__sock s) {
  uint8_t b[64];
  for (;;) {
    int rc = read_exact(s, b, 1);
    if (rc == ITG_ECLOSED)
      return;
    if (rc == ITG_ETIMEDOUT) {
      fake_fail(k, "the sender never closed");
      return;
    }
  }
}

static itg__sock accept_within(itg__sock lst) {
  if (itg__sock_wait_readable(lst, FAKE_WAIT) <= 0)
    return ITG__BAD_SOCK;
  return accept(lst, NULL, NULL);
}

/* Keeps the latest send time of the packets read. */
static void note_tx(fake *k, int tcp, const uint8_t *buf, size_t len) {
  itg_pkt_hdr h;
  if (itg_wire_decode(ITG_WIRE_DITG, tcp, buf, len, &h) < 0)
    fake_fail(k, "a packet without D-ITG's header");
  else if (h.tx_ns > k->last_tx_tod)
    k->last_tx_tod = h.tx_ns;
}

/* Checks the k->packets-th packet by the flow's payload type (SEND_FLOW's
 * byte 10), as ITGRecv reads it: -p 0, D-ITG's full header; -p 1, the
 * flow id and sequence number (and the size over TCP); -p 2, nothing.
 * The bytes after those are zeros, the sender's filling without -Fp, so
 * that a header written where none belongs shows. */
static void note_pkt(fake *k, int tcp, const uint8_t *buf, size_t len) {
  uint8_t type = k->send_flow[10];
  size_t i, from = 0;
  if (type == ITG__DITG_PAYLOAD_STANDARD) {
    note_tx(k, tcp, buf, len);
    return;
  }
  if (len < 4)
    fake_fail(k, "a packet below D-ITG's least size, 4 B");
  if (type == ITG__DITG_PAYLOAD_SHORT) {
    from = tcp ? 12 : 8;
    if (len < from || be32(buf) != be32(k->send_flow + 6) ||
        be32(buf + 4) != (uint32_t)k->packets || (tcp && be32(buf + 8) != len))
      fake_fail(k, "a packet without D-ITG's short header (-p 1)");
  }
  for (i = from; i < len; i++)
    if (buf[i] != 0) {
      fake_fail(k, "a header byte past the payload type's header");
      break;
    }
}

/* Takes the flow's packets: a TCP stream to its end (the sender closes it
 * before CLOSED_FLOW), cut at each header's size field (-p 0 and -p 1);
 * with -p 2, which has none, its bytes alone. */
static void take_tcp(fake *k, itg__sock dlst) {
  /* Each fake's thread its own buffer: two fakes take packets at once. */
  static _Thread_local uint8_t buf[ITG_WIRE_MAX_PACKET];
  uint8_t type = k->send_flow[10];
  size_t hl = type == ITG__DITG_PAYLOAD_SHORT ? 12 : ITG_WIRE_DITG_TCP_LEN;
  itg__sock d = accept_within(dlst);
  if (d == ITG__BAD_SOCK) {
    fake_fail(k, "no data connection");
    return;
  }
  for (;;) {
    uint32_t size;
    int rc, i;
    if (type == ITG__DITG_PAYLOAD_NONE) {
      /* by the piece: a byte a call took seconds under wine on a busy
       * machine, past the sender's wait for ACK_CLOSED_FLOW */
      rc = read_some(d, buf, sizeof buf, (int64_t)uv_hrtime() + FAKE_WAIT);
      if (rc == ITG_ECLOSED)
        break;
      if (rc < 0) {
        fake_fail(k, "a broken data stream (-p 2)");
        break;
      }
      for (i = 0; i < rc; i++)
        if (buf[i] != 0)
          fake_fail(k, "a header byte in a stream of none (-p 2)");
      k->bytes += (uint64_t)rc;
      continue;
    }
    rc = read_exact(d, buf, hl);
    if (rc == ITG_ECLOSED)
      break;
    size = be32(buf + hl - 4);
    if (rc != 0 || size < hl || size > sizeof buf ||
        read_exact(d, buf + hl, size - hl) != 0) {
      fake_fail(k, "a broken data stream");
      break;
    }
    k->packets++;
    k->bytes += size;
    note_pkt(k, 1, buf, size);
  }
  itg__sock_close(d);
}

/* Takes the datagrams waiting (all sent before CLOSED_FLOW, which on
 * loopback means all queued already). */
static void take_udp(fake *k, itg__sock d) {
  static _Thread_local uint8_t buf[8][ITG_WIRE_MAX_PACKET];
  itg__dgram dg[8];
  int i, n;
  do {
    for (i = 0; i < 8; i++) {
      memset(&dg[i], 0, sizeof dg[i]);
      dg[i].buf = buf[i];
      dg[i].cap = sizeof buf[i];
    }
    n = itg__recv_batch(d, dg, 8);
    for (i = 0; i < n; i++) {
      k->packets++;
      k->bytes += dg[i].len;
      note_pkt(k, 0, dg[i].buf, dg[i].len);
    }
  } while (n > 0);
}

/* Takes the ICMP messages waiting (sent before CLOSED_FLOW), as ITGRecv
 * does past the IPv4 header and the 8-byte ICMP header, keeping those of
 * type 15, the flows' here, and of the flow's identifier (the raw socket
 * sees every ICMP message of the host). Each must have code 0, a valid
 * checksum and the packet's sequence number. */
static void take_icmp(fake *k, itg__sock d) {
  static _Thread_local uint8_t buf[8][ITG_WIRE_MAX_PACKET + 60];
  itg__dgram dg[8];
  int i, n;
  do {
    for (i = 0; i < 8; i++) {
      memset(&dg[i], 0, sizeof dg[i]);
      dg[i].buf = buf[i];
      dg[i].cap = sizeof buf[i];
    }
    n = itg__recv_batch(d, dg, 8);
    for (i = 0; i < n; i++) {
      const uint8_t *m = dg[i].buf + 4 * (dg[i].buf[0] & 0x0f);
      size_t len = dg[i].len - 4 * (dg[i].buf[0] & 0x0f);
      if (len < 8 || m[0] != 15 ||
          (uint32_t)(m[4] << 8 | m[5]) != (be32(k->send_flow + 6) & 0xffff))
        continue;
      k->packets++;
      k->bytes += len - 8;
      if (m[1] != 0 || itg__inet_checksum(m, len) != 0 ||
          (uint64_t)(m[6] << 8 | m[7]) != (k->packets & 0xffff))
        fake_fail(k, "an ICMP header that is not the flow's");
      note_pkt(k, 0, m + 8, len - 8);
    }
  } while (n > 0);
}

/* Reads the sender's next message type, counting and skipping the
 * ACK_DISCOVERYs, which ITGRecv takes (and ignores) wherever they come. */
static int read_type(fake *k, itg__sock c, uint8_t *type) {
  do {
    if (read_exact(c, type, 1) != 0)
      return -1;
    k->acks_discovery += *type == ITG__DITG_ACK_DISCOVERY;
  } while (*type == ITG__DITG_ACK_DISCOVERY);
  return 0;
}

/* The signaling after the data: CLOSED_FLOW. */
static int await_closed_flow(fake *k, itg__sock c, uint32_t id) {
  uint8_t b[4];
  if (read_type(k, c, b) != 0 || b[0] != ITG__DITG_CLOSED_FLOW ||
      read_exact(c, b, 4) != 0 || be32(b) != id) {
    fake_fail(k, "no CLOSED_FLOW of the flow");
    return -1;
  }
  k->closed_tod = itg__real_ns() % (86400 * SEC);
  k->got_closed = 1;
  return 0;
}

/* After SEND_FLOW: the data port, the data, and the flow's end. */
static void fake_flow(fake *k, itg__sock c) {
  const uint8_t *sf = k->send_flow;
  uint32_t id = be32(sf + 6);
  int udp = sf[1] == ITG__DITG_L4_UDP;
  int icmp = sf[1] == ITG__DITG_L4_ICMP;
  itg__addr a;
  itg__sock d;
  uint8_t m[8];
  if (itg__addr_resolve("127.0.0.1", 0, 1, &a) != 0 ||
      (icmp ? itg__sock_open_icmp(&a, &d) : itg__sock_open(&a, udp, &d)) !=
          0) {
    fake_fail(k, "no data socket");
    return;
  }
  if (!icmp && (itg__sock_bind(d, &a) != 0 || itg__sock_local(d, &a) != 0 ||
                (!udp && listen(d, 1) != 0))) {
    fake_fail(k, "cannot open the data port");
    itg__sock_close(d);
    return;
  }
  /* ICMP: ITGRecv answers port 0 */
  k->data_port = icmp ? 0 : itg__addr_port(&a);
  m[0] = ITG__DITG_ACK_SEND_FLOW;
  id += k->mode == FK_WRONG_ID;
  m[1] = (uint8_t)(id >> 24);
  m[2] = (uint8_t)(id >> 16);
  m[3] = (uint8_t)(id >> 8);
  m[4] = (uint8_t)id;
  m[5] = (uint8_t)(k->data_port >> 8);
  m[6] = (uint8_t)k->data_port;
  id -= k->mode == FK_WRONG_ID;
  /* FK_OK: a DISCOVERY in the same piece, so that the sender reads it
   * with its answer, during the set-up */
  m[7] = ITG__DITG_DISCOVERY;
  say(c, m, k->mode == FK_OK ? 8 : 7);
  if (k->mode == FK_WRONG_ID) {
    await_close(k, c);
    itg__sock_close(d);
    return;
  }
  if (k->mode == FK_OK) {
    /* answered before anything else: the sender says nothing until its
     * data ends, so an answer only then would come after CLOSED_FLOW */
    if (read_exact(c, m, 1) != 0 || m[0] != ITG__DITG_ACK_DISCOVERY) {
      fake_fail(k, "the DISCOVERY sent with ACK_SEND_FLOW went unanswered");
      itg__sock_close(d);
      return;
    }
    k->acks_discovery++;
  }
  if (!udp && !icmp)
    take_tcp(k, d);
  if (k->mode == FK_OK) {
    /* and another once the flow runs or ends, for the control thread */
    m[0] = ITG__DITG_DISCOVERY;
    say(c, m, 1);
  }
  if (await_closed_flow(k, c, id) == 0 && udp)
    take_udp(k, d);
  else if (k->got_closed && icmp)
    take_icmp(k, d);
  itg__sock_close(d);
  if (!k->got_closed || k->mode == FK_CLOSE_CLOSED)
    return;
  if (k->mode == FK_SILENT_CLOSED || k->mode == FK_GARBAGE_CLOSED) {
    m[0] = 0xee;
    if (k->mode == FK_GARBAGE_CLOSED)
      say(c, m, 1);
    await_close(k, c);
    return;
  }
  m[0] = ITG__DITG_ACK_CLOSED_FLOW;
  memcpy(m + 1, sf + 6, 4);
  say(c, m, 5);
  if (read_type(k, c, m) != 0 || m[0] != ITG__DITG_RELEASE) {
    fake_fail(k, "no RELEASE");
    return;
  }
  k->got_release = 1;
  if (k->mode == FK_SILENT_RELEASE) {
    await_close(k, c);
    return;
  }
  m[0] = ITG__DITG_ACK_RELEASE;
  say(c, m, 1);
  k->done = 1;
}

static void fake_main(void *arg) {
  fake *k = arg;
  itg__sock c = accept_within(k->lst);
  uint8_t b[1];
  if (c == ITG__BAD_SOCK) {
    fake_fail(k, "no signaling connection");
    return;
  }
  if (read_exact(c, b, 1) != 0 || b[0] != ITG__DITG_CONNECT) {
    fake_fail(k, "no CONNECT");
  } else if (k->mode == FK_GARBAGE_CONNECT || k->mode == FK_SILENT_CONNECT) {
    b[0] = 0xee;
    if (k->mode == FK_GARBAGE_CONNECT)
      say(c, b, 1);
    await_close(k, c);
  } else {
    b[0] = ITG__DITG_ACK_CONNECT;
    say(c, b, 1);
    /* SEND_FLOW over IPv4 is 27 bytes */
    if (read_exact(c, k->send_flow, 27) != 0 ||
        k->send_flow[0] != ITG__DITG_SEND_FLOW) {
      fake_fail(k, "no SEND_FLOW");
    } else if (k->mode == FK_CLOSE_SEND_FLOW) {
      k->got_send_flow = 1;
    } else if (k->mode == FK_ERR_BIND) {
      uint8_t e[5] = {ITG__DITG_ERR_MSG_2};
      k->got_send_flow = 1;
      memcpy(e + 1, k->send_flow + 6, 4);
      say(c, e, 5);
      await_close(k, c);
    } else {
      k->got_send_flow = 1;
      fake_flow(k, c);
    }
  }
  itg__sock_close(c);
}

static void fake_start(fake *k, fake_mode mode) {
  itg__addr a;
  memset(k, 0, sizeof *k);
  k->mode = mode;
  assert_int_equal(itg__addr_resolve("127.0.0.1", 0, 1, &a), 0);
  assert_int_equal(itg__sock_open(&a, 0, &k->lst), 0);
  assert_int_equal(itg__sock_bind(k->lst, &a), 0);
  assert_int_equal(itg__sock_local(k->lst, &a), 0);
  assert_int_equal(listen(k->lst, 4), 0);
  k->port = itg__addr_port(&a);
  assert_int_equal(uv_thread_create(&k->th, fake_main, k), 0);
}

static void fake_join(fake *k) {
  uv_thread_join(&k->th);
  itg__sock_close(k->lst);
}

/* Runs one flow (options `more`) against the fake; returns its result
 * and the time the run took. */
static itg_flow_result run_against(fake *k, const char *more,
                                   int64_t connect_timeout_ns,
                                   int64_t *took_ns) {
  itg_sender_cfg cfg;
  itg_flow_cfg c;
  itg_flow_result res;
  itg_sender *s;
  char line[256], err[256] = "";
  uint64_t t0;
  snprintf(line, sizeof line, "-a 127.0.0.1 -Sdp %u --peer ditg %s",
           (unsigned)k->port, more);
  itg_flow_cfg_init(&c);
  if (itg_flow_parse_line(&c, line, err, sizeof err) <= 0)
    fail_msg("%s: %s", line, err);
  c.flow_id = 0x01020304; /* tells SEND_FLOW's byte order */
  itg_sender_cfg_init(&cfg);
  cfg.connect_timeout_ns = connect_timeout_ns;
  assert_int_equal(itg_sender_new(&cfg, &s), 0);
  assert_int_equal(itg_sender_add_flow(s, &c, err, sizeof err), 0);
  t0 = uv_hrtime();
  itg_sender_start(s);
  assert_int_equal(itg_sender_wait(s, WAIT), 0);
  *took_ns = (int64_t)(uv_hrtime() - t0);
  assert_int_equal(itg_sender_flow_result(s, 0, &res), 0);
  itg_sender_free(s);
  fake_join(k);
  return res;
}

/* A whole flow as ITGRecv sees it: SEND_FLOW's every byte, the packets
 * and bytes sent, two DISCOVERYs answered (one read with ACK_SEND_FLOW,
 * one during or after the data), CLOSED_FLOW then RELEASE. */
static void check_ok_type(const char *more, uint8_t l4, uint8_t payload,
                          uint64_t packets) {
  static const uint8_t serial[10] = "noSerial";
  fake k;
  int64_t took;
  itg_flow_result res;
  const uint8_t *sf = k.send_flow;
  fake_start(&k, FK_OK);
  res = run_against(&k, more, 5 * SEC, &took);
  if (res.status != 0)
    fail_msg("%s: %s (the fake: %s)", more, res.error, k.why);
  assert_string_equal(k.why, "");
  assert_true(k.done);
  assert_int_equal(sf[1], l4);
  assert_int_equal(sf[2], 0);                    /* l7: none */
  assert_int_equal(sf[3], ITG__DITG_METER_OWDM); /* meter */
  assert_int_equal(sf[4], 40);                   /* -b 40 */
  assert_int_equal(sf[5], ITG__DITG_L3_IPV4);
  assert_int_equal(be32(sf + 6), 0x01020304u);   /* the flow id */
  assert_int_equal(sf[10], payload);             /* the payload type */
  assert_memory_equal(sf + 11, serial, 10);
  assert_int_equal(sf[21], 0x34);                /* -rp 4660 */
  assert_int_equal(sf[22], 0x12);
  assert_memory_equal(sf + 23, "\x7f\x00\x00\x01", 4);
  assert_int_equal(res.flow_id, 0x01020304u);
  assert_int_equal(res.packets, packets);
  if (payload != ITG__DITG_PAYLOAD_NONE || l4 != ITG__DITG_L4_TCP)
    assert_int_equal(k.packets, packets);
  assert_int_equal(k.bytes, res.bytes);
  assert_int_equal(res.data_port, k.data_port);
  assert_int_equal(res.received, 0); /* D-ITG never says */
  assert_int_equal(k.acks_discovery, 2);
  assert_true(k.got_closed && k.got_release);
  /* ITGRecv logs only what its data thread read before CLOSED_FLOW: the
   * sender leaves it a pause after the last packet (a run that crosses
   * midnight UTC is let through). */
  if (k.closed_tod > k.last_tx_tod &&
      k.closed_tod - k.last_tx_tod < 200 * (SEC / 1000))
    fail_msg("CLOSED_FLOW came %lld us after the last packet",
             (long long)((k.closed_tod - k.last_tx_tod) / 1000));
}

static void check_ok(const char *more, uint8_t l4, uint64_t packets) {
  check_ok_type(more, l4, ITG__DITG_PAYLOAD_STANDARD, packets);
}

static void test_udp_flow(void **state) {
  (void)state;
  check_ok("-s 1 -z 40 -C 2000 -c 100 -b 40 -rp 4660", ITG__DITG_L4_UDP,
           40);
}

static void test_tcp_flow(void **state) {
  (void)state;
  check_ok("-s 1 -T TCP -z 40 -C 2000 -u 20 300 -b 40 -rp 4660",
           ITG__DITG_L4_TCP, 40);
}

/* D-ITG's shorter payload types (-p 1, -p 2): SEND_FLOW names them, and
 * each packet carries that header and no other, from D-ITG's least sizes
 * (8 B, 12 B over TCP; 4 B). */
static void test_payload_types(void **state) {
  (void)state;
  check_ok_type("-s 1 -p 1 -z 40 -C 2000 -u 8 300 -b 40 -rp 4660",
                ITG__DITG_L4_UDP, ITG__DITG_PAYLOAD_SHORT, 40);
  check_ok_type("-s 1 -p 1 -T TCP -z 40 -C 2000 -u 12 300 -b 40 -rp 4660",
                ITG__DITG_L4_TCP, ITG__DITG_PAYLOAD_SHORT, 40);
  check_ok_type("-s 1 -p 2 -z 40 -C 2000 -u 4 300 -b 40 -rp 4660",
                ITG__DITG_L4_UDP, ITG__DITG_PAYLOAD_NONE, 40);
  check_ok_type("-s 1 -p 2 -T TCP -z 40 -C 2000 -u 4 300 -b 40 -rp 4660",
                ITG__DITG_L4_TCP, ITG__DITG_PAYLOAD_NONE, 40);
}

/* Flows of one sender share its packet buffers: a flow of no header
 * (-p 2) sent beside one of D-ITG's full header carries none of that
 * header's bytes (the fake finds only zeros in its packets), nor does a
 * short header (-p 1) carry the rest of a longer one. */
static void test_shared_buffers(void **state) {
  static const char *const lines[2][2] = {
      {"-s 1 -z 60 -C 2000 -c 100 -rp 4660", "-s 2 -p 2 -z 60 -C 2000 -c 100"},
      {"-s 1 -z 60 -C 2000 -c 100 -rp 4660", "-s 2 -p 1 -z 60 -C 2000 -c 100"}};
  int round;
  (void)state;
  for (round = 0; round < 2; round++) {
    itg_sender_cfg cfg;
    itg_sender *s;
    fake k[2];
    int i;
    itg_sender_cfg_init(&cfg);
    cfg.connect_timeout_ns = 5 * SEC;
    assert_int_equal(itg_sender_new(&cfg, &s), 0);
    for (i = 0; i < 2; i++) {
      itg_flow_cfg c;
      char line[256], err[256] = "";
      fake_start(&k[i], FK_OK);
      snprintf(line, sizeof line, "-a 127.0.0.1 -Sdp %u --peer ditg %s",
               (unsigned)k[i].port, lines[round][i]);
      itg_flow_cfg_init(&c);
      if (itg_flow_parse_line(&c, line, err, sizeof err) <= 0)
        fail_msg("%s: %s", line, err);
      c.flow_id = (uint32_t)(i + 1);
      assert_int_equal(itg_sender_add_flow(s, &c, err, sizeof err), 0);
    }
    itg_sender_start(s);
    assert_int_equal(itg_sender_wait(s, WAIT), 0);
    itg_sender_free(s);
    for (i = 0; i < 2; i++) {
      fake_join(&k[i]);
      if (k[i].why[0] != '\0')
        fail_msg("round %d, flow %d: %s", round, i + 1, k[i].why);
      assert_int_equal(k[i].packets, 60);
    }
  }
}

/* ICMP (root only: a raw socket): SEND_FLOW says ICMP; each message is of
 * the flow's type, code 0, with a valid checksum, the flow's identifier
 * and the packet's sequence number, and carries D-ITG's full header and
 * the flow's sizes after that header. */
static void test_icmp_flow(void **state) {
  itg__addr a;
  itg__sock probe;
  (void)state;
  if (itg__addr_resolve("127.0.0.1", 0, 1, &a) != 0 ||
      itg__sock_open_icmp(&a, &probe) != 0) {
    print_message("skipped: a raw ICMP socket needs root\n");
    skip();
  }
  itg__sock_close(probe);
  check_ok_type("-s 1 -T ICMP 15 -z 40 -C 2000 -u 16 300 -b 40 -rp 4660",
                ITG__DITG_L4_ICMP, ITG__DITG_PAYLOAD_STANDARD, 40);
}

/* A receiver leaving D-ITG's script ends the flow with status and a
 * sentence holding `says`, in bounded time. */
static void check_bad(fake_mode mode, int status, const char *says,
                      int64_t at_least_ns) {
  const int64_t tmo = SEC / 2;
  fake k;
  int64_t took;
  itg_flow_result res;
  fake_start(&k, mode);
  res = run_against(&k, "-s 1 -z 5 -C 1000 -c 100 -b 40 -rp 4660", tmo,
                    &took);
  assert_string_equal(k.why, "");
  if (res.status != status || strstr(res.error, says) == NULL)
    fail_msg("mode %d: status %d (%s), want %d and '%s'", (int)mode,
             res.status, res.error, status, says);
  assert_true(res.ended);
  assert_true(took >= at_least_ns);
  /* The connect timeout bounds each wait: nothing hangs. */
  assert_true(took < 10 * SEC);
}

static void test_malformed(void **state) {
  (void)state;
  check_bad(FK_GARBAGE_CONNECT, ITG_EPROTO,
            "answered CONNECT with a message D-ITG does not have", 0);
  check_bad(FK_WRONG_ID, ITG_EPROTO,
            "answered SEND_FLOW with flow id 16909061", 0);
  check_bad(FK_ERR_BIND, ITG_EREFUSED, "cannot open the data port", 0);
  check_bad(FK_GARBAGE_CLOSED, ITG_EPROTO,
            "malformed signaling from the D-ITG receiver", 0);
}

static void test_closed(void **state) {
  (void)state;
  check_bad(FK_CLOSE_SEND_FLOW, ITG_ECLOSED, "failed at SEND_FLOW", 0);
  check_bad(FK_CLOSE_CLOSED, ITG_ECLOSED,
            "the receiver closed the signaling connection", 0);
}

static void test_silent(void **state) {
  (void)state;
  check_bad(FK_SILENT_CONNECT, ITG_ETIMEDOUT,
            "did not answer CONNECT in time", SEC / 2);
  check_bad(FK_SILENT_CLOSED, ITG_ETIMEDOUT,
            "did not acknowledge the end of the flow", SEC / 2);
  check_bad(FK_SILENT_RELEASE, ITG_ETIMEDOUT,
            "did not acknowledge RELEASE", SEC / 2);
}

/* What a D-ITG receiver cannot take is refused before anything is
 * sent. */
static void test_options(void **state) {
  itg_flow_cfg c;
  char err[256];
  (void)state;
  itg_flow_cfg_init(&c);
  assert_int_equal(itg_flow_parse_line(&c, "--peer DITG", err, sizeof err),
                   2);
  assert_int_equal(c.peer, ITG_PEER_DITG);
  assert_int_equal(c.wire, ITG_WIRE_DITG);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  assert_int_equal(itg_flow_parse_line(&c, "--wire native", err, sizeof err),
                   2);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), ITG_EINVAL);
  assert_non_null(strstr(err, "takes only the ditg wire profile"));
  itg_flow_cfg_init(&c);
  /* ITGRecv is asked for the log (SEND_NAME_LOG, SEND_FLOW_LOG). */
  assert_int_equal(itg_flow_parse_line(&c, "--peer ditg -x r.log -X ::1 UDP",
                                       err, sizeof err),
                   7);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  itg_flow_cfg_init(&c);
  assert_int_equal(itg_flow_parse_line(&c, "--peer ditg", err, sizeof err),
                   2);
  c.flow_id = 2147483647u;
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), ITG_EINVAL);
  c.flow_id = 2147483646u;
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  assert_int_equal(itg_flow_parse_line(&c, "--peer libitg", err, sizeof err),
                   2);
  assert_int_equal(c.peer, ITG_PEER_LIBITG);
  assert_int_equal(itg_flow_parse_line(&c, "--peer itgrecv", err, sizeof err),
                   ITG_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_encode),   cmocka_unit_test(test_decode),
      cmocka_unit_test(test_reader),   cmocka_unit_test(test_udp_flow),
      cmocka_unit_test(test_tcp_flow), cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_closed),   cmocka_unit_test(test_silent),
      cmocka_unit_test(test_options),  cmocka_unit_test(test_payload_types),
      cmocka_unit_test(test_icmp_flow),
      cmocka_unit_test(test_shared_buffers),
  };
  itg__platform_init();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
