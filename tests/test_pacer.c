/* The pacer: schedule arithmetic, never waking early, counters. Nothing
 * here asserts how late a wait is: that is the benchmark's business. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/margin.h"
#include "helpers/rng.h"
#include "core/pacer.h"

#define MS INT64_C(1000000)
#define US INT64_C(1000)

static const itg_wait_mode modes[] = {ITG_WAIT_HYBRID, ITG_WAIT_SLEEP,
                                      ITG_WAIT_SPIN};

/* What a HYBRID init sets up. */
typedef struct margins {
  int64_t margin_ns, coarse_ns;
  int tracks;
} margins;

/* Runs a HYBRID init in a fresh child process (the margins are measured
 * once per process, so the parent's own state must not leak in) with
 * ITG_PACER_MARGIN_NS set to env (or unset if NULL), and returns the
 * margins it got. */
static margins child_margins(const char *env) {
  int fds[2];
  pid_t pid;
  margins m = {-1, -1, -1};
  int status;

  assert_int_equal(pipe(fds), 0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    itg_pacer *p;
    close(fds[0]);
    if (env != NULL)
      setenv("ITG_PACER_MARGIN_NS", env, 1);
    else
      unsetenv("ITG_PACER_MARGIN_NS");
    if (itg_pacer_new(ITG_WAIT_HYBRID, itg_clock_mono_ns(), &p) != 0)
      _exit(1);
    m.margin_ns = p->margin_ns;
    m.coarse_ns = p->coarse_ns;
    m.tracks = p->margin_tracks;
    itg_pacer_free(p);
    _exit(write(fds[1], &m, sizeof m) == (ssize_t)sizeof m ? 0 : 1);
  }
  close(fds[1]);
  assert_int_equal(read(fds[0], &m, sizeof m), (ssize_t)sizeof m);
  close(fds[0]);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return m;
}

/* Measured margins obey the documented bounds: the margin within
 * [20 us, 2 ms]; the first sleep, when there is one, ends earlier than the
 * last by as much again. */
static void assert_measured(margins m) {
  assert_true(m.margin_ns >= 20 * US && m.margin_ns <= 2 * MS);
  assert_true(m.coarse_ns == 0 ||
              (m.coarse_ns >= 20 * US && m.coarse_ns <= 2 * MS));
}

static void test_margin_calibrated_within_bounds(void **state) {
  margins m;
  (void)state;
  m = child_margins(NULL);
  assert_measured(m);
  assert_int_equal(m.tracks, 1);
}

static void test_margin_override(void **state) {
  margins m;
  (void)state;
  m = child_margins("12345");
  assert_int_equal(m.margin_ns, 12345);
  assert_int_equal(m.coarse_ns, 0);
  assert_int_equal(m.tracks, 0);
  m = child_margins("0");
  assert_int_equal(m.margin_ns, 0);
  assert_int_equal(m.coarse_ns, 0);
  /* Not a number, or out of range: measured as if unset. */
  assert_measured(child_margins("12us"));
  assert_measured(child_margins("-5"));
}

/* An exponential overshoot of mean 50 us, from a fixed seed: its q-th
 * quantile is -50 ln(1 - q) us, 115.1 us for the 90th percentile. */
static int64_t exp_overshoot(uint64_t *seed) {
  double u = ((double)(rng_next(seed) >> 11) + 0.5) / 9007199254740992.0;
  return (int64_t)(-50000.0 * log(u));
}

/* Started far below, the tracked margin climbs to the overshoots' 90th
 * percentile and stays there: over the second half of the run its mean
 * is within [p86, p93] (98 us, 133 us) and about 10 % of the overshoots
 * exceed it. */
static void test_margin_tracks_90th_percentile(void **state) {
  uint64_t seed = 42;
  int64_t margin = ITG__MARGIN_MIN_NS;
  double sum = 0;
  int i, over = 0;
  const int n = 40000;
  (void)state;
  for (i = 0; i < n; i++) {
    int64_t o = exp_overshoot(&seed);
    if (i >= n / 2) {
      sum += (double)margin;
      over += o > margin;
    }
    margin = itg__margin_update(margin, o);
  }
  assert_in_range((uint64_t)(sum / (n / 2)), 98 * US, 133 * US);
  assert_in_range((uint64_t)over, (uint64_t)(0.07 * n / 2),
                  (uint64_t)(0.13 * n / 2));
}

/* The margin follows a change of machine: from the exponential above to
 * overshoots ten times larger, it climbs to their 90th percentile
 * (1.15 ms) within 2 000 sleeps. */
static void test_margin_follows_a_change(void **state) {
  uint64_t seed = 7;
  int64_t margin = 115 * US;
  int i;
  (void)state;
  for (i = 0; i < 2000; i++)
    margin = itg__margin_update(margin, 10 * exp_overshoot(&seed));
  assert_in_range((uint64_t)margin, 850 * US, 1500 * US);
}

/* Whatever the overshoots, the margin stays within its bounds. */
static void test_margin_bounds(void **state) {
  int64_t margin = 100 * US;
  int i;
  (void)state;
  for (i = 0; i < 1000; i++)
    margin = itg__margin_update(margin, INT64_C(1000000000));
  assert_int_equal(margin, ITG__MARGIN_MAX_NS);
  for (i = 0; i < 100000; i++)
    margin = itg__margin_update(margin, 0);
  assert_int_equal(margin, ITG__MARGIN_MIN_NS);
}

/* A machine for the hybrid wait's decisions, on a simulated clock: each
 * wait's sleep wakes `over` late and, if the wait spins for its margin,
 * the spin loses the CPU when `preempted` says so. Runs the decisions of
 * core/margin.h as the pacer does; returns 1 if the wait spun for its
 * margin, 0 if for ITG__MARGIN_MIN_NS only. */
typedef struct sim {
  int64_t margin;
  int32_t share;
  int spun;
} sim;

static int sim_wait(sim *m, int64_t over, int preempted) {
  int spins = itg__spin_pays(m->spun, m->margin, m->share);
  m->margin = itg__margin_update(m->margin, over);
  m->share = itg__preempt_update(m->share, spins, preempted);
  m->spun = spins;
  return spins;
}

/* True with probability num / 1000, from a fixed seed. */
static int chance(uint64_t *seed, uint64_t num) {
  return rng_next(seed) % 1000 < num;
}

/* A busy machine whose sleeps wake 300 us late on average (90th
 * percentile 690 us, past ITG__SPIN_CAP_NS): within 200 waits the hybrid
 * wait stops spinning for its margin and spins ITG__MARGIN_MIN_NS only;
 * once the machine quietens (5 us) it spins for its margin again within
 * 300. */
static void test_spin_stops_when_sleeps_are_late(void **state) {
  uint64_t seed = 11;
  sim m = {ITG__MARGIN_MIN_NS, 0, 1};
  int i, spins = 0;
  (void)state;
  for (i = 0; i < 200; i++)
    sim_wait(&m, 6 * exp_overshoot(&seed), 0);
  for (i = 0; i < 5000; i++)
    spins += sim_wait(&m, 6 * exp_overshoot(&seed), 0);
  assert_int_equal(spins, 0);
  for (i = 0; i < 300; i++)
    sim_wait(&m, exp_overshoot(&seed) / 10, 0);
  for (spins = 0, i = 0; i < 5000; i++)
    spins += sim_wait(&m, exp_overshoot(&seed) / 10, 0);
  assert_int_equal(spins, 5000);
}

/* Timer quiet, but 5 % of the spins lose the CPU: the hybrid wait spins
 * ITG__MARGIN_MIN_NS only in most waits, and fewer than 1 in 150 of them
 * end in a preempted spin, so the 99th percentile is not the scheduler's;
 * it keeps trying the long spin now and then (in more than 2 % of the
 * waits). */
static void test_preempted_spin_falls_back(void **state) {
  uint64_t seed = 5, pseed = 6;
  sim m = {ITG__MARGIN_MIN_NS, 0, 1};
  int i, spins = 0, hit = 0;
  const int n = 100000;
  (void)state;
  for (i = 0; i < n; i++) {
    int preempted = chance(&pseed, 50);
    int s = sim_wait(&m, exp_overshoot(&seed) / 10, preempted);
    spins += s;
    hit += s && preempted;
  }
  assert_true(spins < n / 4);
  assert_true(spins > n / 50);
  assert_true(hit < n / 150);
}

/* A quiet machine whose spins lose the CPU now and then (0.2 %) keeps
 * spinning: the fallback is not for the odd interrupt. */
static void test_rare_preemption_keeps_spinning(void **state) {
  uint64_t seed = 8, pseed = 9;
  sim m = {ITG__MARGIN_MIN_NS, 0, 1};
  int i, spins = 0;
  const int n = 100000;
  (void)state;
  for (i = 0; i < n; i++)
    spins += sim_wait(&m, exp_overshoot(&seed) / 10, chance(&pseed, 2));
  assert_int_equal(spins, n);
}

/* The real pacer, its margin tracked past the cap: a wait spins only
 * ITG__MARGIN_MIN_NS, never early; a margin fixed by
 * ITG_PACER_MARGIN_NS is never second-guessed. */
static void test_hybrid_past_cap_sleeps(void **state) {
  itg_pacer *p;
  int64_t deadline;
  (void)state;
  assert_int_equal(itg_pacer_new(ITG_WAIT_HYBRID, 0, &p), 0);
  p->margin_tracks = 1;
  p->margin_ns = ITG__MARGIN_MAX_NS;
  deadline = itg_clock_mono_ns() + 300 * US;
  assert_true(itg_pacer_wait_until(p, deadline) >= 0);
  assert_true(itg_clock_mono_ns() >= deadline);
  assert_int_equal(p->spun, 0);
  p->margin_tracks = 0;
  p->margin_ns = ITG__MARGIN_MAX_NS;
  deadline = itg_clock_mono_ns() + 300 * US;
  itg_pacer_wait_until(p, deadline);
  assert_true(itg_clock_mono_ns() >= deadline);
  assert_int_equal(p->margin_ns, ITG__MARGIN_MAX_NS);
  itg_pacer_free(p);
}

static void test_new_rejects_bad_input(void **state) {
  itg_pacer *p = NULL;
  (void)state;
  assert_int_equal(itg_pacer_new((itg_wait_mode)3, 0, &p), ITG_EINVAL);
  assert_int_equal(itg_pacer_new((itg_wait_mode)-1, 0, &p), ITG_EINVAL);
  assert_null(p);
  assert_int_equal(itg_pacer_new(ITG_WAIT_SPIN, 0, NULL), ITG_EINVAL);
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
    assert_int_equal(itg_pacer_new(modes[i], 0, &p), 0);
    itg_pacer_free(p);
  }
  itg_pacer_free(NULL);
}

static void test_clocks(void **state) {
  (void)state;
  time_t t0 = time(NULL);
  int64_t real = itg_clock_real_ns();
  time_t t1 = time(NULL);
  /* time() truncates to whole seconds. */
  assert_true(real / 1000000000 >= (int64_t)t0 - 1);
  assert_true(real / 1000000000 <= (int64_t)t1 + 1);

  int64_t prev = itg_clock_mono_ns();
  for (int i = 0; i < 1000; i++) {
    int64_t now = itg_clock_mono_ns();
    assert_true(now >= prev);
    prev = now;
  }
}

/* The schedule is start + sum of IDTs whatever the lateness: start one
 * second in the past so every departure is already late. */
static void test_schedule_is_absolute(void **state) {
  static const int64_t idts[] = {0,     1,   999,     1000,  1001, 12345,
                                 100000, 7, 250000, 3 * MS, 42};
  (void)state;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    itg_pacer *p;
    itg_pacer_stats st;
    int64_t start = itg_clock_mono_ns() - 1000 * MS;
    int64_t sum = 0, late_sum = 0, late_max = 0;
    size_t n = sizeof idts / sizeof idts[0];

    assert_int_equal(itg_pacer_new(modes[m], start, &p), 0);
    assert_int_equal(itg_pacer_next(p), start);
    for (size_t k = 0; k < n; k++) {
      sum += idts[k];
      int64_t before = itg_clock_mono_ns();
      int64_t late = itg_pacer_wait(p, idts[k]);
      int64_t after = itg_clock_mono_ns();
      assert_int_equal(itg_pacer_next(p), start + sum);
      /* The lateness is the clock at return minus the instant. */
      assert_true(late >= before - (start + sum));
      assert_true(late <= after - (start + sum));
      late_sum += late;
      if (late > late_max)
        late_max = late;
    }
    itg_pacer_get_stats(p, &st);
    assert_int_equal(st.departures, n);
    assert_int_equal(st.late, n);
    assert_int_equal(st.late_sum_ns, late_sum);
    assert_int_equal(st.late_max_ns, late_max);
    itg_pacer_free(p);
  }
}

static void test_advance(void **state) {
  itg_pacer *p;
  itg_pacer_stats st;
  (void)state;
  assert_int_equal(itg_pacer_new(ITG_WAIT_SPIN, 1000, &p), 0);
  assert_int_equal(itg_pacer_advance(p, 500), 1500);
  assert_int_equal(itg_pacer_advance(p, 0), 1500);
  assert_int_equal(itg_pacer_advance(p, -700), 1500);
  assert_int_equal(itg_pacer_next(p), 1500);
  assert_int_equal(itg_pacer_advance(p, INT64_MAX - 1500), INT64_MAX);
  assert_int_equal(itg_pacer_advance(p, 1), INT64_MAX);
  itg_pacer_get_stats(p, &st);
  assert_int_equal(st.departures, 0);
  assert_int_equal(st.late, 0);
  itg_pacer_free(p);

  /* A start far below zero still advances exactly. */
  assert_int_equal(itg_pacer_new(ITG_WAIT_SPIN, INT64_MIN + 10, &p), 0);
  assert_int_equal(itg_pacer_advance(p, INT64_MAX), 9);
  itg_pacer_free(p);
}

/* No wait ever returns before its instant, in any mode: 200 departures
 * 100 us apart, each checked against an independent clock reading. */
static void test_never_early(void **state) {
  (void)state;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    itg_pacer *p;
    itg_pacer_stats st;
    int64_t late_sum = 0, late_max = 0;
    uint64_t late_count = 0;

    assert_int_equal(itg_pacer_new(modes[m], itg_clock_mono_ns(), &p), 0);
    for (int k = 0; k < 200; k++) {
      int64_t late = itg_pacer_wait(p, 100 * US);
      assert_true(itg_clock_mono_ns() >= itg_pacer_next(p));
      assert_true(late >= 0);
      late_sum += late;
      late_count += late > 1000;
      if (late > late_max)
        late_max = late;
    }
    itg_pacer_get_stats(p, &st);
    assert_int_equal(st.departures, 200);
    assert_int_equal(st.late, late_count);
    assert_int_equal(st.late_sum_ns, late_sum);
    assert_int_equal(st.late_max_ns, late_max);
    itg_pacer_free(p);
  }
}

/* wait_until on its own: deadlines spread over 0..300 us ahead (fixed
 * seed), some in the past; the schedule stays where it was. */
static void test_wait_until_never_early(void **state) {
  (void)state;
  srand(7);
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    itg_pacer *p;
    itg_pacer_stats st;
    int64_t start = itg_clock_mono_ns();

    assert_int_equal(itg_pacer_new(modes[m], start, &p), 0);
    for (int k = 0; k < 100; k++) {
      int64_t deadline = itg_clock_mono_ns() + (rand() % 400 - 100) * US;
      int64_t late = itg_pacer_wait_until(p, deadline);
      int64_t now = itg_clock_mono_ns();
      assert_true(now >= deadline);
      assert_true(late >= 0);
      assert_true(late <= now - deadline);
    }
    assert_int_equal(itg_pacer_next(p), start);
    itg_pacer_get_stats(p, &st);
    assert_int_equal(st.departures, 100);
    itg_pacer_free(p);
  }
}

/* Counters reach only a caller's struct of a size the library knows:
 * the struct_size member alone up to the whole struct. */
static void test_stats_checked(void **state) {
  itg_pacer *p;
  itg_pacer_stats st = {.departures = 77};
  (void)state;
  assert_int_equal(itg_pacer_new(ITG_WAIT_SPIN, 0, &p), 0);
  assert_int_equal(itg_pacer_get_stats(NULL, &st), ITG_EINVAL);
  assert_int_equal(st.departures, 77);
  assert_int_equal(itg_pacer_get_stats_size(p, NULL, sizeof st), ITG_EINVAL);
  assert_int_equal(itg_pacer_get_stats_size(p, &st, sizeof st + 1),
                   ITG_EINVAL);
  assert_int_equal(itg_pacer_get_stats_size(p, &st, sizeof(size_t) - 1),
                   ITG_EINVAL);
  assert_int_equal(st.departures, 77);
  assert_int_equal(itg_pacer_get_stats(p, &st), 0);
  assert_int_equal(st.struct_size, sizeof st);
  assert_int_equal(st.departures, 0);
  assert_int_equal(st.late, 0);
  assert_int_equal(st.late_max_ns, 0);
  assert_int_equal(st.late_sum_ns, 0);
  itg_pacer_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* First: these fork before this process has measured its margin. */
      cmocka_unit_test(test_margin_calibrated_within_bounds),
      cmocka_unit_test(test_margin_override),
      cmocka_unit_test(test_margin_tracks_90th_percentile),
      cmocka_unit_test(test_margin_follows_a_change),
      cmocka_unit_test(test_margin_bounds),
      cmocka_unit_test(test_spin_stops_when_sleeps_are_late),
      cmocka_unit_test(test_preempted_spin_falls_back),
      cmocka_unit_test(test_rare_preemption_keeps_spinning),
      cmocka_unit_test(test_hybrid_past_cap_sleeps),
      cmocka_unit_test(test_new_rejects_bad_input),
      cmocka_unit_test(test_clocks),
      cmocka_unit_test(test_schedule_is_absolute),
      cmocka_unit_test(test_advance),
      cmocka_unit_test(test_never_early),
      cmocka_unit_test(test_wait_until_never_early),
      cmocka_unit_test(test_stats_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
