/* The catch-up policies of a flow's schedule (core/catchup.h). */
#include "core/catchup.h"

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
}

void itg__catchup_delay(itg__catchup *c, int64_t shift_ns) {
  c->law_ns += shift_ns;
  c->pace_ns += shift_ns;
  if (c->pace_ns > c->law_ns)
    c->pace_ns = c->law_ns;
  c->due_ns = c->law_ns;
}

void itg__catchup_woke(itg__catchup *c, int64_t woke_ns) {
  c->woke_ns = woke_ns;
}

itg__catchup_fate itg__catchup_take(itg__catchup *c, int64_t now_ns,
                                    int64_t next_law_ns, int64_t idt_ns,
                                    int may_skip, int64_t end_ns) {
  itg__catchup_fate fate =
      c->due_ns > c->law_ns ? ITG__CATCHUP_SHIFTED : ITG__CATCHUP_ON_TIME;
  int64_t law_ns = c->law_ns, pace, shortfall;
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
   * left: its own pace, or the slack before the wake-up if it fell
   * further behind (a hold-up), so that the debt is paid from then on at
   * the factor's pace instead of all at once. On time, it stays at or
   * before the law's instants and moves nothing. */
  pace = c->pace_ns > c->woke_ns - ITG_CATCHUP_SLACK_NS
             ? c->pace_ns
             : c->woke_ns - ITG_CATCHUP_SLACK_NS;
  /* What the next gap may be short of its IDT: the factor's share, and no
   * more than the gentle step while the debt (how far this departure
   * counts as behind its law instant) is small. */
  shortfall = idt_ns - idt_ns * ITG_CATCHUP_FACTOR_DEN / ITG_CATCHUP_FACTOR_NUM;
  if (pace - law_ns <= ITG_CATCHUP_GENTLE_NS &&
      shortfall > ITG_CATCHUP_GENTLE_STEP_NS)
    shortfall = ITG_CATCHUP_GENTLE_STEP_NS;
  c->pace_ns = pace + idt_ns - shortfall;
  c->due_ns = c->pace_ns > next_law_ns ? c->pace_ns : next_law_ns;
  /* A flow that ends at a given time sends what its law schedules before
   * then: a debt left at the end is paid there (within the flow's grace),
   * rather than dropped. */
  if (c->due_ns > end_ns && next_law_ns < end_ns)
    c->due_ns = end_ns;
  return fate;
}
