/* ICMP messages as the receiver's raw socket reads them: parsing, and the
 * filter that keeps a flow's messages from pings, echo replies and other
 * flows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/checksum.h"
#include "core/icmp.h"
#include "itg/common.h"

/* Writes an IPv4 datagram (header of ihl words, protocol proto) holding an
 * ICMP message (type, code, identifier, sequence, then body_len bytes of
 * body, a D-ITG header naming flow 7) into buf; returns its length. */
static size_t make(uint8_t *buf, unsigned ihl, uint8_t proto, uint8_t type,
                   uint8_t code, uint16_t ident, uint16_t seq,
                   size_t body_len) {
  size_t hl = ihl * 4, i;
  uint8_t *m = buf + hl;
  uint16_t c;
  memset(buf, 0, hl);
  buf[0] = (uint8_t)(0x40 | ihl);
  buf[8] = 64;
  buf[9] = proto;
  m[0] = type;
  m[1] = code;
  m[2] = m[3] = 0;
  m[4] = (uint8_t)(ident >> 8);
  m[5] = (uint8_t)ident;
  m[6] = (uint8_t)(seq >> 8);
  m[7] = (uint8_t)seq;
  for (i = 0; i < body_len; i++)
    m[8 + i] = (uint8_t)(i == 3 ? 7 : i * 13);
  c = itg__inet_checksum(m, 8 + body_len);
  m[2] = (uint8_t)(c >> 8);
  m[3] = (uint8_t)c;
  return hl + 8 + body_len;
}

static void test_parse(void **state) {
  uint8_t buf[256];
  itg__icmp_msg m;
  size_t n;
  (void)state;
  n = make(buf, 5, 1, 15, 0, 0x1234, 9, 100);
  assert_int_equal(itg__icmp_parse(buf, n, &m), 0);
  assert_int_equal(m.type, 15);
  assert_int_equal(m.code, 0);
  assert_int_equal(m.ident, 0x1234);
  assert_int_equal(m.seq, 9);
  assert_int_equal(m.body_off, 28);
  assert_int_equal(buf[m.body_off + 3], 7); /* the flow id's low byte */
  /* an IP header with options: the body starts past them */
  n = make(buf, 7, 1, 8, 0, 1, 1, 16);
  assert_int_equal(itg__icmp_parse(buf, n, &m), 0);
  assert_int_equal(m.body_off, 36);
  /* an odd body length is summed with its pad byte */
  n = make(buf, 5, 1, 8, 0, 1, 1, 17);
  assert_int_equal(itg__icmp_parse(buf, n, &m), 0);
  assert_int_equal(m.body_off, 28);
  /* an empty body */
  n = make(buf, 5, 1, 8, 0, 1, 1, 0);
  assert_int_equal(itg__icmp_parse(buf, n, &m), 0);
  assert_int_equal(m.body_off, n);
}

static void test_parse_refuses(void **state) {
  uint8_t buf[256];
  itg__icmp_msg m;
  size_t n;
  (void)state;
  memset(&m, 0xa5, sizeof m);
  n = make(buf, 5, 1, 15, 0, 1, 1, 40);
  buf[40] ^= 0x01; /* one bit of the body: the checksum no longer holds */
  assert_int_equal(itg__icmp_parse(buf, n, &m), ITG_EBADMSG);
  n = make(buf, 5, 17, 15, 0, 1, 1, 40); /* UDP, not ICMP */
  assert_int_equal(itg__icmp_parse(buf, n, &m), ITG_EBADMSG);
  n = make(buf, 5, 1, 15, 0, 1, 1, 40);
  buf[0] = 0x65; /* IPv6's version */
  assert_int_equal(itg__icmp_parse(buf, n, &m), ITG_EBADMSG);
  buf[0] = 0x44; /* an IHL below the 20-byte minimum */
  assert_int_equal(itg__icmp_parse(buf, n, &m), ITG_EBADMSG);
  buf[0] = 0x4f; /* 60 bytes of IP header: no room for ICMP's */
  assert_int_equal(itg__icmp_parse(buf, 64, &m), ITG_EBADMSG);
  n = make(buf, 5, 1, 15, 0, 1, 1, 0);
  assert_int_equal(itg__icmp_parse(buf, n - 1, &m), ITG_EBADMSG);
  assert_int_equal(itg__icmp_parse(buf, 19, &m), ITG_EBADMSG);
  assert_int_equal(itg__icmp_parse(buf, 0, &m), ITG_EBADMSG);
  /* nothing written on failure */
  assert_int_equal(m.type, 0xa5);
}

static void test_of_flow(void **state) {
  uint8_t buf[256];
  itg__icmp_msg req, reply, ping, coded;
  (void)state;
  assert_int_equal(itg__icmp_parse(buf, make(buf, 5, 1, 8, 0, 7, 1, 16),
                                   &req), 0);
  /* the kernel's answer: same identifier and body, type 0 */
  assert_int_equal(itg__icmp_parse(buf, make(buf, 5, 1, 0, 0, 7, 1, 16),
                                   &reply), 0);
  assert_int_equal(itg__icmp_parse(buf, make(buf, 5, 1, 8, 0, 0x7777, 1,
                                             16), &ping), 0);
  assert_int_equal(itg__icmp_parse(buf, make(buf, 5, 1, 8, 3, 7, 1, 16),
                                   &coded), 0);
  /* a flow whose type is known (its first message's) and identifier set */
  assert_true(itg__icmp_of_flow(&req, 8, 7));
  assert_false(itg__icmp_of_flow(&reply, 8, 7));
  assert_false(itg__icmp_of_flow(&ping, 8, 7));
  assert_false(itg__icmp_of_flow(&coded, 8, 7));
  /* before its first message, any type */
  assert_true(itg__icmp_of_flow(&req, -1, 7));
  assert_true(itg__icmp_of_flow(&reply, -1, 7));
  /* D-ITG's sender leaves the identifier unset: any */
  assert_true(itg__icmp_of_flow(&ping, 8, -1));
  assert_false(itg__icmp_of_flow(&reply, 8, -1));
  /* an identifier is 16 bits: flow 0x10007 carries 7 */
  assert_true(itg__icmp_of_flow(&req, 8, 0x10007 & 0xffff));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_parse_refuses),
      cmocka_unit_test(test_of_flow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
