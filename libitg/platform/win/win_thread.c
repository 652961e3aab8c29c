/* Thread scheduling helpers on Windows. */
#include "platform/win/win_impl.h"

#include <limits.h>

void itg__cpu_relax(void) { YieldProcessor(); }

void itg__yield(void) { SwitchToThread(); }

void itg__thread_block_sigpipe(void) {}

int itg__thread_boost(void) {
  /* HIGHEST rather than TIME_CRITICAL: a spinning sender must not starve
   * the threads that serve its own control connection on a small machine,
   * as the POSIX side stops short of the real-time classes too. */
  if (!SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_HIGHEST))
    return GetLastError() == ERROR_ACCESS_DENIED ? ITG_EPERM : ITG_ENOTSUP;
  return 0;
}

int itg__thread_pin(int cpu) {
  DWORD_PTR process_mask, system_mask, bit;

  /* An affinity mask covers one processor group of at most 64 CPUs. */
  if (cpu < 0 || cpu >= (int)(sizeof(DWORD_PTR) * CHAR_BIT))
    return ITG_EINVAL;
  if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask,
                              &system_mask))
    return ITG_ENOTSUP;
  bit = (DWORD_PTR)1 << cpu;
  if ((process_mask & bit) == 0)
    return ITG_EINVAL;
  if (SetThreadAffinityMask(GetCurrentThread(), bit) == 0)
    return ITG_ENOTSUP;
  return 0;
}
