/* The POSIX side of address handling (see platform/address.c). */
#include "platform/platform.h"

#include <unistd.h>

int itg__net_init(void) { return 0; }

int itg__has_ipv6(void) {
  int fd = socket(AF_INET6, SOCK_DGRAM, 0);

  if (fd < 0)
    return 0;
  close(fd);
  return 1;
}
