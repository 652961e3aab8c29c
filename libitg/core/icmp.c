/* ICMP messages as a raw IPv4 socket reads them. */
#include "core/icmp.h"

#include "core/byteorder.h"
#include "core/checksum.h"
#include "itg/common.h"

#define IPV4_MIN_HDR 20u
#define IPPROTO_ICMP_NUM 1u

int itg__icmp_parse(const uint8_t *buf, size_t len, itg__icmp_msg *out) {
  size_t ihl;
  const uint8_t *m;
  if (len < IPV4_MIN_HDR || buf[0] >> 4 != 4 || buf[9] != IPPROTO_ICMP_NUM)
    return ITG_EBADMSG;
  ihl = (size_t)(buf[0] & 0x0f) * 4;
  if (ihl < IPV4_MIN_HDR || len < ihl + ITG__ICMP_HDR)
    return ITG_EBADMSG;
  m = buf + ihl;
  /* a whole message sums, its checksum included, to 0xffff: 0 here */
  if (itg__inet_checksum(m, len - ihl) != 0)
    return ITG_EBADMSG;
  out->type = m[0];
  out->code = m[1];
  out->ident = itg__get_be16(m + 4);
  out->seq = itg__get_be16(m + 6);
  out->body_off = ihl + ITG__ICMP_HDR;
  return 0;
}

int itg__icmp_of_flow(const itg__icmp_msg *m, int type, int ident) {
  return (type < 0 || m->type == type) && m->code == 0 &&
         (ident < 0 || m->ident == ident);
}
