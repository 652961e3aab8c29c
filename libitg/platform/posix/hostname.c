/* The host's name on POSIX. */
#include "platform/platform.h"

#include <stdio.h>
#include <unistd.h>

void itg__hostname(char *buf, size_t len) {
  char name[256];

  if (len == 0)
    return;
  if (gethostname(name, sizeof name) != 0)
    snprintf(name, sizeof name, "localhost");
  /* POSIX leaves a name that fills the buffer unterminated. */
  name[sizeof name - 1] = '\0';
  snprintf(buf, len, "%s", name);
}
