/* Sequence-number accounting of one flow in bounded memory: distinct
 * packets, duplicates, reordering and loss bursts.
 *
 * A bitmap remembers which of the last ITG__SEQWIN_SPAN sequence numbers
 * (top - SPAN, top] arrived. A number that slides out of the window
 * unreceived is final: it extends the run of missing numbers, which a
 * received one closes into a loss burst. A packet older than the window
 * cannot be told from a duplicate; it counts as reordered and as new.
 *
 * A number more than ITG__SEQ_JUMP_MAX beyond the highest one taken is
 * not believed at once: a forged or damaged number (2^64 - 1, say) would
 * otherwise count every number below it as lost. It is held; the next
 * such far arrival within ITG__SEQWIN_SPAN of it confirms it (a real
 * outage: the sequence goes on from there) and both are taken. A held
 * number that no arrival confirms is an outlier: a packet, but no part of
 * the loss, duplicate or reordering counts. */
#ifndef ITG_SEQWIN_H
#define ITG_SEQWIN_H

#include <stdint.h>

#define ITG__SEQWIN_SPAN 65536u

/* The largest step beyond the highest number taken that is believed
 * without confirmation: about 2.8 minutes of loss at 100 000 packets/s. */
#define ITG__SEQ_JUMP_MAX ((uint64_t)1 << 24)

/* What to do with an arrival (see itg__seq_check). */
typedef enum itg__seq_verdict {
  ITG__SEQ_TAKE,    /* count seq */
  ITG__SEQ_HOLD,    /* seq is held: count nothing yet */
  ITG__SEQ_CONFIRM  /* count the held number, then seq */
} itg__seq_verdict;

typedef struct itg__seqwin {
  uint64_t top;      /* highest sequence number seen, 0 for none */
  uint64_t distinct; /* distinct numbers >= 1 seen */
  uint64_t duplicates;
  uint64_t reordered;
  uint64_t bursts;    /* runs of missing numbers closed so far */
  uint64_t burst_sum; /* their total length */
  uint64_t run;       /* the open run that ends at the window's tail */
  uint64_t held;      /* a far number waiting for confirmation, 0: none */
  uint64_t bits[ITG__SEQWIN_SPAN / 64];
} itg__seqwin;

/* Loss-burst totals over 1..expected. */
typedef struct itg__seqwin_bursts {
  uint64_t bursts;
  uint64_t missing; /* numbers in all the bursts */
} itg__seqwin_bursts;

/* Judges an arrival seq > 0 against the highest number taken, top, and
 * the held far number *held (0: none), which it updates: on CONFIRM the
 * caller counts the old *held first (passed back in *confirmed). The one
 * rule for the window here and for interval series. */
itg__seq_verdict itg__seq_check(uint64_t top, uint64_t *held, uint64_t seq,
                                uint64_t *confirmed);

/* Raises *top to seq under the same rule, *held being the far number of
 * that sequence (for counts kept without a window: the highest TX number
 * of a sender's log). */
void itg__seq_raise(uint64_t *top, uint64_t *held, uint64_t seq);

/* The count of packets sent that a flow's records support: its FLOW_END
 * count when it has one other than 0 (0: not known), else the highest TX
 * number taken. An end count more than ITG__SEQ_JUMP_MAX beyond both the
 * highest TX number and rx_top, the highest number received, is not
 * believed, as a far sequence number is not. */
uint64_t itg__seq_sent(int has_end, uint64_t end_sent, uint64_t tx_top,
                       uint64_t rx_top);

/* Sets up an empty window. */
void itg__seqwin_init(itg__seqwin *w);

/* Counts one arrival of sequence number seq (0 is ignored). */
void itg__seqwin_add(itg__seqwin *w, uint64_t seq);

/* Computes the loss bursts in 1..expected (expected >= w->top) as they
 * stand now: numbers still in the window that have not arrived count as
 * missing, and so do those after top. w may be NULL: nothing arrived. */
void itg__seqwin_bursts_at(const itg__seqwin *w, uint64_t expected,
                           itg__seqwin_bursts *out);

#endif
