/* TCP stream re-framing by the packet header's length field (see
 * deframe.h). */
#include "engine/deframe.h"

void itg__deframe_init(itg__deframe *d, itg_wire_profile wire) {
  d->wire = wire;
  itg__frame_reader_reset(&d->fr);
}

uint8_t *itg__deframe_space(itg__deframe *d, size_t *room) {
  return itg__frame_reader_space(&d->fr, d->buf, sizeof d->buf, room);
}

void itg__deframe_commit(itg__deframe *d, size_t n) {
  itg__frame_reader_commit(&d->fr, n);
}

const uint8_t *itg__deframe_peek(const itg__deframe *d, size_t *avail) {
  *avail = d->fr.len - d->fr.start;
  return d->buf + d->fr.start;
}

/* The reader's measure: the length the packet header carries, decoded
 * into d->hdr. */
static int measure(const uint8_t *buf, size_t avail, void *arg) {
  itg__deframe *d = arg;
  int hl = itg_wire_decode(d->wire, 1, buf, avail, &d->hdr);
  if (hl == ITG_ETRUNC)
    return 0;
  if (hl < 0)
    return hl;
  if (d->hdr.length < (uint32_t)hl || d->hdr.length > ITG_WIRE_MAX_PACKET)
    return ITG_EBADMSG;
  return (int)d->hdr.length;
}

int itg__deframe_next(itg__deframe *d, itg_pkt_hdr *h, uint8_t **pkt) {
  int n = itg__frame_reader_next(&d->fr, d->buf, sizeof d->buf, measure, d,
                                 pkt);
  if (n > 0)
    *h = d->hdr;
  return n;
}
