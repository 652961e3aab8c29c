/* CRC-32C by slicing by 8 (see crc32c.h): eight bytes a step through eight
 * tables, made once per process from the reflected polynomial. */
#include "core/crc32c.h"

#include "platform/platform.h"

#define ITG__CRC32C_POLY 0x82F63B78u /* 0x1EDC6F41, bits reversed */

static uint32_t table[8][256];
static uv_once_t table_once = UV_ONCE_INIT;

/* table[0] is the byte-at-a-time table; table[k][b] is the CRC of byte b
 * followed by k zero bytes, so eight bytes fold in with eight look-ups. */
static void make_tables(void) {
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = b;
    for (int i = 0; i < 8; i++)
      c = (c >> 1) ^ (ITG__CRC32C_POLY & (0u - (c & 1u)));
    table[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; b++)
    for (int k = 1; k < 8; k++)
      table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xFFu];
}

uint32_t itg__crc32c(uint32_t crc, const void *buf, size_t len) {
  const uint8_t *p = buf;
  uv_once(&table_once, make_tables);
  crc = ~crc;
  for (; len >= 8; len -= 8, p += 8) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                         (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    crc = table[7][lo & 0xFFu] ^ table[6][(lo >> 8) & 0xFFu] ^
          table[5][(lo >> 16) & 0xFFu] ^ table[4][lo >> 24] ^
          table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
  }
  while (len-- > 0)
    crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFFu];
  return ~crc;
}
