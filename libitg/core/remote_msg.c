/* The remote control protocol's codec: core/remote_msg.h. */
#include "core/remote_msg.h"

#include <stdlib.h>
#include <string.h>

#include "core/hmac.h"
#include "itg/common.h"

void itg__rm_init(itg__rm_msg *m, itg__rm_type type) {
  memset(m, 0, sizeof *m);
  m->type = type;
}

const char *itg__rm_type_name(int type) {
  static const char *const names[] = {
      "?",      "CHALLENGE", "AUTH",      "AUTH_OK", "ERR",     "OK",
      "CLOCK",  "CLOCK_OK",  "START",     "STATUS",  "STATUS_OK", "STOP",
      "RESULTS", "LOG",      "LOG_DATA",  "BYE"};
  return type > 0 && type <= ITG__RM_BYE ? names[type] : "?";
}

/* Returns 1 if s fits a text field of at most max bytes. */
static int text_ok(const char *s, size_t max) {
  return s != NULL && strnlen(s, max + 1) <= max;
}

int itg__rm_encode(const itg__rm_msg *m, uint8_t *buf, size_t cap) {
  itg__wcur w = {buf + ITG__FRAME_HDR_LEN, 0, 0, 0};
  if (cap < ITG__FRAME_HDR_LEN)
    return ITG_ETRUNC;
  w.len = cap - ITG__FRAME_HDR_LEN;
  switch (m->type) {
  case ITG__RM_CHALLENGE: {
    uint8_t *p = itg__wcur_room(&w, ITG__RM_NONCE);
    if (p != NULL)
      memcpy(p, m->nonce, ITG__RM_NONCE);
    break;
  }
  case ITG__RM_AUTH: {
    uint8_t *p = itg__wcur_room(&w, ITG__RM_NONCE + ITG__RM_MAC);
    if (p != NULL) {
      memcpy(p, m->nonce, ITG__RM_NONCE);
      memcpy(p + ITG__RM_NONCE, m->mac, ITG__RM_MAC);
    }
    break;
  }
  case ITG__RM_AUTH_OK: {
    uint8_t *p;
    if (!text_ok(m->text, ITG__RM_TEXT_MAX - 1))
      return ITG_EINVAL;
    p = itg__wcur_room(&w, ITG__RM_MAC);
    if (p != NULL)
      memcpy(p, m->mac, ITG__RM_MAC);
    itg__wcur_text(&w, m->text);
    itg__wcur_u16(&w, m->port);
    break;
  }
  case ITG__RM_ERR:
    if (!text_ok(m->text, ITG__RM_TEXT_MAX - 1))
      return ITG_EINVAL;
    itg__wcur_u32(&w, (uint32_t)m->code);
    itg__wcur_text(&w, m->text);
    break;
  case ITG__RM_CLOCK_OK:
    itg__wcur_u64(&w, (uint64_t)m->wall_ns);
    itg__wcur_u64(&w, (uint64_t)m->mono_ns);
    break;
  case ITG__RM_START:
    if (m->n == 0 || m->n > ITG_REMOTE_MAX_FLOWS || m->lines == NULL)
      return ITG_EINVAL;
    for (uint32_t i = 0; i < m->n; i++)
      if (!text_ok(m->lines[i], ITG_REMOTE_LINE_MAX))
        return ITG_EINVAL;
    itg__wcur_u64(&w, (uint64_t)m->wall_ns);
    itg__wcur_u16(&w, (uint16_t)m->n);
    for (uint32_t i = 0; i < m->n; i++)
      itg__wcur_text(&w, m->lines[i]);
    break;
  case ITG__RM_RESULTS:
    if (m->wait_ns < 0 || m->wait_ns > ITG__RM_WAIT_MAX)
      return ITG_EINVAL;
    itg__wcur_u64(&w, (uint64_t)m->wait_ns);
    break;
  case ITG__RM_LOG:
    if (!text_ok(m->text, ITG__RM_TEXT_MAX - 1) || m->text[0] == '\0')
      return ITG_EINVAL;
    itg__wcur_text(&w, m->text);
    itg__wcur_u64(&w, m->offset);
    break;
  case ITG__RM_LOG_DATA: {
    uint8_t *p;
    if (m->n > ITG_REMOTE_LOG_CHUNK)
      return ITG_EINVAL;
    itg__wcur_u64(&w, m->offset);
    itg__wcur_u64(&w, m->size);
    itg__wcur_u32(&w, m->n);
    p = itg__wcur_room(&w, m->n);
    if (p != NULL && m->n > 0)
      memcpy(p, m->data, m->n);
    break;
  }
  case ITG__RM_OK:
  case ITG__RM_CLOCK:
  case ITG__RM_STATUS:
  case ITG__RM_STOP:
  case ITG__RM_BYE:
    break;
  default:
    return ITG_EINVAL;
  }
  if (w.bad)
    return ITG_ETRUNC;
  itg__frame_hdr_put(buf, (uint8_t)m->type, ITG_REMOTE_VERSION,
                     (uint32_t)w.at);
  return (int)(ITG__FRAME_HDR_LEN + w.at);
}

int itg__rm_decode(const uint8_t *buf, size_t len, uint32_t max_body,
                   itg__rm_msg *out) {
  itg__frame_hdr h;
  itg__rcur r;
  int rc = itg__frame_hdr_get(buf, len, ITG_REMOTE_VERSION, max_body, &h);
  if (rc < 0)
    return rc;
  if (len - ITG__FRAME_HDR_LEN < h.body)
    return ITG_ETRUNC;
  r.p = buf + ITG__FRAME_HDR_LEN;
  r.len = h.body;
  r.at = 0;
  r.bad = 0;
  itg__rm_init(out, (itg__rm_type)h.type);
  switch (h.type) {
  case ITG__RM_CHALLENGE: {
    const uint8_t *p = itg__rcur_room(&r, ITG__RM_NONCE);
    if (p != NULL)
      memcpy(out->nonce, p, ITG__RM_NONCE);
    break;
  }
  case ITG__RM_AUTH: {
    const uint8_t *p = itg__rcur_room(&r, ITG__RM_NONCE + ITG__RM_MAC);
    if (p != NULL) {
      memcpy(out->nonce, p, ITG__RM_NONCE);
      memcpy(out->mac, p + ITG__RM_NONCE, ITG__RM_MAC);
    }
    break;
  }
  case ITG__RM_AUTH_OK: {
    const uint8_t *p = itg__rcur_room(&r, ITG__RM_MAC);
    if (p != NULL)
      memcpy(out->mac, p, ITG__RM_MAC);
    itg__rcur_text(&r, out->text, sizeof out->text);
    out->port = itg__rcur_u16(&r);
    break;
  }
  case ITG__RM_ERR:
    out->code = (int32_t)itg__rcur_u32(&r);
    itg__rcur_text(&r, out->text, sizeof out->text);
    /* An ERR says what failed: a code of success is no answer. */
    if (out->code >= 0)
      r.bad = 1;
    break;
  case ITG__RM_CLOCK_OK:
    out->wall_ns = (int64_t)itg__rcur_u64(&r);
    out->mono_ns = (int64_t)itg__rcur_u64(&r);
    break;
  case ITG__RM_START: {
    char line[ITG_REMOTE_LINE_MAX + 1];
    out->wall_ns = (int64_t)itg__rcur_u64(&r);
    out->n = itg__rcur_u16(&r);
    out->data = r.p + r.at;
    if (out->n == 0 || out->n > ITG_REMOTE_MAX_FLOWS)
      r.bad = 1;
    for (uint32_t i = 0; i < out->n && !r.bad; i++)
      itg__rcur_text(&r, line, sizeof line);
    out->data_len = (size_t)(r.p + r.at - out->data);
    break;
  }
  case ITG__RM_STATUS_OK:
    out->data = r.p;
    out->data_len = r.len;
    r.at = r.len;
    break;
  case ITG__RM_RESULTS:
    out->wait_ns = (int64_t)itg__rcur_u64(&r);
    if (out->wait_ns < 0 || out->wait_ns > ITG__RM_WAIT_MAX)
      r.bad = 1;
    break;
  case ITG__RM_LOG:
    itg__rcur_text(&r, out->text, sizeof out->text);
    out->offset = itg__rcur_u64(&r);
    if (out->text[0] == '\0')
      r.bad = 1;
    break;
  case ITG__RM_LOG_DATA:
    out->offset = itg__rcur_u64(&r);
    out->size = itg__rcur_u64(&r);
    out->n = itg__rcur_u32(&r);
    if (out->n > ITG_REMOTE_LOG_CHUNK || out->offset > out->size ||
        out->size - out->offset < out->n)
      r.bad = 1;
    out->data = itg__rcur_room(&r, out->n);
    out->data_len = out->n;
    break;
  case ITG__RM_OK:
  case ITG__RM_CLOCK:
  case ITG__RM_STATUS:
  case ITG__RM_STOP:
  case ITG__RM_BYE:
    break;
  default:
    return ITG_EBADMSG;
  }
  if (r.bad || r.at != r.len)
    return ITG_EBADMSG;
  return (int)(ITG__FRAME_HDR_LEN + h.body);
}

int itg__rm_measure(const uint8_t *buf, size_t avail, void *arg) {
  itg__frame_hdr h;
  int rc = itg__frame_hdr_get(buf, avail, ITG_REMOTE_VERSION,
                              *(const uint32_t *)arg, &h);
  if (rc == ITG_ETRUNC)
    return 0;
  if (rc == 0 && (h.type == 0 || h.type > ITG__RM_BYE))
    rc = ITG_EBADMSG;
  return rc < 0 ? rc : (int)(ITG__FRAME_HDR_LEN + h.body);
}

void itg__rm_line_next(const uint8_t **at, char *line) {
  size_t n = (size_t)(*at)[0] << 8 | (*at)[1];
  memcpy(line, *at + 2, n);
  line[n] = '\0';
  *at += 2 + n;
}

void itg__rm_proof(const void *token, size_t token_len, const char *label,
                   const uint8_t first[ITG__RM_NONCE],
                   const uint8_t second[ITG__RM_NONCE],
                   uint8_t out[ITG__RM_MAC]) {
  itg__hmac m;
  itg__hmac_init(&m, token, token_len);
  itg__hmac_update(&m, label, strlen(label));
  itg__hmac_update(&m, first, ITG__RM_NONCE);
  itg__hmac_update(&m, second, ITG__RM_NONCE);
  itg__hmac_final(&m, out);
}

static void put_flow(itg__wcur *w, const itg_flow_result *f) {
  itg__wcur_u32(w, f->flow_id);
  itg__wcur_u32(w, (uint32_t)f->status);
  itg__wcur_text(w, f->error);
  itg__wcur_text(w, f->receiver_note);
  itg__wcur_u64(w, f->seed);
  itg__wcur_u64(w, f->packets);
  itg__wcur_u64(w, f->bytes);
  itg__wcur_u64(w, f->send_errors);
  itg__wcur_u64(w, f->echoes);
  itg__wcur_u64(w, f->received);
  itg__wcur_u64(w, (uint64_t)f->first_tx_ns);
  itg__wcur_u64(w, (uint64_t)f->last_tx_ns);
  itg__wcur_u64(w, f->late);
  itg__wcur_u64(w, (uint64_t)f->late_max_ns);
  itg__wcur_u64(w, (uint64_t)f->late_sum_ns);
  itg__wcur_u16(w, f->data_port);
  itg__wcur_u8(w, (uint8_t)(f->ended != 0));
  itg__wcur_u64(w, f->skipped);
  itg__wcur_u64(w, f->shifted);
}

static void get_flow(itg__rcur *r, itg_flow_result *f) {
  memset(f, 0, sizeof *f);
  f->struct_size = sizeof *f;
  f->flow_id = itg__rcur_u32(r);
  f->status = (int32_t)itg__rcur_u32(r);
  itg__rcur_text(r, f->error, sizeof f->error);
  itg__rcur_text(r, f->receiver_note, sizeof f->receiver_note);
  f->seed = itg__rcur_u64(r);
  f->packets = itg__rcur_u64(r);
  f->bytes = itg__rcur_u64(r);
  f->send_errors = itg__rcur_u64(r);
  f->echoes = itg__rcur_u64(r);
  f->received = itg__rcur_u64(r);
  f->first_tx_ns = (int64_t)itg__rcur_u64(r);
  f->last_tx_ns = (int64_t)itg__rcur_u64(r);
  f->late = itg__rcur_u64(r);
  f->late_max_ns = (int64_t)itg__rcur_u64(r);
  f->late_sum_ns = (int64_t)itg__rcur_u64(r);
  f->data_port = itg__rcur_u16(r);
  f->ended = itg__rcur_u8(r);
  if (f->ended > 1)
    r->bad = 1;
  f->skipped = itg__rcur_u64(r);
  f->shifted = itg__rcur_u64(r);
}

static void put_rx(itg__wcur *w, const itg_remote_rx_flow *x) {
  itg__wcur_u32(w, x->flow_id);
  itg__wcur_u8(w, (uint8_t)x->proto);
  itg__wcur_u16(w, x->port);
  itg__wcur_text(w, x->peer);
  itg__wcur_u64(w, x->packets);
  itg__wcur_u64(w, x->bytes);
  itg__wcur_u64(w, x->sent);
  itg__wcur_u8(w, (uint8_t)(x->sent_known != 0));
  itg__wcur_text(w, x->log_file);
}

static void get_rx(itg__rcur *r, itg_remote_rx_flow *x) {
  memset(x, 0, sizeof *x);
  x->struct_size = sizeof *x;
  x->flow_id = itg__rcur_u32(r);
  x->proto = (itg_proto)itg__rcur_u8(r);
  x->port = itg__rcur_u16(r);
  itg__rcur_text(r, x->peer, sizeof x->peer);
  x->packets = itg__rcur_u64(r);
  x->bytes = itg__rcur_u64(r);
  x->sent = itg__rcur_u64(r);
  x->sent_known = itg__rcur_u8(r);
  if (x->sent_known > 1)
    r->bad = 1;
  itg__rcur_text(r, x->log_file, sizeof x->log_file);
}

int itg__rm_status_put(uint8_t *buf, size_t cap, const itg_remote_status *st,
                       const itg_flow_result *flows, uint32_t nflows,
                       const itg_remote_rx_flow *rx, uint32_t nrx) {
  itg__wcur w = {buf + ITG__FRAME_HDR_LEN, 0, 0, 0};
  if (cap < ITG__FRAME_HDR_LEN)
    return ITG_ETRUNC;
  w.len = cap - ITG__FRAME_HDR_LEN;
  itg__wcur_u8(&w, (uint8_t)st->state);
  itg__wcur_u32(&w, (uint32_t)st->start_status);
  itg__wcur_u64(&w, (uint64_t)st->start_wall_ns);
  itg__wcur_u64(&w, st->rx_packets);
  itg__wcur_u64(&w, st->rx_bytes);
  itg__wcur_u64(&w, st->rx_malformed);
  itg__wcur_u64(&w, st->rx_flows_served);
  itg__wcur_u64(&w, st->rx_flows_active);
  itg__wcur_u64(&w, st->rx_flows_refused);
  itg__wcur_u32(&w, nflows);
  for (uint32_t i = 0; i < nflows; i++)
    put_flow(&w, &flows[i]);
  itg__wcur_u32(&w, nrx);
  for (uint32_t i = 0; i < nrx; i++)
    put_rx(&w, &rx[i]);
  if (w.bad)
    return ITG_ETRUNC;
  itg__frame_hdr_put(buf, ITG__RM_STATUS_OK, ITG_REMOTE_VERSION,
                     (uint32_t)w.at);
  return (int)(ITG__FRAME_HDR_LEN + w.at);
}

int itg__rm_status_get(const uint8_t *body, size_t len, itg_remote_status *st,
                       itg_flow_result **flows, itg_remote_rx_flow **rx) {
  itg__rcur r = {body, len, 0, 0};
  itg_flow_result *f = NULL;
  itg_remote_rx_flow *x = NULL;
  uint32_t n;
  memset(st, 0, sizeof *st);
  st->struct_size = sizeof *st;
  st->state = (itg_remote_state)itg__rcur_u8(&r);
  st->start_status = (int32_t)itg__rcur_u32(&r);
  st->start_wall_ns = (int64_t)itg__rcur_u64(&r);
  st->rx_packets = itg__rcur_u64(&r);
  st->rx_bytes = itg__rcur_u64(&r);
  st->rx_malformed = itg__rcur_u64(&r);
  st->rx_flows_served = itg__rcur_u64(&r);
  st->rx_flows_active = itg__rcur_u64(&r);
  st->rx_flows_refused = itg__rcur_u64(&r);
  n = itg__rcur_u32(&r);
  if (r.bad || st->state > ITG_REMOTE_ENDED || n > ITG_REMOTE_MAX_FLOWS)
    return ITG_EBADMSG;
  if (n > 0 && (f = calloc(n, sizeof *f)) == NULL)
    return ITG_ENOMEM;
  for (uint32_t i = 0; i < n; i++)
    get_flow(&r, &f[i]);
  st->flows = n;
  n = itg__rcur_u32(&r);
  if (r.bad || n > ITG_REMOTE_MAX_FLOWS)
    goto out_free;
  if (n > 0 && (x = calloc(n, sizeof *x)) == NULL) {
    free(f);
    return ITG_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++)
    get_rx(&r, &x[i]);
  st->rx_flows = n;
  if (r.bad || r.at != r.len)
    goto out_free;
  *flows = f;
  *rx = x;
  return 0;

out_free:
  free(f);
  free(x);
  return ITG_EBADMSG;
}
