/* D-ITG's signaling stream as a receiver reads it from a peer claiming to
 * be ITGSend: messages taken one after another off the input, as the
 * receiver does. Each one that decodes has a length within what was
 * read, a known type, and encodes to a message that decodes back to the
 * same fields; the first bytes are judged without reading past them. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t off = 0;
  (void)itg__ditg_sniff(data, size);
  while (off < size) {
    static uint8_t buf[ITG__DITG_MAX_MSG];
    itg__ditg_msg m, again;
    int n = itg__ditg_decode(data + off, size - off, &m), k;
    if (n < 0)
      return 0; /* truncated or malformed: the receiver stops here too */
    FUZZ_CHECK(n > 0 && (size_t)n <= size - off &&
               (size_t)n <= ITG__DITG_MAX_MSG);
    FUZZ_CHECK(itg__ditg_type_name(m.type)[0] != '?');
    k = itg__ditg_encode(&m, buf, sizeof buf);
    FUZZ_CHECK(k == n);
    FUZZ_CHECK(itg__ditg_decode(buf, (size_t)k, &again) == k);
    same(&m, &again);
    off += (size_t)n;
  }
  return 0;
}
