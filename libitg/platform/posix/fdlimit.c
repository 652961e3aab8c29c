/* The process's limit on open descriptors on POSIX. */
#include "platform/platform.h"

#include <limits.h>
#include <sys/resource.h>

/* A soft limit of RLIM_INFINITY, or one above what the counters below
 * hold, is as good as none. */
static uint64_t limit_of(rlim_t v) {
  return v == RLIM_INFINITY || v > (rlim_t)UINT32_MAX ? 0 : (uint64_t)v;
}

uint64_t itg__fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return 0;
  return limit_of(rl.rlim_cur);
}

uint64_t itg_fd_limit_raise(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return 0;
  if (rl.rlim_cur != rl.rlim_max) {
    rlim_t soft = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
#ifdef OPEN_MAX
    /* macOS refuses a soft limit above OPEN_MAX, whatever the hard one. */
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && rl.rlim_max > OPEN_MAX) {
      rl.rlim_cur = OPEN_MAX;
      if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        rl.rlim_cur = soft;
    }
#else
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
      rl.rlim_cur = soft;
#endif
  }
  return limit_of(rl.rlim_cur);
}
