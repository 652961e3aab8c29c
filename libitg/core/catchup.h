/* A flow's schedule under its catch-up policy (itg/flow.h, itg_catchup):
 * the law's instant of each departure, and the instant the policy lets it
 * leave. Pure computation on instants the caller passes, so that a test
 * drives it with a clock of its own. */
#ifndef ITG_CORE_CATCHUP_H
#define ITG_CORE_CATCHUP_H

#include <stdint.h>

#include "itg/flow.h"

typedef struct itg__catchup {
  itg_catchup policy;
  int64_t law_ns;  /* the law's instant of the departure at hand */
  int64_t due_ns;  /* when it may leave: law_ns, later while LAW catches up */
  int64_t pace_ns; /* LAW: the catch-up clock, which moves by each IDT
                      divided by the factor and never lags held_ns by
                      more than the ordinary lateness (ordinary_ns in
                      catchup.c) */
  int64_t woke_ns; /* LAW: when the sender last woke for this flow */
  int64_t held_ns; /* LAW: where that wake-up's lateness put the departure
                      then at hand: its due instant plus the lateness */
  int64_t noise_ns; /* LAW: the flow's ordinary wake-up lateness, tracked
                       at its 90th percentile from the slack */
  int64_t mean_ns;  /* LAW: its mean, each wake-up's counted up to
                       noise_ns (past that, a hold-up is a debt) */
  int64_t step_ns;  /* LAW: the last hold-up's debt over the gaps it is
                       paid in (catchup.c, GENTLE_GAPS) */
} itg__catchup;

/* What became of the departure at hand. */
typedef enum itg__catchup_fate {
  ITG__CATCHUP_ON_TIME = 0, /* it leaves, due at its law instant */
  ITG__CATCHUP_SHIFTED,     /* it leaves, moved later by LAW */
  ITG__CATCHUP_SKIPPED      /* SKIP dropped it: it does not leave */
} itg__catchup_fate;

/* Returns a policy's word for --catchup ("law", "skip", "burst"), or NULL
 * for a value that is none of them. */
const char *itg__catchup_name(itg_catchup policy);

/* Starts a schedule whose first departure is at start_ns. */
void itg__catchup_init(itg__catchup *c, itg_catchup policy, int64_t start_ns);

/* Moves the whole schedule shift_ns (>= 0) later, as if the departure
 * before the one at hand had been due that much later: whatever LAW made
 * of its lateness is forgiven, the next departure is due at its law
 * instant. */
void itg__catchup_delay(itg__catchup *c, int64_t shift_ns);

/* Tells the schedule the sender woke at woke_ns from its last wait,
 * late_ns (>= 0) after the instant it waited for, and is about to decide
 * the departure at hand and those due with it. LAW counts every flow the
 * sender serves after one wake-up as late by that wake-up's lateness,
 * from its own due instant: a hold-up delays flows due at different
 * instants alike, and their schedules keep their phases (timed from the
 * wake-up, flows spread over a period would all be paced from one
 * instant, bunched until their debts were paid). The time the sender
 * then spends sending (this flow's batch, other flows due with it) is its
 * own work, not lateness. A new wake-up's lateness also feeds the flow's
 * ordinary lateness (noise_ns, mean_ns). */
void itg__catchup_woke(itg__catchup *c, int64_t woke_ns, int64_t late_ns);

/* Takes the departure at hand, decided at now_ns (at or after its due
 * instant and the last wake-up), and moves on to the next one, whose law
 * instant is next_law_ns, idt_ns (>= 0) after the one at hand unless an
 * off period moved it further. may_skip 0 keeps SKIP from dropping this
 * departure (a flow's first, or its last before its end). LAW moves no
 * departure past end_ns, the flow's end (INT64_MAX: none): a debt still
 * owed then is sent at once, as the flow's duration asks. Returns its
 * fate. */
itg__catchup_fate itg__catchup_take(itg__catchup *c, int64_t now_ns,
                                    int64_t next_law_ns, int64_t idt_ns,
                                    int may_skip, int64_t end_ns);

#endif
