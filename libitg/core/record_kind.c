/* Record classification for the statistics (see record_kind.h). */
#include "core/record_kind.h"

int itg__logrec_check(const itg_logrec *recs, size_t n) {
  const uint16_t kinds =
      ITG_REC_TX | ITG_REC_RX | ITG_REC_RTT | ITG_REC_FLOW_END | ITG_REC_GAP;
  for (size_t i = 0; i < n; i++)
    if ((recs[i].flags & ~ITG_REC_ALL_FLAGS) != 0 ||
        (recs[i].flags & kinds) == 0)
      return ITG_EINVAL;
  return 0;
}

itg__rec_kind itg__logrec_kind(const itg_logrec *r) {
  if (r->flags & ITG_REC_GAP)
    return ITG__REC_GAP;
  if (r->flags & ITG_REC_FLOW_END)
    return ITG__REC_END;
  if (r->flags & ITG_REC_RTT)
    return r->rx_ns != 0 ? ITG__REC_RTT : ITG__REC_SENT;
  if (r->flags & ITG_REC_RX)
    return ITG__REC_OWD;
  return ITG__REC_SENT;
}

int64_t itg__sat_sub(int64_t a, int64_t b) {
  if (b < 0 && a > INT64_MAX + b)
    return INT64_MAX;
  if (b > 0 && a < INT64_MIN + b)
    return INT64_MIN;
  return a - b;
}
