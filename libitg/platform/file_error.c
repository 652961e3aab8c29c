/* The C library's errno after a file call, in the error table: the same
 * on every OS, since stdio and the POSIX-like calls set it everywhere. */
#include "platform/platform.h"

#include <errno.h>

int itg__file_errno(int e) {
  switch (e) {
  case EEXIST:
    return ITG_EBUSY;
  case ENOENT:
  case ENOTDIR:
    return ITG_ENOENT;
  case EACCES:
  case EPERM:
  case EROFS:
    return ITG_EPERM;
  case ENOMEM:
    return ITG_ENOMEM;
  case ENOSPC:
#ifdef EDQUOT
  case EDQUOT:
#endif
    return ITG_ENOSPC;
  default:
    return ITG_EIO;
  }
}
