/* D-ITG 2.8.1's signaling messages: encoding, decoding, and reading them
 * off a connection (see ditg_sig.h). */
#include "engine/ditg_sig.h"

#include <string.h>

#include "core/byteorder.h"
#include "core/cursor.h"
#include "engine/control.h"
#include "itg/common.h"

/* AF_INET everywhere; AF_INET6 on Linux, Windows, the BSDs, macOS. */
static int family_inet6(uint32_t f) {
  return f == ITG__DITG_FAMILY_INET6 || f == 23u || f == 24u || f == 28u || f == 30u;
}

itg__ditg_guess itg__ditg_sniff(const uint8_t *buf, size_t len) {
  if (len == 0)
    return ITG__DITG_NONE;
  return len == 1 && buf[0] == ITG__DITG_CONNECT ? ITG__DITG_MAYBE
                                                  : ITG__DITG_NOT;
}

void itg__ditg_init(itg__ditg_msg *m, itg__ditg_type type) {
  memset(m, 0, sizeof *m);
  m->type = (uint8_t)type;
}

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
  case ITG__DITG_SEND_FLOW_LOG:
    return "SEND_FLOW_LOG";
  case ITG__DITG_ACK_SEND_FLOW_LOG:
    return "ACK_SEND_FLOW_LOG";
  case ITG__DITG_ERR_MSG_1:
    return "ERR_MSG_1";
  case ITG__DITG_ERR_MSG_2:
    return "ERR_MSG_2";
  case ITG__DITG_ERR_MSG_3:
    return "ERR_MSG_3";
  case ITG__DITG_CLOSED_ERR:
    return "CLOSED_ERR";
  case ITG__DITG_ACK_SEND_NAME_LOG:
    return "ACK_SEND_NAME_LOG";
  case ITG__DITG_SEND_NAME_LOG:
    return "SEND_NAME_LOG";
  case ITG__DITG_SENDER_DOWN:
    return "SENDER_DOWN";
  case ITG__DITG_ERR_MSG_4:
    return "ERR_MSG_4";
  case ITG__DITG_ERR_MSG_5:
    return "ERR_MSG_5";
  }
  return "?";
}

/* The fixed-size name field: the name, NUL-padded. */
static void put_name(itg__wcur *w, const char *name) {
  uint8_t *p = itg__wcur_room(w, ITG__DITG_NAME_LEN);
  if (p != NULL) {
    memset(p, 0, ITG__DITG_NAME_LEN);
    memcpy(p, name, strlen(name));
  }
}

/* A name field holds its NUL within its 200 bytes (ITGRecv reads it as a
 * C string). Returns 0, or -1 for a whole field without it. */
static int get_name(itg__rcur *r, char *dst) {
  const uint8_t *p = itg__rcur_room(r, ITG__DITG_NAME_LEN);
  dst[0] = '\0';
  if (p == NULL)
    return 0; /* truncated: the cursor says so */
  if (memchr(p, '\0', ITG__DITG_NAME_LEN) == NULL)
    return -1;
  memcpy(dst, p, ITG__DITG_NAME_LEN);
  dst[ITG__DITG_NAME_LEN] = '\0';
  return 0;
}

static int has_flow_id(int type) {
  switch (type) {
  case ITG__DITG_CLOSED_FLOW:
  case ITG__DITG_CLOSED_ERR:
  case ITG__DITG_ACK_CLOSED_FLOW:
  case ITG__DITG_ACK_SEND_FLOW:
  case ITG__DITG_ERR_MSG_2:
  case ITG__DITG_ERR_MSG_3:
  case ITG__DITG_ERR_MSG_5:
    return 1;
  }
  return 0;
}

int itg__ditg_encode(const itg__ditg_msg *m, uint8_t *buf, size_t len) {
  itg__wcur w = {buf, len, 0, 0};
  uint8_t *p;
  if (strcmp(itg__ditg_type_name(m->type), "?") == 0 ||
      strnlen(m->name, sizeof m->name) >= ITG__DITG_NAME_LEN)
    return ITG_EINVAL;
  itg__wcur_u8(&w, m->type);
  if (has_flow_id(m->type))
    itg__wcur_u32(&w, m->flow_id);
  switch (m->type) {
  case ITG__DITG_ACK_SEND_FLOW:
    itg__wcur_u16(&w, m->port);
    break;
  case ITG__DITG_SEND_FLOW:
    if (m->l3 != 4 && m->l3 != 6)
      return ITG_EINVAL;
    itg__wcur_u8(&w, m->l4);
    itg__wcur_u8(&w, m->l7);
    itg__wcur_u8(&w, m->meter);
    itg__wcur_u8(&w, m->ds);
    itg__wcur_u8(&w, m->l3);
    itg__wcur_u32(&w, m->flow_id);
    itg__wcur_u8(&w, m->payload);
    p = itg__wcur_room(&w, ITG__DITG_SERIAL_LEN);
    if (p != NULL) {
      memset(p, 0, ITG__DITG_SERIAL_LEN);
      memcpy(p, m->serial, strnlen(m->serial, ITG__DITG_SERIAL_LEN));
    }
    p = itg__wcur_room(&w, 2);
    if (p != NULL)
      itg__put_le16(p, m->port);
    p = itg__wcur_room(&w, m->l3 == 4 ? 4 : 16);
    if (p != NULL)
      memcpy(p, m->addr, m->l3 == 4 ? 4 : 16);
    break;
  case ITG__DITG_SEND_NAME_LOG:
    put_name(&w, m->name);
    break;
  case ITG__DITG_SEND_FLOW_LOG:
    if (m->addr_len != 4 && m->addr_len != 16)
      return ITG_EINVAL;
    itg__wcur_u32(&w, m->family);
    p = itg__wcur_room(&w, m->addr_len);
    if (p != NULL)
      memcpy(p, m->addr, m->addr_len);
    itg__wcur_u16(&w, m->port);
    itg__wcur_u8(&w, m->log_transport);
    put_name(&w, m->name);
    break;
  default:
    break;
  }
  return w.bad ? ITG_ETRUNC : (int)w.at;
}

int itg__ditg_decode(const uint8_t *buf, size_t len, itg__ditg_msg *out) {
  itg__rcur r = {buf, len, 0, 0};
  itg__ditg_msg m;
  const uint8_t *p;
  int bad_name = 0;
  if (len == 0)
    return ITG_ETRUNC;
  itg__ditg_init(&m, (itg__ditg_type)buf[0]);
  if (strcmp(itg__ditg_type_name(m.type), "?") == 0)
    return ITG_EBADMSG;
  r.at = 1;
  if (has_flow_id(m.type))
    m.flow_id = itg__rcur_u32(&r);
  switch (m.type) {
  case ITG__DITG_ACK_SEND_FLOW:
    m.port = itg__rcur_u16(&r);
    break;
  case ITG__DITG_SEND_FLOW:
    m.l4 = itg__rcur_u8(&r);
    m.l7 = itg__rcur_u8(&r);
    m.meter = itg__rcur_u8(&r);
    m.ds = itg__rcur_u8(&r);
    m.l3 = itg__rcur_u8(&r);
    if (!r.bad && m.l3 != 4 && m.l3 != 6)
      return ITG_EBADMSG;
    m.addr_len = m.l3 == 4 ? 4 : 16;
    m.flow_id = itg__rcur_u32(&r);
    m.payload = itg__rcur_u8(&r);
    p = itg__rcur_room(&r, ITG__DITG_SERIAL_LEN);
    if (p != NULL)
      memcpy(m.serial, p, ITG__DITG_SERIAL_LEN); /* m.serial ends in NUL */
    p = itg__rcur_room(&r, 2);
    if (p != NULL)
      m.port = itg__get_le16(p);
    p = itg__rcur_room(&r, m.addr_len);
    if (p != NULL)
      memcpy(m.addr, p, m.addr_len);
    break;
  case ITG__DITG_SEND_NAME_LOG:
    bad_name = get_name(&r, m.name);
    break;
  case ITG__DITG_SEND_FLOW_LOG:
    m.family = itg__rcur_u32(&r);
    if (!r.bad && m.family != ITG__DITG_FAMILY_INET && !family_inet6(m.family))
      return ITG_EBADMSG;
    m.addr_len = m.family == ITG__DITG_FAMILY_INET ? 4 : 16;
    p = itg__rcur_room(&r, m.addr_len);
    if (p != NULL)
      memcpy(m.addr, p, m.addr_len);
    m.port = itg__rcur_u16(&r);
    m.log_transport = itg__rcur_u8(&r);
    bad_name = get_name(&r, m.name);
    break;
  default:
    break;
  }
  if (r.bad)
    return ITG_ETRUNC;
  if (bad_name)
    return ITG_EBADMSG;
  *out = m;
  return (int)r.at;
}

/* The reader's measure: a message is whole once it decodes; arg takes
 * it. */
static int ditg_measure(const uint8_t *buf, size_t avail, void *arg) {
  int n = itg__ditg_decode(buf, avail, arg);
  return n == ITG_ETRUNC ? 0 : n;
}

uint8_t *itg__ditg_reader_space(itg__ditg_reader *r, size_t *room) {
  return itg__frame_reader_space(&r->fr, r->buf, sizeof r->buf, room);
}

void itg__ditg_reader_commit(itg__ditg_reader *r, size_t n) {
  itg__frame_reader_commit(&r->fr, n);
}

int itg__ditg_reader_next(itg__ditg_reader *r, itg__ditg_msg *out) {
  uint8_t *msg;
  int n = itg__frame_reader_next(&r->fr, r->buf, sizeof r->buf, ditg_measure,
                                 out, &msg);
  return n <= 0 ? n : 1;
}

int itg__ditg_send(itg__sock s, const itg__ditg_msg *m, int64_t timeout_ns) {
  uint8_t buf[ITG__DITG_MAX_MSG];
  int len = itg__ditg_encode(m, buf, sizeof buf);
  if (len < 0)
    return len;
  return itg__ctl_send_bytes(s, buf, (size_t)len, timeout_ns);
}

int itg__ditg_fill(itg__sock s, itg__ditg_reader *r) {
  size_t room;
  uint8_t *p = itg__ditg_reader_space(r, &room);
  int n;
  if (room == 0)
    return 0;
  n = itg__stream_recv(s, p, room);
  if (n > 0)
    itg__ditg_reader_commit(r, (size_t)n);
  return n;
}

static int ditg_next(void *reader, void *out) {
  return itg__ditg_reader_next(reader, out);
}

static int ditg_fill(itg__sock s, void *reader) {
  return itg__ditg_fill(s, reader);
}

int itg__ditg_recv(itg__sock s, itg__ditg_reader *r, itg__ditg_msg *out,
                   int64_t timeout_ns) {
  static const itg__msg_source src = {ditg_next, ditg_fill};
  return itg__recv_msg(s, &src, r, out, timeout_ns);
}
