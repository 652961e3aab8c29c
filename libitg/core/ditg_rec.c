/* D-ITG log records, binary and text (see ditg_rec.h and itg/ditg.h). */
#include "core/ditg_rec.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/byteorder.h"

#define SEC INT64_C(1000000000)
#define OFF_SIZE 32
#define OFF_SRC 36
#define OFF_DST (OFF_SRC + ITG_DITG_ADDR_LEN)
#define OFF_TX_SEC (OFF_DST + ITG_DITG_ADDR_LEN)
#define OFF_RX_SEC (OFF_TX_SEC + 8)

/* The characters of an address's text: IPv4, IPv6 with a zone, a name. */
static int addr_char(int c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c == '.' || c == ':' || c == '%' ||
         c == '-' || c == '_';
}

/* Copies the NUL-terminated address at p (ITG_DITG_ADDR_LEN bytes, what
 * follows the NUL ignored: D-ITG leaves it as its memory was). */
static int addr_decode(const uint8_t *p, char *out) {
  size_t n = 0;
  while (n < ITG_DITG_ADDR_LEN && p[n] != 0) {
    if (!addr_char(p[n]))
      return ITG_EBADMSG;
    n++;
  }
  if (n == 0 || n == ITG_DITG_ADDR_LEN)
    return ITG_EBADMSG;
  memset(out, 0, ITG_DITG_ADDR_LEN);
  memcpy(out, p, n);
  return 0;
}

/* Times of the day in ns from D-ITG's hour, minute and seconds. */
static int tod_from(uint32_t h, uint32_t m, int64_t sec_ns, int64_t *out) {
  if (h > 23 || m > 59 || sec_ns < 0 || sec_ns > 60 * SEC)
    return ITG_EBADMSG;
  *out = (int64_t)h * 3600 * SEC + (int64_t)m * 60 * SEC + sec_ns;
  return 0;
}

static int sec_ns_of(double s, int64_t *out) {
  if (!isfinite(s) || s < 0 || s >= 60)
    return ITG_EBADMSG;
  *out = llround(s * 1e9);
  return 0;
}

static double get_double(const uint8_t *p) {
  uint64_t bits = itg__get_le64(p);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

static void put_double(uint8_t *p, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  itg__put_le64(p, bits);
}

/* Fills the fields both byte orders share, checking their ranges. */
static int fields_from(uint32_t flow, uint32_t seq, uint32_t sport,
                       uint32_t dport, uint32_t size, itg__ditg_rec *r) {
  memset(r, 0, sizeof *r);
  r->flow_id = flow;
  r->seq = seq;
  r->size = size;
  if (sport > 65535 || dport > 65535 || size == 0 || size > 65535)
    return ITG_EBADMSG;
  r->src_port = (uint16_t)sport;
  r->dst_port = (uint16_t)dport;
  return 0;
}

int itg__ditg_rec_decode(const uint8_t *buf, itg__ditg_rec *r) {
  int64_t tx_s, rx_s;
  if (fields_from(itg__get_le32(buf), itg__get_le32(buf + 4),
                  itg__get_le32(buf + 8), itg__get_le32(buf + 12),
                  itg__get_le32(buf + OFF_SIZE), r) != 0)
    return ITG_EBADMSG;
  if (sec_ns_of(get_double(buf + OFF_TX_SEC), &tx_s) != 0 ||
      sec_ns_of(get_double(buf + OFF_RX_SEC), &rx_s) != 0 ||
      tod_from(itg__get_le32(buf + 16), itg__get_le32(buf + 20), tx_s,
               &r->tx_tod_ns) != 0 ||
      tod_from(itg__get_le32(buf + 24), itg__get_le32(buf + 28), rx_s,
               &r->rx_tod_ns) != 0)
    return ITG_EBADMSG;
  if (addr_decode(buf + OFF_SRC, r->src_addr) != 0 ||
      addr_decode(buf + OFF_DST, r->dst_addr) != 0)
    return ITG_EBADMSG;
  return 0;
}

/* Writes a time of the day as D-ITG's hour, minute and seconds. */
static void tod_encode(int64_t tod, uint8_t *hm, uint8_t *sec) {
  itg__put_le32(hm, (uint32_t)(tod / (3600 * SEC)));
  itg__put_le32(hm + 4, (uint32_t)(tod / (60 * SEC) % 60));
  put_double(sec, (double)(tod % (60 * SEC)) / 1e9);
}

void itg__ditg_rec_encode(const itg__ditg_rec *r, uint8_t *buf) {
  memset(buf, 0, ITG_DITG_RECORD_LEN);
  itg__put_le32(buf, r->flow_id);
  itg__put_le32(buf + 4, r->seq);
  itg__put_le32(buf + 8, r->src_port);
  itg__put_le32(buf + 12, r->dst_port);
  tod_encode(r->tx_tod_ns, buf + 16, buf + OFF_TX_SEC);
  tod_encode(r->rx_tod_ns, buf + 24, buf + OFF_RX_SEC);
  itg__put_le32(buf + OFF_SIZE, r->size);
  memcpy(buf + OFF_SRC, r->src_addr, strnlen(r->src_addr, ITG_DITG_ADDR_LEN - 1));
  memcpy(buf + OFF_DST, r->dst_addr, strnlen(r->dst_addr, ITG_DITG_ADDR_LEN - 1));
}

/* A time of the day in ns from a second of the day and microseconds. */
static int tod_wire(uint32_t sec, uint32_t usec, int64_t *out) {
  if (sec >= 86400 || usec >= 1000000)
    return ITG_EBADMSG;
  *out = (int64_t)sec * SEC + (int64_t)usec * 1000;
  return 0;
}

int itg__ditg_rec_decode_wire(const uint8_t *buf, itg__ditg_rec *r) {
  if (fields_from(itg__get_be32(buf), itg__get_be32(buf + 4),
                  itg__get_be32(buf + 8), itg__get_be32(buf + 12),
                  itg__get_be32(buf + OFF_SIZE), r) != 0 ||
      tod_wire(itg__get_be32(buf + 16), itg__get_be32(buf + 20),
               &r->tx_tod_ns) != 0 ||
      tod_wire(itg__get_be32(buf + 24), itg__get_be32(buf + 28),
               &r->rx_tod_ns) != 0 ||
      addr_decode(buf + OFF_SRC, r->src_addr) != 0 ||
      addr_decode(buf + OFF_DST, r->dst_addr) != 0)
    return ITG_EBADMSG;
  return 0;
}

void itg__ditg_rec_encode_wire(const itg__ditg_rec *r, uint8_t *buf) {
  memset(buf, 0, ITG_DITG_RECORD_LEN);
  itg__put_be32(buf, r->flow_id);
  itg__put_be32(buf + 4, r->seq);
  itg__put_be32(buf + 8, r->src_port);
  itg__put_be32(buf + 12, r->dst_port);
  itg__put_be32(buf + 16, (uint32_t)(r->tx_tod_ns / SEC));
  itg__put_be32(buf + 20, (uint32_t)(r->tx_tod_ns % SEC / 1000));
  itg__put_be32(buf + 24, (uint32_t)(r->rx_tod_ns / SEC));
  itg__put_be32(buf + 28, (uint32_t)(r->rx_tod_ns % SEC / 1000));
  itg__put_be32(buf + OFF_SIZE, r->size);
  memcpy(buf + OFF_SRC, r->src_addr, strnlen(r->src_addr, ITG_DITG_ADDR_LEN - 1));
  memcpy(buf + OFF_DST, r->dst_addr, strnlen(r->dst_addr, ITG_DITG_ADDR_LEN - 1));
}

/* ---- text ---------------------------------------------------------------- */

typedef struct cursor {
  const char *p;
  const char *end;
} cursor;

static void skip_spaces(cursor *c) {
  while (c->p < c->end && *c->p == ' ')
    c->p++;
}

/* Spaces, then the literal word. */
static int word(cursor *c, const char *w) {
  size_t n = strlen(w);
  skip_spaces(c);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
    return ITG_EBADMSG;
  c->p += n;
  return 0;
}

/* Spaces (%7u and %5u align to the right), then the decimal digits (at
 * least one) of a number at most max. */
static int number(cursor *c, uint32_t max, uint32_t *out) {
  uint64_t v = 0;
  const char *start;
  skip_spaces(c);
  start = c->p;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    v = v * 10 + (uint64_t)(*c->p - '0');
    if (v > max)
      return ITG_EBADMSG;
    c->p++;
  }
  if (c->p == start)
    return ITG_EBADMSG;
  *out = (uint32_t)v;
  return 0;
}

/* "ADDR/PORT", the address after spaces that align it. */
static int addr_port(cursor *c, char *addr, uint16_t *port) {
  const char *start;
  uint32_t v;
  skip_spaces(c);
  start = c->p;
  while (c->p < c->end && addr_char((unsigned char)*c->p))
    c->p++;
  if (c->p == start || c->p - start >= (ptrdiff_t)ITG_DITG_ADDR_LEN ||
      c->p == c->end || *c->p != '/')
    return ITG_EBADMSG;
  memset(addr, 0, ITG_DITG_ADDR_LEN);
  memcpy(addr, start, (size_t)(c->p - start));
  c->p++;
  if (number(c, 65535, &v) != 0)
    return ITG_EBADMSG;
  *port = (uint16_t)v;
  return 0;
}

/* "H:M:S.FRACTION" (%u:%u:%lf), exactly to the nanosecond: digits beyond
 * the ninth of the fraction are dropped. */
static int time_of_day(cursor *c, int64_t *out) {
  uint32_t h, m, s;
  int64_t frac = 0, scale = 100000000;
  if (number(c, 23, &h) != 0 || word(c, ":") != 0 || number(c, 59, &m) != 0 ||
      word(c, ":") != 0 || number(c, 59, &s) != 0)
    return ITG_EBADMSG;
  if (c->p < c->end && *c->p == '.') {
    c->p++;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      frac += (int64_t)(*c->p - '0') * scale;
      scale /= 10;
      c->p++;
    }
  }
  return tod_from(h, m, (int64_t)s * SEC + frac, out);
}

int itg__ditg_line_parse(const char *line, size_t len, itg__ditg_rec *r) {
  cursor c = {line, line + len};
  uint32_t size;
  memset(r, 0, sizeof *r);
  if (word(&c, "Flow>") != 0 || number(&c, UINT32_MAX, &r->flow_id) != 0 ||
      word(&c, "Seq>") != 0 || number(&c, UINT32_MAX, &r->seq) != 0 ||
      word(&c, "Src>") != 0 || addr_port(&c, r->src_addr, &r->src_port) != 0 ||
      word(&c, "Dest>") != 0 ||
      addr_port(&c, r->dst_addr, &r->dst_port) != 0 ||
      word(&c, "txTime>") != 0 || time_of_day(&c, &r->tx_tod_ns) != 0 ||
      word(&c, "rxTime>") != 0 || time_of_day(&c, &r->rx_tod_ns) != 0 ||
      word(&c, "Size>") != 0 || number(&c, 65535, &size) != 0 || size == 0)
    return ITG_EBADMSG;
  r->size = size;
  skip_spaces(&c);
  if (c.p < c.end && *c.p == '\r')
    c.p++;
  return c.p == c.end ? 0 : ITG_EBADMSG;
}
