/* SHA-256 against FIPS 180-4's examples (and the NIST long message), fed
 * whole and in every split, and HMAC-SHA256 against RFC 4231's test
 * cases 1-7; the constant-time comparison sees a difference anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/hmac.h"
#include "core/sha256.h"

static void hex(const uint8_t *d, size_t n, char *out) {
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", d[i]);
}

static void unhex(const char *s, uint8_t *out, size_t *n) {
  size_t len = strlen(s) / 2;
  for (size_t i = 0; i < len; i++) {
    unsigned v;
    sscanf(s + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
  *n = len;
}

static void check_sha(const void *data, size_t len, const char *want) {
  uint8_t d[ITG__SHA256_LEN];
  char got[2 * ITG__SHA256_LEN + 1];
  itg__sha256(data, len, d);
  hex(d, sizeof d, got);
  assert_string_equal(got, want);
}

static void test_sha256_fips(void **state) {
  (void)state;
  check_sha("", 0,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check_sha("abc", 3,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  check_sha("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
            "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            112,
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* One million 'a's, fed in pieces of odd sizes: the buffering across
 * blocks, and a length above 2^32 bits. */
static void test_sha256_million(void **state) {
  static uint8_t a[1000];
  uint8_t d[ITG__SHA256_LEN];
  char got[2 * ITG__SHA256_LEN + 1];
  itg__sha256_ctx c;
  size_t done = 0, step = 1;
  (void)state;
  memset(a, 'a', sizeof a);
  itg__sha256_init(&c);
  while (done < 1000000) {
    size_t n = step;
    if (n > sizeof a)
      n = sizeof a;
    if (n > 1000000 - done)
      n = 1000000 - done;
    itg__sha256_update(&c, a, n);
    done += n;
    step = step % 997 + 13;
  }
  itg__sha256_final(&c, d);
  hex(d, sizeof d, got);
  assert_string_equal(
      got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Every split of a message near the block's padding edges gives the
 * one-call digest. */
static void test_sha256_splits(void **state) {
  uint8_t msg[130], whole[ITG__SHA256_LEN], part[ITG__SHA256_LEN];
  (void)state;
  for (size_t i = 0; i < sizeof msg; i++)
    msg[i] = (uint8_t)(i * 7 + 1);
  for (size_t len = 50; len <= sizeof msg; len++) {
    itg__sha256(msg, len, whole);
    for (size_t cut = 0; cut <= len; cut += 5) {
      itg__sha256_ctx c;
      itg__sha256_init(&c);
      itg__sha256_update(&c, msg, cut);
      itg__sha256_update(&c, msg + cut, len - cut);
      itg__sha256_final(&c, part);
      assert_memory_equal(part, whole, sizeof whole);
    }
  }
}

/* RFC 4231, section 4: key, data, HMAC-SHA-256 (case 5 is truncated to
 * 128 bits there). */
static const struct {
  const char *key, *data, *mac;
} rfc4231[] = {
    {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
    {"4a656665",
     "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
     "dddddddddddddddddddddddddddddddddd",
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
    {"0102030405060708090a0b0c0d0e0f10111213141516171819",
     "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
     "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
     "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
    {"0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c",
     "546573742057697468205472756e636174696f6e",
     "a3b6167473100ee06e0c796c2955552b"},
    /* 131 bytes of 0xaa: longer than a block, hashed first */
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a"
     "65204b6579202d2048617368204b6579204669727374",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
    /* 131 bytes of 0xaa: longer than a block, hashed first */
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "5468697320697320612074657374207573696e672061206c6172676572207468"
     "616e20626c6f636b2d73697a65206b657920616e642061206c61726765722074"
     "68616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565"
     "647320746f20626520686173686564206265666f7265206265696e6720757365"
     "642062792074686520484d414320616c676f726974686d2e",
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
};

static void test_hmac_rfc4231(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof rfc4231 / sizeof rfc4231[0]; i++) {
    uint8_t key[200], data[200], mac[ITG__SHA256_LEN];
    char got[2 * ITG__SHA256_LEN + 1];
    size_t klen, dlen;
    itg__hmac m;
    unhex(rfc4231[i].key, key, &klen);
    unhex(rfc4231[i].data, data, &dlen);
    itg__hmac_init(&m, key, klen);
    /* In two pieces: the MAC is of the concatenation. */
    itg__hmac_update(&m, data, dlen / 3);
    itg__hmac_update(&m, data + dlen / 3, dlen - dlen / 3);
    itg__hmac_final(&m, mac);
    hex(mac, sizeof mac, got);
    got[strlen(rfc4231[i].mac)] = '\0';
    assert_string_equal(got, rfc4231[i].mac);
  }
}

static void test_mem_equal_ct(void **state) {
  uint8_t a[32], b[32];
  (void)state;
  for (size_t i = 0; i < sizeof a; i++)
    a[i] = b[i] = (uint8_t)(i * 31);
  assert_int_equal(itg__mem_equal_ct(a, b, sizeof a), 1);
  assert_int_equal(itg__mem_equal_ct(a, b, 0), 1);
  for (size_t i = 0; i < sizeof a; i++) {
    b[i] ^= 0x80;
    assert_int_equal(itg__mem_equal_ct(a, b, sizeof a), 0);
    b[i] ^= 0x80;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sha256_fips),
      cmocka_unit_test(test_sha256_million),
      cmocka_unit_test(test_sha256_splits),
      cmocka_unit_test(test_hmac_rfc4231),
      cmocka_unit_test(test_mem_equal_ct),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
