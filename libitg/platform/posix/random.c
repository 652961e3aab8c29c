/* Unguessable bytes on POSIX: getrandom where the C library has it (Linux),
 * getentropy otherwise (the BSDs, macOS). */
#include "platform/platform.h"

#include <errno.h>

#if defined(__linux__)
#include <sys/random.h>
#else
#include <unistd.h>
#endif

int itg__random_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len > 0) {
#if defined(__linux__)
    ssize_t n = getrandom(p, len, 0);
#else
    /* getentropy gives at most 256 bytes a call. */
    size_t want = len < 256 ? len : 256;
    ssize_t n = getentropy(p, want) == 0 ? (ssize_t)want : -1;
#endif
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return ITG_EIO;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}
