/* Strict parsing of option words: the whole word must be a number in
 * range (or an address), or the call fails and the output is untouched.
 * These are the readings of the flow options (itg/flow.h) and of the
 * programs' options, for a program of one's own that takes the same
 * words. Each returns 0, ITG_EINVAL (not a number, trailing characters,
 * empty) or ITG_ERANGE (out of range). */
#ifndef ITG_PARSE_H
#define ITG_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "itg/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a finite double (strtod's forms, the whole word). */
ITG_API int itg_parse_double(const char *s, double *out);

/* Reads an unsigned integer in [min, max], decimal (a leading zero is not
 * octal) or 0x hexadecimal. */
ITG_API int itg_parse_u64(const char *s, uint64_t min, uint64_t max,
                          uint64_t *out);

/* Reads a signed integer in [min, max], decimal. */
ITG_API int itg_parse_i64(const char *s, int64_t min, int64_t max,
                          int64_t *out);

/* Reads a port number, 0 to 65535. */
ITG_API int itg_parse_port(const char *s, uint16_t *out);

/* Reads a server address written ADDR, ADDR:PORT, [IPV6] or [IPV6]:PORT (a
 * bare IPv6 address, with more than one ':', is all address). The address
 * goes into host[0..hostlen) and a port given, 1 to 65535, into *port
 * (left as it is when none is given). Returns 0, or ITG_EINVAL (a NULL
 * argument, an empty address, one that does not fit, an unclosed bracket,
 * a port that is not one). */
ITG_API int itg_parse_host_port(const char *s, char *host, size_t hostlen,
                                uint16_t *port);

/* Reads a duration given in milliseconds (fractions allowed, >= 0) into
 * nanoseconds; at most one year. */
ITG_API int itg_parse_ms(const char *s, int64_t *out_ns);

#ifdef __cplusplus
}
#endif
#endif
