/* D-ITG 2.8.1's signaling (TSP), as ITGSend and ITGRecv speak it, for a
 * libitg sender whose receiver is ITGRecv (itg_flow_cfg.peer ITG_PEER_DITG).
 *
 * One TCP connection to the receiver's signaling port (9000 by default).
 * A message is a one-byte type and a body whose length the type fixes;
 * there is no length field, no version and no padding, and ITGRecv reads
 * each field with its own recv(), so a message must go out in one piece
 * (ITGRecv would misread one split across its reads). Byte order: flow
 * ids and the port of ACK_SEND_FLOW are big endian; the port in SEND_FLOW
 * is little endian (ITGSend writes htons() of a port already in network
 * order, which ITGRecv undoes with ntohs(): the bytes travel in the host
 * order of the little-endian machines D-ITG runs on); addresses are in
 * network order.
 *
 * Sender to receiver (what a sender needs):
 *   CONNECT 1        (1 byte)
 *   SEND_FLOW 3      u8 l4 proto (TCP 1, UDP 2), u8 l7 proto (0: none),
 *                    u8 meter (one-way 1, round trip 2), u8 DS byte,
 *                    u8 l3 proto (4, 6), u32 flow id, u8 payload type
 *                    (0: the full 16-byte header), 10 bytes serial
 *                    interface name ("noSerial", NUL padded), u16 data
 *                    port to open (0: any), 4 or 16 bytes address to
 *                    bind it on: 27 bytes for IPv4, 39 for IPv6
 *   CLOSED_FLOW 4    u32 flow id (5 bytes)
 *   ACK_DISCOVERY 9  (1 byte), the answer to DISCOVERY
 *   RELEASE 11       (1 byte), ends the connection
 * Receiver to sender:
 *   ACK_CONNECT 2, ACK_RELEASE 7, DISCOVERY 8 (a keep-alive after 100 s
 *   of silence: two unanswered end the connection), ACK_SEND_FLOW_LOG 13,
 *   ACK_SEND_NAME_LOG 18, ERR_MSG_4 21 (the log name is refused): 1 byte;
 *   ACK_SEND_FLOW 5  u32 flow id, u16 data port opened (7 bytes)
 *   ACK_CLOSED_FLOW 6, ERR_MSG_2 15 (the data port cannot be bound),
 *   ERR_MSG_3 16 (ICMP needs root), ERR_MSG_5 22 (the data socket
 *   failed): u32 flow id (5 bytes)
 *
 * The conversation: CONNECT / ACK_CONNECT, SEND_FLOW / ACK_SEND_FLOW, data
 * on the port opened, CLOSED_FLOW / ACK_CLOSED_FLOW (ITGRecv writes the
 * flow's log records, waits a second, then answers), RELEASE /
 * ACK_RELEASE. ITGRecv tells nothing of what it received.
 */
#ifndef ITG_ENGINE_DITG_SIG_H
#define ITG_ENGINE_DITG_SIG_H

#include "core/frame.h"
#include "platform/platform.h"

typedef enum itg__ditg_type {
  ITG__DITG_CONNECT = 1,
  ITG__DITG_ACK_CONNECT = 2,
  ITG__DITG_SEND_FLOW = 3,
  ITG__DITG_CLOSED_FLOW = 4,
  ITG__DITG_ACK_SEND_FLOW = 5,
  ITG__DITG_ACK_CLOSED_FLOW = 6,
  ITG__DITG_ACK_RELEASE = 7,
  ITG__DITG_DISCOVERY = 8,
  ITG__DITG_ACK_DISCOVERY = 9,
  ITG__DITG_RELEASE = 11,
  ITG__DITG_ACK_SEND_FLOW_LOG = 13,
  ITG__DITG_ERR_MSG_2 = 15,
  ITG__DITG_ERR_MSG_3 = 16,
  ITG__DITG_ACK_SEND_NAME_LOG = 18,
  ITG__DITG_ERR_MSG_4 = 21,
  ITG__DITG_ERR_MSG_5 = 22
} itg__ditg_type;

/* D-ITG's codes inside SEND_FLOW. */
#define ITG__DITG_L4_TCP 1u
#define ITG__DITG_L4_UDP 2u
#define ITG__DITG_METER_OWDM 1u
#define ITG__DITG_METER_RTTM 2u
#define ITG__DITG_L3_IPV4 4u
#define ITG__DITG_L3_IPV6 6u
#define ITG__DITG_SERIAL_LEN 10u
/* The longest message either side sends (SEND_FLOW over IPv6). */
#define ITG__DITG_MAX_MSG 39u

/* What SEND_FLOW asks for. */
typedef struct itg__ditg_send_flow {
  uint8_t l4;       /* ITG__DITG_L4_* */
  uint8_t meter;    /* ITG__DITG_METER_* */
  uint8_t ds;       /* DS byte (0: ITGRecv leaves its socket's alone) */
  uint8_t l3;       /* ITG__DITG_L3_*: addr holds 4 or 16 bytes */
  uint32_t flow_id;
  uint16_t port;    /* data port to open, 0: any */
  uint8_t addr[16]; /* address to open it on, network order */
} itg__ditg_send_flow;

/* A message from the receiver: type, and the fields its type has. */
typedef struct itg__ditg_msg {
  uint8_t type;     /* itg__ditg_type */
  uint32_t flow_id; /* ACK_SEND_FLOW, ACK_CLOSED_FLOW, ERR_MSG_2/3/5 */
  uint16_t port;    /* ACK_SEND_FLOW */
} itg__ditg_msg;

/* Returns the message type's name ("SEND_FLOW"), or "?" if unknown. */
const char *itg__ditg_type_name(int type);

/* Each encoder writes its message into buf[0..len) and returns its
 * length, or ITG_ETRUNC if it does not fit (ITG_EINVAL: an l3 other than
 * 4 and 6). */
int itg__ditg_encode_connect(uint8_t *buf, size_t len);
int itg__ditg_encode_send_flow(const itg__ditg_send_flow *m, uint8_t *buf,
                               size_t len);
int itg__ditg_encode_closed_flow(uint32_t flow_id, uint8_t *buf, size_t len);
int itg__ditg_encode_ack_discovery(uint8_t *buf, size_t len);
int itg__ditg_encode_release(uint8_t *buf, size_t len);

/* Returns the whole length of a receiver's message of this type (type
 * byte included), or 0 for a type a receiver does not send. */
size_t itg__ditg_reply_len(int type);

/* Decode ACK_SEND_FLOW (7 bytes), and a message of a type carrying only a
 * flow id (ACK_CLOSED_FLOW, ERR_MSG_2, ERR_MSG_3, ERR_MSG_5: 5 bytes), from
 * the start of buf[0..len). Return the length read, ITG_ETRUNC if buf
 * holds less, or ITG_EBADMSG if the type byte is not the decoder's. */
int itg__ditg_decode_ack_send_flow(const uint8_t *buf, size_t len,
                                   itg__ditg_msg *out);
int itg__ditg_decode_flow_msg(const uint8_t *buf, size_t len,
                              itg__ditg_msg *out);

/* Cuts the receiver's byte stream into messages. All zero is empty. */
typedef struct itg__ditg_reader {
  itg__frame_reader fr;
  uint8_t buf[64];
} itg__ditg_reader;

/* Reads what the socket holds now into r. Returns the count (0 if none),
 * ITG_ECLOSED at the peer's close, or ITG_ESOCKET. */
int itg__ditg_fill(itg__sock s, itg__ditg_reader *r);

/* Takes the next whole message out: 1 with *out filled, 0 if more bytes
 * are needed, ITG_EBADMSG for a type a receiver does not send (the stream
 * is then unusable). */
int itg__ditg_reader_next(itg__ditg_reader *r, itg__ditg_msg *out);

/* (A message goes out with itg__ctl_send_bytes, engine/control.h: the
 * few bytes of one fit any empty send buffer, so they leave in one
 * piece.) */

/* Waits at most timeout_ns for the next whole message. Returns 0 with
 * *out filled, ITG_ETIMEDOUT, ITG_ECLOSED, ITG_ESOCKET or ITG_EBADMSG. */
int itg__ditg_recv(itg__sock s, itg__ditg_reader *r, itg__ditg_msg *out,
                   int64_t timeout_ns);

#endif
