/* Socket options that are set the same way on every OS, over two
 * primitives each OS gives: itg__sock_family and itg__sock_set_int. */
#include "platform/platform.h"

#ifndef _WIN32
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#endif

/* Sets an option that IPv4 and IPv6 name differently. */
static int set_ip_option(itg__sock s, int v4_opt, int v6_opt, int value) {
  int family = itg__sock_family(s);
  int rc;

  if (family == AF_INET6) {
    rc = itg__sock_set_int(s, IPPROTO_IPV6, v6_opt, value);
    if (rc != 0)
      return rc;
    /* A dual-stack socket's IPv4 traffic follows the IPv4 option; a system
     * that refuses it on an IPv6 socket sends no such traffic. */
    itg__sock_set_int(s, IPPROTO_IP, v4_opt, value);
    return 0;
  }
  if (family == AF_INET)
    return itg__sock_set_int(s, IPPROTO_IP, v4_opt, value);
  return family < 0 ? family : ITG_ENOTSUP;
}

/* Windows takes IP_TOS but applies it only where system policy allows. */
int itg__sock_set_tos(itg__sock s, int tos) {
  if (tos < 0 || tos > 255)
    return ITG_EINVAL;
  return set_ip_option(s, IP_TOS, IPV6_TCLASS, tos);
}

int itg__sock_set_ttl(itg__sock s, int ttl) {
  if (ttl < 1 || ttl > 255)
    return ITG_EINVAL;
  return set_ip_option(s, IP_TTL, IPV6_UNICAST_HOPS, ttl);
}

int itg__sock_set_nodelay(itg__sock s, int on) {
  return itg__sock_set_int(s, IPPROTO_TCP, TCP_NODELAY, on != 0);
}
