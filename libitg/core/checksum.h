/* The Internet checksum (RFC 1071) that ICMP messages carry. */
#ifndef ITG_CORE_CHECKSUM_H
#define ITG_CORE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Returns the one's complement of the one's complement sum of buf[0..len)
 * taken as big-endian 16-bit words (an odd last byte padded with a zero),
 * the value to write, big endian, into a checksum field that held zero
 * while it was summed. */
uint16_t itg__inet_checksum(const uint8_t *buf, size_t len);

#endif
