/* The packet wire format: what a data packet carries in its first bytes.
 *
 * Every field is written and read byte by byte in network byte order (big
 * endian), never through a struct cast, with bounds checked against the
 * buffer's length.
 *
 * NATIVE profile, 36 bytes (version 2):
 *   off 0  u32 flow id (first, as in D-ITG, so a capture that keeps only
 *              a packet's first payload bytes can still tell flows apart)
 *   off 4  u16 magic 0x4954 ("IT")
 *   off 6  u8  version (2)
 *   off 7  u8  flags (ITG_PKT_*)
 *   off 8  u64 sequence number (the first packet of a flow is 1)
 *   off 16 i64 send time, nanoseconds since the Unix epoch (UTC)
 *   off 24 u32 length of the whole packet in bytes, header included
 *              (lets a TCP receiver cut the byte stream into packets and a
 *              UDP receiver reject a datagram whose length disagrees)
 *   off 28 u64 flow token: a random number the receiver chose for this
 *              flow and gave its sender over signaling; a datagram that
 *              carries another is not the flow's, however well it copies
 *              the flow id and source address (off-path injection)
 * Version 1 is the same without the token (28 bytes); it still decodes,
 * with token 0, which no flow is given.
 *
 * DITG profile, the payload of D-ITG 2.8.1 with "-p 0", 16 bytes (20 over
 * TCP, which appends the u32 packet size):
 *   off 0  u32 flow id
 *   off 4  u32 sequence number
 *   off 8  u32 send time, whole seconds of the UTC day
 *   off 12 u32 send time, microseconds within that second
 *   off 16 u32 packet size (TCP only)
 * D-ITG's timestamps carry no date: encoding keeps the time of day of
 * tx_ns (taken modulo a day, so times before 1970 work too, and cut down to
 * the microsecond towards the past); decoding gives that time of day in
 * tx_ns, which itg_wire_ditg_unwrap places on the right day.
 * D-ITG's header has no room for a token: a DITG flow takes any datagram
 * that bears its flow id and comes from its sender's address, so anyone
 * who can forge that address can add packets to it.
 *
 * Test vectors shared by every language binding: tests/vectors/wire_*.txt.
 */
#ifndef ITG_WIRE_H
#define ITG_WIRE_H

#include "itg/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_WIRE_MAGIC 0x4954u
#define ITG_WIRE_VERSION 2u
#define ITG_WIRE_NATIVE_LEN 36u
#define ITG_WIRE_NATIVE_V1_LEN 28u
#define ITG_WIRE_DITG_LEN 16u
#define ITG_WIRE_DITG_TCP_LEN 20u
/* The largest packet libitg sends or accepts (the UDP payload limit). */
#define ITG_WIRE_MAX_PACKET 65507u

/* Packet flags (NATIVE profile). */
#define ITG_PKT_ECHO_REQUEST 0x01u /* round-trip meter: please echo me */
#define ITG_PKT_ECHO_REPLY 0x02u   /* this is an echo of a request */

typedef enum itg_wire_profile {
  ITG_WIRE_NATIVE = 0,
  ITG_WIRE_DITG = 1
} itg_wire_profile;

/* The fields of a packet header. */
typedef struct itg_pkt_hdr {
  uint8_t version; /* set by decode (DITG: 0); encode always writes
                      ITG_WIRE_VERSION */
  uint8_t flags;   /* passed through as they are; DITG: 0 */
  uint32_t flow_id;
  uint64_t seq;
  int64_t tx_ns;   /* DITG decode: ns since UTC midnight */
  uint32_t length; /* whole packet; DITG: only over TCP (0 from a UDP
                      decode, ignored by a UDP encode) */
  uint64_t token;  /* NATIVE: the flow's token (version 1 and DITG
                      decode: 0; ignored by a DITG encode) */
} itg_pkt_hdr;

/* Returns the length of the header encode writes for a profile (tcp != 0:
 * over TCP), or 0 for an unknown profile. */
ITG_API size_t itg_wire_hdr_len(itg_wire_profile profile, int tcp);

/* Writes h's fields into buf[0..len). The DITG profile keeps the low 32
 * bits of seq and the time of day of tx_ns. Returns the number of bytes
 * written; ITG_ETRUNC if len is smaller than the header; ITG_EINVAL for a
 * NULL pointer, an unknown profile, or a length field (NATIVE; DITG over
 * TCP) outside [header length, ITG_WIRE_MAX_PACKET] (checked before len).
 * Nothing past the header is written. */
ITG_API int itg_wire_encode(itg_wire_profile profile, int tcp,
                            const itg_pkt_hdr *h, uint8_t *buf, size_t len);

/* Reads a header from buf[0..len) into *out. Over UDP (tcp == 0) buf holds
 * the whole datagram; over TCP it holds at least the header. NATIVE reads
 * versions 1 and 2 (see above). Returns the header length (of the version
 * read), or:
 *   ITG_ETRUNC   len is smaller than the header, or (NATIVE over UDP)
 *                than the length field says: the datagram was cut short;
 *   ITG_EBADMSG  NATIVE: wrong magic; a length field outside
 *                [header length, ITG_WIRE_MAX_PACKET]; (UDP) a datagram
 *                longer than its length field. DITG: seconds >= 86400 or
 *                microseconds >= 1000000; (TCP) a size field outside
 *                [20, ITG_WIRE_MAX_PACKET];
 *   ITG_EVERSION NATIVE: a version other than 1 and ITG_WIRE_VERSION;
 *   ITG_EINVAL   a NULL pointer or an unknown profile.
 * The checks run in this order: buffer against the shortest header
 * (NATIVE: version 1's), magic, version, buffer against that version's
 * header, range of the length field, datagram against the length field;
 * so an input has one answer in every binding. *out is written only on
 * success. */
ITG_API int itg_wire_decode(itg_wire_profile profile, int tcp,
                            const uint8_t *buf, size_t len, itg_pkt_hdr *out);

/* Turns a D-ITG time of day (ns since UTC midnight, taken modulo a day)
 * into ns since the epoch, choosing the day that puts it nearest to ref_ns
 * (normally the receive time), so delays stay right across midnight in
 * either direction. Returns that instant, which lies in
 * [ref_ns - 12 h, ref_ns + 12 h) (a tie goes to the earlier day); if it
 * would fall outside the int64 range, the other neighbouring day. */
ITG_API int64_t itg_wire_ditg_unwrap(int64_t tod_ns, int64_t ref_ns);

#ifdef __cplusplus
}
#endif
#endif
