/* The remote control's messages as the agent reads them from a client
 * (core/remote_msg.c): the input cut into frames fed in pieces (sizes
 * from its first byte), before and after the proof (the two bounds on a
 * frame), each decoded; a START's lines parsed as the agent parses them
 * (itg_flow_parse_line); a STATUS_OK body read as the client reads it.
 * A message that decodes encodes back to the same frame. */
#include <stdlib.h>
#include <string.h>

#include "core/remote_msg.h"
#include "fuzz.h"
#include "itg.h"

static void lines_check(const itg__rm_msg *m, const uint8_t *frame, int len) {
  static char text[ITG_REMOTE_MAX_FLOWS][ITG_REMOTE_LINE_MAX + 1];
  static const char *lines[ITG_REMOTE_MAX_FLOWS];
  static uint8_t buf[ITG__FRAME_HDR_LEN + ITG__RM_MAX_REQUEST];
  const uint8_t *at = m->data;
  itg__rm_msg again = *m;
  for (uint32_t i = 0; i < m->n; i++) {
    itg_flow_cfg cfg;
    char err[256];
    itg__rm_line_next(&at, text[i]);
    lines[i] = text[i];
    itg_flow_cfg_init(&cfg);
    itg_flow_parse_line(&cfg, text[i], err, sizeof err);
  }
  FUZZ_CHECK(at == m->data + m->data_len);
  again.lines = lines;
  FUZZ_CHECK(itg__rm_encode(&again, buf, sizeof buf) == len &&
             memcmp(buf, frame, (size_t)len) == 0);
}

static void check(const uint8_t *frame, size_t size, uint32_t max_body) {
  static uint8_t buf[ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER];
  itg__rm_msg m;
  int n = itg__rm_decode(frame, size, max_body, &m);
  if (n <= 0)
    return;
  FUZZ_CHECK((size_t)n <= size);
  FUZZ_CHECK(itg__rm_type_name(m.type)[0] != '?');
  if (m.type == ITG__RM_START) {
    lines_check(&m, frame, n);
  } else if (m.type == ITG__RM_STATUS_OK) {
    itg_remote_status st;
    itg_flow_result *flows = NULL;
    itg_remote_rx_flow *rx = NULL;
    if (itg__rm_status_get(m.data, m.data_len, &st, &flows, &rx) == 0) {
      int len = itg__rm_status_put(buf, sizeof buf, &st, flows, st.flows, rx,
                                   st.rx_flows);
      FUZZ_CHECK(len == n && memcmp(buf, frame, (size_t)n) == 0);
      free(flows);
      free(rx);
    }
  } else {
    FUZZ_CHECK(itg__rm_encode(&m, buf, sizeof buf) == n &&
               memcmp(buf, frame, (size_t)n) == 0);
  }
}

/* The stream through a frame reader of the agent's size for max_body. */
static void stream(const uint8_t *data, size_t size, uint32_t max_body) {
  static uint8_t buf[ITG__FRAME_HDR_LEN + ITG__RM_MAX_REQUEST];
  size_t cap = ITG__FRAME_HDR_LEN + max_body;
  size_t step = size > 0 ? (size_t)data[0] % 32 + 1 : 1;
  itg__frame_reader r;
  size_t off = 0;
  itg__frame_reader_reset(&r);
  while (off < size) {
    size_t room, k;
    uint8_t *at = itg__frame_reader_space(&r, buf, cap, &room), *frame;
    int got;
    if (room == 0)
      return;
    k = size - off < step ? size - off : step;
    if (k > room)
      k = room;
    memcpy(at, data + off, k);
    itg__frame_reader_commit(&r, k);
    off += k;
    while ((got = itg__frame_reader_next(&r, buf, cap, itg__rm_measure,
                                         &max_body, &frame)) > 0)
      check(frame, (size_t)got, max_body);
    if (got < 0)
      return; /* the agent closes such a connection */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check(data, size, ITG__RM_MAX_ANSWER);
  stream(data, size, ITG__RM_MAX_AUTH_BODY);
  stream(data, size, ITG__RM_MAX_REQUEST);
  return 0;
}
