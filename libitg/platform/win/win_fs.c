/* Files on Windows: a rename that never replaces its target. */
#include "platform/win/win_impl.h"

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
