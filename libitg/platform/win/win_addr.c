/* Address resolution and formatting on Windows. */
#include "platform/win/win_impl.h"

#include <stdio.h>
#include <string.h>

/* The wildcard address: IPv6 (made dual-stack by itg__sock_open) when the
 * system has IPv6, IPv4 otherwise. */
static void wildcard(uint16_t port, itg__addr *out) {
  SOCKET probe = socket(AF_INET6, SOCK_DGRAM, 0);

  memset(out, 0, sizeof *out);
  if (probe != INVALID_SOCKET) {
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->ss;

    closesocket(probe);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_addr = in6addr_any;
    out->len = (socklen_t)sizeof *sin6;
  } else {
    struct sockaddr_in *sin = (struct sockaddr_in *)&out->ss;

    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(INADDR_ANY);
    out->len = (socklen_t)sizeof *sin;
  }
  itg__addr_set_port(out, port);
}

int itg__addr_resolve(const char *host, uint16_t port, int passive,
                      itg__addr *out) {
  struct addrinfo hints, *res;
  char serv[8];
  int rc = ITG_EADDR;

  if (itg__platform_init() != 0)
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
  if (a->ss.ss_family == AF_INET6)
    return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
  if (a->ss.ss_family == AF_INET)
    return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
  return 0;
}

void itg__addr_set_port(itg__addr *a, uint16_t port) {
  if (a->ss.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
  else if (a->ss.ss_family == AF_INET)
    ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

void itg__addr_format(const itg__addr *a, char *buf, size_t len) {
  char host[INET6_ADDRSTRLEN];

  if (len == 0)
    return;
  if (a->ss.ss_family == AF_INET6 &&
      inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
                host, sizeof host) != NULL)
    snprintf(buf, len, "[%s]:%u", host, (unsigned)itg__addr_port(a));
  else if (a->ss.ss_family == AF_INET &&
           inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->ss)->sin_addr,
                     host, sizeof host) != NULL)
    snprintf(buf, len, "%s:%u", host, (unsigned)itg__addr_port(a));
  else
    snprintf(buf, len, "?");
}
