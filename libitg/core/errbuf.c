/* Messages into a caller's error buffer (see errbuf.h). */
#include "core/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

size_t itg__err_begin(char *err, size_t errlen) {
  if (err == NULL)
    return 0;
  if (errlen > 0)
    err[0] = '\0';
  return errlen;
}

void itg__err_set(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}
