/* CRC-32C (Castagnoli): the checksum of log file headers and record
 * blocks (itg/log.h). */
#ifndef ITG_CORE_CRC32C_H
#define ITG_CORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Returns the CRC-32C of buf[0..len) continued from crc, the value
 * returned for the bytes before them (0 to start): the CRC of "123456789"
 * is 0xE3069283. */
uint32_t itg__crc32c(uint32_t crc, const void *buf, size_t len);

#endif
