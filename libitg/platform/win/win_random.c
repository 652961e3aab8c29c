/* Unguessable bytes on Windows: the system's preferred generator. */
#include "platform/win/win_impl.h"

#include <bcrypt.h>

int itg__random_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len > 0) {
    ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p, n,
                                        BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
      return ITG_EIO;
    p += n;
    len -= n;
  }
  return 0;
}
