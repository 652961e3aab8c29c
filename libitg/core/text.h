/* Appending text into a caller's buffer that never overflows and keeps
 * counting what the whole text needs, for the JSON and CSV reports. */
#ifndef ITG_TEXT_H
#define ITG_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct itg__text {
  char *buf;
  size_t len; /* bytes available, NUL included */
  size_t pos; /* bytes wanted so far, NUL excluded */
} itg__text;

/* Starts writing into buf[0..len) (buf may be NULL when len is 0). */
void itg__text_init(itg__text *t, char *buf, size_t len);

void itg__text_str(itg__text *t, const char *s);

void itg__text_u64(itg__text *t, uint64_t v);

/* Writes v with a fixed number of decimals and '.' as the decimal point
 * whatever the locale; NaN and infinities are written as 0, which JSON
 * and CSV readers accept. */
void itg__text_fixed(itg__text *t, double v, int decimals);

/* NUL-terminates what fits and sets *needed (if not NULL) to the whole
 * length, NUL included. Returns 0, or ITG_ERANGE if the text was cut. */
int itg__text_finish(itg__text *t, size_t *needed);

#endif
