/* Framing of byte streams, with no I/O: the 8-byte header the signaling
 * protocol (engine/control.h) and the log protocol (log/proto.h) put
 * before each message, and one reader that cuts a stream back into
 * frames, whatever tells a frame's length (that header, or a data
 * packet's own header for TCP data streams, engine/deframe.h).
 *
 * The header, big endian:
 *   off 0  u8  message type (the protocol's)
 *   off 1  u8  protocol version
 *   off 2  u16 reserved, 0
 *   off 4  u32 body length */
#ifndef ITG_CORE_FRAME_H
#define ITG_CORE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ITG__FRAME_HDR_LEN 8u

typedef struct itg__frame_hdr {
  uint8_t type;
  uint8_t version;
  uint32_t body; /* bytes after the header */
} itg__frame_hdr;

/* Writes the header of a frame of `body` bytes at buf (8 bytes). */
void itg__frame_hdr_put(uint8_t *buf, uint8_t type, uint8_t version,
                        uint32_t body);

/* Reads the header at the start of buf[0..len). Returns 0 with *out
 * filled, ITG_ETRUNC (fewer than 8 bytes), ITG_EVERSION (not `version`)
 * or ITG_EBADMSG (reserved bits set, a body longer than max_body). The
 * type is the protocol's to check. */
int itg__frame_hdr_get(const uint8_t *buf, size_t len, uint8_t version,
                       uint32_t max_body, itg__frame_hdr *out);

/* Tells the length of the frame at the start of buf[0..avail): returns
 * it (whole frame, header included), 0 if more bytes are needed to know,
 * or an ITG_E* code if the stream is unusable. */
typedef int (*itg__frame_measure)(const uint8_t *buf, size_t avail,
                                  void *arg);

/* Cuts a byte stream into frames in a buffer the caller holds (the same
 * buffer, buf[0..cap), at every call). All zero is an empty reader. */
typedef struct itg__frame_reader {
  size_t start; /* first byte not yet taken */
  size_t len;   /* bytes held, from buf[0] */
} itg__frame_reader;

/* Empties r. */
void itg__frame_reader_reset(itg__frame_reader *r);

/* Moves what is held to the front and returns where the next bytes go,
 * with their room in *room (never 0 while no whole frame is held, if the
 * largest frame fits in cap). */
uint8_t *itg__frame_reader_space(itg__frame_reader *r, uint8_t *buf,
                                 size_t cap, size_t *room);

/* Accounts for n bytes written at itg__frame_reader_space. */
void itg__frame_reader_commit(itg__frame_reader *r, size_t n);

/* Takes the next whole frame: returns its length with *frame pointing at
 * it (valid until the next space call), 0 if more bytes are needed, the
 * measure's error, or ITG_EBADMSG for a frame longer than cap. After an
 * error the stream is unusable. */
int itg__frame_reader_next(itg__frame_reader *r, uint8_t *buf, size_t cap,
                           itg__frame_measure measure, void *arg,
                           uint8_t **frame);

#endif
