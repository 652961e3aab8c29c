/* A small tmpfs for full-disk tests (see smallfs.h). */
#include "smallfs.h"

#include <stdio.h>

#if defined(__linux__)
#include <errno.h>
#include <string.h>
#include <sys/mount.h>

int smallfs_mount(const char *dir, size_t bytes, char *why, size_t len) {
  char opts[64];
  snprintf(opts, sizeof opts, "size=%zu", bytes);
  if (mount("tmpfs", dir, "tmpfs", 0, opts) == 0)
    return 0;
  snprintf(why, len, "cannot mount a tmpfs on %s (%s): run as root",
           dir, strerror(errno));
  return -1;
}

int smallfs_unmount(const char *dir) { return umount(dir) == 0 ? 0 : -1; }
#else
int smallfs_mount(const char *dir, size_t bytes, char *why, size_t len) {
  (void)dir;
  (void)bytes;
  snprintf(why, len, "no tmpfs on this system");
  return -1;
}

int smallfs_unmount(const char *dir) {
  (void)dir;
  return -1;
}
#endif
