/* The harnesses' scratch file: an anonymous in-memory file, rewritten for
 * each input, so fuzzing never touches the disk. */
#define _GNU_SOURCE
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

const char *fuzz_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  size_t off = 0;
  if (fd < 0) {
    fd = memfd_create("itg-fuzz", 0);
    FUZZ_CHECK(fd >= 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  FUZZ_CHECK(ftruncate(fd, 0) == 0);
  while (off < size) {
    ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);
    FUZZ_CHECK(n > 0);
    off += (size_t)n;
  }
  return path;
}
