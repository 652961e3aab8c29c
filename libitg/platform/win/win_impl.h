/* Private to platform/win: the Windows version the code is written for and
 * the helpers its files share. Included first by every file here, so the
 * version macro is seen before any system header. */
#ifndef ITG_PLATFORM_WIN_IMPL_H
#define ITG_PLATFORM_WIN_IMPL_H

/* Windows 10: GetSystemTimePreciseAsFileTime (8) and high-resolution
 * waitable timers (10, version 1803). */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "platform/platform.h"

#include <windows.h>

/* Returns the calling thread's last socket error as a negative ITG_E*
 * code, ITG_ESOCKET where itg__sock_last_error would say "would block":
 * for calls that fail only for real. */
int itg__sock_fail(void);

/* Fills *tv with timeout_ns rounded up to whole microseconds, so a wait
 * never ends early, and returns tv; returns NULL (wait without limit) for
 * a negative timeout. For select(). */
struct timeval *itg__win_timeval(int64_t timeout_ns, struct timeval *tv);

#endif
