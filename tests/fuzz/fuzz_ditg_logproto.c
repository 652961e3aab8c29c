/* D-ITG's log-server protocol as itg-log reads it from a client
 * (log/ditg_proto.h): the first bytes judged, a request or a stop, the name
 * it asks for as the server turns it into a file's name, and the records
 * that follow, cut into 144-byte records off the rest. A request that
 * decodes encodes back to a request of the same fields, a name taken never
 * leaves the directory, and a record that decodes encodes back to the same
 * fields, within their ranges. */
#include <string.h>

#include "core/ditg_rec.h"
#include "log/ditg_proto.h"
#include "log/proto.h"
#include "fuzz.h"

static void request(const uint8_t *data, size_t size) {
  uint8_t buf[ITG__DLP_SIG_LEN];
  char name[ITG__LP_NAME_MAX + 1];
  itg__dlp_sig m, again;
  int n = itg__dlp_sig_decode(data, size, &m);
  if (n < 0) {
    FUZZ_CHECK(n == (size < ITG__DLP_SIG_LEN ? ITG_ETRUNC : ITG_EBADMSG));
    return;
  }
  FUZZ_CHECK(n == ITG__DLP_SIG_LEN && (m.stop == 0 || m.stop == 1));
  itg__dlp_sig_encode(&m, buf);
  FUZZ_CHECK(itg__dlp_sig_decode(buf, sizeof buf, &again) == n);
  FUZZ_CHECK(again.stop == m.stop && again.transport == m.transport &&
             strcmp(again.name, m.name) == 0);
  if (m.stop == 0 && itg__dlp_file_name(m.name, name, sizeof name) == 0)
    FUZZ_CHECK(itg__lp_name_ok(name) && strchr(name, '/') == NULL &&
               strchr(name, '\\') == NULL);
}

static void records(const uint8_t *data, size_t size) {
  uint8_t buf[ITG_DITG_RECORD_LEN];
  size_t at;
  for (at = 0; at + ITG_DITG_RECORD_LEN <= size; at += ITG_DITG_RECORD_LEN) {
    itg__ditg_rec r, again;
    if (itg__ditg_rec_decode_wire(data + at, &r) != 0)
      continue;
    FUZZ_CHECK(r.tx_tod_ns >= 0 && r.tx_tod_ns < ITG__DAY_NS &&
               r.rx_tod_ns >= 0 && r.rx_tod_ns < ITG__DAY_NS);
    itg__ditg_rec_encode_wire(&r, buf);
    FUZZ_CHECK(itg__ditg_rec_decode_wire(buf, &again) == 0 &&
               memcmp(&r, &again, sizeof r) == 0);
    /* and as the server writes it, a D-ITG log record */
    itg__ditg_rec_encode(&r, buf);
    FUZZ_CHECK(itg__ditg_rec_decode(buf, &again) == 0 &&
               again.flow_id == r.flow_id && again.seq == r.seq &&
               again.size == r.size && again.src_port == r.src_port &&
               strcmp(again.src_addr, r.src_addr) == 0 &&
               strcmp(again.dst_addr, r.dst_addr) == 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int sniff = itg__dlp_sniff(data, size);
  FUZZ_CHECK(size < 2 ? sniff == ITG_ETRUNC : (sniff == 0 || sniff == 1));
  request(data, size);
  if (size > ITG__DLP_SIG_LEN)
    records(data + ITG__DLP_SIG_LEN, size - ITG__DLP_SIG_LEN);
  records(data, size);
  return 0;
}
