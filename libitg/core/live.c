/* Live per-flow counts (see live.h). */
#include "core/live.h"

#include <math.h>
#include <string.h>

#include "core/record_kind.h"
#include "core/seqwin.h"

void itg__live_init(itg__live *l, int64_t now) {
  memset(l, 0, sizeof *l);
  l->i_start = now;
  itg__hist_init(&l->i_hist);
}

/* Moves the highest number to seq if it is above it; the numbers skipped
 * are lost. */
static void top_raise(itg__live *l, uint64_t seq) {
  if (seq > l->top) {
    l->i_lost += seq - l->top - 1;
    l->lost += seq - l->top - 1;
    l->top = seq;
  }
}

int itg__live_add(itg__live *l, const itg_logrec *rec) {
  int64_t d = itg__sat_sub(rec->rx_ns, rec->tx_ns);
  uint64_t confirmed = 0;
  l->packets++;
  l->bytes += rec->size;
  l->i_packets++;
  l->i_bytes += rec->size;
  l->i_delay_sum += (double)d;
  if (l->have_prev) {
    l->i_jit_sum += fabs((double)d - (double)l->prev_delay);
    l->i_jit_n++;
  }
  l->prev_delay = d;
  l->have_prev = 1;
  if (rec->seq != 0) {
    switch (itg__seq_check(l->top, &l->held, rec->seq, &confirmed)) {
    case ITG__SEQ_TAKE:
      top_raise(l, rec->seq);
      break;
    case ITG__SEQ_HOLD:
      break;
    case ITG__SEQ_CONFIRM:
      top_raise(l, confirmed);
      top_raise(l, rec->seq);
      break;
    }
  }
  return itg__hist_add(&l->i_hist, d);
}

void itg__live_end(itg__live *l, uint64_t sent) {
  uint64_t expected = itg__seq_sent(sent != 0, sent, 0, l->top);
  if (expected > l->top) {
    l->i_lost += expected - l->top;
    l->lost += expected - l->top;
    l->top = expected;
  }
}

void itg__live_take(itg__live *l, int64_t now, itg_receiver_flow_live *out) {
  out->int_ns = now - l->i_start;
  l->i_start = now;
  out->packets = l->packets;
  out->bytes = l->bytes;
  out->lost = l->lost;
  out->int_packets = l->i_packets;
  out->int_bytes = l->i_bytes;
  out->int_lost = l->i_lost;
  out->int_delay_avg_ns =
      l->i_packets > 0 ? l->i_delay_sum / (double)l->i_packets : 0.0;
  out->int_delay_p99_ns = itg__hist_quantile(&l->i_hist, 990000);
  out->int_jitter_avg_ns =
      l->i_jit_n > 0 ? l->i_jit_sum / (double)l->i_jit_n : 0.0;
  l->i_packets = l->i_bytes = l->i_lost = l->i_jit_n = 0;
  l->i_delay_sum = l->i_jit_sum = 0.0;
  itg__hist_clear(&l->i_hist);
}

void itg__live_clear(itg__live *l) { itg__hist_clear(&l->i_hist); }
