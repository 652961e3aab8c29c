/* Thread scheduling helpers on POSIX. */
#define _GNU_SOURCE
#include "platform/platform.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

/* The nice value itg__thread_boost asks for: well ahead of ordinary
 * processes without reaching the real-time classes. */
#define BOOST_NICE (-10)

void itg__yield(void) { sched_yield(); }

void itg__thread_block_sigpipe(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int itg__thread_boost(void) {
#ifdef __linux__
  /* Linux keeps a nice value per thread, named by the thread's id. */
  id_t who = (id_t)syscall(SYS_gettid);
#else
  /* Elsewhere the nice value belongs to the whole process. */
  id_t who = 0;
#endif
  int cur;

  errno = 0;
  cur = getpriority(PRIO_PROCESS, who);
  if (cur == -1 && errno != 0)
    return ITG_ENOTSUP;
  if (cur <= BOOST_NICE)
    return 0;
  if (setpriority(PRIO_PROCESS, who, BOOST_NICE) != 0)
    return errno == EPERM || errno == EACCES ? ITG_EPERM : ITG_ENOTSUP;
  return 0;
}

int itg__thread_pin(int cpu) {
#if defined(__linux__) && defined(CPU_SET)
  cpu_set_t set;
  int rc;

  if (cpu < 0 || cpu >= CPU_SETSIZE)
    return ITG_EINVAL;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc == 0)
    return 0;
  return rc == EINVAL ? ITG_EINVAL : ITG_ENOTSUP;
#else
  (void)cpu;
  return ITG_ENOTSUP;
#endif
}
