/* Clocks and precise sleeping on Windows. */
#include "platform/win/win_impl.h"

/* Windows 10 1803 and later; older systems refuse the flag. */
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

#define NS_PER_S INT64_C(1000000000)
/* FILETIME counts 100 ns ticks from 1601-01-01; this many lie before the
 * Unix epoch. */
#define FILETIME_UNIX_EPOCH INT64_C(116444736000000000)

int64_t itg__real_ns(void) {
  FILETIME ft;
  ULARGE_INTEGER ticks;

  GetSystemTimePreciseAsFileTime(&ft);
  ticks.LowPart = ft.dwLowDateTime;
  ticks.HighPart = ft.dwHighDateTime;
  return ((int64_t)ticks.QuadPart - FILETIME_UNIX_EPOCH) * 100;
}

static uv_once_t timer_once = UV_ONCE_INIT;
static DWORD timer_flags; /* written once, inside timer_once */

/* Finds out once whether high-resolution waitable timers exist here. */
static void probe_timer(void) {
  HANDLE t = CreateWaitableTimerExW(
      NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);

  if (t != NULL) {
    timer_flags = CREATE_WAITABLE_TIMER_HIGH_RESOLUTION;
    CloseHandle(t);
  }
}

/* Sleep()'s milliseconds, rounded up so the wait never ends early. */
static DWORD sleep_ms(int64_t left_ns) {
  int64_t ms = (left_ns + 999999) / 1000000;
  return ms >= (int64_t)INFINITE ? INFINITE - 1 : (DWORD)ms;
}

void itg__sleep_until(int64_t deadline_ns) {
  HANDLE timer;
  int64_t now = (int64_t)uv_hrtime();

  /* Compared before subtracting: deadline_ns - now could overflow. */
  if (deadline_ns <= now)
    return;
  uv_once(&timer_once, probe_timer);
  timer = CreateWaitableTimerExW(NULL, NULL, timer_flags, TIMER_ALL_ACCESS);
  /* Timers count on the interrupt clock, not on QueryPerformanceCounter, so
   * a wake-up can come a little before the deadline: wait again for the
   * rest, as an absolute sleep would. */
  do {
    int64_t left = deadline_ns - now;
    LARGE_INTEGER due;

    /* Negative: relative, in 100 ns ticks, rounded up. */
    due.QuadPart = -((left + 99) / 100);
    if (timer != NULL && SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE))
      WaitForSingleObject(timer, INFINITE);
    else
      Sleep(sleep_ms(left));
    now = (int64_t)uv_hrtime();
  } while (now < deadline_ns);
  if (timer != NULL)
    CloseHandle(timer);
}
