/* The log-server protocol's frames and datagrams (see log/proto.h). */
#include "log/proto.h"

#include <string.h>

#include "core/byteorder.h"
#include "core/cursor.h"

void itg__lp_init(itg__lp_msg *m, itg__lp_type type) {
  memset(m, 0, sizeof *m);
  m->type = type;
}

int itg__lp_encode(const itg__lp_msg *m, const itg_logrec *batch, uint8_t *buf,
                   size_t len) {
  itg__wcur w = {buf, len, ITG__LP_HDR_LEN, 0};
  size_t body;
  uint32_t i;
  if (len < ITG__LP_HDR_LEN)
    return ITG_ETRUNC;
  switch (m->type) {
  case ITG__LP_REGISTER:
    if (m->nflows > ITG__LP_MAX_FLOWS ||
        strnlen(m->token, sizeof m->token) > ITG__LP_TOKEN_MAX ||
        strnlen(m->host, sizeof m->host) >= sizeof m->host ||
        strnlen(m->name, sizeof m->name) > ITG__LP_NAME_MAX)
      return ITG_EINVAL;
    itg__wcur_u8(&w, m->transport);
    itg__wcur_u8(&w, m->role);
    itg__wcur_u16(&w, m->nflows);
    for (i = 0; i < m->nflows; i++)
      itg__wcur_u32(&w, m->flows[i]);
    itg__wcur_text(&w, m->token);
    itg__wcur_text(&w, m->host);
    itg__wcur_text(&w, m->name);
    break;
  case ITG__LP_REGISTER_ACK:
    if (strnlen(m->name, sizeof m->name) > ITG__LP_NAME_MAX)
      return ITG_EINVAL;
    itg__wcur_u32(&w, (uint32_t)m->status);
    itg__wcur_u32(&w, m->session);
    itg__wcur_u32(&w, m->key);
    itg__wcur_u16(&w, m->udp_port);
    itg__wcur_text(&w, m->name);
    break;
  case ITG__LP_BATCH:
    if (m->nrecs > ITG__LP_MAX_RECS || (batch == NULL && m->nrecs > 0))
      return ITG_EINVAL;
    itg__wcur_u64(&w, m->seq);
    for (i = 0; i < m->nrecs; i++) {
      uint8_t *p = itg__wcur_room(&w, ITG_LOG_RECORD_LEN);
      if (p != NULL)
        itg_logrec_encode(&batch[i], p);
    }
    break;
  case ITG__LP_ACK:
  case ITG__LP_LEAVE:
    itg__wcur_u64(&w, m->seq);
    break;
  case ITG__LP_LEAVE_ACK:
    itg__wcur_u64(&w, m->seq);
    itg__wcur_u64(&w, m->missing);
    break;
  default:
    return ITG_EINVAL;
  }
  if (w.bad)
    return ITG_ETRUNC;
  body = w.at - ITG__LP_HDR_LEN;
  itg__frame_hdr_put(buf, (uint8_t)m->type, ITG__LP_VERSION, (uint32_t)body);
  return (int)w.at;
}

int itg__lp_decode(const uint8_t *buf, size_t len, itg__lp_msg *out) {
  itg__frame_hdr h;
  itg__rcur r;
  uint32_t body, i;
  int rc = itg__frame_hdr_get(buf, len, ITG__LP_VERSION, ITG__LP_MAX_BODY, &h);
  if (rc < 0)
    return rc;
  body = h.body;
  if (len - ITG__LP_HDR_LEN < body)
    return ITG_ETRUNC;
  itg__lp_init(out, (itg__lp_type)buf[0]);
  r.p = buf + ITG__LP_HDR_LEN;
  r.len = body;
  r.at = 0;
  r.bad = 0;
  switch (buf[0]) {
  case ITG__LP_REGISTER:
    out->transport = itg__rcur_u8(&r);
    out->role = itg__rcur_u8(&r);
    out->nflows = itg__rcur_u16(&r);
    if (out->transport > ITG__LP_UDP || out->nflows > ITG__LP_MAX_FLOWS ||
        (out->role != ITG_LOG_ROLE_SENDER && out->role != ITG_LOG_ROLE_RECEIVER))
      return ITG_EBADMSG;
    for (i = 0; i < out->nflows; i++)
      out->flows[i] = itg__rcur_u32(&r);
    itg__rcur_text(&r, out->token, sizeof out->token);
    itg__rcur_text(&r, out->host, sizeof out->host);
    itg__rcur_text(&r, out->name, sizeof out->name);
    break;
  case ITG__LP_REGISTER_ACK:
    out->status = (int32_t)itg__rcur_u32(&r);
    out->session = itg__rcur_u32(&r);
    out->key = itg__rcur_u32(&r);
    out->udp_port = itg__rcur_u16(&r);
    itg__rcur_text(&r, out->name, sizeof out->name);
    break;
  case ITG__LP_BATCH:
    out->seq = itg__rcur_u64(&r);
    if (r.bad || (body - 8u) % ITG_LOG_RECORD_LEN != 0)
      return ITG_EBADMSG;
    out->nrecs = (body - 8u) / ITG_LOG_RECORD_LEN;
    out->recs = itg__rcur_room(&r, body - 8u);
    break;
  case ITG__LP_ACK:
  case ITG__LP_LEAVE:
    out->seq = itg__rcur_u64(&r);
    break;
  case ITG__LP_LEAVE_ACK:
    out->seq = itg__rcur_u64(&r);
    out->missing = itg__rcur_u64(&r);
    break;
  default:
    return ITG_EBADMSG;
  }
  if (r.bad || r.at != body)
    return ITG_EBADMSG;
  return (int)(ITG__LP_HDR_LEN + body);
}

/* The reader's measure: the frame header of this protocol. */
static int lp_measure(const uint8_t *buf, size_t avail, void *arg) {
  itg__frame_hdr h;
  int rc = itg__frame_hdr_get(buf, avail, ITG__LP_VERSION, ITG__LP_MAX_BODY,
                              &h);
  (void)arg;
  if (rc == ITG_ETRUNC)
    return 0;
  return rc < 0 ? rc : (int)(ITG__LP_HDR_LEN + h.body);
}

int itg__lp_next(itg__frame_reader *r, uint8_t *buf, size_t cap,
                 itg__lp_msg *out) {
  uint8_t *frame;
  int n = itg__frame_reader_next(r, buf, cap, lp_measure, NULL, &frame);
  if (n <= 0)
    return n;
  n = itg__lp_decode(frame, (size_t)n, out);
  return n < 0 ? n : 1;
}

size_t itg__lp_dgram_encode(uint32_t session, uint32_t key, uint64_t seq,
                            const itg_logrec *recs, size_t n, uint8_t *buf) {
  size_t i;
  itg__put_be32(buf, session);
  itg__put_be32(buf + 4, key);
  itg__put_be64(buf + 8, seq);
  for (i = 0; i < n; i++)
    itg_logrec_encode(&recs[i], buf + ITG__LP_UDP_HDR + i * ITG_LOG_RECORD_LEN);
  return ITG__LP_UDP_HDR + n * ITG_LOG_RECORD_LEN;
}

int itg__lp_dgram_decode(const uint8_t *buf, size_t len, uint32_t *session,
                         uint32_t *key, uint64_t *seq) {
  if (len < ITG__LP_UDP_HDR || (len - ITG__LP_UDP_HDR) % ITG_LOG_RECORD_LEN != 0 ||
      len > ITG__LP_MAX_DGRAM)
    return ITG_EBADMSG;
  *session = itg__get_be32(buf);
  *key = itg__get_be32(buf + 4);
  *seq = itg__get_be64(buf + 8);
  return (int)((len - ITG__LP_UDP_HDR) / ITG_LOG_RECORD_LEN);
}

int itg__lp_name_ok(const char *name) {
  size_t n = strnlen(name, ITG__LP_NAME_MAX + 1);
  size_t i;
  if (n == 0 || n > ITG__LP_NAME_MAX || name[0] == '.' ||
      strstr(name, "..") != NULL)
    return 0;
  /* Spill files (NAME.PID.N.spill) share the directory: a peer that could
   * make one by name would have a later session's spill truncate it. */
  if (n >= sizeof ITG__LP_SPILL_SUFFIX - 1 &&
      strcmp(name + n - (sizeof ITG__LP_SPILL_SUFFIX - 1),
             ITG__LP_SPILL_SUFFIX) == 0)
    return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':')
      return 0;
  }
  return 1;
}
