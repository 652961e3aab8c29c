/* How the statistics and the series read a log record: its kind, the
 * batch check they share, and overflow-safe time differences. */
#ifndef ITG_RECORD_KIND_H
#define ITG_RECORD_KIND_H

#include "itg/log.h"

typedef enum itg__rec_kind {
  ITG__REC_GAP, /* records lost on the way to a log server */
  ITG__REC_END, /* end of a flow: seq packets sent */
  ITG__REC_OWD, /* an arrival at the receiver */
  ITG__REC_RTT, /* an echo back at the sender */
  ITG__REC_SENT /* a departure (or a round trip without its echo) */
} itg__rec_kind;

/* Returns 0 if every record has only known flags and at least one of TX,
 * RX, RTT, FLOW_END and GAP, else ITG_EINVAL. */
int itg__logrec_check(const itg_logrec *recs, size_t n);

/* Returns what a (checked) record counts for, in itg/stats.h's order. */
itg__rec_kind itg__logrec_kind(const itg_logrec *r);

/* Returns a - b, saturated to the int64 range (bad timestamps must not
 * overflow). */
int64_t itg__sat_sub(int64_t a, int64_t b);

#endif
