/* Explicit byte-order put/get helpers. Every encoder in libitg writes
 * integers through these, one byte at a time, so the layout never depends
 * on the host's endianness or alignment. */
#ifndef ITG_BYTEORDER_H
#define ITG_BYTEORDER_H

#include <stdint.h>

static inline void itg__put_be16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static inline void itg__put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static inline void itg__put_be64(uint8_t *p, uint64_t v) {
  itg__put_be32(p, (uint32_t)(v >> 32));
  itg__put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t itg__get_be16(const uint8_t *p) {
  return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t itg__get_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t itg__get_be64(const uint8_t *p) {
  return ((uint64_t)itg__get_be32(p) << 32) | itg__get_be32(p + 4);
}

static inline void itg__put_le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static inline void itg__put_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static inline void itg__put_le64(uint8_t *p, uint64_t v) {
  itg__put_le32(p, (uint32_t)v);
  itg__put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t itg__get_le16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t itg__get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

static inline uint64_t itg__get_le64(const uint8_t *p) {
  return (uint64_t)itg__get_le32(p) | ((uint64_t)itg__get_le32(p + 4) << 32);
}

#endif
