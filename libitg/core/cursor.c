/* Bounded cursors over a message body (see cursor.h). */
#include "core/cursor.h"

#include <string.h>

#include "core/byteorder.h"

uint8_t *itg__wcur_room(itg__wcur *w, size_t n) {
  uint8_t *at;
  if (w->bad || w->len - w->at < n) {
    w->bad = 1;
    return NULL;
  }
  at = w->p + w->at;
  w->at += n;
  return at;
}

void itg__wcur_u8(itg__wcur *w, uint8_t v) {
  uint8_t *p = itg__wcur_room(w, 1);
  if (p != NULL)
    *p = v;
}

void itg__wcur_u16(itg__wcur *w, uint16_t v) {
  uint8_t *p = itg__wcur_room(w, 2);
  if (p != NULL)
    itg__put_be16(p, v);
}

void itg__wcur_u32(itg__wcur *w, uint32_t v) {
  uint8_t *p = itg__wcur_room(w, 4);
  if (p != NULL)
    itg__put_be32(p, v);
}

void itg__wcur_u64(itg__wcur *w, uint64_t v) {
  uint8_t *p = itg__wcur_room(w, 8);
  if (p != NULL)
    itg__put_be64(p, v);
}

void itg__wcur_text(itg__wcur *w, const char *s) {
  size_t n = strlen(s);
  uint8_t *p;
  itg__wcur_u16(w, (uint16_t)n);
  p = itg__wcur_room(w, n);
  if (p != NULL)
    memcpy(p, s, n);
}

const uint8_t *itg__rcur_room(itg__rcur *r, size_t n) {
  const uint8_t *at;
  if (r->bad || r->len - r->at < n) {
    r->bad = 1;
    return NULL;
  }
  at = r->p + r->at;
  r->at += n;
  return at;
}

uint8_t itg__rcur_u8(itg__rcur *r) {
  const uint8_t *p = itg__rcur_room(r, 1);
  return p != NULL ? *p : 0;
}

uint16_t itg__rcur_u16(itg__rcur *r) {
  const uint8_t *p = itg__rcur_room(r, 2);
  return p != NULL ? itg__get_be16(p) : 0;
}

uint32_t itg__rcur_u32(itg__rcur *r) {
  const uint8_t *p = itg__rcur_room(r, 4);
  return p != NULL ? itg__get_be32(p) : 0;
}

uint64_t itg__rcur_u64(itg__rcur *r) {
  const uint8_t *p = itg__rcur_room(r, 8);
  return p != NULL ? itg__get_be64(p) : 0;
}

void itg__rcur_text(itg__rcur *r, char *dst, size_t cap) {
  uint16_t n = itg__rcur_u16(r);
  const uint8_t *p = itg__rcur_room(r, n);
  if (cap > 0)
    dst[0] = '\0';
  if (p == NULL || n >= cap || memchr(p, '\0', n) != NULL) {
    r->bad = 1;
    return;
  }
  memcpy(dst, p, n);
  dst[n] = '\0';
}
