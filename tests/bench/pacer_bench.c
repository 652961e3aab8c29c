/* Pacer benchmark (not a test): for each wait mode and rate, waits on the
 * pacer for a while and prints how late it woke (actual minus scheduled
 * instant) as percentiles, the error of the intervals between wake-ups,
 * the drift from the schedule and the CPU time spent.
 *
 *   pacer_bench [seconds per run, default 2]
 *
 * These are wake-up times in the pacer's own clock; what leaves the
 * machine is measured by tests/tools (wiretap, wirestats). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "core/pacer.h"
#include "itg/parse.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of a sorted array (nearest rank). */
static int64_t quantile(const int64_t *v, size_t n, double q) {
  size_t i = (size_t)(q * (double)n);
  return v[i < n ? i : n - 1];
}

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Mean lateness over v[from, to). */
static double mean(const int64_t *v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; i++)
    s += (double)v[i];
  return s / (double)(to - from);
}

static int run(itg_wait_mode mode, const char *name, int64_t rate,
               double seconds) {
  int64_t idt = 1000000000 / rate;
  size_t n = (size_t)((double)rate * seconds);
  int64_t *late = malloc(n * sizeof *late);
  int64_t *gap_err = malloc(n * sizeof *gap_err);
  itg_pacer *p = NULL;
  itg_pacer_stats st;
  int rc = 1;

  if (late == NULL || gap_err == NULL || n < 20) {
    fprintf(stderr, "pacer_bench: cannot run %zu waits\n", n);
    goto out_free;
  }
  /* Start one interval from now, so the first wait is a real one. */
  if (itg_pacer_new(mode, itg_clock_mono_ns(), &p) != 0)
    goto out_free;
  double cpu0 = cpu_seconds();
  int64_t t0 = itg_clock_mono_ns();
  for (size_t i = 0; i < n; i++)
    late[i] = itg_pacer_wait(p, idt);
  int64_t wall = itg_clock_mono_ns() - t0;
  double cpu = cpu_seconds() - cpu0;
  itg_pacer_get_stats(p, &st);

  /* Interval error: (t_k - t_{k-1}) - idt = late_k - late_{k-1}. */
  for (size_t i = 1; i < n; i++) {
    int64_t e = late[i] - late[i - 1];
    gap_err[i - 1] = e < 0 ? -e : e;
  }
  /* Drift: mean lateness of the last tenth minus that of the first. */
  double drift = mean(late, n - n / 10, n) - mean(late, 0, n / 10);
  qsort(late, n, sizeof *late, cmp_i64);
  qsort(gap_err, n - 1, sizeof *gap_err, cmp_i64);
  printf("%-6s %7lld %7zu %8.1f %8.1f %9.1f %9.1f %8.1f %8.1f %8.1f %7.3f "
         "%5.1f %8.2f\n",
         name, (long long)rate, n, quantile(late, n, 0.5) / 1e3,
         quantile(late, n, 0.99) / 1e3, quantile(late, n, 0.999) / 1e3,
         late[n - 1] / 1e3, quantile(gap_err, n - 1, 0.5) / 1e3,
         quantile(gap_err, n - 1, 0.99) / 1e3, drift / 1e3, cpu,
         100.0 * cpu / ((double)wall / 1e9),
         100.0 * (double)st.late / (double)st.departures);
  rc = 0;
out_free:
  itg_pacer_free(p);
  free(late);
  free(gap_err);
  return rc;
}

/* What the pacer itself costs a packet: one itg_pacer_wait whose instant
 * has passed (no waiting), the best of 5 rounds of a million calls. */
static int call_cost(double *ns) {
  itg_pacer *p;
  int64_t best = INT64_MAX;

  if (itg_pacer_new(ITG_WAIT_SPIN, 0, &p) != 0)
    return 1;
  for (int round = 0; round < 5; round++) {
    int64_t t0 = itg_clock_mono_ns();
    for (int i = 0; i < 1000000; i++)
      itg_pacer_wait(p, 0);
    int64_t t = itg_clock_mono_ns() - t0;
    if (t < best)
      best = t;
  }
  itg_pacer_free(p);
  *ns = (double)best / 1e6;
  return 0;
}

int main(int argc, char **argv) {
  static const struct {
    itg_wait_mode mode;
    const char *name;
  } modes[] = {{ITG_WAIT_HYBRID, "hybrid"},
               {ITG_WAIT_SLEEP, "sleep"},
               {ITG_WAIT_SPIN, "spin"}};
  static const int64_t rates[] = {1000, 10000, 100000};
  double seconds = 2.0;
  itg_pacer *probe;
  double cost_ns;

  if (argc > 2 || (argc == 2 && (itg_parse_double(argv[1], &seconds) != 0 ||
                                 seconds < 0.1 || seconds > 3600))) {
    fprintf(stderr, "usage: pacer_bench [seconds per run, 0.1 to 3600]\n");
    return 2;
  }
  if (itg_pacer_new(ITG_WAIT_HYBRID, 0, &probe) != 0)
    return 1;
  printf("hybrid margin %.1f us, first sleep %.1f us early (0: none); "
         "times in us; gap = |interval - idt|; late%% = share > 1 us late\n",
         probe->margin_ns / 1e3, probe->coarse_ns / 1e3);
  itg_pacer_free(probe);
  if (call_cost(&cost_ns) != 0)
    return 1;
  printf("itg_pacer_wait on a passed instant: %.1f ns a call\n", cost_ns);
  printf("%-6s %7s %7s %8s %8s %9s %9s %8s %8s %8s %7s %5s %8s\n", "mode",
         "rate", "waits", "late_p50", "late_p99", "late_p999", "late_max",
         "gap_p50", "gap_p99", "drift", "cpu_s", "cpu%", "late%");
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
      if (run(modes[m].mode, modes[m].name, rates[r], seconds) != 0)
        return 1;
  return 0;
}
