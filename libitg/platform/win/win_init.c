/* Process-wide set-up on Windows (Winsock), and the host name, which needs
 * it. */
#include "platform/win/win_impl.h"

#include <stdio.h>

static itg__once winsock_once = ITG__ONCE_INIT;
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
  itg__run_once(&winsock_once, start_winsock);
  return winsock_result;
}

void itg__hostname(char *buf, size_t len) {
  char name[257]; /* gethostname's documented maximum is 256 bytes */

  if (len == 0)
    return;
  /* A buffer too small for the name is an error on Windows, so the name is
   * read whole and truncated here. */
  if (itg__platform_init() != 0 || gethostname(name, (int)sizeof name) != 0)
    snprintf(name, sizeof name, "localhost");
  name[sizeof name - 1] = '\0';
  snprintf(buf, len, "%s", name);
}
