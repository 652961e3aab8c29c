/* Sequence-number accounting of one flow in bounded memory: distinct
 * packets, duplicates, reordering and loss bursts.
 *
 * A bitmap remembers which of the last ITG__SEQWIN_SPAN sequence numbers
 * (top - SPAN, top] arrived. A number that slides out of the window
 * unreceived is final: it extends the run of missing numbers, which a
 * received one closes into a loss burst. A packet older than the window
 * cannot be told from a duplicate; it counts as reordered and as new. */
#ifndef ITG_SEQWIN_H
#define ITG_SEQWIN_H

#include <stdint.h>

#define ITG__SEQWIN_SPAN 65536u

typedef struct itg__seqwin {
  uint64_t top;      /* highest sequence number seen, 0 for none */
  uint64_t distinct; /* distinct numbers >= 1 seen */
  uint64_t duplicates;
  uint64_t reordered;
  uint64_t bursts;    /* runs of missing numbers closed so far */
  uint64_t burst_sum; /* their total length */
  uint64_t run;       /* the open run that ends at the window's tail */
  uint64_t bits[ITG__SEQWIN_SPAN / 64];
} itg__seqwin;

/* Loss-burst totals over 1..expected. */
typedef struct itg__seqwin_bursts {
  uint64_t bursts;
  uint64_t missing; /* numbers in all the bursts */
} itg__seqwin_bursts;

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
