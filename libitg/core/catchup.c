/* The catch-up policies of a flow's schedule (core/catchup.h). */
#include "core/catchup.h"

/* The ordinary lateness is tracked at its 90th percentile by steps: up
 * NOISE_UP_NS for a wake-up later than the estimate, down NOISE_DOWN_NS
 * for one earlier, which settles where one in ten is later. A step of a
 * few microseconds follows a machine getting busier within some tens of
 * wake-ups, and a single stall, however long, moves it by one step. */
#define NOISE_UP_NS 9000
#define NOISE_DOWN_NS 1000
/* Beyond this, a wake-up's lateness is a hold-up however busy the
 * machine. */
#define NOISE_MAX_NS 1000000
/* The mean ordinary lateness is averaged over about this many wake-ups. */
#define MEAN_WEIGHT 16
/* LAW pays a hold-up's debt over this many gaps: ITG_CATCHUP_GENTLE_NS at
 * the gentle step. */
#define GENTLE_GAPS (ITG_CATCHUP_GENTLE_NS / ITG_CATCHUP_GENTLE_STEP_NS)

const char *itg__catchup_name(itg_catchup policy) {
  switch (policy) {
  case ITG_CATCHUP_LAW:
    return "law";
  case ITG_CATCHUP_SKIP:
    return "skip";
  case ITG_CATCHUP_BURST:
    return "burst";
  }
  return NULL;
}

void itg__catchup_init(itg__catchup *c, itg_catchup policy,
                       int64_t start_ns) {
  c->policy = policy;
  c->law_ns = start_ns;
  c->due_ns = start_ns;
  c->pace_ns = start_ns;
  c->woke_ns = start_ns;
  c->held_ns = start_ns;
  c->noise_ns = ITG_CATCHUP_SLACK_NS;
  c->mean_ns = 0;
  c->step_ns = 0;
}

void itg__catchup_delay(itg__catchup *c, int64_t shift_ns) {
  c->law_ns += shift_ns;
  c->pace_ns += shift_ns;
  if (c->pace_ns > c->law_ns)
    c->pace_ns = c->law_ns;
  c->due_ns = c->law_ns;
}

void itg__catchup_woke(itg__catchup *c, int64_t woke_ns, int64_t late_ns) {
  if (woke_ns != c->woke_ns) {
    int64_t counted = late_ns < c->noise_ns ? late_ns : c->noise_ns;
    c->mean_ns += (counted - c->mean_ns) / MEAN_WEIGHT;
    if (late_ns > c->noise_ns)
      c->noise_ns += NOISE_UP_NS;
    else if (c->noise_ns > 0)
      c->noise_ns -= NOISE_DOWN_NS;
    if (c->noise_ns > NOISE_MAX_NS)
      c->noise_ns = NOISE_MAX_NS;
    c->held_ns = c->due_ns + late_ns;
  }
  c->woke_ns = woke_ns;
}

/* LAW: how much of a wake-up's lateness is the machine's ordinary noise,
 * which each departure brings again and so no catch-up can pay: the
 * flow's tracked lateness, up to a fifth of the IDT (what the factor lets
 * a gap shrink by) or its mean lateness if that is more. No more: what
 * is let go is taken whole from the next gap, and a fixed 50 us let go
 * after any wake-up made the gap after each one that late 70 us short at
 * 10 000 pkt/s, on a machine whose wake-ups are late by 10 to 20 us
 * (their 90th percentile). No less than the mean: the lateness that most
 * wake-ups bring would otherwise grow a debt that the factor's pace
 * cannot pay. Where the IDT is shorter than the slack, at least the slack
 * less the IDT: the departures that a wake-up so late owes then go
 * together in one call, as a flow near the machine's top rate needs. */
static int64_t ordinary_ns(const itg__catchup *c, int64_t idt_ns) {
  int64_t cap = idt_ns / 5 > c->mean_ns ? idt_ns / 5 : c->mean_ns;
  int64_t noise = c->noise_ns < cap ? c->noise_ns : cap;
  int64_t batch = ITG_CATCHUP_SLACK_NS - idt_ns;
  return noise > batch ? noise : batch;
}

itg__catchup_fate itg__catchup_take(itg__catchup *c, int64_t now_ns,
                                    int64_t next_law_ns, int64_t idt_ns,
                                    int may_skip, int64_t end_ns) {
  itg__catchup_fate fate =
      c->due_ns > c->law_ns ? ITG__CATCHUP_SHIFTED : ITG__CATCHUP_ON_TIME;
  int64_t law_ns = c->law_ns, pace, shortfall, ordinary, gentle;
  if (c->policy == ITG_CATCHUP_SKIP && may_skip && next_law_ns <= now_ns) {
    c->law_ns = c->due_ns = next_law_ns;
    return ITG__CATCHUP_SKIPPED;
  }
  c->law_ns = next_law_ns;
  if (c->policy != ITG_CATCHUP_LAW) {
    c->due_ns = next_law_ns;
    return fate;
  }
  /* The catch-up clock holds the instant this departure counts as having
   * left: its own pace, or the ordinary lateness before where the
   * wake-up's lateness put it (held_ns) if it fell further behind (a
   * hold-up), so that the debt is paid from then on
   * at the factor's pace instead of all at once. On time, it stays at or
   * before the law's instants and moves nothing. Lateness the machine
   * gives every wake-up is no debt: counted as one, each departure would
   * add it again and the debt would grow however it is paid. */
  ordinary = ordinary_ns(c, idt_ns);
  pace = c->pace_ns;
  if (c->held_ns - ordinary > pace) {
    /* A hold-up: what is then owed (how far this departure counts as
     * behind its law instant) is paid in even steps over GENTLE_GAPS. */
    pace = c->held_ns - ordinary;
    c->step_ns = (pace - law_ns) / GENTLE_GAPS;
  }
  /* What the next gap may be short of its IDT: the hold-up's even step,
   * but at least the gentle step and at most the factor's share. Where
   * the tracked lateness passes what the ordinary allowance may take
   * (ordinary_ns), the gentle step grows by the difference: that much of
   * most wake-ups' lateness is debt, and a step smaller than it would let
   * the debt grow. Not by more: past the 90th percentile, a debt is a
   * rare hold-up's, which the gentle step pays under the timer's own
   * noise, where a larger one would shorten many gaps by more than that
   * noise. */
  shortfall = idt_ns - idt_ns * ITG_CATCHUP_FACTOR_DEN / ITG_CATCHUP_FACTOR_NUM;
  gentle = ITG_CATCHUP_GENTLE_STEP_NS +
           (c->noise_ns > ordinary ? c->noise_ns - ordinary : 0);
  if (gentle < c->step_ns)
    gentle = c->step_ns;
  if (shortfall > gentle)
    shortfall = gentle;
  c->pace_ns = pace + idt_ns - shortfall;
  c->due_ns = c->pace_ns > next_law_ns ? c->pace_ns : next_law_ns;
  /* A flow that ends at a given time sends what its law schedules before
   * then: a debt left at the end is paid there (within the flow's grace),
   * rather than dropped. */
  if (c->due_ns > end_ns && next_law_ns < end_ns)
    c->due_ns = end_ns;
  return fate;
}
