/* Bounded cursors over a message body, for the encoders and decoders of
 * the framed protocols (signaling, log protocol): each field is written or
 * read in network byte order, and a field that would pass the end marks the
 * cursor bad instead, so a codec checks once, at the end, rather than at
 * every field. */
#ifndef ITG_CORE_CURSOR_H
#define ITG_CORE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

/* Writes into p[0..len); `at` is the next byte, `bad` set once a field
 * did not fit (nothing more is written then). */
typedef struct itg__wcur {
  uint8_t *p;
  size_t len, at;
  int bad;
} itg__wcur;

/* Reads p[0..len); `at` is the next byte, `bad` set once a field ran past
 * the end or broke its rule (reads give 0 then). */
typedef struct itg__rcur {
  const uint8_t *p;
  size_t len, at;
  int bad;
} itg__rcur;

/* Takes the next n bytes to write, or NULL (the cursor marked bad). */
uint8_t *itg__wcur_room(itg__wcur *w, size_t n);
void itg__wcur_u8(itg__wcur *w, uint8_t v);
void itg__wcur_u16(itg__wcur *w, uint16_t v);
void itg__wcur_u32(itg__wcur *w, uint32_t v);
void itg__wcur_u64(itg__wcur *w, uint64_t v);
/* A text field: its length (16 bits) then its bytes; the caller checked
 * that s is terminated and fits 16 bits. */
void itg__wcur_text(itg__wcur *w, const char *s);

/* Takes the next n bytes to read, or NULL (the cursor marked bad). */
const uint8_t *itg__rcur_room(itg__rcur *r, size_t n);
uint8_t itg__rcur_u8(itg__rcur *r);
uint16_t itg__rcur_u16(itg__rcur *r);
uint32_t itg__rcur_u32(itg__rcur *r);
uint64_t itg__rcur_u64(itg__rcur *r);
/* A text field into dst[0..cap), terminated; one that does not fit or holds
 * a NUL marks the cursor bad and leaves dst empty. */
void itg__rcur_text(itg__rcur *r, char *dst, size_t cap);

#endif
