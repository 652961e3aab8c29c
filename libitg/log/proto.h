/* The log-server protocol, spoken between a logger shipping its records
 * (log/ship.c) and the log server (log/server*.c).
 *
 * Every client holds one TCP connection to the server. Messages on it are
 * frames (core/frame.h): an 8-byte header, big endian, then a body:
 *   off 0  u8  message type (ITG__LP_*)
 *   off 1  u8  protocol version (ITG__LP_VERSION)
 *   off 2  u16 reserved, 0
 *   off 4  u32 body length (at most ITG__LP_MAX_BODY)
 * Text fields are a u16 length followed by that many bytes (no NUL).
 *
 * Bodies (records are 32 bytes each, in the log.h encoding):
 *   REGISTER      u8 transport (ITG__LP_TCP or ITG__LP_UDP), u8 role
 *                 (itg_log_role), u16 flow count n (at most
 *                 ITG__LP_MAX_FLOWS), n x u32 flow id, text token, text
 *                 host, text log name ("" lets the server choose)
 *   REGISTER_ACK  i32 status (0 or ITG_E*), u32 session id, u32 key, u16
 *                 UDP port for the batches (0 over TCP), text file name
 *                 (or the reason for a refusal)
 *   BATCH         u64 offset of the first record in the session, then the
 *                 records (at most ITG__LP_MAX_RECS)
 *   ACK           u64 records of the session now handed to the operating
 *                 system by the server (TCP sessions)
 *   LEAVE         u64 records the client shipped in the session
 *   LEAVE_ACK     u64 records written, u64 records found missing
 *
 * Over UDP, each batch is one datagram to the server's UDP port:
 *   off 0 u32 session id, off 4 u32 key, off 8 u64 offset of the first
 *   record, off 16 the records (at most ITG__LP_MAX_UDP_RECS)
 * so a gap in the offsets is the exact number of records lost.
 */
#ifndef ITG_LOG_PROTO_H
#define ITG_LOG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "itg/log.h"

#define ITG__LP_VERSION 1u
#define ITG__LP_HDR_LEN ITG__FRAME_HDR_LEN
#define ITG__LP_MAX_RECS 2048u
#define ITG__LP_MAX_BODY (8u + ITG__LP_MAX_RECS * ITG_LOG_RECORD_LEN)
#define ITG__LP_MAX_FRAME (ITG__LP_HDR_LEN + ITG__LP_MAX_BODY)
#define ITG__LP_MAX_FLOWS 256u
#define ITG__LP_TOKEN_MAX 64u   /* bytes of a token, NUL excluded */
#define ITG__LP_NAME_MAX 200u   /* bytes of a log name, NUL excluded */
#define ITG__LP_UDP_HDR 16u
/* Records a datagram holds: it stays below the IPv4 UDP limit. */
#define ITG__LP_MAX_UDP_RECS 2000u
#define ITG__LP_MAX_DGRAM (ITG__LP_UDP_HDR + ITG__LP_MAX_UDP_RECS * ITG_LOG_RECORD_LEN)

#define ITG__LP_TCP 0u
#define ITG__LP_UDP 1u

typedef enum itg__lp_type {
  ITG__LP_REGISTER = 1,
  ITG__LP_REGISTER_ACK = 2,
  ITG__LP_BATCH = 3,
  ITG__LP_ACK = 4,
  ITG__LP_LEAVE = 5,
  ITG__LP_LEAVE_ACK = 6
} itg__lp_type;

/* A decoded message; each type uses the fields named in its comment. */
typedef struct itg__lp_msg {
  itg__lp_type type;
  uint8_t transport;   /* REGISTER */
  uint8_t role;        /* REGISTER */
  uint16_t nflows;     /* REGISTER */
  uint32_t flows[ITG__LP_MAX_FLOWS];
  char token[ITG__LP_TOKEN_MAX + 1]; /* REGISTER */
  char host[32];       /* REGISTER: as in itg_log_hdr */
  char name[ITG__LP_NAME_MAX + 1];   /* REGISTER; REGISTER_ACK: text */
  int32_t status;      /* REGISTER_ACK */
  uint32_t session;    /* REGISTER_ACK */
  uint32_t key;        /* REGISTER_ACK */
  uint16_t udp_port;   /* REGISTER_ACK */
  uint64_t seq;        /* BATCH: first record's offset; ACK, LEAVE: count;
                          LEAVE_ACK: written */
  uint64_t missing;    /* LEAVE_ACK */
  uint32_t nrecs;      /* BATCH: records at recs */
  const uint8_t *recs; /* BATCH: points into the decoded buffer */
} itg__lp_msg;

/* Clears m and sets its type. */
void itg__lp_init(itg__lp_msg *m, itg__lp_type type);

/* Writes m as one frame into buf[0..len); a BATCH takes its records from
 * recs[0..nrecs) of `batch` (m->recs is ignored when batch is given).
 * Returns the frame length, ITG_ETRUNC if it does not fit, or ITG_EINVAL
 * (unknown type, a field too long, too many flows or records). */
int itg__lp_encode(const itg__lp_msg *m, const itg_logrec *batch, uint8_t *buf,
                   size_t len);

/* Reads one frame from the start of buf[0..len). Returns the frame length,
 * ITG_ETRUNC if buf holds only part of it, ITG_EVERSION, or ITG_EBADMSG
 * (unknown type, reserved bits, a body too long, malformed fields). */
int itg__lp_decode(const uint8_t *buf, size_t len, itg__lp_msg *out);

/* Takes the next whole message out of a stream read through r into
 * buf[0..cap) (cap at least ITG__LP_MAX_FRAME). Returns 1 with *out
 * filled (a BATCH's records point into buf), 0 if more bytes are needed,
 * or a decode error (the stream is then unusable). */
int itg__lp_next(itg__frame_reader *r, uint8_t *buf, size_t cap,
                 itg__lp_msg *out);

/* Writes a UDP batch datagram into buf (room for ITG__LP_MAX_DGRAM).
 * Returns its length. n is at most ITG__LP_MAX_UDP_RECS. */
size_t itg__lp_dgram_encode(uint32_t session, uint32_t key, uint64_t seq,
                            const itg_logrec *recs, size_t n, uint8_t *buf);

/* Reads a UDP batch datagram's header. Returns the record count, or
 * ITG_EBADMSG (too short, not a whole number of records). */
int itg__lp_dgram_decode(const uint8_t *buf, size_t len, uint32_t *session,
                         uint32_t *key, uint64_t *seq);

/* The ending of spill files' names, which no client's name may have. */
#define ITG__LP_SPILL_SUFFIX ".spill"

/* Returns 1 if a client's log name may be used as a file name in the
 * server's directory: not empty, at most ITG__LP_NAME_MAX bytes, no '/',
 * '\\', ':' or control character, not starting with '.', no "..", not
 * ending in ITG__LP_SPILL_SUFFIX. */
int itg__lp_name_ok(const char *name);

#endif
