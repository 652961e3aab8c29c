/* The signaling protocol: frames, every message's round trip, truncation,
 * version and bound checks, stream re-framing, random input. (The blocking
 * helpers over a socket are exercised against a real receiver in
 * test_engine.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/control.h"

/* One message of each type, every field it carries set to a value that
 * differs from the defaults. */
static int sample(int i, itg__ctl_msg *m) {
  switch (i) {
  case 0:
    itg__ctl_init(m, ITG__CTL_HELLO);
    m->version = 1;
    strcpy(m->text, "libitg 0.1.0");
    return 1;
  case 1:
    itg__ctl_init(m, ITG__CTL_HELLO_ACK);
    m->status = ITG_EVERSION;
    m->version = 1;
    strcpy(m->text, "receiver");
    return 1;
  case 2:
    itg__ctl_init(m, ITG__CTL_FLOW_OPEN);
    m->flow_id = 0xA1B2C3D4u;
    m->id_auto = 1;
    m->proto = ITG_PROTO_TCP;
    m->meter = ITG_METER_RTT;
    m->wire = ITG_WIRE_DITG;
    m->port = 45000;
    m->src_port = 40001;
    m->tos = 184;
    m->ttl = 64;
    strcpy(m->text, "flow-log.itg");
    return 1;
  case 3:
    itg__ctl_init(m, ITG__CTL_FLOW_OPEN_ACK);
    m->status = ITG_EBUSY;
    m->flow_id = 7;
    m->port = 65535;
    strcpy(m->text, "flow id 7 is already in use");
    m->token = 0xF1E2D3C4B5A69788ull;
    return 1;
  case 4:
    itg__ctl_init(m, ITG__CTL_FLOW_CLOSE);
    m->packets = 0x0102030405060708ull;
    m->bytes = UINT64_MAX;
    return 1;
  case 5:
    itg__ctl_init(m, ITG__CTL_FLOW_CLOSE_ACK);
    m->packets = 1000;
    m->bytes = 64000;
    return 1;
  case 6:
    itg__ctl_init(m, ITG__CTL_ERROR);
    m->status = ITG_EPROTO;
    strcpy(m->text, "unexpected message");
    return 1;
  case 7: /* FLOW_OPEN with the receiver log shipped to a log server */
    sample(2, m);
    m->log_transport = ITG_LOG_UDP;
    m->log_port = 9101;
    strcpy(m->log_host, "logs.example.net");
    return 1;
  }
  return 0;
}

static void assert_same(const itg__ctl_msg *a, const itg__ctl_msg *b) {
  assert_int_equal(a->type, b->type);
  assert_int_equal(a->status, b->status);
  assert_int_equal(a->version, b->version);
  assert_int_equal(a->flow_id, b->flow_id);
  assert_int_equal(a->id_auto, b->id_auto);
  assert_int_equal(a->proto, b->proto);
  assert_int_equal(a->meter, b->meter);
  assert_int_equal(a->wire, b->wire);
  assert_int_equal(a->port, b->port);
  assert_int_equal(a->src_port, b->src_port);
  assert_int_equal(a->tos, b->tos);
  assert_int_equal(a->ttl, b->ttl);
  assert_true(a->packets == b->packets);
  assert_true(a->bytes == b->bytes);
  assert_true(a->token == b->token);
  assert_string_equal(a->text, b->text);
  assert_string_equal(a->log_host, b->log_host);
  assert_int_equal(a->log_port, b->log_port);
  assert_int_equal(a->log_transport, b->log_transport);
}

static void test_round_trip(void **state) {
  itg__ctl_msg m, d;
  uint8_t buf[ITG__CTL_MAX_FRAME];
  int i;
  (void)state;
  for (i = 0; sample(i, &m); i++) {
    int n = itg__ctl_encode(&m, buf, sizeof buf);
    assert_true(n >= (int)ITG__CTL_HDR_LEN);
    assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), n);
    assert_same(&m, &d);
  }
}

/* The frame layout written out by hand from the format in control.h. */
static void test_layout(void **state) {
  static const uint8_t want[] = {
      5,    2,    0,    0,    0,    0,    0,    16, /* header */
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* packets */
      0,    0,    0,    0,    0,    0,    0x03, 0xE8}; /* bytes 1000 */
  static const uint8_t open_body[] = {
      0,   0,   0,    9,    /* flow id */
      0,   0,   1,    0,    /* user-set id, UDP, rtt, native */
      0xAF, 0xC8, 0x9C, 0x41, /* port 45000, src port 40001 */
      0xFF, 0xFF, 0,  1,    /* tos -1, ttl 1 */
      0,   1,   'x'};       /* text */
  static const uint8_t ack_body[] = {
      0,    0,    0,    0,    /* status */
      0,    0,    0,    9,    /* flow id */
      0xAF, 0xC8,             /* port 45000 */
      0,    0,                /* text "" */
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}; /* token */
  itg__ctl_msg m;
  uint8_t buf[64];
  int n;
  (void)state;
  itg__ctl_init(&m, ITG__CTL_FLOW_CLOSE);
  m.packets = 0x0102030405060708ull;
  m.bytes = 1000;
  n = itg__ctl_encode(&m, buf, sizeof buf);
  assert_int_equal(n, (int)sizeof want);
  assert_memory_equal(buf, want, sizeof want);

  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN);
  m.flow_id = 9;
  m.meter = ITG_METER_RTT;
  m.port = 45000;
  m.src_port = 40001;
  m.ttl = 1;
  strcpy(m.text, "x");
  n = itg__ctl_encode(&m, buf, sizeof buf);
  assert_int_equal(n, 8 + (int)sizeof open_body);
  assert_int_equal(buf[0], ITG__CTL_FLOW_OPEN);
  assert_int_equal(buf[7], sizeof open_body);
  assert_memory_equal(buf + 8, open_body, sizeof open_body);

  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN_ACK);
  m.flow_id = 9;
  m.port = 45000;
  m.token = 0x0102030405060708ull;
  n = itg__ctl_encode(&m, buf, sizeof buf);
  assert_int_equal(n, 8 + (int)sizeof ack_body);
  assert_int_equal(buf[7], sizeof ack_body);
  assert_memory_equal(buf + 8, ack_body, sizeof ack_body);
}

/* FLOW_OPEN's optional log server fields, laid out by hand; a body without
 * them (what senders wrote before they existed) still decodes, as a flow
 * logged locally. */
static void test_open_log_server(void **state) {
  static const uint8_t body[] = {
      0,   0,   0,    9,    /* flow id */
      0,   0,   0,    0,    /* user-set id, UDP, owd, native */
      0xAF, 0xC8, 0,  0,    /* port 45000, src port 0 */
      0xFF, 0xFF, 0xFF, 0xFF, /* tos -1, ttl -1 */
      0,   1,   'x',        /* log name */
      0,                    /* TCP */
      0xAF, 0xC9,           /* port 45001 */
      0,   3,   'l', 'o', 'g'}; /* server */
  uint8_t buf[64], frame[64];
  itg__ctl_msg m, d;
  int n;
  (void)state;
  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN);
  m.flow_id = 9;
  m.port = 45000;
  strcpy(m.text, "x");
  strcpy(m.log_host, "log");
  m.log_port = 45001;
  m.log_transport = ITG_LOG_TCP;
  n = itg__ctl_encode(&m, buf, sizeof buf);
  assert_int_equal(n, 8 + (int)sizeof body);
  assert_int_equal(buf[7], sizeof body);
  assert_memory_equal(buf + 8, body, sizeof body);
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), n);
  assert_same(&m, &d);

  /* The older body: the same up to the log name. */
  memcpy(frame, buf, 8);
  frame[7] = 19;
  memcpy(frame + 8, body, 19);
  assert_int_equal(itg__ctl_decode(frame, 27, &d), 27);
  assert_string_equal(d.text, "x");
  assert_string_equal(d.log_host, "");
  assert_int_equal(d.log_port, 0);

  /* A part of the trailer only, an unknown transport, port 0, an empty
   * server name: refused. */
  {
    static const size_t cut[] = {20, 22, 24};
    size_t j;
    for (j = 0; j < sizeof cut / sizeof cut[0]; j++) {
      memcpy(frame, buf, (size_t)n);
      frame[7] = (uint8_t)cut[j];
      assert_int_equal(itg__ctl_decode(frame, 8 + cut[j], &d), ITG_EBADMSG);
    }
  }
  memcpy(frame, buf, (size_t)n);
  frame[8 + 19] = 2;
  assert_int_equal(itg__ctl_decode(frame, (size_t)n, &d), ITG_EBADMSG);
  memcpy(frame, buf, (size_t)n);
  frame[8 + 20] = frame[8 + 21] = 0;
  assert_int_equal(itg__ctl_decode(frame, (size_t)n, &d), ITG_EBADMSG);
  memcpy(frame, buf, 8 + 24);
  frame[8 + 23] = 0;
  frame[7] = 24;
  assert_int_equal(itg__ctl_decode(frame, 8 + 24, &d), ITG_EBADMSG);

  /* A server name that does not end within its field is not encoded. */
  memset(m.log_host, 'a', sizeof m.log_host);
  assert_int_equal(itg__ctl_encode(&m, buf, sizeof buf), ITG_EINVAL);
}

static void test_truncated_prefixes(void **state) {
  itg__ctl_msg m, d;
  uint8_t buf[ITG__CTL_MAX_FRAME];
  int i;
  (void)state;
  for (i = 0; sample(i, &m); i++) {
    int n = itg__ctl_encode(&m, buf, sizeof buf);
    int k;
    for (k = 0; k < n; k++)
      assert_int_equal(itg__ctl_decode(buf, (size_t)k, &d), ITG_ETRUNC);
  }
}

static void test_bad_frames(void **state) {
  itg__ctl_msg m, d;
  uint8_t buf[ITG__CTL_MAX_FRAME + 16];
  int n;
  (void)state;
  sample(4, &m);
  n = itg__ctl_encode(&m, buf, sizeof buf);

  buf[1] = ITG__CTL_VERSION + 1; /* another protocol version */
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EVERSION);
  buf[1] = ITG__CTL_VERSION - 1; /* a peer without flow tokens */
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EVERSION);
  buf[1] = 0;
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EVERSION);
  buf[1] = ITG__CTL_VERSION;

  buf[0] = 0; /* unknown types */
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  buf[0] = 8;
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  buf[0] = ITG__CTL_FLOW_CLOSE;

  buf[3] = 1; /* reserved bits */
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  buf[3] = 0;

  /* A body length over the bound is refused from the header alone. */
  buf[4] = 0;
  buf[5] = 0;
  buf[6] = 0x10;
  buf[7] = 0x01; /* 4097 */
  assert_int_equal(itg__ctl_decode(buf, 8, &d), ITG_EBADMSG);
  buf[4] = 0xFF; /* 4 GiB */
  assert_int_equal(itg__ctl_decode(buf, 8, &d), ITG_EBADMSG);

  /* A body longer than its message: trailing bytes. */
  n = itg__ctl_encode(&m, buf, sizeof buf);
  buf[7] = (uint8_t)(buf[7] + 1);
  buf[n] = 0;
  assert_int_equal(itg__ctl_decode(buf, (size_t)n + 1, &d), ITG_EBADMSG);
  /* Shorter than its message. */
  buf[7] = (uint8_t)(buf[7] - 2);
  assert_int_equal(itg__ctl_decode(buf, (size_t)n - 1, &d), ITG_EBADMSG);

  /* Fields out of range in FLOW_OPEN: proto (past ICMP: SCTP, DCCP and
   * ICMP decode, for the receiver to refuse the flow alone), meter, wire,
   * id flag, ttl 0, tos 256. */
  {
    static const int offs[] = {13, 14, 15, 12};
    size_t j;
    sample(2, &m);
    n = itg__ctl_encode(&m, buf, sizeof buf);
    buf[13] = ITG_PROTO_ICMP;
    assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), n);
    assert_int_equal(d.proto, ITG_PROTO_ICMP);
    for (j = 0; j < sizeof offs / sizeof offs[0]; j++) {
      uint8_t save;
      n = itg__ctl_encode(&m, buf, sizeof buf);
      save = buf[offs[j]];
      buf[offs[j]] = offs[j] == 13 ? ITG_PROTO_ICMP + 1 : 2;
      assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
      buf[offs[j]] = save;
      assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), n);
    }
    m.ttl = 0;
    n = itg__ctl_encode(&m, buf, sizeof buf);
    assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
    m.ttl = 64;
    m.tos = 256;
    n = itg__ctl_encode(&m, buf, sizeof buf);
    assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  }

  /* A positive status; a NUL inside a text; a text length past the body. */
  sample(6, &m);
  n = itg__ctl_encode(&m, buf, sizeof buf);
  buf[8] = 0;
  buf[9] = 0;
  buf[10] = 0;
  buf[11] = 5;
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  n = itg__ctl_encode(&m, buf, sizeof buf);
  buf[16] = '\0';
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
  n = itg__ctl_encode(&m, buf, sizeof buf);
  buf[13] = (uint8_t)(buf[13] + 1);
  assert_int_equal(itg__ctl_decode(buf, (size_t)n, &d), ITG_EBADMSG);
}

static void test_encode_limits(void **state) {
  itg__ctl_msg m;
  uint8_t buf[ITG__CTL_MAX_FRAME];
  int i, n;
  (void)state;
  for (i = 0; sample(i, &m); i++) {
    n = itg__ctl_encode(&m, buf, sizeof buf);
    assert_int_equal(itg__ctl_encode(&m, buf, (size_t)n - 1), ITG_ETRUNC);
    assert_int_equal(itg__ctl_encode(&m, buf, 3), ITG_ETRUNC);
  }
  sample(2, &m);
  memset(m.text, 'a', sizeof m.text); /* no room for the NUL */
  assert_int_equal(itg__ctl_encode(&m, buf, sizeof buf), ITG_EINVAL);
  m.text[sizeof m.text - 1] = '\0'; /* the longest text fits a frame */
  n = itg__ctl_encode(&m, buf, sizeof buf);
  assert_true(n > 0 && n <= (int)ITG__CTL_MAX_FRAME);
  m.type = (itg__ctl_type)9;
  assert_int_equal(itg__ctl_encode(&m, buf, sizeof buf), ITG_EINVAL);
}

/* Every message of a stream comes out whole, however the bytes are cut. */
static void test_reader_any_split(void **state) {
  uint8_t stream[8 * ITG__CTL_MAX_FRAME];
  size_t len = 0, cut;
  itg__ctl_msg m, d;
  int i, count = 0;
  (void)state;
  for (i = 0; sample(i, &m); i++, count++)
    len += (size_t)itg__ctl_encode(&m, stream + len, sizeof stream - len);
  for (cut = 1; cut < 64; cut++) {
    itg__ctl_reader r;
    size_t off = 0;
    int got = 0;
    itg__frame_reader_reset(&r.fr);
    while (off < len) {
      size_t room, k;
      uint8_t *p = itg__ctl_reader_space(&r, &room);
      k = len - off < cut ? len - off : cut;
      assert_true(room >= k);
      memcpy(p, stream + off, k);
      itg__ctl_reader_commit(&r, k);
      off += k;
      while (itg__ctl_reader_next(&r, &d) == 1) {
        sample(got, &m);
        assert_same(&m, &d);
        got++;
      }
    }
    assert_int_equal(got, count);
    assert_int_equal(r.fr.len - r.fr.start, 0); /* nothing left over */
  }
}

/* A small fixed-seed generator (xorshift64*) for the random inputs. */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

/* Random bytes, raw or under a plausible header, never crash the decoder;
 * what does decode encodes back to the same bytes. */
static void test_random_bytes(void **state) {
  uint64_t seed = 0x1234567887654321ull;
  uint8_t buf[600], again[ITG__CTL_MAX_FRAME];
  itg__ctl_reader r;
  int it, decoded = 0;
  (void)state;
  itg__frame_reader_reset(&r.fr);
  for (it = 0; it < 10000; it++) {
    /* Every other input is short, so whole small bodies come up often. */
    size_t len = rnd(&seed) % ((it & 2) ? sizeof buf : 48), i;
    itg__ctl_msg d;
    int n;
    for (i = 0; i < len; i++)
      buf[i] = (uint8_t)rnd(&seed);
    if ((it & 1) && len >= 8) { /* a header that passes its own checks */
      buf[0] = (uint8_t)(1 + rnd(&seed) % 7);
      buf[1] = ITG__CTL_VERSION;
      buf[2] = buf[3] = 0;
      buf[4] = buf[5] = 0;
      buf[6] = 0;
      buf[7] = (uint8_t)((len - 8) & 0xFF);
      buf[6] = (uint8_t)((len - 8) >> 8);
    }
    n = itg__ctl_decode(buf, len, &d);
    assert_true(n == ITG_ETRUNC || n == ITG_EBADMSG || n == ITG_EVERSION ||
                (n >= 8 && (size_t)n <= len));
    if (n > 0) {
      decoded++;
      assert_int_equal(itg__ctl_encode(&d, again, sizeof again), n);
      assert_memory_equal(again, buf, (size_t)n);
    }
    /* The same bytes through a reader, which must keep its bounds. */
    {
      size_t room, k;
      uint8_t *p = itg__ctl_reader_space(&r, &room);
      k = len < room ? len : room;
      memcpy(p, buf, k);
      itg__ctl_reader_commit(&r, k);
      while ((n = itg__ctl_reader_next(&r, &d)) == 1)
        ;
      assert_true(r.fr.start <= r.fr.len && r.fr.len <= sizeof r.buf);
      if (n < 0) /* a broken stream is dropped, as a connection is */
        itg__frame_reader_reset(&r.fr);
    }
  }
  assert_true(decoded > 0); /* the plausible headers do reach the bodies */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_layout),
      cmocka_unit_test(test_open_log_server),
      cmocka_unit_test(test_truncated_prefixes),
      cmocka_unit_test(test_bad_frames),
      cmocka_unit_test(test_encode_limits),
      cmocka_unit_test(test_reader_any_split),
      cmocka_unit_test(test_random_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
