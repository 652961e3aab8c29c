/* ICMP messages as a raw IPv4 socket reads them, and which of them belong
 * to a flow. */
#ifndef ITG_CORE_ICMP_H
#define ITG_CORE_ICMP_H

#include <stddef.h>
#include <stdint.h>

#define ITG__ICMP_HDR 8u /* type, code, checksum, identifier, sequence */

/* One message: its ICMP header, and what follows it. */
typedef struct itg__icmp_msg {
  uint8_t type, code;
  uint16_t ident, seq;
  size_t body_off; /* where the body starts in the datagram read: past
                      the IP and ICMP headers */

} itg__icmp_msg;

/* Reads buf[0..len), an IPv4 datagram carrying ICMP as a raw socket gives
 * it (the IP header first, of any length its IHL says). Returns 0 with
 * *out set, or ITG_EBADMSG: not IPv4, not ICMP,
 * cut short, or a wrong ICMP checksum. */
int itg__icmp_parse(const uint8_t *buf, size_t len, itg__icmp_msg *out);

/* Whether m, which names a flow in its body, is that flow's: of its type
 * (type < 0: not known yet, any) and carrying its identifier (ident < 0:
 * its sender leaves the identifier unset, as D-ITG's does). The kernel's
 * echo replies carry the same body and identifier as the requests they
 * answer, but not their type. */
int itg__icmp_of_flow(const itg__icmp_msg *m, int type, int ident);

#endif
