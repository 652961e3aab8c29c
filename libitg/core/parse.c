/* Strict number parsing for option words (see parse.h). */
#include "itg/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "itg/common.h"

#define ITG__YEAR_NS (365LL * 24 * 3600 * 1000000000LL)

int itg_parse_double(const char *s, double *out) {
  char *end;
  double v;
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return ITG_EINVAL;
  errno = 0;
  v = strtod(s, &end);
  if (*end != '\0')
    return ITG_EINVAL;
  if (errno == ERANGE || !isfinite(v))
    return ITG_ERANGE;
  *out = v;
  return 0;
}

int itg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
  char *end;
  unsigned long long v;
  if (s == NULL || *s < '0' || *s > '9')
    return ITG_EINVAL;
  errno = 0;
  /* Base 10 unless 0x: a leading zero must not turn a DS byte into octal. */
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (!isxdigit((unsigned char)s[2]))
      return ITG_EINVAL;
    v = strtoull(s + 2, &end, 16);
  } else {
    v = strtoull(s, &end, 10);
  }
  if (*end != '\0')
    return ITG_EINVAL;
  if (errno == ERANGE || v < min || v > max)
    return ITG_ERANGE;
  *out = (uint64_t)v;
  return 0;
}

int itg_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out) {
  char *end;
  long long v;
  if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
    return ITG_EINVAL;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (*end != '\0')
    return ITG_EINVAL;
  if (errno == ERANGE || v < min || v > max)
    return ITG_ERANGE;
  *out = (int64_t)v;
  return 0;
}

int itg_parse_port(const char *s, uint16_t *out) {
  uint64_t v;
  int rc = itg_parse_u64(s, 0, 65535, &v);
  if (rc == 0)
    *out = (uint16_t)v;
  return rc;
}

int itg_parse_host_port(const char *s, char *host, size_t hostlen,
                        uint16_t *port) {
  const char *h = s, *colon;
  size_t hlen;
  uint64_t v = 0;
  if (s == NULL || host == NULL || port == NULL)
    return ITG_EINVAL;
  if (s[0] == '[') {
    const char *end = strchr(s, ']');
    if (end == NULL || (end[1] != '\0' && end[1] != ':'))
      return ITG_EINVAL;
    h = s + 1;
    hlen = (size_t)(end - h);
    colon = end[1] == ':' ? end + 1 : NULL;
  } else {
    colon = strchr(s, ':');
    if (colon != NULL && strchr(colon + 1, ':') != NULL)
      colon = NULL; /* a bare IPv6 address */
    hlen = colon != NULL ? (size_t)(colon - s) : strlen(s);
  }
  if (hlen == 0 || hlen >= hostlen ||
      (colon != NULL && itg_parse_u64(colon + 1, 1, 65535, &v) != 0))
    return ITG_EINVAL;
  memcpy(host, h, hlen);
  host[hlen] = '\0';
  if (colon != NULL)
    *port = (uint16_t)v;
  return 0;
}

int itg_parse_ms(const char *s, int64_t *out_ns) {
  double ms;
  int rc = itg_parse_double(s, &ms);
  if (rc != 0)
    return rc;
  if (ms < 0 || ms * 1e6 > (double)ITG__YEAR_NS)
    return ITG_ERANGE;
  *out_ns = (int64_t)llround(ms * 1e6);
  return 0;
}
