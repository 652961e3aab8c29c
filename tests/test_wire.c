/* Packet header encode/decode: the shared vectors in tests/vectors/, every
 * truncation, random round trips with a fixed seed, and bad arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/checksum.h"
#include "helpers/rng.h"
#include "helpers/vectors.h"
#include "itg/wire.h"

#define DAY_NS (86400LL * 1000000000LL)
#define HALF_DAY_NS (DAY_NS / 2)

static uint64_t rng_below(uint64_t *s, uint64_t n) { return rng_next(s) % n; }

/* Decodes from a heap copy of exactly len bytes, so that AddressSanitizer
 * catches any read past the end. */
static int decode_exact(itg_wire_profile p, int tcp, const uint8_t *bytes,
                        size_t len, itg_pkt_hdr *out) {
  uint8_t *copy = malloc(len ? len : 1);
  int rc;
  assert_non_null(copy);
  if (len > 0)
    memcpy(copy, bytes, len);
  rc = itg_wire_decode(p, tcp, copy, len, out);
  free(copy);
  return rc;
}

/* DITG vectors have no token: it decodes as 0. */
static void vec_fields(itg_wire_profile p, const vec *v, itg_pkt_hdr *h) {
  memset(h, 0, sizeof *h);
  h->version = (uint8_t)vec_u64(v, "version", UINT8_MAX);
  h->flags = (uint8_t)vec_u64(v, "flags", UINT8_MAX);
  h->flow_id = (uint32_t)vec_u64(v, "flow_id", UINT32_MAX);
  h->seq = vec_u64(v, "seq", UINT64_MAX);
  h->tx_ns = vec_i64(v, "tx_ns");
  h->length = (uint32_t)vec_u64(v, "length", UINT32_MAX);
  if (p == ITG_WIRE_NATIVE)
    h->token = vec_u64(v, "token", UINT64_MAX);
}

static void check_fields(itg_wire_profile p, const vec *v,
                         const itg_pkt_hdr *got) {
  itg_pkt_hdr want;
  vec_fields(p, v, &want);
  VEQ(v, got->version, want.version);
  VEQ(v, got->flags, want.flags);
  VEQ(v, got->flow_id, want.flow_id);
  if (got->seq != want.seq)
    fail_msg("%s:%d [%s]: seq is %llu, expected %llu", v->file, v->line,
             v->name, (unsigned long long)got->seq,
             (unsigned long long)want.seq);
  VEQ(v, got->tx_ns, want.tx_ns);
  VEQ(v, got->length, want.length);
  if (got->token != want.token)
    fail_msg("%s:%d [%s]: token is %llu, expected %llu", v->file, v->line,
             v->name, (unsigned long long)got->token,
             (unsigned long long)want.token);
}

/* Encodes the vector's fields into a buffer of buflen bytes, checks the
 * return code and, on success, that the header bytes are `want` and that
 * nothing past the header was touched. */
static void check_encode(itg_wire_profile p, const vec *v, int tcp,
                         size_t buflen, int want_rc, const uint8_t *want) {
  itg_pkt_hdr h;
  size_t hl = itg_wire_hdr_len(p, tcp), i;
  uint8_t *buf = malloc(buflen ? buflen : 1);
  int rc;
  assert_non_null(buf);
  memset(buf, 0xEE, buflen);
  vec_fields(p, v, &h);
  rc = itg_wire_encode(p, tcp, &h, buf, buflen);
  VEQ(v, rc, want_rc == 0 ? (int)hl : want_rc);
  if (want_rc == 0) {
    if (memcmp(buf, want, hl) != 0)
      fail_msg("%s:%d [%s]: encoded bytes differ", v->file, v->line, v->name);
    for (i = hl; i < buflen; i++)
      VEQ(v, buf[i], 0xEE);
  }
  free(buf);
}

/* Every prefix too short for the header (and, NATIVE over UDP, for the
 * datagram its length field announces) must give ITG_ETRUNC. */
static void check_truncations(itg_wire_profile p, const vec *v, int tcp,
                              const uint8_t *bytes, size_t n) {
  size_t hl = itg_wire_hdr_len(p, tcp);
  size_t limit = (p == ITG_WIRE_NATIVE && !tcp) ? n : hl;
  size_t k;
  itg_pkt_hdr h;
  for (k = 0; k < limit; k++) {
    int rc = decode_exact(p, tcp, bytes, k, &h);
    if (rc != ITG_ETRUNC)
      fail_msg("%s:%d [%s]: prefix of %zu bytes gives %s, not ETRUNC",
               v->file, v->line, v->name, k, itg_err_name(rc));
  }
}

static void run_wire_vector(itg_wire_profile p, const vec *v) {
  const char *test = vec_str(v, "test");
  uint8_t bytes[256];
  size_t n = 0, hl;
  itg_pkt_hdr got;
  int tcp, rc;
  if (strcmp(test, "unwrap") == 0) {
    int64_t unwrapped =
        itg_wire_ditg_unwrap(vec_i64(v, "tod_ns"), vec_i64(v, "ref_ns"));
    VEQ(v, unwrapped, vec_i64(v, "expect_ns"));
    return;
  }
  tcp = (int)vec_u64(v, "tcp", 1);
  hl = itg_wire_hdr_len(p, tcp);
  if (vec_get(v, "bytes") != NULL)
    n = vec_bytes(v, bytes, sizeof bytes);
  if (strcmp(test, "roundtrip") == 0) {
    check_encode(p, v, tcp, n, 0, bytes);
    rc = decode_exact(p, tcp, bytes, n, &got);
    VEQ(v, rc, (int)hl);
    check_fields(p, v, &got);
    check_truncations(p, v, tcp, bytes, n);
  } else if (strcmp(test, "decode") == 0) {
    int want = vec_result(v);
    /* An older version's header is shorter than the one encode writes. */
    if (vec_get(v, "hdr_len") != NULL)
      hl = (size_t)vec_u64(v, "hdr_len", sizeof bytes);
    rc = decode_exact(p, tcp, bytes, n, &got);
    VEQ(v, rc, want == 0 ? (int)hl : want);
    if (want == 0)
      check_fields(p, v, &got);
  } else if (strcmp(test, "encode") == 0) {
    size_t buflen = vec_get(v, "buflen") != NULL
                        ? (size_t)vec_u64(v, "buflen", sizeof bytes)
                        : n;
    check_encode(p, v, tcp, buflen, vec_result(v), bytes);
  } else {
    fail_msg("%s:%d [%s]: unknown test %s", v->file, v->line, v->name, test);
  }
}

/* Runs a vector file, and checks it holds vectors of the given kinds, so a
 * file emptied by mistake cannot pass. */
static void run_wire_file(const char *name, itg_wire_profile p) {
  vec_file f;
  size_t i, roundtrips = 0, errors = 0;
  vec_load(name, &f);
  for (i = 0; i < f.n; i++) {
    const char *test = vec_str(&f.v[i], "test");
    run_wire_vector(p, &f.v[i]);
    if (strcmp(test, "roundtrip") == 0)
      roundtrips++;
    else if (vec_get(&f.v[i], "result") != NULL && vec_result(&f.v[i]) != 0)
      errors++;
  }
  assert_true(roundtrips >= 4);
  assert_true(errors >= 8);
  vec_free(&f);
}

static void test_native_vectors(void **state) {
  (void)state;
  run_wire_file("wire_native.txt", ITG_WIRE_NATIVE);
}

static void test_ditg_vectors(void **state) {
  (void)state;
  run_wire_file("wire_ditg.txt", ITG_WIRE_DITG);
}

static void test_hdr_len(void **state) {
  (void)state;
  assert_int_equal(itg_wire_hdr_len(ITG_WIRE_NATIVE, 0), 36);
  assert_int_equal(itg_wire_hdr_len(ITG_WIRE_NATIVE, 1), 36);
  assert_int_equal(itg_wire_hdr_len(ITG_WIRE_DITG, 0), 16);
  assert_int_equal(itg_wire_hdr_len(ITG_WIRE_DITG, 1), 20);
  assert_int_equal(itg_wire_hdr_len((itg_wire_profile)7, 0), 0);
}

static void test_bad_arguments(void **state) {
  itg_pkt_hdr h, out;
  uint8_t buf[64] = {0};
  (void)state;
  memset(&h, 0, sizeof h);
  h.length = 36;
  assert_int_equal(itg_wire_encode(ITG_WIRE_NATIVE, 0, NULL, buf, 64),
                   ITG_EINVAL);
  assert_int_equal(itg_wire_encode(ITG_WIRE_NATIVE, 0, &h, NULL, 64),
                   ITG_EINVAL);
  assert_int_equal(itg_wire_encode((itg_wire_profile)2, 0, &h, buf, 64),
                   ITG_EINVAL);
  assert_int_equal(itg_wire_encode(ITG_WIRE_NATIVE, 0, &h, buf, 64), 36);
  assert_int_equal(itg_wire_decode(ITG_WIRE_NATIVE, 0, NULL, 36, &out),
                   ITG_EINVAL);
  assert_int_equal(itg_wire_decode(ITG_WIRE_NATIVE, 0, buf, 36, NULL),
                   ITG_EINVAL);
  assert_int_equal(itg_wire_decode((itg_wire_profile)2, 0, buf, 28, &out),
                   ITG_EINVAL);
}

/* A failed decode leaves *out as it was. */
static void test_decode_failure_keeps_out(void **state) {
  static const uint8_t bad_magic[28] = {0, 0, 0, 1, 0x49, 0x55, 1, 0};
  itg_pkt_hdr out, before;
  (void)state;
  memset(&out, 0x5A, sizeof out);
  memcpy(&before, &out, sizeof before);
  assert_int_equal(itg_wire_decode(ITG_WIRE_NATIVE, 1, bad_magic, 28, &out),
                   ITG_EBADMSG);
  assert_memory_equal(&out, &before, sizeof out);
  assert_int_equal(itg_wire_decode(ITG_WIRE_DITG, 1, bad_magic, 19, &out),
                   ITG_ETRUNC);
  assert_memory_equal(&out, &before, sizeof out);
}

static void test_native_random_roundtrip(void **state) {
  static uint8_t pkt[ITG_WIRE_MAX_PACKET];
  uint64_t seed = 20240601;
  int i;
  (void)state;
  for (i = 0; i < 200000; i++) {
    itg_pkt_hdr h, out;
    int tcp = (int)rng_below(&seed, 2);
    memset(&h, 0, sizeof h);
    h.flags = (uint8_t)rng_next(&seed);
    h.flow_id = (uint32_t)rng_next(&seed);
    h.seq = rng_next(&seed);
    h.tx_ns = (int64_t)rng_next(&seed);
    h.length = (uint32_t)(36 + rng_below(&seed, ITG_WIRE_MAX_PACKET - 35));
    h.token = rng_next(&seed);
    assert_int_equal(itg_wire_encode(ITG_WIRE_NATIVE, tcp, &h, pkt, 36), 36);
    /* Over UDP the decoder sees the whole datagram. */
    assert_int_equal(itg_wire_decode(ITG_WIRE_NATIVE, tcp, pkt,
                                     tcp ? 36 : h.length, &out),
                     36);
    assert_int_equal(out.version, ITG_WIRE_VERSION);
    assert_int_equal(out.flags, h.flags);
    assert_int_equal(out.flow_id, h.flow_id);
    assert_true(out.seq == h.seq);
    assert_true(out.tx_ns == h.tx_ns);
    assert_true(out.token == h.token);
    assert_int_equal(out.length, h.length);
  }
}

/* DITG keeps the time of day at microsecond precision: decoding gives the
 * time of day cut down to the microsecond, and unwrapping it against a
 * receive time less than 12 h away gives back the send time so cut. */
static void test_ditg_random_roundtrip(void **state) {
  uint64_t seed = 77;
  int i;
  (void)state;
  for (i = 0; i < 200000; i++) {
    itg_pkt_hdr h, out;
    uint8_t buf[20];
    int tcp = (int)rng_below(&seed, 2);
    int64_t tx = (int64_t)(rng_next(&seed) >> 2) - (INT64_C(1) << 61);
    int64_t tx_us = tx - (((tx % 1000) + 1000) % 1000);
    int64_t tod_us = ((tx_us % DAY_NS) + DAY_NS) % DAY_NS;
    int64_t delay = (int64_t)rng_below(&seed, (uint64_t)DAY_NS - 2000) -
                    (HALF_DAY_NS - 1000);
    memset(&h, 0, sizeof h);
    h.flow_id = (uint32_t)rng_next(&seed);
    h.seq = rng_next(&seed);
    h.tx_ns = tx;
    h.length = (uint32_t)(20 + rng_below(&seed, ITG_WIRE_MAX_PACKET - 19));
    assert_int_equal(itg_wire_encode(ITG_WIRE_DITG, tcp, &h, buf, sizeof buf),
                     tcp ? 20 : 16);
    assert_int_equal(itg_wire_decode(ITG_WIRE_DITG, tcp, buf, sizeof buf, &out),
                     tcp ? 20 : 16);
    assert_int_equal(out.flow_id, h.flow_id);
    assert_true(out.seq == (uint32_t)h.seq);
    assert_true(out.tx_ns == tod_us);
    assert_int_equal(out.length, tcp ? h.length : 0);
    assert_true(itg_wire_ditg_unwrap(out.tx_ns, tx + delay) == tx_us);
  }
}

/* For any time of day and reference, the result has that time of day and
 * lies in [ref - 12 h, ref + 12 h). */
static void test_unwrap_random(void **state) {
  uint64_t seed = 4242;
  int i;
  (void)state;
  for (i = 0; i < 200000; i++) {
    int64_t ref = (int64_t)(rng_next(&seed) >> 2) - (INT64_C(1) << 61);
    int64_t tod = (int64_t)rng_next(&seed);
    int64_t got = itg_wire_ditg_unwrap(tod, ref);
    assert_true(((got % DAY_NS) + DAY_NS) % DAY_NS ==
                ((tod % DAY_NS) + DAY_NS) % DAY_NS);
    assert_true(got - ref >= -HALF_DAY_NS && got - ref < HALF_DAY_NS);
  }
}

/* Random bytes never crash the decoder; whatever it accepts, encoding the
 * fields back gives the same header bytes (NATIVE also needs the magic and
 * version right, so half the inputs get them). */
static void test_decode_random_bytes(void **state) {
  uint64_t seed = 99;
  int i, accepted = 0;
  (void)state;
  for (i = 0; i < 200000; i++) {
    uint8_t buf[48], again[48];
    size_t len = (size_t)rng_below(&seed, sizeof buf + 1), k;
    itg_wire_profile p = (itg_wire_profile)rng_below(&seed, 2);
    int tcp = (int)rng_below(&seed, 2);
    itg_pkt_hdr h;
    int rc;
    for (k = 0; k < len; k++)
      buf[k] = (uint8_t)rng_next(&seed);
    if (p == ITG_WIRE_NATIVE && len >= 36 && rng_below(&seed, 2)) {
      buf[4] = 0x49;
      buf[5] = 0x54;
      buf[6] = ITG_WIRE_VERSION;
      buf[24] = 0;
      buf[25] = 0;
      if (!tcp) {
        buf[26] = 0;
        buf[27] = (uint8_t)len;
      }
    } else if (p == ITG_WIRE_DITG && len >= 20 && rng_below(&seed, 2)) {
      memset(buf + 8, 0, 6);
      buf[16] = 0;
      buf[17] = 0;
    }
    rc = decode_exact(p, tcp, buf, len, &h);
    if (rc < 0) {
      assert_true(rc == ITG_ETRUNC || rc == ITG_EBADMSG || rc == ITG_EVERSION);
      continue;
    }
    accepted++;
    assert_int_equal(rc, (int)itg_wire_hdr_len(p, tcp));
    assert_int_equal(itg_wire_encode(p, tcp, &h, again, sizeof again), rc);
    assert_memory_equal(again, buf, (size_t)rc);
  }
  assert_true(accepted > 1000);
}

/* The Internet checksum of ICMP messages: RFC 1071's worked example, an
 * odd length, the carries folded back, and a message carrying its own
 * checksum summing to zero. */
static void test_inet_checksum(void **state) {
  static const uint8_t rfc[8] = {0x00, 0x01, 0xf2, 0x03,
                                 0xf4, 0xf5, 0xf6, 0xf7};
  static const uint8_t odd[3] = {0x12, 0x34, 0x56};
  static const uint8_t ones[4] = {0xff, 0xff, 0xff, 0xff};
  uint8_t msg[13] = {8, 0, 0, 0, 0x12, 0x34, 0, 1, 'a', 'b', 'c', 'd', 'e'};
  uint16_t c;
  (void)state;
  assert_int_equal(itg__inet_checksum(rfc, sizeof rfc), 0x220d);
  assert_int_equal(itg__inet_checksum(odd, sizeof odd), (uint16_t)~0x6834);
  assert_int_equal(itg__inet_checksum(ones, sizeof ones), 0);
  assert_int_equal(itg__inet_checksum(NULL, 0), 0xffff);
  c = itg__inet_checksum(msg, sizeof msg);
  msg[2] = (uint8_t)(c >> 8);
  msg[3] = (uint8_t)c;
  assert_int_equal(itg__inet_checksum(msg, sizeof msg), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_native_vectors),
      cmocka_unit_test(test_ditg_vectors),
      cmocka_unit_test(test_hdr_len),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_decode_failure_keeps_out),
      cmocka_unit_test(test_native_random_roundtrip),
      cmocka_unit_test(test_ditg_random_roundtrip),
      cmocka_unit_test(test_unwrap_random),
      cmocka_unit_test(test_decode_random_bytes),
      cmocka_unit_test(test_inet_checksum),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
