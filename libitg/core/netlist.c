/* Lists of allowed networks (see netlist.h). */
#include "core/netlist.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "itg/parse.h"

int itg__net_parse(const char *cidr, itg_logserver_net *out) {
  char addr[64];
  const char *slash = strchr(cidr, '/');
  size_t n = slash != NULL ? (size_t)(slash - cidr) : strlen(cidr);
  itg_logserver_net net;
  uint64_t prefix;
  if (n == 0 || n >= sizeof addr)
    return ITG_EINVAL;
  memcpy(addr, cidr, n);
  addr[n] = '\0';
  memset(&net, 0, sizeof net);
  if (uv_inet_pton(AF_INET, addr, net.addr) == 0)
    net.family = 4;
  else if (uv_inet_pton(AF_INET6, addr, net.addr) == 0)
    net.family = 6;
  else
    return ITG_EINVAL;
  prefix = net.family == 4 ? 32 : 128;
  if (slash != NULL && itg_parse_u64(slash + 1, 0, prefix, &prefix) != 0)
    return ITG_EINVAL;
  net.prefix = (uint8_t)prefix;
  *out = net;
  return 0;
}

int itg_logserver_net_list_parse(const char *list, itg_logserver_net *nets,
                                 uint32_t max, uint32_t *n, char *bad,
                                 size_t badlen) {
  const char *p = list;
  if (list == NULL || n == NULL || (nets == NULL && max > 0) ||
      (bad == NULL && badlen > 0))
    return ITG_EINVAL;
  *n = 0;
  for (;;) {
    itg_logserver_net net;
    char item[64];
    const char *end;
    size_t len;
    int rc = ITG_EINVAL;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '\0')
      return 0;
    end = strchr(p, ',');
    if (end == NULL)
      end = p + strlen(p);
    len = (size_t)(end - p);
    while (len > 0 && isspace((unsigned char)p[len - 1]))
      len--;
    if (len > 0 && len < sizeof item) {
      memcpy(item, p, len);
      item[len] = '\0';
      rc = itg__net_parse(item, &net);
    }
    if (rc == 0 && *n >= max)
      rc = ITG_ELIMIT;
    if (rc != 0) {
      if (badlen > 0)
        snprintf(bad, badlen, "%.*s", (int)len, p);
      return rc;
    }
    nets[(*n)++] = net;
    p = *end == ',' ? end + 1 : end;
  }
}

/* Returns 1 if the first `bits` bits of a and b agree. */
static int prefix_match(const uint8_t *a, const uint8_t *b, unsigned bits) {
  unsigned whole = bits / 8, rest = bits % 8;
  if (memcmp(a, b, whole) != 0)
    return 0;
  return rest == 0 ||
         ((a[whole] ^ b[whole]) & (uint8_t)(0xFF << (8 - rest))) == 0;
}

/* Reads sa's address into a (4 or 16 bytes, IPv4-mapped IPv6 as IPv4):
 * returns its family, 4 or 6, or 0 for another kind of address. */
static int addr_of(const struct sockaddr *sa, uint8_t a[16]) {
  static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (sa->sa_family == AF_INET) {
    memcpy(a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    return 4;
  }
  if (sa->sa_family != AF_INET6)
    return 0;
  memcpy(a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
  if (memcmp(a, v4_mapped, sizeof v4_mapped) != 0)
    return 6;
  memmove(a, a + 12, 4);
  return 4;
}

int itg__net_contains(const itg_logserver_net *net, const struct sockaddr *sa) {
  uint8_t a[16];
  int family = addr_of(sa, a);
  return family != 0 && net->family == family &&
         prefix_match(a, net->addr, net->prefix);
}

int itg__net_allowed(const struct sockaddr *sa, const itg_logserver_net *nets,
                     uint32_t n) {
  static const itg_logserver_net loop[2] = {
      {4, 8, {127}},
      {6, 128, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}};
  uint32_t i;
  if (itg__net_contains(&loop[0], sa) || itg__net_contains(&loop[1], sa))
    return 1;
  for (i = 0; i < n; i++)
    if (itg__net_contains(&nets[i], sa))
      return 1;
  return 0;
}

void itg__net_ip_key(const struct sockaddr *sa, uint8_t key[16]) {
  memset(key, 0, 16);
  if (sa->sa_family == AF_INET) {
    key[10] = 0xff;
    key[11] = 0xff;
    memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
  } else if (sa->sa_family == AF_INET6) {
    memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
  }
}
