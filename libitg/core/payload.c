/* Payload files: D-ITG's -Fp. */
#include "core/payload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg/flow.h"
#include "platform/platform.h"

int itg__payload_read(const char *path, uint8_t **out, size_t *len) {
  FILE *f;
  uint8_t *buf, *fit;
  size_t n;
  int rc = 0;
  f = fopen(path, "rb");
  if (f == NULL)
    return itg__file_errno(errno);
  /* One byte more than allowed tells a file at the limit from a longer
   * one without trusting a size the file could change under us. */
  buf = malloc(ITG_FLOW_PAYLOAD_MAX + 1);
  if (buf == NULL) {
    rc = ITG_ENOMEM;
    goto out_close;
  }
  n = fread(buf, 1, ITG_FLOW_PAYLOAD_MAX + 1, f);
  if (ferror(f))
    rc = ITG_EIO;
  else if (n == 0)
    rc = ITG_EINVAL;
  else if (n > ITG_FLOW_PAYLOAD_MAX)
    rc = ITG_ELIMIT;
  if (rc != 0) {
    free(buf);
    goto out_close;
  }
  /* A flow keeps its file's bytes, not the room a largest file needs. */
  fit = realloc(buf, n);
  *out = fit != NULL ? fit : buf;
  *len = n;
out_close:
  fclose(f);
  return rc;
}

void itg__payload_fill(const uint8_t *file, size_t len, size_t *off,
                       uint8_t *dst, size_t room) {
  size_t left = len - *off;
  if (room < left) {
    memcpy(dst, file + *off, room);
  } else {
    memcpy(dst, file + *off, left);
    memset(dst + left, 0, room - left);
  }
  itg__payload_advance(len, off, room);
}

void itg__payload_advance(size_t len, size_t *off, size_t room) {
  *off = room < len - *off ? *off + room : 0;
}
