/* GSL's default error handler aborts the process. libitg checks every
 * parameter before it calls GSL, and installs a handler that does nothing
 * as a second line of defence, so that a library call can never end the
 * host program. */
#ifndef ITG_GSL_GUARD_H
#define ITG_GSL_GUARD_H

/* Installs the non-aborting GSL error handler, once per process, unless the
 * application has already set a handler of its own (its choice is kept).
 * Safe to call many times, from any thread; call it before any GSL call. */
void itg__gsl_init(void);

#endif
