/* Files created for names a peer chooses, on Windows. */
#include "platform/win/win_impl.h"

#include <fcntl.h>
#include <io.h>

int itg__file_create(const char *path, FILE **out) {
  FILE *f;
  int fd;
  /* CREATE_NEW fails on any existing name; opening the reparse point
   * itself keeps a dangling link from being followed to its target. */
  HANDLE h = CreateFileA(
      path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
      CREATE_NEW, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    switch (GetLastError()) {
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return ITG_EBUSY;
    case ERROR_PATH_NOT_FOUND:
    case ERROR_FILE_NOT_FOUND:
    case ERROR_INVALID_NAME:
      return ITG_ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
      return ITG_EPERM;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
      return ITG_ENOMEM;
    default:
      return ITG_EIO;
    }
  }
  fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
  if (fd < 0) {
    CloseHandle(h);
    return ITG_ENOMEM;
  }
  f = _fdopen(fd, "wb");
  if (f == NULL) {
    _close(fd);
    return ITG_ENOMEM;
  }
  *out = f;
  return 0;
}
