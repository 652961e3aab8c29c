/* timer_noise: how precisely this machine lets any program keep time,
 * measured without libitg, so that a pacing figure can be read against
 * what the machine itself allows.
 *
 *   timer_noise [SECONDS] [CPU]
 *
 * Two measurements of SECONDS each (default 2), on CPU if given:
 *   sleep  absolute 1 ms sleeps (clock_nanosleep TIMER_ABSTIME, timer
 *          slack 1 ns): how late each wakes, p50/p99/p99.9/max, and the
 *          CPU time they cost, in % of a core: the least that any program
 *          waking 1 000 times a second costs here, before it does any
 *          work;
 *   spin   a thread reading the monotonic clock in a loop: every gap of
 *          more than 20 us between two readings is time the CPU was taken
 *          away (interrupts, other threads, a virtual machine's host);
 *          the number of such gaps, the largest, their share of the
 *          time, and the share of its milliseconds in which it lost more
 *          than 50 us.
 * One line of JSON on standard output. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#define NS_PER_S INT64_C(1000000000)
#define SLEEP_NS INT64_C(1000000)
#define GAP_NS INT64_C(20000)
#define STALL_NS INT64_C(50000)
#define MAX_SLEEPS 100000

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* User and system time this process has used, in ns. */
static int64_t cpu_ns(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return ((int64_t)u.ru_utime.tv_sec + u.ru_stime.tv_sec) * NS_PER_S +
         ((int64_t)u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values, in microseconds. */
static double quantile_us(const int64_t *v, size_t n, double q) {
  size_t i = (size_t)(q * (double)(n - 1));
  return (double)v[i] / 1e3;
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 2.0;
  int64_t *late, len, next, end, prev, gap_sum = 0, gap_max = 0;
  int64_t cpu0, start;
  double sleep_cpu_pct;
  size_t n = 0;
  long gaps = 0, stalled_ms = 0, last_ms = -1;

  if (secs <= 0 || secs > 60) {
    fprintf(stderr, "timer_noise: SECONDS must be in (0, 60]\n");
    return 2;
  }
  if (argc > 2) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      perror("timer_noise: sched_setaffinity");
      return 2;
    }
  }
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  len = (int64_t)(secs * 1e9);
  late = malloc(MAX_SLEEPS * sizeof *late);
  if (late == NULL)
    return 2;

  cpu0 = cpu_ns();
  start = next = mono_ns();
  end = next + len;
  while (next < end && n < MAX_SLEEPS) {
    struct timespec ts;
    next += SLEEP_NS;
    ts.tv_sec = (time_t)(next / NS_PER_S);
    ts.tv_nsec = (long)(next % NS_PER_S);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    late[n++] = mono_ns() - next;
  }
  sleep_cpu_pct = 100.0 * (double)(cpu_ns() - cpu0) / (double)(mono_ns() - start);
  qsort(late, n, sizeof *late, cmp_i64);

  start = prev = mono_ns();
  end = prev + len;
  while (prev < end) {
    int64_t t = mono_ns(), g = t - prev;
    if (g > GAP_NS) {
      gaps++;
      gap_sum += g;
      if (g > gap_max)
        gap_max = g;
    }
    /* A millisecond in which the thread lost the CPU for over 50 us: in
     * one, a sender busy all through it leaves late by as much. */
    if (g > STALL_NS && (t - start) / SLEEP_NS != last_ms) {
      last_ms = (t - start) / SLEEP_NS;
      stalled_ms++;
    }
    prev = t;
  }

  printf("{\"sleep_1ms_late_p50_us\": %.1f, \"sleep_1ms_late_p99_us\": %.1f, "
         "\"sleep_1ms_late_p999_us\": %.1f, \"sleep_1ms_late_max_us\": %.1f, "
         "\"sleep_1ms_cpu_pct\": %.2f, "
         "\"spin_gaps_over_20us\": %ld, \"spin_gap_max_us\": %.1f, "
         "\"spin_lost_pct\": %.3f, \"spin_ms_stalled_over_50us_pct\": %.2f}\n",
         quantile_us(late, n, 0.5), quantile_us(late, n, 0.99),
         quantile_us(late, n, 0.999), (double)late[n - 1] / 1e3,
         sleep_cpu_pct, gaps,
         (double)gap_max / 1e3, 100.0 * (double)gap_sum / (double)len,
         100.0 * (double)stalled_ms * (double)SLEEP_NS / (double)len);
  free(late);
  return 0;
}
