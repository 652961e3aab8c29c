/* SHA-256 (FIPS 180-4), written here because the cross builds (mingw,
 * armhf, aarch64) have no crypto library to link; the remote control's
 * handshake (core/hmac.h) is its one user. */
#ifndef ITG_CORE_SHA256_H
#define ITG_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ITG__SHA256_LEN 32u
#define ITG__SHA256_BLOCK 64u

typedef struct itg__sha256_ctx {
  uint32_t h[8];
  uint64_t bytes; /* hashed so far */
  uint8_t buf[ITG__SHA256_BLOCK];
  size_t fill;    /* bytes held in buf */
} itg__sha256_ctx;

void itg__sha256_init(itg__sha256_ctx *c);
void itg__sha256_update(itg__sha256_ctx *c, const void *data, size_t len);
/* Writes the digest (32 bytes) to out; c is then spent. */
void itg__sha256_final(itg__sha256_ctx *c, uint8_t out[ITG__SHA256_LEN]);

/* The digest of data[0..len) in one call. */
void itg__sha256(const void *data, size_t len, uint8_t out[ITG__SHA256_LEN]);

#endif
