/* D-ITG 2.8.1's signaling (TSP), as ITGSend and ITGRecv speak it, spoken
 * by libitg to interoperate with D-ITG's programs: a libitg receiver whose
 * sender is ITGSend (engine/receiver_sig.c), and a libitg sender whose
 * receiver is ITGRecv (itg_flow_cfg.peer ITG_PEER_DITG). Its messages'
 * bytes, in one place for both sides, and one reader cutting either
 * side's stream into messages.
 *
 * One TCP connection to the receiver's signaling port (9000 by default).
 * Every message is a one-byte type followed by a body whose length the
 * type (and, for some, a byte of the body) fixes: there is no length
 * field, no version and no padding. D-ITG reads each field with its own
 * recv(), so a message must go out in one piece (it would misread one
 * split across its reads). Byte order: flow ids, ACK_SEND_FLOW's port and
 * SEND_FLOW_LOG's family are big endian; SEND_FLOW's port is little
 * endian (ITGSend writes htons() of a port already in network order,
 * which ITGRecv undoes with ntohs(): the bytes travel in the host order of
 * the little-endian machines D-ITG runs on); addresses and SEND_FLOW_LOG's
 * port are in network order.
 *
 * Sender to receiver:
 *   CONNECT 1, RELEASE 11 (ends the connection), ACK_DISCOVERY 9 (the
 *   answer to DISCOVERY): no body
 *   SEND_FLOW 3      u8 l4 proto (1 TCP, 2 UDP, 3 ICMP, 4 SCTP, 5 DCCP),
 *                    u8 l7 proto (0: none), u8 meter (1 one-way, 2 round
 *                    trip), u8 DS byte, u8 l3 proto (4 or 6), u32 flow id,
 *                    u8 payload type (0 standard: the full 16-byte header;
 *                    1 short, 2 none), 10 bytes serial interface name
 *                    (ITGSend's "noSerial", NUL padded), u16 data port to
 *                    open (0: any), then the address to open it on: 4
 *                    bytes (l3 4) or 16 (l3 6): 27 or 39 bytes in all.
 *                    (ITGSend's passive mode, -H, adds 3 bytes that nothing
 *                    on the wire announces: not spoken here.)
 *   CLOSED_FLOW 4, CLOSED_ERR 17 (the sender's flow failed): u32 flow id
 *   SEND_NAME_LOG 19 200 bytes: the receiver log's name, NUL-terminated
 *   SEND_FLOW_LOG 12 u32 address family (the sender's AF_INET or AF_INET6,
 *                    whose value differs between systems), the log
 *                    server's address (4 or 16 bytes) and port, u8
 *                    transport, 200 bytes log name
 * Receiver to sender:
 *   ACK_CONNECT 2, ACK_RELEASE 7, ACK_SEND_FLOW_LOG 13, ACK_SEND_NAME_LOG
 *   18, ERR_MSG_4 21 (the log asked for cannot be had), DISCOVERY 8 (a
 *   keep-alive after 100 s of silence: two unanswered end the
 *   connection): no body
 *   ACK_SEND_FLOW 5  u32 flow id, u16 data port opened (ITGSend keeps the
 *                    port it asked for on 0, which ITGRecv sends only in
 *                    passive mode)
 *   ACK_CLOSED_FLOW 6, ERR_MSG_2 15 (the flow cannot be set up: its data
 *   port cannot be bound), ERR_MSG_3 16 (ICMP needs root on both sides),
 *   ERR_MSG_5 22 (the data socket failed): u32 flow id
 * D-ITG also numbers ERR_MSG_1 14 (ITGRecv takes it, with no body, for a
 * failed authentication) and SENDER_DOWN 20 (no body), which neither of
 * its programs sends: each side takes them as any message out of place.
 *
 * The conversation, on one connection per receiver address: CONNECT /
 * ACK_CONNECT; optionally SEND_NAME_LOG or SEND_FLOW_LOG, answered by its
 * ACK or ERR_MSG_4; per flow SEND_FLOW / ACK_SEND_FLOW (or an ERR_MSG),
 * data on the port opened, CLOSED_FLOW / ACK_CLOSED_FLOW (ITGRecv writes
 * the flow's log records, waits a second, then answers); RELEASE /
 * ACK_RELEASE, then the sender closes. Neither side tells the other what
 * it sent or received.
 */
#ifndef ITG_ENGINE_DITG_SIG_H
#define ITG_ENGINE_DITG_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "platform/platform.h"

#define ITG__DITG_SIG_PORT 9000u /* D-ITG's default signaling port */
#define ITG__DITG_NAME_LEN 200u  /* the name fields of the log messages */
#define ITG__DITG_SERIAL_LEN 10u /* SEND_FLOW's serial interface name */
/* SEND_FLOW_LOG's families as a Linux sender sends them (AF_INET,
 * AF_INET6); other systems' AF_INET6 are read too. */
#define ITG__DITG_FAMILY_INET 2u
#define ITG__DITG_FAMILY_INET6 10u
/* ITGSend's receiver log name when -X names none. */
#define ITG__DITG_RECV_LOG "/tmp/ITGRecv.log"

/* The longest message: SEND_FLOW_LOG with an IPv6 address. */
#define ITG__DITG_MAX_MSG (1u + 4u + 16u + 2u + 1u + ITG__DITG_NAME_LEN)

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
  ITG__DITG_SEND_FLOW_LOG = 12,
  ITG__DITG_ACK_SEND_FLOW_LOG = 13,
  ITG__DITG_ERR_MSG_1 = 14,
  ITG__DITG_ERR_MSG_2 = 15, /* the flow cannot be set up */
  ITG__DITG_ERR_MSG_3 = 16, /* ICMP needs root on both sides */
  ITG__DITG_CLOSED_ERR = 17, /* the sender's flow failed */
  ITG__DITG_ACK_SEND_NAME_LOG = 18,
  ITG__DITG_SEND_NAME_LOG = 19,
  ITG__DITG_SENDER_DOWN = 20,
  ITG__DITG_ERR_MSG_4 = 21, /* the log asked for cannot be had */
  ITG__DITG_ERR_MSG_5 = 22  /* the flow's data socket failed */
} itg__ditg_type;

/* D-ITG's codes inside SEND_FLOW. */
#define ITG__DITG_L4_TCP 1u
#define ITG__DITG_L4_UDP 2u
#define ITG__DITG_L4_ICMP 3u
#define ITG__DITG_METER_OWDM 1u
#define ITG__DITG_METER_RTTM 2u
#define ITG__DITG_L3_IPV4 4u
#define ITG__DITG_L3_IPV6 6u
#define ITG__DITG_PAYLOAD_STANDARD 0u /* -p 0 */
#define ITG__DITG_PAYLOAD_SHORT 1u    /* -p 1 */
#define ITG__DITG_PAYLOAD_NONE 2u     /* -p 2 */

/* A message; each type uses the fields its description above names. */
typedef struct itg__ditg_msg {
  uint8_t type;
  uint8_t l4, l7, meter, ds, l3; /* SEND_FLOW */
  uint8_t payload;               /* SEND_FLOW */
  uint8_t addr_len;              /* SEND_FLOW, SEND_FLOW_LOG: 4 or 16 */
  uint8_t addr[16];              /* SEND_FLOW, SEND_FLOW_LOG */
  uint32_t flow_id;
  uint16_t port; /* SEND_FLOW: asked for; ACK_SEND_FLOW: opened;
                    SEND_FLOW_LOG: the log server's */
  uint32_t family;  /* SEND_FLOW_LOG, as sent */
  uint8_t log_transport; /* SEND_FLOW_LOG */
  char serial[ITG__DITG_SERIAL_LEN + 1];  /* SEND_FLOW */
  char name[ITG__DITG_NAME_LEN + 1];      /* SEND_NAME_LOG, SEND_FLOW_LOG */
} itg__ditg_msg;

/* What a connection's first bytes say (itg__ditg_sniff). */
typedef enum itg__ditg_guess {
  ITG__DITG_NOT = 0,   /* not D-ITG: another protocol, or nothing known */
  ITG__DITG_MAYBE = 1, /* D-ITG's CONNECT alone so far: D-ITG if nothing
                          follows, since ITGSend waits for its answer */
  ITG__DITG_NONE = 2   /* no byte yet */
} itg__ditg_guess;

/* Judges the first len bytes a client sent before any answer. ITGSend's
 * first message is CONNECT, one byte, and it sends nothing more until it
 * is answered; so a first byte other than CONNECT, or any byte after it,
 * is not D-ITG. */
itg__ditg_guess itg__ditg_sniff(const uint8_t *buf, size_t len);

/* Clears m and sets its type. */
void itg__ditg_init(itg__ditg_msg *m, itg__ditg_type type);

/* Returns the message type's name ("SEND_FLOW"), or "?" if unknown. */
const char *itg__ditg_type_name(int type);

/* Writes m into buf[0..len). Returns the message's length, ITG_ETRUNC if
 * it does not fit, or ITG_EINVAL (unknown type, SEND_FLOW's l3 not 4 or 6,
 * SEND_FLOW_LOG's addr_len not 4 or 16, a name longer than 199 bytes). */
int itg__ditg_encode(const itg__ditg_msg *m, uint8_t *buf, size_t len);

/* Reads one message from the start of buf[0..len). Returns its length,
 * ITG_ETRUNC if buf holds only part of it, or ITG_EBADMSG (unknown type,
 * SEND_FLOW's l3 not 4 or 6, SEND_FLOW_LOG's family neither IPv4's nor an
 * IPv6 value of a system D-ITG runs on, a name without its NUL). */
int itg__ditg_decode(const uint8_t *buf, size_t len, itg__ditg_msg *out);

/* ---- reading a stream of messages (either side) ------------------------ */

/* Cuts a peer's byte stream into messages. All zero is empty. */
typedef struct itg__ditg_reader {
  itg__frame_reader fr;
  uint8_t buf[ITG__DITG_MAX_MSG];
} itg__ditg_reader;

/* Returns where the next bytes go and their room in *room (never 0 while
 * the reader holds no whole message: the longest fits). */
uint8_t *itg__ditg_reader_space(itg__ditg_reader *r, size_t *room);

/* Accounts for n bytes written at itg__ditg_reader_space. */
void itg__ditg_reader_commit(itg__ditg_reader *r, size_t n);

/* Takes the next whole message out: 1 with *out filled, 0 if more bytes
 * are needed, ITG_EBADMSG for a message itg__ditg_decode refuses (the
 * stream is then unusable). */
int itg__ditg_reader_next(itg__ditg_reader *r, itg__ditg_msg *out);

/* ---- blocking use over a platform socket (the sender's side) ---------- */

/* Sends m on a connected stream socket within timeout_ns, in one piece
 * as D-ITG needs it (itg__ctl_send_bytes: the few bytes of a message fit
 * any empty send buffer). Returns 0, ITG_ETIMEDOUT, the socket's error or
 * an encode error. */
int itg__ditg_send(itg__sock s, const itg__ditg_msg *m, int64_t timeout_ns);

/* Reads what the socket holds now into r. Returns the count (0 if none),
 * ITG_ECLOSED at the peer's close, or ITG_ESOCKET. */
int itg__ditg_fill(itg__sock s, itg__ditg_reader *r);

/* Waits at most timeout_ns for the next whole message. Returns 0 with
 * *out filled, ITG_ETIMEDOUT, ITG_ECLOSED, ITG_ESOCKET or ITG_EBADMSG. */
int itg__ditg_recv(itg__sock s, itg__ditg_reader *r, itg__ditg_msg *out,
                   int64_t timeout_ns);

#endif
