/* Files on Windows: created for names a peer chooses, renamed without
 * replacing. */
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

/* Converts a UTF-8 path to UTF-16 in out (len wide characters). Returns 0,
 * or -1 if it is not UTF-8 or does not fit. */
static int wide_path(const char *path, wchar_t *out, int len) {
  return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, out,
                             len) > 0
             ? 0
             : -1;
}

int itg__rename_noreplace(const char *from, const char *to) {
  wchar_t wfrom[MAX_PATH], wto[MAX_PATH];
  if (wide_path(from, wfrom, MAX_PATH) != 0 ||
      wide_path(to, wto, MAX_PATH) != 0)
    return ITG_ENOENT;
  /* Without MOVEFILE_REPLACE_EXISTING an existing target is an error. */
  if (MoveFileExW(wfrom, wto, 0))
    return 0;
  switch (GetLastError()) {
  case ERROR_ALREADY_EXISTS:
  case ERROR_FILE_EXISTS:
    return ITG_EBUSY;
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
    return ITG_ENOENT;
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION:
    return ITG_EPERM;
  default:
    return ITG_EIO;
  }
}
