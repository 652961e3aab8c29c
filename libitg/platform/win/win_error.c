/* Winsock errors as ITG_E* codes, matching what the POSIX side makes of the
 * same conditions. */
#include "platform/win/win_impl.h"

int itg__sock_last_error(void) {
  switch (WSAGetLastError()) {
  case WSAEWOULDBLOCK:
  /* No buffer space for the datagram: not sent, try again later. */
  case WSAENOBUFS:
    return 0;
  case WSAECONNREFUSED:
    return ITG_ECONNREFUSED;
  case WSAEADDRINUSE:
    return ITG_EADDRINUSE;
  case WSAEADDRNOTAVAIL:
    return ITG_EADDR;
  case WSAETIMEDOUT:
    return ITG_ETIMEDOUT;
  case WSAECONNRESET:
  case WSAECONNABORTED:
  case WSAESHUTDOWN:
  case WSAEDISCON:
    return ITG_ECLOSED;
  case WSAEACCES:
    return ITG_EPERM;
  case WSAEMSGSIZE:
    return ITG_ERANGE;
  case WSA_NOT_ENOUGH_MEMORY:
    return ITG_ENOMEM;
  case WSAEMFILE:
  case WSAEPROCLIM:
    return ITG_ELIMIT;
  case WSAEINVAL:
  case WSAEFAULT:
    return ITG_EINVAL;
  case WSAENOPROTOOPT:
  case WSAEOPNOTSUPP:
  case WSAEPROTONOSUPPORT:
  case WSAESOCKTNOSUPPORT:
  case WSAEAFNOSUPPORT:
  case WSAEPFNOSUPPORT:
    return ITG_ENOTSUP;
  case WSAENOTCONN:
    return ITG_ESTATE;
  default:
    return ITG_ESOCKET;
  }
}

int itg__sock_fail(void) {
  int rc = itg__sock_last_error();

  return rc < 0 ? rc : ITG_ESOCKET;
}
