/* Files on POSIX: created for names a peer chooses, renamed without
 * replacing. */
#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE in glibc */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int itg__file_create(const char *path, FILE **out) {
  FILE *f;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
  if (fd < 0) {
    /* A link (ELOOP) or a directory by that name is taken as well. */
    return errno == ELOOP || errno == EISDIR ? ITG_EBUSY
                                             : itg__file_errno(errno);
  }
  f = fdopen(fd, "wb");
  if (f == NULL) {
    close(fd);
    return ITG_ENOMEM;
  }
  *out = f;
  return 0;
}

int itg__rename_noreplace(const char *from, const char *to) {
#ifdef RENAME_NOREPLACE
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  /* EINVAL: a file system that cannot; ENOSYS: a kernel older than 3.15. */
  if (errno != EINVAL && errno != ENOSYS)
    return itg__file_errno(errno);
#endif
  /* link() fails with EEXIST where rename() would replace. */
  if (link(from, to) != 0)
    return itg__file_errno(errno);
  if (unlink(from) != 0) {
    int e = errno;
    unlink(to);
    return itg__file_errno(e);
  }
  return 0;
}
