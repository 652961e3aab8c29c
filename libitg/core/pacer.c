/* The pacer: an absolute departure schedule on the monotonic clock, three
 * ways of waiting for it, and the once-per-process calibration of how
 * early a hybrid sleep must end. */
#include "core/pacer.h"

#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/margin.h"
#include "itg/parse.h"
#include "platform/platform.h"

/* A departure more than this late counts in itg_pacer_stats.late. */
#define LATE_NS 1000

/* Calibration: CAL_ROUNDS pairs of absolute sleeps, one of CAL_SHORT_NS
 * and one of CAL_LONG_NS (about 30 ms in all). A long sleep may wake much
 * later than a short one (deeper CPU idle states; on a virtual machine,
 * a virtual CPU the host has put to sleep), so the two are measured apart.
 * The margin (how early the last sleep ends before the spin) is the 90th
 * percentile of the short overshoots (rank CAL_RANK of CAL_ROUNDS) plus
 * CAL_SAFETY_NS, kept within the bounds of core/margin.h. Where long
 * sleeps overshoot by more than that safety over short ones, a wait that
 * is far off first sleeps until margin + coarse_ns before the instant,
 * coarse_ns being the 90th percentile of the long overshoots, so that even
 * a late wake-up leaves time for the short sleep and the spin. A margin
 * below the usual overshoot makes late departures, one above it only costs
 * spinning, hence the high percentile; the clamp keeps one stalled sample
 * on a busy machine from turning the hybrid mode into a spin. These are
 * only starting points: each pacer then tracks both from its own sleeps
 * (core/margin.h). */
#define CAL_ROUNDS 25
#define CAL_SHORT_NS 100000
#define CAL_LONG_NS 1000000
#define CAL_RANK 22
#define CAL_SAFETY_NS 10000
/* The largest margin ITG_PACER_MARGIN_NS may ask for: one second. */
#define MARGIN_ENV_MAX_NS 1000000000

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static uv_once_t margin_once = UV_ONCE_INIT;
static int64_t margin_ns, coarse_ns;
/* 0 when ITG_PACER_MARGIN_NS fixed the margin. */
static int margin_tracks;

/* One step of the Robbins-Monro estimate: the step is an eighth of the
 * margin, split 9:1 between rising and falling for the 90th percentile.
 * Not higher: the slowest tenth of wake-ups is where a virtual machine's
 * host held the CPU for milliseconds, and a margin that covers those turns
 * the hybrid mode into a spin that such a host stalls just the same. */
#define TRACK_STEP_DIV 8
#define TRACK_UP_PARTS 9
#define TRACK_PARTS 10

int64_t itg__margin_update(int64_t margin, int64_t overshoot_ns) {
  int64_t step = margin / TRACK_STEP_DIV;

  if (overshoot_ns > margin)
    margin += step * TRACK_UP_PARTS / TRACK_PARTS;
  else
    margin -= step / TRACK_PARTS;
  return clamp(margin, ITG__MARGIN_MIN_NS, ITG__MARGIN_MAX_NS);
}

/* An exponential average with a weight of 1/2^PREEMPT_SHIFT per spin for
 * the margin. A wait that spun for ITG__MARGIN_MIN_NS only lets it decay
 * four times slower: a pacer that fell back tries the long spin again
 * about 1 000 waits later, so that a machine that keeps taking the CPU
 * from spins costs a preempted long spin in about 0.5 % of the waits,
 * below the 1 % that would make it the 99th percentile. */
#define PREEMPT_SHIFT 8
#define DECAY_SHIFT 10

int32_t itg__preempt_update(int32_t share, int spun, int preempted) {
  if (!spun)
    /* Rounded up, so that the share decays to 0 rather than stop where
     * the step rounds to nothing. */
    return share - ((share + (1 << DECAY_SHIFT) - 1) >> DECAY_SHIFT);
  share -= share >> PREEMPT_SHIFT;
  if (preempted)
    share += ITG__SHARE_ONE >> PREEMPT_SHIFT;
  return share;
}

int itg__spin_pays(int spun, int64_t margin, int32_t preempt_share) {
  if (margin > ITG__SPIN_CAP_NS)
    return 0;
  return preempt_share < (spun ? ITG__PREEMPT_ON : ITG__PREEMPT_OFF);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return (x > y) - (x < y);
}

/* Sleeps len_ns and returns how late it woke. */
static int64_t overshoot(int64_t len_ns) {
  int64_t deadline = (int64_t)uv_hrtime() + len_ns;

  itg__sleep_until(deadline);
  return (int64_t)uv_hrtime() - deadline;
}

/* Sets margin_ns and coarse_ns from ITG_PACER_MARGIN_NS when that holds a
 * valid number (for experiments: one sleep, then the spin), else by
 * measuring the timer's overshoot. */
static void calibrate_margin(void) {
  const char *env = getenv("ITG_PACER_MARGIN_NS");
  int64_t over_short[CAL_ROUNDS], over_long[CAL_ROUNDS], m;
  int i;

  if (env != NULL && itg_parse_i64(env, 0, MARGIN_ENV_MAX_NS, &m) == 0) {
    margin_ns = m;
    coarse_ns = 0;
    return;
  }
  margin_tracks = 1;
  for (i = 0; i < CAL_ROUNDS; i++) {
    over_short[i] = overshoot(CAL_SHORT_NS);
    over_long[i] = overshoot(CAL_LONG_NS);
  }
  qsort(over_short, CAL_ROUNDS, sizeof over_short[0], cmp_i64);
  qsort(over_long, CAL_ROUNDS, sizeof over_long[0], cmp_i64);
  margin_ns = clamp(over_short[CAL_RANK] + CAL_SAFETY_NS, ITG__MARGIN_MIN_NS,
                    ITG__MARGIN_MAX_NS);
  if (over_long[CAL_RANK] > over_short[CAL_RANK] + CAL_SAFETY_NS)
    coarse_ns = clamp(over_long[CAL_RANK], ITG__MARGIN_MIN_NS,
                      ITG__MARGIN_MAX_NS);
  else
    coarse_ns = 0;
}

/* a + b for b >= 0, stopping at INT64_MAX instead of overflowing. */
static int64_t add_sat(int64_t a, int64_t b) {
  return a > 0 && b > INT64_MAX - a ? INT64_MAX : a + b;
}

int64_t itg_clock_mono_ns(void) { return (int64_t)uv_hrtime(); }

int64_t itg_clock_real_ns(void) { return itg__real_ns(); }

int itg__pacer_init(itg_pacer *p, itg_wait_mode mode, int64_t start_ns) {
  int rc;

  switch (mode) {
  case ITG_WAIT_HYBRID:
  case ITG_WAIT_SLEEP:
  case ITG_WAIT_SPIN:
    break;
  default:
    return ITG_EINVAL;
  }
  rc = itg__platform_init();
  if (rc != 0)
    return rc;
  memset(p, 0, sizeof *p);
  p->next_ns = start_ns;
  p->mode = mode;
  if (mode == ITG_WAIT_HYBRID) {
    uv_once(&margin_once, calibrate_margin);
    p->margin_ns = margin_ns;
    p->coarse_ns = coarse_ns;
    p->margin_tracks = margin_tracks;
    p->spun = 1;
  }
  return 0;
}

int itg_pacer_new(itg_wait_mode mode, int64_t start_ns, itg_pacer **out) {
  itg_pacer *p;
  int rc;

  if (out == NULL)
    return ITG_EINVAL;
  p = malloc(sizeof *p);
  if (p == NULL)
    return ITG_ENOMEM;
  rc = itg__pacer_init(p, mode, start_ns);
  if (rc != 0) {
    free(p);
    return rc;
  }
  *out = p;
  return 0;
}

void itg_pacer_free(itg_pacer *p) { free(p); }

int64_t itg_pacer_advance(itg_pacer *p, int64_t idt_ns) {
  if (idt_ns > 0)
    p->next_ns = add_sat(p->next_ns, idt_ns);
  return p->next_ns;
}

int64_t itg_pacer_next(const itg_pacer *p) { return p->next_ns; }

/* Sleeps from `now` until deadline_ns; returns the first clock reading at
 * or after it. */
static int64_t sleep_to(int64_t deadline_ns, int64_t now) {
  while (now < deadline_ns) {
    itg__sleep_until(deadline_ns);
    now = (int64_t)uv_hrtime();
  }
  return now;
}

/* Spins from `now` until deadline_ns; returns the first clock reading at
 * or after it, and sets *preempted if the spin lost the CPU on the way. */
static int64_t spin_to(int64_t deadline_ns, int64_t now, int *preempted) {
  while (now < deadline_ns) {
    int64_t t;
    itg__cpu_relax();
    t = (int64_t)uv_hrtime();
    if (t - now > ITG__SPIN_GAP_NS)
      *preempted = 1;
    now = t;
  }
  return now;
}

/* HYBRID: one or two sleeps ending a margin early, then the spin. Where
 * the spin for the tracked margin does not pay (core/margin.h), the
 * shortest one still does: at most ITG__MARGIN_MIN_NS a wait, too short
 * for the scheduler to take the CPU from it in the middle, it makes a
 * sleep that wakes within it a departure on time, and one that wakes
 * later no later than a plain sleep's. The sleeps' lateness keeps the
 * margin tracked either way, so that the long spin comes back when the
 * machine quietens. */
static int64_t hybrid_wait(itg_pacer *p, int64_t deadline_ns, int64_t now) {
  int preempted = 0;
  int spins = !p->margin_tracks ||
              itg__spin_pays(p->spun, p->margin_ns, p->preempted);
  int64_t margin = spins ? p->margin_ns : ITG__MARGIN_MIN_NS;

  if (spins && p->coarse_ns > 0 &&
      deadline_ns - now > margin + p->coarse_ns) {
    int64_t wake = deadline_ns - margin - p->coarse_ns;
    itg__sleep_until(wake);
    now = (int64_t)uv_hrtime();
    if (p->margin_tracks)
      p->coarse_ns = itg__margin_update(p->coarse_ns, now - wake);
  }
  if (deadline_ns - now > margin) {
    int64_t wake = deadline_ns - margin;
    itg__sleep_until(wake);
    now = (int64_t)uv_hrtime();
    if (p->margin_tracks)
      p->margin_ns = itg__margin_update(p->margin_ns, now - wake);
  }
  now = spin_to(deadline_ns, now, &preempted);
  if (p->margin_tracks) {
    p->preempted = itg__preempt_update(p->preempted, spins, preempted);
    p->spun = spins;
  }
  return now;
}

/* Waits from `now` until deadline_ns in the pacer's mode; returns the
 * first clock reading at or after the deadline. */
static int64_t wait_for(itg_pacer *p, int64_t deadline_ns, int64_t now) {
  int preempted = 0;

  switch (p->mode) {
  case ITG_WAIT_SLEEP:
    return sleep_to(deadline_ns, now);
  case ITG_WAIT_HYBRID:
    return hybrid_wait(p, deadline_ns, now);
  case ITG_WAIT_SPIN:
    break;
  }
  return spin_to(deadline_ns, now, &preempted);
}

int64_t itg_pacer_wait_until(itg_pacer *p, int64_t deadline_ns) {
  int64_t now = (int64_t)uv_hrtime();
  int64_t late;

  if (now < deadline_ns)
    now = wait_for(p, deadline_ns, now);
  /* now >= deadline_ns here; only a deadline far below zero could make the
   * difference overflow. */
  late = deadline_ns < 0 && now > INT64_MAX + deadline_ns ? INT64_MAX
                                                          : now - deadline_ns;
  p->stats.departures++;
  if (late > LATE_NS)
    p->stats.late++;
  if (late > p->stats.late_max_ns)
    p->stats.late_max_ns = late;
  p->stats.late_sum_ns = add_sat(p->stats.late_sum_ns, late);
  return late;
}

int64_t itg_pacer_wait(itg_pacer *p, int64_t idt_ns) {
  return itg_pacer_wait_until(p, itg_pacer_advance(p, idt_ns));
}

int itg_pacer_get_stats_size(const itg_pacer *p, itg_pacer_stats *out,
                             size_t size) {
  if (p == NULL)
    return ITG_EINVAL;
  return itg__struct_out(out, size, &p->stats, sizeof p->stats);
}
