/* The pacer: an absolute departure schedule on the monotonic clock, three
 * ways of waiting for it, and the once-per-process calibration of how
 * early a hybrid sleep must end. */
#include "itg/pacer.h"

#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "platform/platform.h"

/* A departure more than this late counts in itg_pacer_stats.late. */
#define LATE_NS 1000

/* Calibration: CAL_SLEEPS absolute sleeps of CAL_SLEEP_NS each (about 10 ms
 * in all); the margin is the CAL_RANK-th smallest overshoot (the 90th
 * percentile) plus CAL_SAFETY_NS, kept within [MARGIN_MIN_NS,
 * MARGIN_MAX_NS]. A margin below the timer's usual overshoot makes late
 * departures; one above it only costs spinning, so the percentile is
 * high, while the clamp keeps one stalled sample on a busy machine from
 * turning the hybrid mode into a spin. */
#define CAL_SLEEPS 50
#define CAL_SLEEP_NS 100000
#define CAL_RANK 45
#define CAL_SAFETY_NS 10000
#define MARGIN_MIN_NS 20000
#define MARGIN_MAX_NS 2000000
/* The largest margin ITG_PACER_MARGIN_NS may ask for: one second. */
#define MARGIN_ENV_MAX_NS 1000000000

static itg__once margin_once = ITG__ONCE_INIT;
static int64_t margin_ns;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return (x > y) - (x < y);
}

/* Sets margin_ns from ITG_PACER_MARGIN_NS when that holds a valid number
 * (for experiments), else by measuring the timer's overshoot. */
static void calibrate_margin(void) {
  const char *env = getenv("ITG_PACER_MARGIN_NS");
  int64_t over[CAL_SLEEPS], m;
  int i;

  if (env != NULL && itg__parse_i64(env, 0, MARGIN_ENV_MAX_NS, &m) == 0) {
    margin_ns = m;
    return;
  }
  for (i = 0; i < CAL_SLEEPS; i++) {
    int64_t deadline = itg__mono_ns() + CAL_SLEEP_NS;
    itg__sleep_until(deadline);
    over[i] = itg__mono_ns() - deadline;
  }
  qsort(over, CAL_SLEEPS, sizeof over[0], cmp_i64);
  m = over[CAL_RANK] + CAL_SAFETY_NS;
  if (m < MARGIN_MIN_NS)
    m = MARGIN_MIN_NS;
  if (m > MARGIN_MAX_NS)
    m = MARGIN_MAX_NS;
  margin_ns = m;
}

/* a + b for b >= 0, stopping at INT64_MAX instead of overflowing. */
static int64_t add_sat(int64_t a, int64_t b) {
  return a > 0 && b > INT64_MAX - a ? INT64_MAX : a + b;
}

int64_t itg_clock_mono_ns(void) { return itg__mono_ns(); }

int64_t itg_clock_real_ns(void) { return itg__real_ns(); }

int itg_pacer_init(itg_pacer *p, itg_wait_mode mode, int64_t start_ns) {
  int rc;

  if (p == NULL)
    return ITG_EINVAL;
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
    itg__run_once(&margin_once, calibrate_margin);
    p->margin_ns = margin_ns;
  }
  return 0;
}

int64_t itg_pacer_advance(itg_pacer *p, int64_t idt_ns) {
  if (idt_ns > 0)
    p->next_ns = add_sat(p->next_ns, idt_ns);
  return p->next_ns;
}

int64_t itg_pacer_next(const itg_pacer *p) { return p->next_ns; }

/* Waits from `now` until deadline_ns in the pacer's mode; returns the
 * first clock reading at or after the deadline. */
static int64_t wait_for(const itg_pacer *p, int64_t deadline_ns, int64_t now) {
  switch (p->mode) {
  case ITG_WAIT_SLEEP:
    while (now < deadline_ns) {
      itg__sleep_until(deadline_ns);
      now = itg__mono_ns();
    }
    return now;
  case ITG_WAIT_HYBRID:
    if (deadline_ns - now > p->margin_ns) {
      itg__sleep_until(deadline_ns - p->margin_ns);
      now = itg__mono_ns();
    }
    break;
  case ITG_WAIT_SPIN:
    break;
  }
  while (now < deadline_ns) {
    itg__cpu_relax();
    now = itg__mono_ns();
  }
  return now;
}

int64_t itg_pacer_wait_until(itg_pacer *p, int64_t deadline_ns) {
  int64_t now = itg__mono_ns();
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

void itg_pacer_get_stats(const itg_pacer *p, itg_pacer_stats *out) {
  if (p != NULL && out != NULL)
    *out = p->stats;
}
