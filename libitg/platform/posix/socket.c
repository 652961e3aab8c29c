/* Socket life cycle, stream I/O, readiness and error mapping on POSIX. */
#include "platform/platform.h"
#include "platform/posix/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#define NS_PER_MS INT64_C(1000000)

int itg__sock_last_error(void) {
  switch (errno) {
  case EAGAIN:
#if EWOULDBLOCK != EAGAIN
  case EWOULDBLOCK:
#endif
  /* A full interface queue: the datagram was not sent, try again later. */
  case ENOBUFS:
    return 0;
  case ECONNREFUSED:
    return ITG_ECONNREFUSED;
  case EADDRINUSE:
    return ITG_EADDRINUSE;
  case EADDRNOTAVAIL:
    return ITG_EADDR;
  case ETIMEDOUT:
    return ITG_ETIMEDOUT;
  case ECONNRESET:
  case ECONNABORTED:
  case EPIPE:
    return ITG_ECLOSED;
  case EACCES:
  case EPERM:
    return ITG_EPERM;
  case EMSGSIZE:
    return ITG_ERANGE;
  case ENOMEM:
    return ITG_ENOMEM;
  case EMFILE:
  case ENFILE:
    return ITG_ELIMIT;
  case EINVAL:
    return ITG_EINVAL;
  case ENOPROTOOPT:
  case EOPNOTSUPP:
#if defined(ENOTSUP) && ENOTSUP != EOPNOTSUPP
  case ENOTSUP:
#endif
  case EPROTONOSUPPORT:
  case EAFNOSUPPORT:
    return ITG_ENOTSUP;
  case ENOTCONN:
    return ITG_ESTATE;
  default:
    return ITG_ESOCKET;
  }
}

int itg__sock_fail(void) {
  int rc = itg__sock_last_error();

  return rc < 0 ? rc : ITG_ESOCKET;
}

int itg__sock_probe(itg_proto proto) {
  int type, protocol, fd;
  switch (proto) {
  case ITG_PROTO_SCTP:
    type = SOCK_STREAM;
    protocol = IPPROTO_SCTP;
    break;
  case ITG_PROTO_DCCP:
#ifdef SOCK_DCCP
    type = SOCK_DCCP;
    protocol = IPPROTO_DCCP;
    break;
#else
    return ITG_ENOTSUP;
#endif
  case ITG_PROTO_ICMP:
    type = SOCK_RAW;
    protocol = IPPROTO_ICMP;
    break;
  default:
    return ITG_EINVAL;
  }
  fd = socket(AF_INET, type, protocol);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  switch (errno) {
  /* A kernel without the protocol (Linux without its module) says one of
   * these, depending on which of type and protocol it lacks. */
  case EPROTONOSUPPORT:
  case ESOCKTNOSUPPORT:
  case EPROTOTYPE:
  case EAFNOSUPPORT:
    return ITG_ENOTSUP;
  default:
    return itg__sock_last_error();
  }
}

int itg__sock_open_icmp(const itg__addr *a, itg__sock *out) {
  int fd;
  if (a->ss.ss_family != AF_INET)
    return ITG_EINVAL;
#ifdef SOCK_CLOEXEC
  fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
#else
  fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
  if (fd >= 0)
    fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
  if (fd < 0)
    return itg__sock_fail();
  *out = fd;
  return 0;
}

int itg__sock_open(const itg__addr *a, int dgram, itg__sock *out) {
  int family = a->ss.ss_family;
  int type = dgram ? SOCK_DGRAM : SOCK_STREAM;
  int fd;

  if (family != AF_INET && family != AF_INET6)
    return ITG_EINVAL;
#ifdef SOCK_CLOEXEC
  fd = socket(family, type | SOCK_CLOEXEC, 0);
#else
  fd = socket(family, type, 0);
  if (fd >= 0)
    fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
  if (fd < 0)
    return itg__sock_fail();
  if (family == AF_INET6) {
    /* Best effort: systems without dual-stack sockets refuse it, and their
     * IPv6 sockets then serve IPv6 only, as they must. */
    int off = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  }
#if !defined(MSG_NOSIGNAL) && defined(SO_NOSIGPIPE)
  {
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on) != 0) {
      int rc = itg__sock_fail();
      close(fd);
      return rc;
    }
  }
#endif
  *out = fd;
  return 0;
}

void itg__sock_close(itg__sock s) {
  if (s != ITG__BAD_SOCK)
    close(s);
}

int itg__sock_bind(itg__sock s, const itg__addr *a) {
  int type;
  socklen_t tlen = sizeof type;

  if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0)
    return itg__sock_fail();
  if (type == SOCK_STREAM) {
    /* A restarted server must not wait for TIME_WAIT to clear. */
    int on = 1;
    if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0)
      return itg__sock_fail();
  }
  if (bind(s, (const struct sockaddr *)&a->ss, a->len) != 0)
    return itg__sock_fail();
  return 0;
}

/* Polls one descriptor for `events` during at most timeout_ns (< 0: no
 * limit), resuming after signals. Returns the revents (> 0), 0 on timeout
 * or ITG_ESOCKET. */
static int poll_one(itg__sock s, short events, int64_t timeout_ns) {
  int64_t deadline = 0;

  if (timeout_ns >= 0) {
    int64_t now = (int64_t)uv_hrtime();
    /* A limit beyond the clock's range is no limit. */
    if (timeout_ns > INT64_MAX - now)
      timeout_ns = -1;
    else
      deadline = now + timeout_ns;
  }

  for (;;) {
    struct pollfd pfd = {.fd = s, .events = events, .revents = 0};
    int ms = -1;
    int rc;

    if (timeout_ns >= 0) {
      int64_t left = deadline - (int64_t)uv_hrtime();
      int64_t left_ms = left <= 0 ? 0 : (left + NS_PER_MS - 1) / NS_PER_MS;
      ms = left_ms > INT_MAX ? INT_MAX : (int)left_ms;
    }
    rc = poll(&pfd, 1, ms);
    if (rc > 0)
      return pfd.revents & POLLNVAL ? ITG_ESOCKET : pfd.revents;
    if (rc == 0) {
      if (ms == 0 || (int64_t)uv_hrtime() >= deadline)
        return 0;
      continue;
    }
    if (errno != EINTR)
      return ITG_ESOCKET;
  }
}

/* Waits for a non-blocking connect to finish. */
static int finish_connect(itg__sock s, int64_t timeout_ns) {
  int err = 0;
  socklen_t elen = sizeof err;
  int rc = poll_one(s, POLLOUT, timeout_ns);

  if (rc == 0)
    return ITG_ETIMEDOUT;
  if (rc < 0)
    return rc;
  if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
    return itg__sock_fail();
  if (err != 0) {
    errno = err;
    return itg__sock_fail();
  }
  return 0;
}

int itg__sock_connect(itg__sock s, const itg__addr *a, int64_t timeout_ns) {
  int flags = fcntl(s, F_GETFL);
  int rc;

  if (flags < 0)
    return itg__sock_fail();
  if (!(flags & O_NONBLOCK) && fcntl(s, F_SETFL, flags | O_NONBLOCK) != 0)
    return itg__sock_fail();
  if (connect(s, (const struct sockaddr *)&a->ss, a->len) == 0)
    rc = 0;
  else if (errno == EINPROGRESS || errno == EINTR)
    rc = finish_connect(s, timeout_ns);
  else
    rc = itg__sock_fail();
  if (!(flags & O_NONBLOCK) && fcntl(s, F_SETFL, flags) != 0 && rc == 0)
    rc = itg__sock_fail();
  return rc;
}

int itg__sock_local(itg__sock s, itg__addr *out) {
  out->len = sizeof out->ss;
  if (getsockname(s, (struct sockaddr *)&out->ss, &out->len) != 0)
    return itg__sock_fail();
  return 0;
}

int itg__stream_send(itg__sock s, const uint8_t *buf, size_t len) {
  ssize_t n;

  if (len > INT_MAX)
    len = INT_MAX;
  do
    n = send(s, buf, len, ITG__SEND_FLAGS);
  while (n < 0 && errno == EINTR);
  return n < 0 ? itg__sock_last_error() : (int)n;
}

int itg__stream_recv(itg__sock s, uint8_t *buf, size_t len) {
  ssize_t n;

  if (len == 0)
    return 0;
  if (len > INT_MAX)
    len = INT_MAX;
  do
    n = recv(s, buf, len, 0);
  while (n < 0 && errno == EINTR);
  if (n == 0)
    return ITG_ECLOSED;
  return n < 0 ? itg__sock_last_error() : (int)n;
}

int itg__sock_wait_readable(itg__sock s, int64_t timeout_ns) {
  int rc = poll_one(s, POLLIN, timeout_ns);

  return rc > 0 ? 1 : rc;
}
