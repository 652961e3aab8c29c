/* The signaling protocol between a sender and a receiver.
 *
 * One TCP connection per flow, to the receiver's signaling port. Every
 * message is a frame (core/frame.h): an 8-byte header followed by a body,
 * big endian, written and read byte by byte:
 *   off 0  u8  message type (ITG__CTL_*)
 *   off 1  u8  protocol version (ITG__CTL_VERSION)
 *   off 2  u16 reserved, 0
 *   off 4  u32 body length (at most ITG__CTL_MAX_BODY)
 * Text fields are a u16 length followed by that many bytes (no NUL inside).
 *
 * Bodies:
 *   HELLO           u16 version spoken, text software name
 *   HELLO_ACK       i32 status (0 or ITG_EVERSION), u16 version, text
 *                   software name
 *   FLOW_OPEN       u32 flow id, u8 id chosen by the sender (1) or by the
 *                   user (0), u8 proto, u8 meter, u8 wire profile, u16 data
 *                   port asked for (0: any), u16 sender's data source port,
 *                   i16 DS byte (-1: default), i16 TTL (-1: default), text
 *                   receiver log name ("" for the default log), then,
 *                   only when the receiver is to ship the log to a log
 *                   server: u8 transport (itg_log_transport), u16 port
 *                   (1-65535), text server host (not empty; the log name
 *                   is then the one asked of the server, "" for the
 *                   server's choice). A body without these last fields
 *                   is a flow logged locally, as before they existed.
 *   FLOW_OPEN_ACK   i32 status (0 or ITG_E*), u32 flow id to use, u16 data
 *                   port opened, text message (with status 0: "", or a
 *                   note for the sender's user, such as a log server the
 *                   receiver cannot reach), u64 flow token (status 0:
 *                   random and not 0, carried by every NATIVE data packet
 *                   of the flow, see itg/wire.h; otherwise 0)
 *   FLOW_CLOSE      u64 packets sent, u64 bytes sent
 *   FLOW_CLOSE_ACK  u64 packets received, u64 bytes received
 *   ERROR           i32 code (ITG_E*), text message
 *
 * The conversation: HELLO / HELLO_ACK, FLOW_OPEN / FLOW_OPEN_ACK, then data
 * on the data port, then FLOW_CLOSE / FLOW_CLOSE_ACK, then the sender
 * closes. A malformed frame ends its connection (and so its flow) only.
 */
#ifndef ITG_ENGINE_CONTROL_H
#define ITG_ENGINE_CONTROL_H

#include "core/frame.h"
#include "itg/flow.h"
#include "platform/platform.h"

/* Version 2 added the flow token. Every frame carries the version, and a
 * frame of another version does not decode: peers of different versions
 * part at their first message, each with ITG_EVERSION. */
#define ITG__CTL_VERSION 2u
#define ITG__CTL_HDR_LEN ITG__FRAME_HDR_LEN
#define ITG__CTL_MAX_BODY 4096u
#define ITG__CTL_MAX_FRAME (ITG__CTL_HDR_LEN + ITG__CTL_MAX_BODY)
/* Room for a text field and its NUL. */
#define ITG__CTL_TEXT_MAX ITG_PATH_MAX

typedef enum itg__ctl_type {
  ITG__CTL_HELLO = 1,
  ITG__CTL_HELLO_ACK = 2,
  ITG__CTL_FLOW_OPEN = 3,
  ITG__CTL_FLOW_OPEN_ACK = 4,
  ITG__CTL_FLOW_CLOSE = 5,
  ITG__CTL_FLOW_CLOSE_ACK = 6,
  ITG__CTL_ERROR = 7
} itg__ctl_type;

/* A decoded message; each type uses the fields named in its comment. */
typedef struct itg__ctl_msg {
  itg__ctl_type type;
  int32_t status;    /* HELLO_ACK, FLOW_OPEN_ACK, ERROR */
  uint16_t version;  /* HELLO, HELLO_ACK */
  uint32_t flow_id;  /* FLOW_OPEN, FLOW_OPEN_ACK */
  uint8_t id_auto;   /* FLOW_OPEN */
  uint8_t proto;     /* FLOW_OPEN: itg_proto */
  uint8_t meter;     /* FLOW_OPEN: itg_meter */
  uint8_t wire;      /* FLOW_OPEN: itg_wire_profile */
  uint16_t port;     /* FLOW_OPEN: asked for; FLOW_OPEN_ACK: opened */
  uint16_t src_port; /* FLOW_OPEN */
  int16_t tos;       /* FLOW_OPEN */
  int16_t ttl;       /* FLOW_OPEN */
  uint64_t packets;  /* FLOW_CLOSE, FLOW_CLOSE_ACK */
  uint64_t bytes;    /* FLOW_CLOSE, FLOW_CLOSE_ACK */
  uint64_t token;    /* FLOW_OPEN_ACK */
  char text[ITG__CTL_TEXT_MAX]; /* HELLO*, FLOW_OPEN, FLOW_OPEN_ACK, ERROR */
  char log_host[ITG_HOST_MAX]; /* FLOW_OPEN: log server, "" for none */
  uint16_t log_port;           /* FLOW_OPEN, with log_host */
  uint8_t log_transport;       /* FLOW_OPEN, with log_host */
  uint8_t log_kind;            /* FLOW_OPEN, with log_host: its protocol
                                  (itg_log_server_kind); never on the
                                  wire: D-ITG's signaling asks for
                                  ITG_LOG_SERVER_DITG */
  uint8_t ditg;                /* FLOW_OPEN: asked over D-ITG's signaling,
                                  whose ICMP messages leave their
                                  identifier unset; never on the wire */
} itg__ctl_msg;

/* Clears m and sets its type. */
void itg__ctl_init(itg__ctl_msg *m, itg__ctl_type type);

/* Returns the message type's name ("FLOW_OPEN"), or "?" if unknown. */
const char *itg__ctl_type_name(int type);

/* Writes m as one frame into buf[0..len). Returns the frame length,
 * ITG_ETRUNC if it does not fit, or ITG_EINVAL (unknown type, text or
 * log_host too long). */
int itg__ctl_encode(const itg__ctl_msg *m, uint8_t *buf, size_t len);

/* Reads one frame from the start of buf[0..len). Returns the frame length
 * consumed, ITG_ETRUNC if buf holds only part of a frame, ITG_EVERSION for
 * another protocol version, or ITG_EBADMSG (unknown type, reserved bits
 * set, body too long, a field out of range, trailing bytes). */
int itg__ctl_decode(const uint8_t *buf, size_t len, itg__ctl_msg *out);

/* Cuts a byte stream into frames: bytes go in through space/commit and
 * whole messages come out of next. */
typedef struct itg__ctl_reader {
  itg__frame_reader fr;
  uint8_t buf[ITG__CTL_MAX_FRAME];
} itg__ctl_reader;

/* Returns where the next bytes go and their room in *room (never 0 while
 * the reader holds no whole frame). */
uint8_t *itg__ctl_reader_space(itg__ctl_reader *r, size_t *room);

/* Accounts for n bytes written at itg__ctl_reader_space. */
void itg__ctl_reader_commit(itg__ctl_reader *r, size_t n);

/* Takes the next whole message out. Returns 1 with *out filled, 0 if more
 * bytes are needed, or a decode error (the stream is then unusable; a
 * header that cannot start a message is refused before its body comes). */
int itg__ctl_reader_next(itg__ctl_reader *r, itg__ctl_msg *out);

/* ---- blocking use over a platform socket (the sender's side) ---------- */

/* Sends m on a connected stream socket within timeout_ns. Returns 0,
 * ITG_ETIMEDOUT, ITG_ESOCKET or an encode error. */
int itg__ctl_send(itg__sock s, const itg__ctl_msg *m, int64_t timeout_ns);

/* Sends buf[0..len) on a connected stream socket within timeout_ns.
 * Returns 0, ITG_ETIMEDOUT or the socket's error. */
int itg__ctl_send_bytes(itg__sock s, const uint8_t *buf, size_t len,
                        int64_t timeout_ns);

/* Where itg__recv_msg takes its messages from: next takes the next whole
 * message out of the reader into out (1), or says more bytes are needed
 * (0), or fails (< 0: the stream is unusable); fill reads what the socket
 * holds now into the reader (the count, 0 if none, or an error). */
typedef struct itg__msg_source {
  int (*next)(void *reader, void *out);
  int (*fill)(itg__sock s, void *reader);
} itg__msg_source;

/* Waits at most timeout_ns for the next whole message of a stream socket,
 * whatever its protocol's reader. Returns 0 with *out filled,
 * ITG_ETIMEDOUT, ITG_ECLOSED, ITG_ESOCKET or the reader's error. */
int itg__recv_msg(itg__sock s, const itg__msg_source *src, void *reader,
                  void *out, int64_t timeout_ns);

/* Reads the bytes the socket holds now into r. Returns the count (0 if
 * none), ITG_ECLOSED at the peer's orderly close, or ITG_ESOCKET. */
int itg__ctl_fill(itg__sock s, itg__ctl_reader *r);

/* Waits at most timeout_ns for the next whole message. Returns 0 with
 * *out filled, ITG_ETIMEDOUT, ITG_ECLOSED, ITG_ESOCKET or a decode error. */
int itg__ctl_recv(itg__sock s, itg__ctl_reader *r, itg__ctl_msg *out,
                  int64_t timeout_ns);

#endif
