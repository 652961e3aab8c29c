/* HMAC-SHA256: H((K ^ opad) || H((K ^ ipad) || text)), RFC 2104. */
#include "core/hmac.h"

#include <string.h>

/* Clears key material in a way the compiler may not drop as a dead
 * store. */
static void wipe(void *p, size_t len) {
  volatile uint8_t *v = p;
  while (len-- > 0)
    *v++ = 0;
}

void itg__hmac_init(itg__hmac *m, const void *key, size_t keylen) {
  uint8_t k[ITG__SHA256_BLOCK] = {0};
  uint8_t ikey[ITG__SHA256_BLOCK];
  if (keylen > ITG__SHA256_BLOCK)
    itg__sha256(key, keylen, k);
  else if (keylen > 0)
    memcpy(k, key, keylen);
  for (unsigned i = 0; i < ITG__SHA256_BLOCK; i++) {
    ikey[i] = (uint8_t)(k[i] ^ 0x36u);
    m->okey[i] = (uint8_t)(k[i] ^ 0x5cu);
  }
  itg__sha256_init(&m->inner);
  itg__sha256_update(&m->inner, ikey, sizeof ikey);
  wipe(k, sizeof k);
  wipe(ikey, sizeof ikey);
}

void itg__hmac_update(itg__hmac *m, const void *data, size_t len) {
  itg__sha256_update(&m->inner, data, len);
}

void itg__hmac_final(itg__hmac *m, uint8_t out[ITG__SHA256_LEN]) {
  uint8_t ih[ITG__SHA256_LEN];
  itg__sha256_ctx outer;
  itg__sha256_final(&m->inner, ih);
  itg__sha256_init(&outer);
  itg__sha256_update(&outer, m->okey, sizeof m->okey);
  itg__sha256_update(&outer, ih, sizeof ih);
  itg__sha256_final(&outer, out);
  wipe(m, sizeof *m);
  wipe(&outer, sizeof outer);
}

int itg__mem_equal_ct(const void *a, const void *b, size_t len) {
  const volatile uint8_t *x = a, *y = b;
  uint8_t diff = 0;
  for (size_t i = 0; i < len; i++)
    diff |= (uint8_t)(x[i] ^ y[i]);
  return diff == 0;
}
