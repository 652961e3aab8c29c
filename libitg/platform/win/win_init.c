/* Process-wide set-up on Windows (Winsock). */
#include "platform/win/win_impl.h"

static uv_once_t winsock_once = UV_ONCE_INIT;
static int winsock_result; /* written once, inside winsock_once */

/* Starts Winsock 2.2; it stays up until the process ends. */
static void start_winsock(void) {
  WSADATA wsa;

  if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) {
    winsock_result = ITG_ESOCKET;
  } else if (LOBYTE(wsa.wVersion) != 2 || HIBYTE(wsa.wVersion) != 2) {
    WSACleanup();
    winsock_result = ITG_ENOTSUP;
  } else {
    winsock_result = 0;
  }
}

int itg__platform_init(void) {
  uv_once(&winsock_once, start_winsock);
  return winsock_result;
}
