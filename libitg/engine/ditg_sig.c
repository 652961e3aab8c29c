/* D-ITG's signaling messages: encoding what a sender says, decoding what
 * ITGRecv answers, and reading its answers off the connection (see
 * ditg_sig.h). */
#include "engine/ditg_sig.h"

#include <string.h>

#include "core/cursor.h"

const char *itg__ditg_type_name(int type) {
  switch (type) {
  case ITG__DITG_CONNECT:
    return "CONNECT";
  case ITG__DITG_ACK_CONNECT:
    return "ACK_CONNECT";
  case ITG__DITG_SEND_FLOW:
    return "SEND_FLOW";
  case ITG__DITG_CLOSED_FLOW:
    return "CLOSED_FLOW";
  case ITG__DITG_ACK_SEND_FLOW:
    return "ACK_SEND_FLOW";
  case ITG__DITG_ACK_CLOSED_FLOW:
    return "ACK_CLOSED_FLOW";
  case ITG__DITG_ACK_RELEASE:
    return "ACK_RELEASE";
  case ITG__DITG_DISCOVERY:
    return "DISCOVERY";
  case ITG__DITG_ACK_DISCOVERY:
    return "ACK_DISCOVERY";
  case ITG__DITG_RELEASE:
    return "RELEASE";
  case ITG__DITG_ACK_SEND_FLOW_LOG:
    return "ACK_SEND_FLOW_LOG";
  case ITG__DITG_ERR_MSG_2:
    return "ERR_MSG_2";
  case ITG__DITG_ERR_MSG_3:
    return "ERR_MSG_3";
  case ITG__DITG_ACK_SEND_NAME_LOG:
    return "ACK_SEND_NAME_LOG";
  case ITG__DITG_ERR_MSG_4:
    return "ERR_MSG_4";
  case ITG__DITG_ERR_MSG_5:
    return "ERR_MSG_5";
  }
  return "?";
}

/* A message that is its type byte alone. */
static int encode_type(uint8_t type, uint8_t *buf, size_t len) {
  if (len < 1)
    return ITG_ETRUNC;
  buf[0] = type;
  return 1;
}

int itg__ditg_encode_connect(uint8_t *buf, size_t len) {
  return encode_type(ITG__DITG_CONNECT, buf, len);
}

int itg__ditg_encode_ack_discovery(uint8_t *buf, size_t len) {
  return encode_type(ITG__DITG_ACK_DISCOVERY, buf, len);
}

int itg__ditg_encode_release(uint8_t *buf, size_t len) {
  return encode_type(ITG__DITG_RELEASE, buf, len);
}

int itg__ditg_encode_closed_flow(uint32_t flow_id, uint8_t *buf,
                                 size_t len) {
  itg__wcur c = {buf, len, 0, 0};
  itg__wcur_u8(&c, ITG__DITG_CLOSED_FLOW);
  itg__wcur_u32(&c, flow_id);
  return c.bad ? ITG_ETRUNC : (int)c.at;
}

int itg__ditg_encode_send_flow(const itg__ditg_send_flow *m, uint8_t *buf,
                               size_t len) {
  static const char serial[ITG__DITG_SERIAL_LEN] = "noSerial";
  itg__wcur c = {buf, len, 0, 0};
  size_t alen;
  uint8_t *p;
  if (m->l3 != ITG__DITG_L3_IPV4 && m->l3 != ITG__DITG_L3_IPV6)
    return ITG_EINVAL;
  alen = m->l3 == ITG__DITG_L3_IPV4 ? 4 : 16;
  itg__wcur_u8(&c, ITG__DITG_SEND_FLOW);
  itg__wcur_u8(&c, m->l4);
  itg__wcur_u8(&c, 0); /* l7 proto: none */
  itg__wcur_u8(&c, m->meter);
  itg__wcur_u8(&c, m->ds);
  itg__wcur_u8(&c, m->l3);
  itg__wcur_u32(&c, m->flow_id);
  itg__wcur_u8(&c, 0); /* payload type: the full header */
  p = itg__wcur_room(&c, sizeof serial);
  if (p != NULL)
    memcpy(p, serial, sizeof serial);
  p = itg__wcur_room(&c, 2 + alen);
  if (p == NULL)
    return ITG_ETRUNC;
  p[0] = (uint8_t)(m->port & 0xff); /* little endian, see ditg_sig.h */
  p[1] = (uint8_t)(m->port >> 8);
  memcpy(p + 2, m->addr, alen);
  return c.bad ? ITG_ETRUNC : (int)c.at;
}

size_t itg__ditg_reply_len(int type) {
  switch (type) {
  case ITG__DITG_ACK_CONNECT:
  case ITG__DITG_ACK_RELEASE:
  case ITG__DITG_DISCOVERY:
  case ITG__DITG_ACK_SEND_FLOW_LOG:
  case ITG__DITG_ACK_SEND_NAME_LOG:
  case ITG__DITG_ERR_MSG_4:
    return 1;
  case ITG__DITG_ACK_CLOSED_FLOW:
  case ITG__DITG_ERR_MSG_2:
  case ITG__DITG_ERR_MSG_3:
  case ITG__DITG_ERR_MSG_5:
    return 5;
  case ITG__DITG_ACK_SEND_FLOW:
    return 7;
  }
  return 0;
}

/* Reads a message carrying a flow id: ACK_SEND_FLOW (with its port) when
 * is_ack_send, else one of the 5-byte types. */
static int decode_flow(const uint8_t *buf, size_t len, int is_ack_send,
                       itg__ditg_msg *out) {
  itg__rcur c = {buf, len, 0, 0};
  itg__ditg_msg m;
  size_t need;
  if (len < 1)
    return ITG_ETRUNC;
  if (is_ack_send != (buf[0] == ITG__DITG_ACK_SEND_FLOW))
    return ITG_EBADMSG;
  need = itg__ditg_reply_len(buf[0]);
  if (need != (is_ack_send ? 7u : 5u))
    return ITG_EBADMSG;
  if (len < need)
    return ITG_ETRUNC;
  memset(&m, 0, sizeof m);
  m.type = itg__rcur_u8(&c);
  m.flow_id = itg__rcur_u32(&c);
  if (is_ack_send)
    m.port = itg__rcur_u16(&c);
  *out = m;
  return (int)need;
}

int itg__ditg_decode_ack_send_flow(const uint8_t *buf, size_t len,
                                   itg__ditg_msg *out) {
  return decode_flow(buf, len, 1, out);
}

int itg__ditg_decode_flow_msg(const uint8_t *buf, size_t len,
                              itg__ditg_msg *out) {
  return decode_flow(buf, len, 0, out);
}

/* The reader's measure: the type byte tells the length. */
static int ditg_measure(const uint8_t *buf, size_t avail, void *arg) {
  size_t n;
  (void)arg;
  if (avail < 1)
    return 0;
  n = itg__ditg_reply_len(buf[0]);
  return n == 0 ? ITG_EBADMSG : (int)n;
}

int itg__ditg_fill(itg__sock s, itg__ditg_reader *r) {
  size_t room;
  uint8_t *p = itg__frame_reader_space(&r->fr, r->buf, sizeof r->buf, &room);
  int n;
  if (room == 0)
    return 0;
  n = itg__stream_recv(s, p, room);
  if (n > 0)
    itg__frame_reader_commit(&r->fr, (size_t)n);
  return n;
}

int itg__ditg_reader_next(itg__ditg_reader *r, itg__ditg_msg *out) {
  uint8_t *msg;
  int n = itg__frame_reader_next(&r->fr, r->buf, sizeof r->buf, ditg_measure,
                                 NULL, &msg);
  if (n <= 0)
    return n;
  if (n == 1) {
    memset(out, 0, sizeof *out);
    out->type = msg[0];
    return 1;
  }
  n = msg[0] == ITG__DITG_ACK_SEND_FLOW
          ? itg__ditg_decode_ack_send_flow(msg, (size_t)n, out)
          : itg__ditg_decode_flow_msg(msg, (size_t)n, out);
  return n < 0 ? n : 1;
}

int itg__ditg_recv(itg__sock s, itg__ditg_reader *r, itg__ditg_msg *out,
                   int64_t timeout_ns) {
  int64_t deadline = (int64_t)uv_hrtime() + timeout_ns;
  for (;;) {
    int rc = itg__ditg_reader_next(r, out);
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
    rc = itg__ditg_fill(s, r);
    if (rc < 0)
      return rc;
  }
}
