/* The signaling stream as a receiver reads it from a peer: frames cut out
 * of the input fed in pieces (sizes from the input's first byte), and the
 * input decoded as one frame. A message that decodes encodes back to the
 * same frame. */
#include <string.h>

#include "engine/control.h"
#include "fuzz.h"

static void roundtrip(const uint8_t *frame, int len, const itg__ctl_msg *m) {
  static uint8_t buf[ITG__CTL_MAX_FRAME];
  itg__ctl_msg again;
  int n = itg__ctl_encode(m, buf, sizeof buf);
  FUZZ_CHECK(n == len && memcmp(buf, frame, (size_t)n) == 0);
  FUZZ_CHECK(itg__ctl_decode(buf, (size_t)n, &again) == n);
  FUZZ_CHECK(itg__ctl_type_name(m->type)[0] != '?');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static itg__ctl_reader r;
  itg__ctl_msg m;
  size_t step = size > 0 ? (size_t)data[0] % 32 + 1 : 1;
  size_t off = 0;
  int n = itg__ctl_decode(data, size, &m);
  if (n > 0) {
    FUZZ_CHECK((size_t)n <= size);
    roundtrip(data, n, &m);
  }
  itg__frame_reader_reset(&r.fr);
  while (off < size) {
    size_t room, k;
    uint8_t *at = itg__ctl_reader_space(&r, &room);
    int got;
    if (room == 0)
      return 0;
    k = size - off < step ? size - off : step;
    if (k > room)
      k = room;
    memcpy(at, data + off, k);
    itg__ctl_reader_commit(&r, k);
    off += k;
    while ((got = itg__ctl_reader_next(&r, &m)) == 1)
      ;
    if (got < 0)
      return 0; /* the stream is unusable from here, as documented */
  }
  return 0;
}
