/* Address resolution and formatting, the same on every OS: only Winsock's
 * start-up and the IPv6 probe differ (itg__net_init, itg__has_ipv6). */
#include "platform/platform.h"

#include <stdio.h>
#include <string.h>

/* The wildcard address: :: (dual-stack once the socket has IPV6_V6ONLY
 * off) where the system has IPv6, else 0.0.0.0. */
static void wildcard(uint16_t port, itg__addr *out) {
  memset(out, 0, sizeof *out);
  if (itg__has_ipv6()) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out->ss;
    s6->sin6_family = AF_INET6;
    s6->sin6_addr = in6addr_any;
    out->len = (socklen_t)sizeof *s6;
  } else {
    struct sockaddr_in *s4 = (struct sockaddr_in *)&out->ss;
    s4->sin_family = AF_INET;
    s4->sin_addr.s_addr = htonl(INADDR_ANY);
    out->len = (socklen_t)sizeof *s4;
  }
  itg__addr_set_port(out, port);
}

int itg__addr_resolve(const char *host, uint16_t port, int passive,
                      itg__addr *out) {
  struct addrinfo hints, *res;
  char serv[8];
  int rc = ITG_EADDR;

  if (itg__net_init() != 0)
    return ITG_EADDR;
  if (host == NULL || host[0] == '\0') {
    if (!passive)
      return ITG_EADDR;
    wildcard(port, out);
    return 0;
  }
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  /* One socket type, or each address comes back once per type. */
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV;
  snprintf(serv, sizeof serv, "%u", (unsigned)port);
  if (getaddrinfo(host, serv, &hints, &res) != 0)
    return ITG_EADDR;
  if ((res->ai_family == AF_INET || res->ai_family == AF_INET6) &&
      res->ai_addrlen <= sizeof out->ss) {
    memset(out, 0, sizeof *out);
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = (socklen_t)res->ai_addrlen;
    rc = 0;
  }
  freeaddrinfo(res);
  return rc;
}

uint16_t itg__addr_port(const itg__addr *a) {
  switch (a->ss.ss_family) {
  case AF_INET:
    return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
  case AF_INET6:
    return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
  default:
    return 0;
  }
}

void itg__addr_set_port(itg__addr *a, uint16_t port) {
  if (a->ss.ss_family == AF_INET)
    ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
  else if (a->ss.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
}

void itg__addr_format(const itg__addr *a, char *buf, size_t len) {
  char host[NI_MAXHOST];
  unsigned port = itg__addr_port(a);

  if (len == 0)
    return;
  if (getnameinfo((const struct sockaddr *)&a->ss, a->len, host, sizeof host,
                  NULL, 0, NI_NUMERICHOST) != 0)
    snprintf(buf, len, "?");
  else if (a->ss.ss_family == AF_INET6)
    snprintf(buf, len, "[%s]:%u", host, port);
  else
    snprintf(buf, len, "%s:%u", host, port);
}
