/* libuv's error codes in the error table. */
#include "platform/platform.h"

int itg__uv_err(int uverr) {
  switch (uverr) {
  case UV_EADDRINUSE:
    return ITG_EADDRINUSE;
  case UV_EADDRNOTAVAIL:
  case UV_EAFNOSUPPORT:
    return ITG_EADDR;
  case UV_EACCES:
  case UV_EPERM:
    return ITG_EPERM;
  case UV_ENOMEM:
    return ITG_ENOMEM;
  case UV_ETIMEDOUT:
    return ITG_ETIMEDOUT;
  case UV_EOF:
  case UV_ECONNRESET:
    return ITG_ECLOSED;
  default:
    return ITG_ESOCKET;
  }
}
