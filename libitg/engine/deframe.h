/* Cutting a TCP byte stream back into data packets, using the length each
 * packet header carries: the stream reader of core/frame.h, measuring by
 * the data packet header. Used by the receiver on TCP data connections
 * and by the sender on echoed TCP streams. */
#ifndef ITG_ENGINE_DEFRAME_H
#define ITG_ENGINE_DEFRAME_H

#include "core/frame.h"
#include "itg/wire.h"

/* Room for one whole packet of the largest size, so a packet that starts
 * in the buffer always fits once the buffer is compacted. */
#define ITG__DEFRAME_CAP 65536u

typedef struct itg__deframe {
  itg_wire_profile wire;
  itg__frame_reader fr;
  itg_pkt_hdr hdr; /* the header of the packet measured last */
  uint8_t buf[ITG__DEFRAME_CAP];
} itg__deframe;

/* Empties d and sets the profile its packets use. */
void itg__deframe_init(itg__deframe *d, itg_wire_profile wire);

/* Returns where the next bytes go, with their room in *room (at least the
 * rest of a started packet). */
uint8_t *itg__deframe_space(itg__deframe *d, size_t *room);

/* Accounts for n bytes written at itg__deframe_space. */
void itg__deframe_commit(itg__deframe *d, size_t n);

/* Returns the bytes held and not yet taken, their count in *avail (to
 * look at a packet before it is whole). */
const uint8_t *itg__deframe_peek(const itg__deframe *d, size_t *avail);

/* Takes the next whole packet: returns its length with *pkt pointing at it
 * (valid until the next space call) and *h decoded, 0 if more bytes are
 * needed, or a decode error / ITG_EBADMSG for a length field outside
 * [header length, ITG_WIRE_MAX_PACKET] (the stream is then unusable). */
int itg__deframe_next(itg__deframe *d, itg_pkt_hdr *h, uint8_t **pkt);

#endif
