/* Packet headers on the wire, NATIVE and DITG profiles (see itg/wire.h). */
#include "itg/wire.h"

#include "core/byteorder.h"

#define ITG__DAY_NS (86400LL * 1000000000LL)
#define ITG__HALF_DAY_NS (ITG__DAY_NS / 2)

/* x modulo m in [0, m), for negative x too (C's % truncates towards 0). */
static int64_t floor_mod(int64_t x, int64_t m) {
  int64_t r = x % m;
  return r < 0 ? r + m : r;
}

size_t itg_wire_hdr_len(itg_wire_profile profile, int tcp) {
  switch (profile) {
  case ITG_WIRE_NATIVE:
    return ITG_WIRE_NATIVE_LEN;
  case ITG_WIRE_DITG:
    return tcp ? ITG_WIRE_DITG_TCP_LEN : ITG_WIRE_DITG_LEN;
  }
  return 0;
}

/* A length field is sane if the packet can hold its header and fits the
 * largest packet we send or accept. */
static int length_ok(uint32_t length, size_t hdr_len) {
  return length >= hdr_len && length <= ITG_WIRE_MAX_PACKET;
}

static void encode_native(const itg_pkt_hdr *h, uint8_t *buf) {
  itg__put_be32(buf, h->flow_id);
  itg__put_be16(buf + 4, ITG_WIRE_MAGIC);
  buf[6] = ITG_WIRE_VERSION;
  buf[7] = h->flags;
  itg__put_be64(buf + 8, h->seq);
  itg__put_be64(buf + 16, (uint64_t)h->tx_ns);
  itg__put_be32(buf + 24, h->length);
  itg__put_be64(buf + 28, h->token);
}

static void encode_ditg(const itg_pkt_hdr *h, int tcp, uint8_t *buf) {
  int64_t tod = floor_mod(h->tx_ns, ITG__DAY_NS);
  itg__put_be32(buf, h->flow_id);
  itg__put_be32(buf + 4, (uint32_t)h->seq);
  itg__put_be32(buf + 8, (uint32_t)(tod / 1000000000));
  itg__put_be32(buf + 12, (uint32_t)(tod % 1000000000 / 1000));
  if (tcp)
    itg__put_be32(buf + 16, h->length);
}

int itg_wire_encode(itg_wire_profile profile, int tcp, const itg_pkt_hdr *h,
                    uint8_t *buf, size_t len) {
  size_t hl = itg_wire_hdr_len(profile, tcp);
  if (h == NULL || buf == NULL || hl == 0)
    return ITG_EINVAL;
  if ((profile == ITG_WIRE_NATIVE || tcp) && !length_ok(h->length, hl))
    return ITG_EINVAL;
  if (len < hl)
    return ITG_ETRUNC;
  if (profile == ITG_WIRE_NATIVE)
    encode_native(h, buf);
  else
    encode_ditg(h, tcp, buf);
  return (int)hl;
}

static int decode_native(int tcp, const uint8_t *buf, size_t len,
                         itg_pkt_hdr *out) {
  size_t hl;
  uint32_t length;
  if (len < ITG_WIRE_NATIVE_V1_LEN)
    return ITG_ETRUNC;
  if (itg__get_be16(buf + 4) != ITG_WIRE_MAGIC)
    return ITG_EBADMSG;
  if (buf[6] == 1)
    hl = ITG_WIRE_NATIVE_V1_LEN;
  else if (buf[6] == ITG_WIRE_VERSION)
    hl = ITG_WIRE_NATIVE_LEN;
  else
    return ITG_EVERSION;
  if (len < hl)
    return ITG_ETRUNC;
  length = itg__get_be32(buf + 24);
  if (!length_ok(length, hl))
    return ITG_EBADMSG;
  if (!tcp && len < length)
    return ITG_ETRUNC;
  if (!tcp && len > length)
    return ITG_EBADMSG;
  out->version = buf[6];
  out->flags = buf[7];
  out->flow_id = itg__get_be32(buf);
  out->seq = itg__get_be64(buf + 8);
  out->tx_ns = (int64_t)itg__get_be64(buf + 16);
  out->length = length;
  out->token = hl == ITG_WIRE_NATIVE_LEN ? itg__get_be64(buf + 28) : 0;
  return (int)hl;
}

static int decode_ditg(int tcp, const uint8_t *buf, size_t len,
                       itg_pkt_hdr *out) {
  size_t hl = tcp ? ITG_WIRE_DITG_TCP_LEN : ITG_WIRE_DITG_LEN;
  uint32_t sec, usec, length = 0;
  if (len < hl)
    return ITG_ETRUNC;
  sec = itg__get_be32(buf + 8);
  usec = itg__get_be32(buf + 12);
  if (sec >= 86400 || usec >= 1000000)
    return ITG_EBADMSG;
  if (tcp) {
    length = itg__get_be32(buf + 16);
    if (!length_ok(length, hl))
      return ITG_EBADMSG;
  }
  out->version = 0;
  out->flags = 0;
  out->flow_id = itg__get_be32(buf);
  out->seq = itg__get_be32(buf + 4);
  out->tx_ns = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
  out->length = length;
  out->token = 0;
  return (int)hl;
}

int itg_wire_decode(itg_wire_profile profile, int tcp, const uint8_t *buf,
                    size_t len, itg_pkt_hdr *out) {
  if (buf == NULL || out == NULL)
    return ITG_EINVAL;
  switch (profile) {
  case ITG_WIRE_NATIVE:
    return decode_native(tcp, buf, len, out);
  case ITG_WIRE_DITG:
    return decode_ditg(tcp, buf, len, out);
  }
  return ITG_EINVAL;
}

int64_t itg_wire_ditg_unwrap(int64_t tod_ns, int64_t ref_ns) {
  /* diff moves ref_ns to the wanted time of day; both terms lie in
   * [0, day), so it cannot overflow, and it is then brought into
   * [-half day, +half day). */
  int64_t diff =
      floor_mod(tod_ns, ITG__DAY_NS) - floor_mod(ref_ns, ITG__DAY_NS);
  if (diff >= ITG__HALF_DAY_NS)
    diff -= ITG__DAY_NS;
  else if (diff < -ITG__HALF_DAY_NS)
    diff += ITG__DAY_NS;
  if (diff > 0 && ref_ns > INT64_MAX - diff)
    diff -= ITG__DAY_NS;
  else if (diff < 0 && ref_ns < INT64_MIN - diff)
    diff += ITG__DAY_NS;
  return ref_ns + diff;
}
