/* What itg-dec writes in D-ITG's ITGDec formats: the text log (-l), the
 * Octave/Matlab log (-o), the per-flow file names (-s) and the interval
 * files (-d, -j, -b, -p, -c), and the table of the flows' addresses they
 * name. D-ITG logs times of the UTC day only; so are they written here. */
#ifndef ITG_PROGRAMS_DITG_OUT_H
#define ITG_PROGRAMS_DITG_OUT_H

#include <stdio.h>

#include "itg.h"

/* The addresses and ports of the flows a decoding met, by flow id (the
 * id the records carry). A flow not in it (every libitg flow) is written
 * as libitg's D-ITG export writes it: 0.0.0.0, port 0. */
typedef struct itg__ditg_flows {
  itg_ditg_flow *v; /* sorted by flow_id */
  size_t n, cap;
} itg__ditg_flows;

/* Adds f (a flow id already there keeps its first entry). Returns 0 or
 * ITG_ENOMEM. */
int itg__ditg_flows_add(itg__ditg_flows *t, const itg_ditg_flow *f);

/* Returns the entry of flow id, or NULL. */
const itg_ditg_flow *itg__ditg_flows_find(const itg__ditg_flows *t,
                                          uint32_t id);

void itg__ditg_flows_free(itg__ditg_flows *t);

/* Returns 1 if r is a packet of meter (the records a D-ITG log of that
 * meter holds, as itg_ditg_writer_open tells them), else 0. */
int itg__ditg_is_packet(const itg_logrec *r, itg_stats_meter meter);

/* The send and receive times of packet r of meter in ns since the epoch
 * (a sent packet is received when sent, as ITGSend logs it). */
void itg__ditg_times(const itg_logrec *r, itg_stats_meter meter, int64_t *tx,
                     int64_t *rx);

/* Writes packet r of meter as a line of ITGDec's text log (-l); f NULL:
 * the unknown addresses. Returns 0 or ITG_EIO. */
int itg__ditg_text_line(FILE *fp, const itg_logrec *r, itg_stats_meter meter,
                        const itg_ditg_flow *f);

/* Writes packet r of meter as a line of ITGDec's Octave/Matlab log (-o):
 * seq, send h m s, receive h m s, size. Returns 0 or ITG_EIO. */
int itg__ditg_octave_line(FILE *fp, const itg_logrec *r,
                          itg_stats_meter meter);

/* Writes "<id>-<src>-<dst>" into buf[0..len), ITGDec's name of a flow
 * (its -s files and the columns of its interval files); f NULL: the
 * unknown addresses. */
void itg__ditg_flow_name(char *buf, size_t len, uint32_t id,
                         const itg_ditg_flow *f);

/* Writes the series of field (ITG_SERIES_DELAY .. _COMBINED) in ITGDec's
 * file format: a header "Time <flow name>... Aggregate-Flow" and a row
 * per interval, the interval's start in seconds, each flow's value and
 * their sum (delay, jitter in s, bitrate in kbit/s, packets lost); for
 * COMBINED no header, and a row of the time and the sums of bitrate,
 * delay, jitter and loss. Returns 0 or ITG_EIO. */
int itg__ditg_series_write(FILE *fp, const itg_series *s,
                           itg_series_field field, int64_t interval_ns,
                           const itg__ditg_flows *flows);

#endif
