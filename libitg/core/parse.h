/* Strict parsing of numbers from option words: the whole word must be a
 * number in range, or the call fails and *out is untouched. Used by the
 * flow options and by every program. Each returns 0 or ITG_EINVAL (not a
 * number, trailing characters, empty) or ITG_ERANGE (out of range). */
#ifndef ITG_PARSE_H
#define ITG_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A finite double. */
int itg__parse_double(const char *s, double *out);

/* An unsigned integer in [min, max], decimal (or 0x hexadecimal). */
int itg__parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A signed integer in [min, max], decimal. */
int itg__parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);

/* A port number, 0 to 65535. */
int itg__parse_port(const char *s, uint16_t *out);

/* A server address written ADDR, ADDR:PORT, [IPV6] or [IPV6]:PORT (a bare
 * IPv6 address, with more than one ':', is all address). The address goes
 * into host[0..hostlen) and a port given, 1 to 65535, into *port (left as
 * it is when none is given). Returns 0, or ITG_EINVAL (an empty address,
 * one that does not fit, an unclosed bracket, a port that is not one). */
int itg__parse_host_port(const char *s, char *host, size_t hostlen,
                         uint16_t *port);

/* A duration given in milliseconds (fractions allowed, >= 0) turned into
 * nanoseconds; at most one year. */
int itg__parse_ms(const char *s, int64_t *out_ns);

#endif
