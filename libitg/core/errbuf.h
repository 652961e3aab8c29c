/* Messages into a caller's error buffer (err, errlen), as the functions
 * that take one write them: empty when the call succeeds, cut to fit. */
#ifndef ITG_CORE_ERRBUF_H
#define ITG_CORE_ERRBUF_H

#include <stddef.h>

/* Returns how many bytes of err a message may take (0 when err is NULL),
 * and empties err, so that a call that succeeds leaves no message. */
size_t itg__err_begin(char *err, size_t errlen);

/* Writes a message into err[0..errlen) (nothing when errlen is 0). */
void itg__err_set(char *err, size_t errlen, const char *fmt, ...);

#endif
