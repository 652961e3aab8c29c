/* Signaling messages: frame encoding and decoding, stream framing, and
 * blocking send/receive for the sender (see control.h). */
#include "engine/control.h"

#include <string.h>

#include "core/cursor.h"

void itg__ctl_init(itg__ctl_msg *m, itg__ctl_type type) {
  memset(m, 0, sizeof *m);
  m->type = type;
  m->tos = -1;
  m->ttl = -1;
}

const char *itg__ctl_type_name(int type) {
  switch (type) {
  case ITG__CTL_HELLO:
    return "HELLO";
  case ITG__CTL_HELLO_ACK:
    return "HELLO_ACK";
  case ITG__CTL_FLOW_OPEN:
    return "FLOW_OPEN";
  case ITG__CTL_FLOW_OPEN_ACK:
    return "FLOW_OPEN_ACK";
  case ITG__CTL_FLOW_CLOSE:
    return "FLOW_CLOSE";
  case ITG__CTL_FLOW_CLOSE_ACK:
    return "FLOW_CLOSE_ACK";
  case ITG__CTL_ERROR:
    return "ERROR";
  }
  return "?";
}

static void encode_body(const itg__ctl_msg *m, itg__wcur *c) {
  switch (m->type) {
  case ITG__CTL_HELLO:
    itg__wcur_u16(c, m->version);
    itg__wcur_text(c, m->text);
    break;
  case ITG__CTL_HELLO_ACK:
    itg__wcur_u32(c, (uint32_t)m->status);
    itg__wcur_u16(c, m->version);
    itg__wcur_text(c, m->text);
    break;
  case ITG__CTL_FLOW_OPEN:
    itg__wcur_u32(c, m->flow_id);
    itg__wcur_u8(c, m->id_auto);
    itg__wcur_u8(c, m->proto);
    itg__wcur_u8(c, m->meter);
    itg__wcur_u8(c, m->wire);
    itg__wcur_u16(c, m->port);
    itg__wcur_u16(c, m->src_port);
    itg__wcur_u16(c, (uint16_t)m->tos);
    itg__wcur_u16(c, (uint16_t)m->ttl);
    itg__wcur_text(c, m->text);
    if (m->log_host[0] != '\0') {
      itg__wcur_u8(c, m->log_transport);
      itg__wcur_u16(c, m->log_port);
      itg__wcur_text(c, m->log_host);
    }
    break;
  case ITG__CTL_FLOW_OPEN_ACK:
    itg__wcur_u32(c, (uint32_t)m->status);
    itg__wcur_u32(c, m->flow_id);
    itg__wcur_u16(c, m->port);
    itg__wcur_text(c, m->text);
    itg__wcur_u64(c, m->token);
    break;
  case ITG__CTL_FLOW_CLOSE:
  case ITG__CTL_FLOW_CLOSE_ACK:
    itg__wcur_u64(c, m->packets);
    itg__wcur_u64(c, m->bytes);
    break;
  case ITG__CTL_ERROR:
    itg__wcur_u32(c, (uint32_t)m->status);
    itg__wcur_text(c, m->text);
    break;
  }
}

int itg__ctl_encode(const itg__ctl_msg *m, uint8_t *buf, size_t len) {
  itg__wcur c;
  if (m->type < ITG__CTL_HELLO || m->type > ITG__CTL_ERROR ||
      strnlen(m->text, sizeof m->text) >= sizeof m->text ||
      strnlen(m->log_host, sizeof m->log_host) >= sizeof m->log_host)
    return ITG_EINVAL;
  if (len < ITG__CTL_HDR_LEN)
    return ITG_ETRUNC;
  memset(&c, 0, sizeof c);
  c.p = buf + ITG__CTL_HDR_LEN;
  c.len = len - ITG__CTL_HDR_LEN;
  if (c.len > ITG__CTL_MAX_BODY)
    c.len = ITG__CTL_MAX_BODY;
  encode_body(m, &c);
  if (c.bad)
    return ITG_ETRUNC;
  itg__frame_hdr_put(buf, (uint8_t)m->type, ITG__CTL_VERSION,
                     (uint32_t)c.at);
  return (int)(ITG__CTL_HDR_LEN + c.at);
}

static void decode_body(itg__rcur *c, itg__ctl_msg *m) {
  switch (m->type) {
  case ITG__CTL_HELLO:
    m->version = itg__rcur_u16(c);
    itg__rcur_text(c, m->text, sizeof m->text);
    break;
  case ITG__CTL_HELLO_ACK:
    m->status = (int32_t)itg__rcur_u32(c);
    m->version = itg__rcur_u16(c);
    itg__rcur_text(c, m->text, sizeof m->text);
    break;
  case ITG__CTL_FLOW_OPEN:
    m->flow_id = itg__rcur_u32(c);
    m->id_auto = itg__rcur_u8(c);
    m->proto = itg__rcur_u8(c);
    m->meter = itg__rcur_u8(c);
    m->wire = itg__rcur_u8(c);
    m->port = itg__rcur_u16(c);
    m->src_port = itg__rcur_u16(c);
    m->tos = (int16_t)itg__rcur_u16(c);
    m->ttl = (int16_t)itg__rcur_u16(c);
    itg__rcur_text(c, m->text, sizeof m->text);
    if (!c->bad && c->at < c->len) {
      m->log_transport = itg__rcur_u8(c);
      m->log_port = itg__rcur_u16(c);
      itg__rcur_text(c, m->log_host, sizeof m->log_host);
      if (m->log_transport > ITG_LOG_UDP || m->log_port == 0 ||
          m->log_host[0] == '\0')
        c->bad = 1;
    }
    if (m->id_auto > 1 || m->proto > ITG_PROTO_ICMP ||
        m->meter > ITG_METER_RTT || m->wire > ITG_WIRE_DITG ||
        m->tos < -1 || m->tos > 255 || m->ttl < -1 || m->ttl > 255 ||
        m->ttl == 0)
      c->bad = 1;
    break;
  case ITG__CTL_FLOW_OPEN_ACK:
    m->status = (int32_t)itg__rcur_u32(c);
    m->flow_id = itg__rcur_u32(c);
    m->port = itg__rcur_u16(c);
    itg__rcur_text(c, m->text, sizeof m->text);
    m->token = itg__rcur_u64(c);
    break;
  case ITG__CTL_FLOW_CLOSE:
  case ITG__CTL_FLOW_CLOSE_ACK:
    m->packets = itg__rcur_u64(c);
    m->bytes = itg__rcur_u64(c);
    break;
  case ITG__CTL_ERROR:
    m->status = (int32_t)itg__rcur_u32(c);
    itg__rcur_text(c, m->text, sizeof m->text);
    break;
  }
  if (m->status > 0) /* a status is 0 or a negative ITG_E* code */
    c->bad = 1;
}

/* Reads a frame's header: 0, or an error of itg__frame_hdr_get, or
 * ITG_EBADMSG for a type that is no message. */
static int ctl_hdr(const uint8_t *buf, size_t len, itg__frame_hdr *h) {
  int rc = itg__frame_hdr_get(buf, len, ITG__CTL_VERSION, ITG__CTL_MAX_BODY,
                              h);
  if (rc == 0 && (h->type < ITG__CTL_HELLO || h->type > ITG__CTL_ERROR))
    return ITG_EBADMSG;
  return rc;
}

int itg__ctl_decode(const uint8_t *buf, size_t len, itg__ctl_msg *out) {
  itg__frame_hdr h;
  itg__rcur c;
  int rc = ctl_hdr(buf, len, &h);
  if (rc < 0)
    return rc;
  if (len - ITG__CTL_HDR_LEN < h.body)
    return ITG_ETRUNC;
  itg__ctl_init(out, (itg__ctl_type)h.type);
  memset(&c, 0, sizeof c);
  c.p = buf + ITG__CTL_HDR_LEN;
  c.len = h.body;
  decode_body(&c, out);
  if (c.bad || c.at != h.body)
    return ITG_EBADMSG;
  return (int)(ITG__CTL_HDR_LEN + h.body);
}

/* The reader's measure: the frame header, its type checked too. */
static int ctl_measure(const uint8_t *buf, size_t avail, void *arg) {
  itg__frame_hdr h;
  int rc = ctl_hdr(buf, avail, &h);
  (void)arg;
  if (rc == ITG_ETRUNC)
    return 0;
  return rc < 0 ? rc : (int)(ITG__CTL_HDR_LEN + h.body);
}

uint8_t *itg__ctl_reader_space(itg__ctl_reader *r, size_t *room) {
  return itg__frame_reader_space(&r->fr, r->buf, sizeof r->buf, room);
}

void itg__ctl_reader_commit(itg__ctl_reader *r, size_t n) {
  itg__frame_reader_commit(&r->fr, n);
}

int itg__ctl_reader_next(itg__ctl_reader *r, itg__ctl_msg *out) {
  uint8_t *frame;
  int n = itg__frame_reader_next(&r->fr, r->buf, sizeof r->buf, ctl_measure,
                                 NULL, &frame);
  if (n <= 0)
    return n;
  n = itg__ctl_decode(frame, (size_t)n, out);
  return n < 0 ? n : 1;
}

int itg__ctl_send(itg__sock s, const itg__ctl_msg *m, int64_t timeout_ns) {
  uint8_t frame[ITG__CTL_MAX_FRAME];
  int len = itg__ctl_encode(m, frame, sizeof frame);
  if (len < 0)
    return len;
  return itg__ctl_send_bytes(s, frame, (size_t)len, timeout_ns);
}

int itg__ctl_send_bytes(itg__sock s, const uint8_t *buf, size_t len,
                        int64_t timeout_ns) {
  int64_t deadline = (int64_t)uv_hrtime() + timeout_ns;
  size_t off = 0;
  while (off < len) {
    int n = itg__stream_send(s, buf + off, len - off);
    if (n < 0)
      return n;
    off += (size_t)n;
    if (n == 0) {
      /* A full send buffer on a signaling socket is rare: retry shortly. */
      int64_t now = (int64_t)uv_hrtime();
      if (now >= deadline)
        return ITG_ETIMEDOUT;
      itg__sleep_until(now + 1000000);
    }
  }
  return 0;
}

int itg__ctl_fill(itg__sock s, itg__ctl_reader *r) {
  size_t room;
  uint8_t *p = itg__ctl_reader_space(r, &room);
  if (room == 0)
    return 0;
  return itg__stream_recv(s, p, room);
}

int itg__recv_msg(itg__sock s, const itg__msg_source *src, void *reader,
                  void *out, int64_t timeout_ns) {
  int64_t deadline = (int64_t)uv_hrtime() + timeout_ns;
  for (;;) {
    int rc = src->next(reader, out);
    int64_t left;
    if (rc == 1)
      return 0;
    if (rc < 0)
      return rc;
    left = deadline - (int64_t)uv_hrtime();
    if (left <= 0)
      return ITG_ETIMEDOUT;
    rc = itg__sock_wait_readable(s, left);
    if (rc < 0)
      return rc;
    if (rc == 0)
      return ITG_ETIMEDOUT;
    rc = src->fill(s, reader);
    if (rc < 0)
      return rc;
  }
}

static int ctl_next(void *reader, void *out) {
  return itg__ctl_reader_next(reader, out);
}

static int ctl_fill(itg__sock s, void *reader) {
  int n = itg__ctl_fill(s, reader);
  if (n > 0)
    itg__ctl_reader_commit(reader, (size_t)n);
  return n;
}

int itg__ctl_recv(itg__sock s, itg__ctl_reader *r, itg__ctl_msg *out,
                  int64_t timeout_ns) {
  static const itg__msg_source src = {ctl_next, ctl_fill};
  return itg__recv_msg(s, &src, r, out, timeout_ns);
}
