/* The Windows side of address handling (see platform/address.c). */
#include "platform/win/win_impl.h"

/* Winsock must be started before the resolver is used. */
int itg__net_init(void) { return itg__platform_init(); }

int itg__has_ipv6(void) {
  SOCKET probe = socket(AF_INET6, SOCK_DGRAM, 0);

  if (probe == INVALID_SOCKET)
    return 0;
  closesocket(probe);
  return 1;
}
