/* Socket options on POSIX (those set alike on every OS are in
 * platform/sockopt.c). */
#define _GNU_SOURCE
#include "platform/platform.h"
#include "platform/posix/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <string.h>

#ifdef SO_SNDBUFFORCE
#define SNDBUF_FORCE SO_SNDBUFFORCE
#define RCVBUF_FORCE SO_RCVBUFFORCE
#else
#define SNDBUF_FORCE (-1)
#define RCVBUF_FORCE (-1)
#endif

int itg__sock_set_nonblock(itg__sock s, int on) {
  int flags = fcntl(s, F_GETFL);

  if (flags < 0)
    return itg__sock_fail();
  flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  if (fcntl(s, F_SETFL, flags) != 0)
    return itg__sock_fail();
  return 0;
}

/* Sets one buffer size: first with the privileged option, which may pass
 * the system maximum, then with the ordinary one, which the kernel caps
 * silently. */
static int set_buf(itg__sock s, int force_opt, int opt, int size) {
  if (size <= 0)
    return 0;
  if (force_opt >= 0 &&
      setsockopt(s, SOL_SOCKET, force_opt, &size, sizeof size) == 0)
    return 0;
  if (setsockopt(s, SOL_SOCKET, opt, &size, sizeof size) != 0)
    return itg__sock_fail();
  return 0;
}

int itg__sock_set_bufs(itg__sock s, int sndbuf, int rcvbuf) {
  int rc = set_buf(s, SNDBUF_FORCE, SO_SNDBUF, sndbuf);

  return rc != 0 ? rc : set_buf(s, RCVBUF_FORCE, SO_RCVBUF, rcvbuf);
}

int itg__sock_rcvbuf(itg__sock s) {
  int size = 0;
  socklen_t len = sizeof size;

  if (getsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, &len) != 0)
    return itg__sock_fail();
  return size;
}

int itg__sock_set_int(itg__sock s, int level, int name, int value) {
  if (setsockopt(s, level, name, &value, sizeof value) != 0)
    return itg__sock_fail();
  return 0;
}

int itg__sock_family(itg__sock s) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;

  if (getsockname(s, (struct sockaddr *)&ss, &len) != 0)
    return itg__sock_fail();
  return ss.ss_family;
}

/* Nanosecond stamps where the kernel gives them, else microsecond ones:
 * some kernels and emulators (qemu-user) refuse SO_TIMESTAMPNS but take
 * SO_TIMESTAMP. The receive path reads either kind. */
int itg__sock_set_rx_timestamps(itg__sock s) {
  int on = 1;

#ifdef SO_TIMESTAMPNS
  if (setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0)
    return 0;
#endif
  if (setsockopt(s, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof on) != 0)
    return itg__sock_fail();
  return 0;
}

int itg__sock_bind_device(itg__sock s, const char *iface) {
  size_t n = iface != NULL ? strlen(iface) : 0;
  if (n == 0 || n >= ITG_IFACE_MAX)
    return ITG_EINVAL;
#ifdef SO_BINDTODEVICE
  if (setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, iface, (socklen_t)n) == 0)
    return 0;
  return errno == ENODEV ? ITG_EADDR : itg__sock_fail();
#else
  (void)s;
  return ITG_ENOTSUP;
#endif
}

int itg__uv_bind_device(uv_handle_t *h, const char *iface) {
  uv_os_fd_t fd;
  if (uv_fileno(h, &fd) != 0)
    return ITG_ESTATE;
  return itg__sock_bind_device(fd, iface);
}
