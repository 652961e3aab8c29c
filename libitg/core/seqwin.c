/* Sliding-window sequence accounting (see seqwin.h). */
#include "core/seqwin.h"

#include <string.h>

#define MASK (ITG__SEQWIN_SPAN - 1)

/* A run-length walker: missing numbers extend the run, a received one
 * closes it. */
typedef struct walk {
  uint64_t run;
  uint64_t bursts;
  uint64_t sum;
} walk;

static void walk_missing(walk *k, uint64_t n) { k->run += n; }

static void walk_received(walk *k) {
  if (k->run > 0) {
    k->bursts++;
    k->sum += k->run;
    k->run = 0;
  }
}

static int bit_get(const itg__seqwin *w, uint64_t seq) {
  uint64_t i = seq & MASK;
  return (int)((w->bits[i / 64] >> (i % 64)) & 1u);
}

static void bit_set(itg__seqwin *w, uint64_t seq) {
  uint64_t i = seq & MASK;
  w->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Feeds the window's bits for numbers from..to (inclusive, within the
 * window, from >= 1) to the walker, a whole word at a time where it can.
 * It counts what is left rather than comparing t with to: to may be
 * 2^64 - 1, past which t would wrap around. */
static void walk_bits(const itg__seqwin *w, uint64_t from, uint64_t to,
                      walk *k) {
  uint64_t t = from;
  uint64_t left = to - from + 1;
  while (left > 0) {
    uint64_t i = t & MASK;
    if (i % 64 == 0 && left >= 64) {
      uint64_t word = w->bits[i / 64];
      if (word == ~(uint64_t)0) {
        walk_received(k);
        t += 64;
        left -= 64;
        continue;
      }
      if (word == 0) {
        walk_missing(k, 64);
        t += 64;
        left -= 64;
        continue;
      }
    }
    if (bit_get(w, t))
      walk_received(k);
    else
      walk_missing(k, 1);
    t++;
    left--;
  }
}

/* The lowest number the window holds when its top is top (never 0). */
static uint64_t window_low(uint64_t top) {
  return top > ITG__SEQWIN_SPAN ? top - ITG__SEQWIN_SPAN + 1 : 1;
}

void itg__seqwin_init(itg__seqwin *w) { memset(w, 0, sizeof *w); }

/* Moves the top to seq > w->top: the numbers that leave the window are
 * settled into the run/burst counts and their bits cleared for reuse. */
static void advance(itg__seqwin *w, uint64_t seq) {
  walk k = {w->run, w->bursts, w->burst_sum};
  uint64_t lo = window_low(w->top);
  if (seq > ITG__SEQWIN_SPAN && w->top > 0) {
    uint64_t leave_to = seq - ITG__SEQWIN_SPAN; /* last number to leave */
    uint64_t settled = leave_to < w->top ? leave_to : w->top;
    walk_bits(w, lo, settled, &k); /* settled >= lo: seq > top */
    if (settled == w->top) {
      memset(w->bits, 0, sizeof w->bits);
    } else {
      for (uint64_t t = lo; t <= settled; t++)
        w->bits[(t & MASK) / 64] &= ~((uint64_t)1 << ((t & MASK) % 64));
    }
    if (leave_to > w->top)
      walk_missing(&k, leave_to - w->top);
  } else if (seq > ITG__SEQWIN_SPAN) {
    walk_missing(&k, seq - ITG__SEQWIN_SPAN);
  }
  w->run = k.run;
  w->bursts = k.bursts;
  w->burst_sum = k.sum;
  w->top = seq;
}

itg__seq_verdict itg__seq_check(uint64_t top, uint64_t *held, uint64_t seq,
                                uint64_t *confirmed) {
  uint64_t h = *held;
  if (seq <= top || seq - top <= ITG__SEQ_JUMP_MAX)
    return ITG__SEQ_TAKE;
  if (h != 0 && seq != h &&
      (seq > h ? seq - h : h - seq) < ITG__SEQWIN_SPAN) {
    *held = 0;
    *confirmed = h;
    return ITG__SEQ_CONFIRM;
  }
  *held = seq;
  return ITG__SEQ_HOLD;
}

void itg__seq_raise(uint64_t *top, uint64_t *held, uint64_t seq) {
  uint64_t confirmed = 0;
  switch (itg__seq_check(*top, held, seq, &confirmed)) {
  case ITG__SEQ_TAKE:
    break;
  case ITG__SEQ_HOLD:
    return;
  case ITG__SEQ_CONFIRM:
    if (confirmed > seq)
      seq = confirmed;
    break;
  }
  if (seq > *top)
    *top = seq;
}

uint64_t itg__seq_sent(int has_end, uint64_t end_sent, uint64_t tx_top,
                       uint64_t rx_top) {
  uint64_t seen = tx_top > rx_top ? tx_top : rx_top;
  if (!has_end || end_sent == 0 ||
      (end_sent > seen && end_sent - seen > ITG__SEQ_JUMP_MAX))
    return tx_top;
  return end_sent;
}

/* Counts one arrival the far-number rule has let through. */
static void take(itg__seqwin *w, uint64_t seq) {
  if (seq > w->top) {
    advance(w, seq);
    bit_set(w, seq);
    w->distinct++;
    return;
  }
  /* top itself always arrived, so a number not seen yet is below it. */
  if (seq >= window_low(w->top) && bit_get(w, seq)) {
    w->duplicates++;
    return;
  }
  if (seq >= window_low(w->top))
    bit_set(w, seq);
  w->distinct++;
  w->reordered++;
}

void itg__seqwin_add(itg__seqwin *w, uint64_t seq) {
  uint64_t confirmed = 0;
  if (seq == 0)
    return;
  switch (itg__seq_check(w->top, &w->held, seq, &confirmed)) {
  case ITG__SEQ_TAKE:
    take(w, seq);
    break;
  case ITG__SEQ_HOLD:
    break;
  case ITG__SEQ_CONFIRM:
    take(w, confirmed);
    take(w, seq);
    break;
  }
}

void itg__seqwin_bursts_at(const itg__seqwin *w, uint64_t expected,
                           itg__seqwin_bursts *out) {
  walk k = {0, 0, 0};
  uint64_t top = 0;
  if (w != NULL) {
    k.run = w->run;
    k.bursts = w->bursts;
    k.sum = w->burst_sum;
    top = w->top;
    if (top > 0)
      walk_bits(w, window_low(top), top, &k);
  }
  if (expected > top)
    walk_missing(&k, expected - top);
  walk_received(&k);
  out->bursts = k.bursts;
  out->missing = k.sum;
}
