/* Looks at sockets, threads and errors through the OS itself (see
 * osprobe.h). */
#if !defined(_WIN32)
#define _GNU_SOURCE
#endif
#include "osprobe.h"

#include <stdlib.h>

#if defined(_WIN32)
#include <windows.h>

#include <io.h>
#include <limits.h>
#else
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#endif

int osprobe_int_opt(itg__sock s, int level, int name) {
  /* Zeroed first: Winsock writes some options (TCP_NODELAY, IPV6_V6ONLY)
   * as a single byte. */
  int v = 0;
  socklen_t len = (socklen_t)sizeof v;
  if (getsockopt(s, level, name, (char *)&v, &len) != 0)
    return -1;
  return v;
}

/* Shared by both OSes, on libuv's threads: fn runs, then says so under the
 * lock; the waiter gives up at the deadline. Heap-held, so that a thread
 * still running after a give-up writes to memory that stays valid. */
struct bounded {
  void (*fn)(void *);
  void *arg;
  uv_mutex_t lock;
  uv_cond_t done_cond;
  int done;
};

static void bounded_main(void *p) {
  struct bounded *b = p;
  b->fn(b->arg);
  uv_mutex_lock(&b->lock);
  b->done = 1;
  uv_cond_signal(&b->done_cond);
  uv_mutex_unlock(&b->lock);
}

int osprobe_run_bounded(void (*fn)(void *), void *arg, int64_t timeout_ns) {
  struct bounded *b = calloc(1, sizeof *b);
  uv_thread_t th;
  uint64_t end;
  int done;

  if (b == NULL)
    return -1;
  b->fn = fn;
  b->arg = arg;
  if (uv_mutex_init(&b->lock) != 0 || uv_cond_init(&b->done_cond) != 0 ||
      uv_thread_create(&th, bounded_main, b) != 0)
    return -1;
  end = uv_hrtime() + (uint64_t)timeout_ns;
  uv_mutex_lock(&b->lock);
  while (!b->done) {
    uint64_t now = uv_hrtime();
    if (now >= end ||
        uv_cond_timedwait(&b->done_cond, &b->lock, end - now) != 0)
      break;
  }
  done = b->done;
  uv_mutex_unlock(&b->lock);
  if (!done)
    return -1;
  uv_thread_join(&th);
  uv_cond_destroy(&b->done_cond);
  uv_mutex_destroy(&b->lock);
  free(b);
  return 0;
}

#if defined(_WIN32)

int osprobe_has_rx_timestamps(void) { return 0; }

int osprobe_keeps_tos(void) { return 0; }

int osprobe_v4_options_on_v6(void) { return 0; }

int osprobe_rx_timestamps_on(itg__sock s) {
  (void)s;
  return 0;
}

int osprobe_blocks(itg__sock s) {
  DWORD limit_ms = 200, none = 0;
  char c;
  int rc, err;
  if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&limit_ms,
                 (int)sizeof limit_ms) != 0)
    return -1;
  rc = recv(s, &c, 1, 0);
  err = WSAGetLastError();
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&none,
             (int)sizeof none);
  if (rc != SOCKET_ERROR)
    return -1;
  return err == WSAETIMEDOUT ? 1 : err == WSAEWOULDBLOCK ? 0 : -1;
}

int osprobe_sock_inherited(itg__sock s) {
  DWORD flags = 0;
  if (!GetHandleInformation((HANDLE)s, &flags))
    return -1;
  return (flags & HANDLE_FLAG_INHERIT) != 0;
}

int osprobe_file_inherited(FILE *f) {
  DWORD flags = 0;
  HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
  if (h == INVALID_HANDLE_VALUE || !GetHandleInformation(h, &flags))
    return -1;
  return (flags & HANDLE_FLAG_INHERIT) != 0;
}

static const osprobe_sock_error sock_errors[] = {
    {WSAEWOULDBLOCK, 0},
    {WSAENOBUFS, 0},
    {WSAECONNREFUSED, ITG_ECONNREFUSED},
    {WSAEADDRINUSE, ITG_EADDRINUSE},
    {WSAEADDRNOTAVAIL, ITG_EADDR},
    {WSAETIMEDOUT, ITG_ETIMEDOUT},
    {WSAECONNRESET, ITG_ECLOSED},
    {WSAECONNABORTED, ITG_ECLOSED},
    {WSAESHUTDOWN, ITG_ECLOSED},
    {WSAEACCES, ITG_EPERM},
    {WSAEMSGSIZE, ITG_ERANGE},
    {WSA_NOT_ENOUGH_MEMORY, ITG_ENOMEM},
    {WSAEMFILE, ITG_ELIMIT},
    {WSAENOTCONN, ITG_ESTATE},
    {WSAEINVAL, ITG_EINVAL},
    {WSAENOPROTOOPT, ITG_ENOTSUP},
    {WSAEAFNOSUPPORT, ITG_ENOTSUP},
    {WSAENOTSOCK, ITG_ESOCKET}};

void osprobe_set_sock_error(int native) { WSASetLastError(native); }

/* SetThreadAffinityMask returns the mask it replaces: setting the one
 * wanted again reads it back. */
int osprobe_pinned_to(int cpu) {
  DWORD_PTR bit = (DWORD_PTR)1 << cpu;
  return SetThreadAffinityMask(GetCurrentThread(), bit) == bit;
}

/* An affinity mask covers one processor group. */
int osprobe_cpu_limit(void) { return (int)(sizeof(DWORD_PTR) * CHAR_BIT); }

int osprobe_cpu_refused(void) {
  DWORD_PTR process_mask, system_mask;
  int cpu = 0;
  if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask,
                              &system_mask))
    return -1;
  while (cpu < osprobe_cpu_limit() && (process_mask >> cpu) & 1)
    cpu++;
  return cpu < osprobe_cpu_limit() ? cpu : -1;
}

int osprobe_boosted(void) {
  return GetThreadPriority(GetCurrentThread()) == THREAD_PRIORITY_HIGHEST;
}

#else

int osprobe_has_rx_timestamps(void) { return 1; }

int osprobe_keeps_tos(void) { return 1; }

int osprobe_v4_options_on_v6(void) { return 1; }

/* Nanosecond stamps, or where those are refused (qemu-user), microsecond
 * ones. */
int osprobe_rx_timestamps_on(itg__sock s) {
  return osprobe_int_opt(s, SOL_SOCKET, SO_TIMESTAMPNS) == 1 ||
         osprobe_int_opt(s, SOL_SOCKET, SO_TIMESTAMP) == 1;
}

int osprobe_blocks(itg__sock s) {
  int fl = fcntl(s, F_GETFL);
  return fl < 0 ? -1 : (fl & O_NONBLOCK) == 0;
}

int osprobe_sock_inherited(itg__sock s) {
  int fl = fcntl(s, F_GETFD);
  return fl < 0 ? -1 : (fl & FD_CLOEXEC) == 0;
}

int osprobe_file_inherited(FILE *f) {
  return osprobe_sock_inherited(fileno(f));
}

static const osprobe_sock_error sock_errors[] = {
    {EAGAIN, 0},
    {EWOULDBLOCK, 0},
    {ENOBUFS, 0},
    {ECONNREFUSED, ITG_ECONNREFUSED},
    {EADDRINUSE, ITG_EADDRINUSE},
    {EADDRNOTAVAIL, ITG_EADDR},
    {ETIMEDOUT, ITG_ETIMEDOUT},
    {ECONNRESET, ITG_ECLOSED},
    {EPIPE, ITG_ECLOSED},
    {EACCES, ITG_EPERM},
    {EMSGSIZE, ITG_ERANGE},
    {EMFILE, ITG_ELIMIT},
    {ENOTCONN, ITG_ESTATE},
    {ENOPROTOOPT, ITG_ENOTSUP},
    {EBADF, ITG_ESOCKET}};

void osprobe_set_sock_error(int native) { errno = native; }

int osprobe_pinned_to(int cpu) {
  cpu_set_t set;
  return pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 &&
         CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

int osprobe_cpu_limit(void) { return CPU_SETSIZE; }

/* CPU_SETSIZE - 1 exists on no machine this runs on. */
int osprobe_cpu_refused(void) { return CPU_SETSIZE - 1; }

/* itg__thread_boost's nice value, -10, or better. */
int osprobe_boosted(void) {
#ifdef __linux__
  id_t who = (id_t)syscall(SYS_gettid);
#else
  id_t who = 0;
#endif
  return getpriority(PRIO_PROCESS, who) <= -10;
}

#endif

const osprobe_sock_error *osprobe_sock_errors(size_t *n) {
  *n = sizeof sock_errors / sizeof sock_errors[0];
  return sock_errors;
}
