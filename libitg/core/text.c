/* Bounded text writer (see text.h). */
#include "core/text.h"

#include <math.h>
#include <stdio.h>

#include "itg/common.h"

void itg__text_init(itg__text *t, char *buf, size_t len) {
  t->buf = buf;
  t->len = len;
  t->pos = 0;
}

void itg__text_str(itg__text *t, const char *s) {
  for (; *s != '\0'; s++, t->pos++)
    if (t->pos + 1 < t->len)
      t->buf[t->pos] = *s;
}

void itg__text_u64(itg__text *t, uint64_t v) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
  itg__text_str(t, tmp);
}

void itg__text_fixed(itg__text *t, double v, int decimals) {
  char tmp[400]; /* %f of the largest double needs 309 digits */
  if (!isfinite(v) || v == 0)
    v = 0; /* also turns -0 into 0 */
  snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
  for (char *p = tmp; *p != '\0'; p++)
    if (*p == ',')
      *p = '.';
  itg__text_str(t, tmp);
}

int itg__text_finish(itg__text *t, size_t *needed) {
  if (t->len > 0)
    t->buf[t->pos < t->len ? t->pos : t->len - 1] = '\0';
  if (needed != NULL)
    *needed = t->pos + 1;
  return t->pos < t->len ? 0 : ITG_ERANGE;
}
