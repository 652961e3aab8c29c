/* Socket life cycle and options on Windows. */
#include "platform/win/win_impl.h"

#include <mswsock.h>
#include <string.h>

/* Stops ICMP "port unreachable" reports for earlier sends from failing the
 * next receive on a UDP socket with WSAECONNRESET. */
#ifndef SIO_UDP_CONNRESET
#define SIO_UDP_CONNRESET _WSAIOW(IOC_VENDOR, 12)
#endif
/* Windows 7 SP1 and later: the socket is not inherited by child
 * processes, like SOCK_CLOEXEC. */
#ifndef WSA_FLAG_NO_HANDLE_INHERIT
#define WSA_FLAG_NO_HANDLE_INHERIT 0x80
#endif

#define NS_PER_MS INT64_C(1000000)

/* The values are checked before the call, so WSAEINVAL says the option
 * does not apply to this socket (Windows, and wine, answer so for
 * TCP_NODELAY on UDP). */
int itg__sock_set_int(itg__sock s, int level, int name, int value) {
  if (setsockopt(s, level, name, (const char *)&value, (int)sizeof value) == 0)
    return 0;
  return WSAGetLastError() == WSAEINVAL ? ITG_ENOTSUP : itg__sock_fail();
}

/* Windows has no SO_BINDTODEVICE (binding to an interface's address is
 * the nearest it offers: -a). */
int itg__sock_bind_device(itg__sock s, const char *iface) {
  (void)s;
  return iface == NULL || iface[0] == '\0' ? ITG_EINVAL : ITG_ENOTSUP;
}

int itg__uv_bind_device(uv_handle_t *h, const char *iface) {
  (void)h;
  return iface == NULL || iface[0] == '\0' ? ITG_EINVAL : ITG_ENOTSUP;
}

int itg__sock_probe(itg_proto proto) {
  /* libitg has no SCTP, DCCP or raw ICMP on Windows, whatever the
   * system offers. */
  switch (proto) {
  case ITG_PROTO_SCTP:
  case ITG_PROTO_DCCP:
  case ITG_PROTO_ICMP:
    return ITG_ENOTSUP;
  default:
    return ITG_EINVAL;
  }
}

int itg__sock_open_icmp(const itg__addr *a, itg__sock *out) {
  (void)out;
  /* As itg__sock_probe says: no raw ICMP on Windows. */
  return a->ss.ss_family == AF_INET ? ITG_ENOTSUP : ITG_EINVAL;
}

int itg__sock_open(const itg__addr *a, int dgram, itg__sock *out) {
  int family = a->ss.ss_family;
  int type = dgram ? SOCK_DGRAM : SOCK_STREAM;
  SOCKET s;

  if (family != AF_INET && family != AF_INET6)
    return ITG_EINVAL;
  if (itg__platform_init() != 0)
    return ITG_ESOCKET;
  /* Overlapped, as socket() makes them, so libuv can adopt the socket and
   * itg__sock_connect can use ConnectEx. */
  s = WSASocketW(family, type, 0, NULL, 0,
                 WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET && WSAGetLastError() == WSAEINVAL)
    s = WSASocketW(family, type, 0, NULL, 0, WSA_FLAG_OVERLAPPED);
  if (s == INVALID_SOCKET)
    return itg__sock_fail();
  /* Windows makes IPv6 sockets IPv6-only by default. Best effort: systems
   * without dual stack keep IPv6-only sockets, as they must. */
  if (family == AF_INET6)
    itg__sock_set_int(s, IPPROTO_IPV6, IPV6_V6ONLY, 0);
  if (dgram) {
    BOOL report = FALSE;
    DWORD ret;

    /* Best effort too: where it is refused, itg__recv_batch skips the
     * failed receives instead. */
    WSAIoctl(s, SIO_UDP_CONNRESET, &report, sizeof report, NULL, 0, &ret, NULL,
             NULL);
  }
  *out = s;
  return 0;
}

void itg__sock_close(itg__sock s) {
  if (s != ITG__BAD_SOCK)
    closesocket(s);
}

int itg__sock_bind(itg__sock s, const itg__addr *a) {
  /* No SO_REUSEADDR for streams, unlike POSIX: Windows already rebinds a
   * port whose old connections linger in TIME_WAIT, and with the option
   * would let a second socket bind a port that is in use. */
  if (bind(s, (const struct sockaddr *)&a->ss, a->len) == 0)
    return 0;
  /* Another socket holds the port exclusively, or the port lies in a range
   * the system reserves: either way, taken. */
  if (WSAGetLastError() == WSAEACCES)
    return ITG_EADDRINUSE;
  return itg__sock_fail();
}

static int sock_type(itg__sock s) {
  int type = 0, len = (int)sizeof type;

  if (getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&type, &len) != 0)
    return -1;
  return type;
}

/* ConnectEx wants a bound socket; connect() would bind it the same way. */
static int bind_if_unbound(itg__sock s, int family) {
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  itg__addr any;

  if (getsockname(s, (struct sockaddr *)&ss, &len) == 0)
    return 0;
  memset(&any, 0, sizeof any);
  any.ss.ss_family = (ADDRESS_FAMILY)family;
  any.len = family == AF_INET6 ? (int)sizeof(struct sockaddr_in6)
                               : (int)sizeof(struct sockaddr_in);
  if (family == AF_INET6)
    ((struct sockaddr_in6 *)&any.ss)->sin6_addr = in6addr_any;
  else
    ((struct sockaddr_in *)&any.ss)->sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(s, (const struct sockaddr *)&any.ss, any.len) != 0)
    return itg__sock_fail();
  return 0;
}

/* WaitForSingleObject's milliseconds, rounded up so the wait never ends
 * early; INFINITE for a negative timeout. */
static DWORD wait_ms(int64_t timeout_ns) {
  int64_t ms;

  if (timeout_ns < 0)
    return INFINITE;
  ms = timeout_ns / NS_PER_MS + (timeout_ns % NS_PER_MS != 0);
  return ms >= (int64_t)INFINITE ? INFINITE - 1 : (DWORD)ms;
}

/* A stream connect through ConnectEx: overlapped I/O has its own time
 * limit and leaves the socket's blocking mode as it was, which Windows
 * could not otherwise restore (it cannot tell which mode a socket is in). */
static int connect_stream(itg__sock s, const itg__addr *a,
                          int64_t timeout_ns) {
  GUID guid = WSAID_CONNECTEX;
  LPFN_CONNECTEX connect_ex = NULL;
  OVERLAPPED ov;
  HANDLE event;
  DWORD bytes = 0, flags = 0, waited;
  int rc;

  if (WSAIoctl(s, SIO_GET_EXTENSION_FUNCTION_POINTER, &guid, sizeof guid,
               &connect_ex, sizeof connect_ex, &bytes, NULL, NULL) != 0)
    return itg__sock_fail();
  rc = bind_if_unbound(s, a->ss.ss_family);
  if (rc != 0)
    return rc;
  event = CreateEventW(NULL, TRUE, FALSE, NULL);
  if (event == NULL)
    return ITG_ENOMEM;
  memset(&ov, 0, sizeof ov);
  /* The low bit keeps the completion off any I/O completion port the
   * socket is tied to (libuv's, once it adopts the socket). */
  ov.hEvent = (HANDLE)((ULONG_PTR)event | 1);
  if (!connect_ex(s, (const struct sockaddr *)&a->ss, a->len, NULL, 0, NULL,
                  &ov) &&
      WSAGetLastError() != WSA_IO_PENDING) {
    rc = itg__sock_fail();
    goto out_close_event;
  }
  waited = WaitForSingleObject(event, wait_ms(timeout_ns));
  if (waited != WAIT_OBJECT_0) {
    /* ov lives on this stack: the connect must be over before return. */
    CancelIoEx((HANDLE)s, &ov);
    WSAGetOverlappedResult(s, &ov, &bytes, TRUE, &flags);
    WSASetLastError(waited == WAIT_TIMEOUT ? WSAETIMEDOUT : WSAEINVAL);
    rc = waited == WAIT_TIMEOUT ? ITG_ETIMEDOUT : ITG_ESOCKET;
    goto out_close_event;
  }
  if (!WSAGetOverlappedResult(s, &ov, &bytes, FALSE, &flags)) {
    rc = itg__sock_fail();
    goto out_close_event;
  }
  /* Without this, getpeername, shutdown and friends do not see the
   * connection. */
  setsockopt(s, SOL_SOCKET, SO_UPDATE_CONNECT_CONTEXT, NULL, 0);
  rc = 0;
out_close_event:
  CloseHandle(event);
  return rc;
}

int itg__sock_connect(itg__sock s, const itg__addr *a, int64_t timeout_ns) {
  int type = sock_type(s);

  if (type < 0)
    return itg__sock_fail();
  if (type == SOCK_STREAM)
    return connect_stream(s, a, timeout_ns);
  /* A datagram connect only records the peer: it never waits. */
  if (connect(s, (const struct sockaddr *)&a->ss, a->len) != 0)
    return itg__sock_fail();
  return 0;
}

int itg__sock_local(itg__sock s, itg__addr *out) {
  int len = (int)sizeof out->ss;

  if (getsockname(s, (struct sockaddr *)&out->ss, &len) != 0)
    return itg__sock_fail();
  out->len = len;
  return 0;
}

int itg__sock_set_nonblock(itg__sock s, int on) {
  u_long mode = on != 0;

  return ioctlsocket(s, FIONBIO, &mode) == 0 ? 0 : itg__sock_fail();
}

int itg__sock_set_bufs(itg__sock s, int sndbuf, int rcvbuf) {
  int rc = sndbuf > 0 ? itg__sock_set_int(s, SOL_SOCKET, SO_SNDBUF, sndbuf) : 0;

  if (rc == 0 && rcvbuf > 0)
    rc = itg__sock_set_int(s, SOL_SOCKET, SO_RCVBUF, rcvbuf);
  return rc;
}

int itg__sock_rcvbuf(itg__sock s) {
  int size = 0, len = (int)sizeof size;

  if (getsockopt(s, SOL_SOCKET, SO_RCVBUF, (char *)&size, &len) != 0)
    return itg__sock_fail();
  return size;
}

/* Read from the socket itself: getsockname fails on Windows until the
 * socket is bound. */
int itg__sock_family(itg__sock s) {
  WSAPROTOCOL_INFOW info;
  int len = (int)sizeof info;

  if (getsockopt(s, SOL_SOCKET, SO_PROTOCOL_INFOW, (char *)&info, &len) != 0)
    return itg__sock_fail();
  return info.iAddressFamily;
}

/* Winsock gives ordinary programs no receive timestamps: the receiver
 * stamps datagrams with the clock when it reads them. */
int itg__sock_set_rx_timestamps(itg__sock s) {
  (void)s;
  return ITG_ENOTSUP;
}
