/* itg-dec's outputs in ITGDec's formats (see ditg_out.h). */
#include "programs/ditg_out.h"

#include <stdlib.h>
#include <string.h>

#define SEC_NS INT64_C(1000000000)
#define DAY_NS (INT64_C(86400) * SEC_NS)
#define UNKNOWN_ADDR "0.0.0.0"

int itg__ditg_flows_add(itg__ditg_flows *t, const itg_ditg_flow *f) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->v[mid].flow_id < f->flow_id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < t->n && t->v[lo].flow_id == f->flow_id)
    return 0;
  if (t->n == t->cap) {
    size_t cap = t->cap != 0 ? t->cap * 2 : 16;
    itg_ditg_flow *grown = realloc(t->v, cap * sizeof *grown);
    if (grown == NULL)
      return ITG_ENOMEM;
    t->v = grown;
    t->cap = cap;
  }
  memmove(&t->v[lo + 1], &t->v[lo], (t->n - lo) * sizeof *t->v);
  t->v[lo] = *f;
  t->n++;
  return 0;
}

const itg_ditg_flow *itg__ditg_flows_find(const itg__ditg_flows *t,
                                          uint32_t id) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->v[mid].flow_id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->n && t->v[lo].flow_id == id ? &t->v[lo] : NULL;
}

void itg__ditg_flows_free(itg__ditg_flows *t) {
  free(t->v);
  memset(t, 0, sizeof *t);
}

/* The same classes as itg/stats.h gives records, by their flags. */
int itg__ditg_is_packet(const itg_logrec *r, itg_stats_meter meter) {
  itg_stats_meter kind;
  if (r->flags & (ITG_REC_GAP | ITG_REC_FLOW_END))
    return 0;
  if (r->flags & ITG_REC_RTT)
    kind = r->rx_ns != 0 ? ITG_STATS_RTT : ITG_STATS_SENT;
  else
    kind = r->flags & ITG_REC_RX ? ITG_STATS_OWD : ITG_STATS_SENT;
  return kind == meter;
}

void itg__ditg_times(const itg_logrec *r, itg_stats_meter meter, int64_t *tx,
                     int64_t *rx) {
  *tx = r->tx_ns;
  *rx = meter == ITG_STATS_SENT ? r->tx_ns : r->rx_ns;
}

/* Splits t into D-ITG's hour, minute and seconds of the UTC day. */
static void tod_split(int64_t t, unsigned *h, unsigned *m, double *s) {
  int64_t tod = t % DAY_NS;
  if (tod < 0)
    tod += DAY_NS;
  *h = (unsigned)(tod / (3600 * SEC_NS));
  *m = (unsigned)(tod / (60 * SEC_NS) % 60);
  *s = (double)(tod % (60 * SEC_NS)) / (double)SEC_NS;
}

int itg__ditg_text_line(FILE *fp, const itg_logrec *r, itg_stats_meter meter,
                        const itg_ditg_flow *f) {
  unsigned th, tm, rh, rm;
  double ts, rs;
  int64_t tx, rx;
  itg__ditg_times(r, meter, &tx, &rx);
  tod_split(tx, &th, &tm, &ts);
  tod_split(rx, &rh, &rm, &rs);
  if (fprintf(fp,
              "Flow>%04u Seq>%7llu Src>%46s/%hu Dest>%46s/%hu "
              "txTime>%u:%u:%lf rxTime>%u:%u:%lf Size>%5u\n",
              (unsigned)r->flow_id, (unsigned long long)r->seq,
              f != NULL ? f->src_addr : UNKNOWN_ADDR,
              (unsigned short)(f != NULL ? f->src_port : 0),
              f != NULL ? f->dst_addr : UNKNOWN_ADDR,
              (unsigned short)(f != NULL ? f->dst_port : 0), th, tm, ts, rh,
              rm, rs, (unsigned)r->size) < 0)
    return ITG_EIO;
  return 0;
}

int itg__ditg_octave_line(FILE *fp, const itg_logrec *r,
                          itg_stats_meter meter) {
  unsigned th, tm, rh, rm;
  double ts, rs;
  int64_t tx, rx;
  itg__ditg_times(r, meter, &tx, &rx);
  tod_split(tx, &th, &tm, &ts);
  tod_split(rx, &rh, &rm, &rs);
  if (fprintf(fp, "%7llu %u %u %lf %u %u %lf %u\n",
              (unsigned long long)r->seq, th, tm, ts, rh, rm, rs,
              (unsigned)r->size) < 0)
    return ITG_EIO;
  return 0;
}

void itg__ditg_flow_name(char *buf, size_t len, uint32_t id,
                         const itg_ditg_flow *f) {
  snprintf(buf, len, "%u-%s-%s", (unsigned)id,
           f != NULL ? f->src_addr : UNKNOWN_ADDR,
           f != NULL ? f->dst_addr : UNKNOWN_ADDR);
}

/* The value of field in p, in ITGDec's unit, as ITGDec prints it ("%lf")
 * and reads it back: its sums add the printed values. */
static double value_of(const itg_series_point *p, itg_series_field field) {
  char text[64];
  double v = field == ITG_SERIES_DELAY    ? p->delay_avg_ns / 1e9
             : field == ITG_SERIES_JITTER ? p->jitter_avg_ns / 1e9
             : field == ITG_SERIES_BITRATE ? p->bitrate_kbps
                                           : (double)p->lost;
  snprintf(text, sizeof text, "%lf", v);
  return strtod(text, NULL);
}

int itg__ditg_series_write(FILE *fp, const itg_series *s,
                           itg_series_field field, int64_t interval_ns,
                           const itg__ditg_flows *flows) {
  static const itg_series_field combined[4] = {
      ITG_SERIES_BITRATE, ITG_SERIES_DELAY, ITG_SERIES_JITTER,
      ITG_SERIES_LOSS};
  size_t nflows = itg_series_flow_count(s);
  size_t nint = itg_series_interval_count(s);
  itg_series_point p;
  int bad = 0;
  if (field != ITG_SERIES_COMBINED) {
    bad |= fputs("Time", fp) == EOF;
    for (size_t f = 0; f < nflows; f++) {
      char name[2 * ITG_DITG_ADDR_LEN + 16];
      itg_series_get(s, f, 0, &p);
      itg__ditg_flow_name(name, sizeof name, p.flow_id,
                          itg__ditg_flows_find(flows, p.flow_id));
      bad |= fprintf(fp, " %s", name) < 0;
    }
    bad |= fputs(" Aggregate-Flow\n", fp) == EOF;
  }
  for (size_t k = 0; k < nint && !bad; k++) {
    /* ITGDec's aggregate is the sum of the flows' values, delays too. */
    double sum[4] = {0, 0, 0, 0};
    size_t nsum = field == ITG_SERIES_COMBINED ? 4 : 1;
    bad |= fprintf(fp, "%lf",
                   (double)k * ((double)interval_ns / (double)SEC_NS)) < 0;
    for (size_t f = 0; f < nflows; f++) {
      itg_series_get(s, f, k, &p);
      for (size_t j = 0; j < nsum; j++)
        sum[j] += value_of(&p, nsum == 4 ? combined[j] : field);
      if (nsum == 1)
        bad |= fprintf(fp, " %lf", value_of(&p, field)) < 0;
    }
    for (size_t j = 0; j < nsum; j++)
      bad |= fprintf(fp, " %lf", sum[j]) < 0;
    bad |= fputc('\n', fp) == EOF;
  }
  return bad ? ITG_EIO : 0;
}
