/* TCP stream re-framing by the packet header's length field (see
 * deframe.h). */
#include "engine/deframe.h"

#include <string.h>

void itg__deframe_init(itg__deframe *d, itg_wire_profile wire) {
  d->wire = wire;
  d->start = 0;
  d->len = 0;
}

uint8_t *itg__deframe_space(itg__deframe *d, size_t *room) {
  if (d->start > 0) {
    memmove(d->buf, d->buf + d->start, d->len - d->start);
    d->len -= d->start;
    d->start = 0;
  }
  *room = sizeof d->buf - d->len;
  return d->buf + d->len;
}

void itg__deframe_commit(itg__deframe *d, size_t n) { d->len += n; }

int itg__deframe_next(itg__deframe *d, itg_pkt_hdr *h, uint8_t **pkt) {
  size_t avail = d->len - d->start;
  int hl = itg_wire_decode(d->wire, 1, d->buf + d->start, avail, h);
  if (hl == ITG_ETRUNC)
    return 0;
  if (hl < 0)
    return hl;
  if (h->length < (uint32_t)hl || h->length > ITG_WIRE_MAX_PACKET)
    return ITG_EBADMSG;
  if (avail < h->length)
    return 0;
  *pkt = d->buf + d->start;
  d->start += h->length;
  return (int)h->length;
}
