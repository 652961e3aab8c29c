/* Files created for names a peer chooses, on POSIX. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int itg__file_create(const char *path, FILE **out) {
  FILE *f;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
  if (fd < 0) {
    switch (errno) {
    case EEXIST:
    case ELOOP:
    case EISDIR:
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
    default:
      return ITG_EIO;
    }
  }
  f = fdopen(fd, "wb");
  if (f == NULL) {
    close(fd);
    return ITG_ENOMEM;
  }
  *out = f;
  return 0;
}
