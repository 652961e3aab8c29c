/* Log-server traffic as the server reads it from a client: the input as a
 * TCP frame, as frames cut from a stream that arrives in pieces, and as a UDP
 * batch datagram; a log name from a client as the server checks it. A
 * frame that decodes encodes back to the same bytes. */
#include <string.h>

#include "log/proto.h"
#include "fuzz.h"

static void roundtrip(const uint8_t *frame, int len, const itg__lp_msg *m) {
  static uint8_t buf[ITG__LP_MAX_FRAME];
  static itg_logrec recs[ITG__LP_MAX_RECS];
  const itg_logrec *batch = NULL;
  itg__lp_msg again;
  int n;
  if (m->type == ITG__LP_BATCH) {
    for (uint32_t i = 0; i < m->nrecs; i++)
      if (itg_logrec_decode(m->recs + (size_t)i * ITG_LOG_RECORD_LEN,
                            &recs[i]) != 0)
        return; /* the server checks records one by one when it writes */
    batch = recs;
  }
  n = itg__lp_encode(m, batch, buf, sizeof buf);
  FUZZ_CHECK(n == len && memcmp(buf, frame, (size_t)n) == 0);
  FUZZ_CHECK(itg__lp_decode(buf, (size_t)n, &again) == n);
}

/* The input as a stream read in pieces of `step` bytes, as a session
 * reads it. */
static void stream(const uint8_t *data, size_t size, size_t step) {
  static uint8_t buf[ITG__LP_MAX_FRAME];
  static itg__lp_msg m;
  itg__frame_reader r;
  size_t off = 0;
  itg__frame_reader_reset(&r);
  while (off < size) {
    size_t room, k;
    uint8_t *at = itg__frame_reader_space(&r, buf, sizeof buf, &room);
    int got;
    FUZZ_CHECK(room > 0); /* no whole frame is held between passes */
    k = size - off < step ? size - off : step;
    if (k > room)
      k = room;
    memcpy(at, data + off, k);
    itg__frame_reader_commit(&r, k);
    off += k;
    while ((got = itg__lp_next(&r, buf, sizeof buf, &m)) == 1)
      FUZZ_CHECK(r.start <= r.len && r.len <= sizeof buf);
    if (got < 0)
      return; /* the stream is unusable from here, as documented */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static itg__lp_msg m;
  static char name[ITG__LP_NAME_MAX + 2];
  uint32_t session, key;
  uint64_t seq;
  int n = itg__lp_decode(data, size, &m);
  if (n > 0) {
    FUZZ_CHECK((size_t)n <= size);
    roundtrip(data, n, &m);
  }
  stream(data, size, size > 0 ? (size_t)data[0] % 32 + 1 : 1);
  n = itg__lp_dgram_decode(data, size, &session, &key, &seq);
  if (n >= 0)
    FUZZ_CHECK(ITG__LP_UDP_HDR + (size_t)n * ITG_LOG_RECORD_LEN == size);
  n = size < sizeof name ? (int)size : (int)sizeof name - 1;
  memcpy(name, data, (size_t)n);
  name[n] = '\0';
  if (itg__lp_name_ok(name))
    FUZZ_CHECK(strchr(name, '/') == NULL && strstr(name, "..") == NULL &&
               name[0] != '.' && name[0] != '\0');
  return 0;
}
