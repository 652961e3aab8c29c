/* Data packets as a receiver meets them: each input is decoded as a UDP
 * datagram and as a TCP header under both wire profiles (native and
 * D-ITG), and cut into packets as a TCP stream, fed in pieces whose sizes
 * the input's first byte picks. A header that decodes encodes back to
 * one that decodes the same. */
#include <string.h>

#include "engine/deframe.h"
#include "fuzz.h"
#include "itg/wire.h"

static void decode_one(itg_wire_profile p, int tcp, const uint8_t *data,
                       size_t size) {
  itg_pkt_hdr h, again;
  static uint8_t buf[ITG_WIRE_MAX_PACKET];
  size_t len;
  int n = itg_wire_decode(p, tcp, data, size, &h);
  if (n < 0)
    return;
  FUZZ_CHECK((size_t)n <= size);
  /* Encoding writes the current version: an older one only decodes. */
  if (p == ITG_WIRE_NATIVE && h.version != ITG_WIRE_VERSION)
    return;
  FUZZ_CHECK((size_t)n == itg_wire_hdr_len(p, tcp));
  if (p == ITG_WIRE_DITG && !tcp)
    h.length = (uint32_t)n; /* a UDP decode gives no length: any will do */
  n = itg_wire_encode(p, tcp, &h, buf, sizeof buf);
  FUZZ_CHECK(n > 0);
  /* A native datagram is as long as its length field says. */
  len = p == ITG_WIRE_NATIVE && !tcp ? h.length : (size_t)n;
  FUZZ_CHECK(itg_wire_decode(p, tcp, buf, len, &again) == n);
  if (p == ITG_WIRE_DITG && !tcp)
    again.length = h.length;
  FUZZ_CHECK(h.flow_id == again.flow_id && h.seq == again.seq &&
             h.tx_ns == again.tx_ns && h.length == again.length &&
             h.flags == again.flags);
}

static void deframe(itg_wire_profile p, const uint8_t *data, size_t size) {
  static itg__deframe d;
  size_t step = size > 0 ? (size_t)data[0] % 64 + 1 : 1;
  size_t off = 0;
  itg__deframe_init(&d, p);
  while (off < size) {
    size_t room, n;
    uint8_t *at = itg__deframe_space(&d, &room), *pkt;
    itg_pkt_hdr h;
    int got;
    FUZZ_CHECK(room > 0);
    n = size - off < step ? size - off : step;
    if (n > room)
      n = room;
    memcpy(at, data + off, n);
    itg__deframe_commit(&d, n);
    off += n;
    while ((got = itg__deframe_next(&d, &h, &pkt)) > 0) {
      /* A version 1 native packet is framed too: its header is shorter. */
      size_t least = p == ITG_WIRE_NATIVE && h.version == 1
                         ? ITG_WIRE_NATIVE_V1_LEN
                         : itg_wire_hdr_len(p, 1);
      FUZZ_CHECK((size_t)got >= least && (size_t)got <= ITG_WIRE_MAX_PACKET);
    }
    if (got < 0)
      return; /* the stream is unusable from here, as documented */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const itg_wire_profile profiles[] = {ITG_WIRE_NATIVE, ITG_WIRE_DITG};
  for (size_t i = 0; i < 2; i++) {
    decode_one(profiles[i], 0, data, size);
    decode_one(profiles[i], 1, data, size);
    deframe(profiles[i], data, size);
  }
  return 0;
}
