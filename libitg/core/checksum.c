/* The Internet checksum (RFC 1071). */
#include "core/checksum.h"

uint16_t itg__inet_checksum(const uint8_t *buf, size_t len) {
  uint64_t sum = 0;
  size_t i;
  for (i = 0; i + 1 < len; i += 2)
    sum += (uint32_t)buf[i] << 8 | buf[i + 1];
  if (len & 1)
    sum += (uint32_t)buf[len - 1] << 8;
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}
