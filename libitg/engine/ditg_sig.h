/* D-ITG 2.8.1's signaling (ITGSend and ITGRecv on TCP 9000), spoken by
 * libitg to interoperate with D-ITG's programs: its messages' bytes, in
 * one place for the receiver's side and the sender's.
 *
 * Every message is a one-byte type followed by a body whose length the
 * type (and, for some, a byte of the body) fixes; nothing frames it.
 * Fields are written and read byte by byte:
 *   CONNECT, ACK_CONNECT, RELEASE, ACK_RELEASE, DISCOVERY, ACK_DISCOVERY,
 *   ACK_SEND_FLOW_LOG, ACK_SEND_NAME_LOG, ERR_MSG_4: no body
 *   SEND_FLOW      u8 l4 proto (1 TCP, 2 UDP, 3 ICMP, 4 SCTP, 5 DCCP),
 *                  u8 l7 proto, u8 meter (1 one-way, 2 round trip), u8 DS
 *                  byte, u8 l3 proto (4 or 6), u32 flow id (big endian),
 *                  u8 payload type (0 standard, 1 short, 2 none), 10 bytes
 *                  serial interface name, u16 destination (data) port,
 *                  then the destination address: 4 bytes (l3 4) or 16
 *                  (l3 6), network order. ITGSend swaps the port twice
 *                  (htons of a port already in network order) and ITGRecv
 *                  swaps it back the same way: on the little-endian hosts
 *                  D-ITG runs on, it travels little endian.
 *                  (ITGSend's passive mode, -H, adds 3 bytes that nothing
 *                  on the wire announces: not spoken here.)
 *   CLOSED_FLOW, CLOSED_ERR, ACK_CLOSED_FLOW, ERR_MSG_1, ERR_MSG_2,
 *   ERR_MSG_3, ERR_MSG_5: u32 flow id (big endian)
 *   ACK_SEND_FLOW  u32 flow id, u16 data port opened (big endian; 0: the
 *                  one asked for)
 *   SEND_NAME_LOG  200 bytes: the receiver log's name, NUL-terminated
 *   SEND_FLOW_LOG  u32 address family (big endian: the sender's AF_INET
 *                  or AF_INET6, whose value differs between systems), the
 *                  log server's address (4 or 16 bytes) and port (network
 *                  order), u8 transport, 200 bytes log name
 *
 * The conversation, on one connection per receiver address: CONNECT /
 * ACK_CONNECT; optionally SEND_NAME_LOG or SEND_FLOW_LOG, answered by
 * its ACK or ERR_MSG_4; per flow SEND_FLOW / ACK_SEND_FLOW (or ERR_MSG_2,
 * the flow refused), data, CLOSED_FLOW / ACK_CLOSED_FLOW; RELEASE /
 * ACK_RELEASE, then the sender closes.
 */
#ifndef ITG_ENGINE_DITG_SIG_H
#define ITG_ENGINE_DITG_SIG_H

#include <stddef.h>
#include <stdint.h>

#define ITG__DITG_SIG_PORT 9000u /* D-ITG's default signaling port */
#define ITG__DITG_NAME_LEN 200u  /* the name fields of the log messages */
#define ITG__DITG_SERIAL_LEN 10u /* SEND_FLOW's serial interface name */
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
  ITG__DITG_ERR_MSG_5 = 22
} itg__ditg_type;

/* D-ITG's l4 protocols, meters and payload types (SEND_FLOW). */
#define ITG__DITG_L4_TCP 1u
#define ITG__DITG_L4_UDP 2u
#define ITG__DITG_METER_OWDM 1u
#define ITG__DITG_METER_RTTM 2u
#define ITG__DITG_PAYLOAD_STANDARD 0u

/* A decoded message; each type uses the fields its comment above names. */
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

#endif
