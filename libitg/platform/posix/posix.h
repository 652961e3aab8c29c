/* What the POSIX platform files share and nothing else needs. */
#ifndef ITG_PLATFORM_POSIX_H
#define ITG_PLATFORM_POSIX_H

#include <sys/socket.h>

/* Flags for every send: a write to a reset connection must give EPIPE, not
 * SIGPIPE. Without MSG_NOSIGNAL the socket carries SO_NOSIGPIPE instead
 * (itg__sock_open), or SIGPIPE is ignored (itg__platform_init). */
#ifdef MSG_NOSIGNAL
#define ITG__SEND_FLAGS MSG_NOSIGNAL
#else
#define ITG__SEND_FLAGS 0
#endif

/* Returns the calling thread's last socket error as a negative ITG_E*
 * code, ITG_ESOCKET where itg__sock_last_error would say "would block":
 * for calls that fail only for real. */
int itg__sock_fail(void);

#endif
