/* Files on POSIX: a rename that never replaces its target. */
#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE in glibc */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static int fs_error(int e) {
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
  default:
    return ITG_EIO;
  }
}

int itg__rename_noreplace(const char *from, const char *to) {
#ifdef RENAME_NOREPLACE
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  /* EINVAL: a file system that cannot; ENOSYS: a kernel older than 3.15. */
  if (errno != EINVAL && errno != ENOSYS)
    return fs_error(errno);
#endif
  /* link() fails with EEXIST where rename() would replace. */
  if (link(from, to) != 0)
    return fs_error(errno);
  if (unlink(from) != 0) {
    int e = errno;
    unlink(to);
    return fs_error(e);
  }
  return 0;
}
