/* D-ITG's signaling stream as either side reads it from its peer:
 * messages taken one after another off the input by itg__ditg_decode, and
 * by the reader both sides use, fed as much as it has room for. Each one
 * that decodes has a length within what was read, a known type, and
 * encodes to a message that decodes back to the same fields; the reader
 * takes the same messages and stops where the decoder does; the first
 * bytes are judged without reading past them. */
#include <string.h>

#include "engine/ditg_sig.h"
#include "fuzz.h"

static void same(const itg__ditg_msg *a, const itg__ditg_msg *b) {
  FUZZ_CHECK(a->type == b->type && a->flow_id == b->flow_id &&
             a->port == b->port && a->l4 == b->l4 && a->l7 == b->l7 &&
             a->meter == b->meter && a->ds == b->ds && a->l3 == b->l3 &&
             a->payload == b->payload && a->family == b->family &&
             a->log_transport == b->log_transport &&
             a->addr_len == b->addr_len &&
             memcmp(a->addr, b->addr, sizeof a->addr) == 0 &&
             strcmp(a->serial, b->serial) == 0 &&
             strcmp(a->name, b->name) == 0);
}

/* The reader's next message, fed from data[*fed..size) as it asks. */
static int reader_next(itg__ditg_reader *r, const uint8_t *data, size_t size,
                       size_t *fed, itg__ditg_msg *out) {
  int rc;
  while ((rc = itg__ditg_reader_next(r, out)) == 0 && *fed < size) {
    size_t room, take;
    uint8_t *p = itg__ditg_reader_space(r, &room);
    FUZZ_CHECK(room > 0);
    take = room < size - *fed ? room : size - *fed;
    memcpy(p, data + *fed, take);
    itg__ditg_reader_commit(r, take);
    *fed += take;
  }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static itg__ditg_reader r;
  size_t off = 0, fed = 0;
  (void)itg__ditg_sniff(data, size);
  memset(&r, 0, sizeof r);
  for (;;) {
    static uint8_t buf[ITG__DITG_MAX_MSG];
    itg__ditg_msg m, again, got;
    int n = itg__ditg_decode(data + off, size - off, &m), k;
    int rc = reader_next(&r, data, size, &fed, &got);
    if (n < 0) {
      /* truncated or malformed: the receiver stops here too */
      FUZZ_CHECK(rc == (n == ITG_ETRUNC ? 0 : n));
      return 0;
    }
    FUZZ_CHECK(n > 0 && (size_t)n <= size - off &&
               (size_t)n <= ITG__DITG_MAX_MSG);
    FUZZ_CHECK(rc == 1);
    same(&m, &got);
    FUZZ_CHECK(itg__ditg_type_name(m.type)[0] != '?');
    k = itg__ditg_encode(&m, buf, sizeof buf);
    FUZZ_CHECK(k == n);
    FUZZ_CHECK(itg__ditg_decode(buf, (size_t)k, &again) == k);
    same(&m, &again);
    off += (size_t)n;
  }
}
