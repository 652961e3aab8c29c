/* HMAC-SHA256 (RFC 2104, FIPS 198-1) and a comparison in constant time:
 * the proofs of the remote control's handshake (itg/remote.h). */
#ifndef ITG_CORE_HMAC_H
#define ITG_CORE_HMAC_H

#include "core/sha256.h"

typedef struct itg__hmac {
  itg__sha256_ctx inner;
  uint8_t okey[ITG__SHA256_BLOCK]; /* the key xor opad */
} itg__hmac;

/* Starts a MAC under key[0..keylen) (any length: a key longer than a
 * block is hashed first). */
void itg__hmac_init(itg__hmac *m, const void *key, size_t keylen);
void itg__hmac_update(itg__hmac *m, const void *data, size_t len);
/* Writes the MAC (32 bytes) to out and wipes m's key material. */
void itg__hmac_final(itg__hmac *m, uint8_t out[ITG__SHA256_LEN]);

/* Returns 1 if a[0..len) equals b[0..len), 0 if not, in a time that does
 * not depend on where they differ (so a forger learns nothing from how
 * long a refusal takes). */
int itg__mem_equal_ct(const void *a, const void *b, size_t len);

#endif
