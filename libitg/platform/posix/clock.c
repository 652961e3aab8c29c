/* Clocks, precise sleeping and process/thread set-up on POSIX. */
#define _GNU_SOURCE
#include "platform/platform.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define NS_PER_S INT64_C(1000000000)

static int64_t timespec_ns(const struct timespec *ts) {
  return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

int64_t itg__real_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return timespec_ns(&ts);
}

/* Linux lets a timer fire up to the thread's "timer slack" late (50 us by
 * default) to merge wake-ups; 1 ns makes sleeps and poll timeouts end when
 * asked. The slack belongs to the thread, so each thread sets it once. */
static void precise_timers_for_this_thread(void) {
#ifdef PR_SET_TIMERSLACK
  static _Thread_local bool done;
  if (!done) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    done = true;
  }
#endif
}

#if !defined(MSG_NOSIGNAL) && !defined(SO_NOSIGPIPE)
static uv_once_t sigpipe_once = UV_ONCE_INIT;

/* No per-call or per-socket way to keep SIGPIPE away on this system. */
static void ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }
#endif

int itg__platform_init(void) {
  precise_timers_for_this_thread();
#if !defined(MSG_NOSIGNAL) && !defined(SO_NOSIGPIPE)
  uv_once(&sigpipe_once, ignore_sigpipe);
#endif
  return 0;
}

void itg__sleep_until(int64_t deadline_ns) {
  int64_t left;

  precise_timers_for_this_thread();
  /* The monotonic clock counts up from boot: such an instant has passed. */
  if (deadline_ns <= 0)
    return;
#if defined(_POSIX_CLOCK_SELECTION) && _POSIX_CLOCK_SELECTION >= 0
  {
    struct timespec ts = {(time_t)(deadline_ns / NS_PER_S),
                          (long)(deadline_ns % NS_PER_S)};
    int rc;
    /* An absolute deadline survives signals: just sleep again. */
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
                                 NULL)) == EINTR)
      ;
    /* Any other failure means no absolute sleep is to be had here (an
     * interposed clock_nanosleep refuses it: libfaketime's, leaving the
     * monotonic clock alone, says EINVAL): the relative sleeps below
     * take over rather than return before the deadline. */
    if (rc == 0)
      return;
  }
#endif
  /* Sleep what is left until nothing is. */
  while ((left = deadline_ns - (int64_t)uv_hrtime()) > 0) {
    struct timespec ts = {(time_t)(left / NS_PER_S), (long)(left % NS_PER_S)};
    nanosleep(&ts, NULL);
  }
}

void itg__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
  __asm__ __volatile__("yield" ::: "memory");
#else
  __asm__ __volatile__("" ::: "memory");
#endif
}
