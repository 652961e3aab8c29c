/* The frame header and the stream-to-frame reader (see frame.h). */
#include "core/frame.h"

#include <string.h>

#include "core/byteorder.h"
#include "itg/common.h"

void itg__frame_hdr_put(uint8_t *buf, uint8_t type, uint8_t version,
                        uint32_t body) {
  buf[0] = type;
  buf[1] = version;
  itg__put_be16(buf + 2, 0);
  itg__put_be32(buf + 4, body);
}

int itg__frame_hdr_get(const uint8_t *buf, size_t len, uint8_t version,
                       uint32_t max_body, itg__frame_hdr *out) {
  if (len < ITG__FRAME_HDR_LEN)
    return ITG_ETRUNC;
  if (buf[1] != version)
    return ITG_EVERSION;
  out->type = buf[0];
  out->version = buf[1];
  out->body = itg__get_be32(buf + 4);
  if (itg__get_be16(buf + 2) != 0 || out->body > max_body)
    return ITG_EBADMSG;
  return 0;
}

void itg__frame_reader_reset(itg__frame_reader *r) {
  r->start = 0;
  r->len = 0;
}

uint8_t *itg__frame_reader_space(itg__frame_reader *r, uint8_t *buf,
                                 size_t cap, size_t *room) {
  if (r->start > 0) {
    memmove(buf, buf + r->start, r->len - r->start);
    r->len -= r->start;
    r->start = 0;
  }
  *room = cap - r->len;
  return buf + r->len;
}

void itg__frame_reader_commit(itg__frame_reader *r, size_t n) { r->len += n; }

int itg__frame_reader_next(itg__frame_reader *r, uint8_t *buf, size_t cap,
                           itg__frame_measure measure, void *arg,
                           uint8_t **frame) {
  size_t avail = r->len - r->start;
  int n = measure(buf + r->start, avail, arg);
  if (n <= 0)
    return n;
  /* A frame that can never be held would stall the stream for good. */
  if ((size_t)n > cap)
    return ITG_EBADMSG;
  if (avail < (size_t)n)
    return 0;
  *frame = buf + r->start;
  r->start += (size_t)n;
  return n;
}
