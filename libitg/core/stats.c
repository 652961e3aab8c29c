/* Streaming per-flow QoS statistics (see itg/stats.h for the definitions). */
#include "itg/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/histogram.h"
#include "core/idmap.h"
#include "core/record_kind.h"
#include "core/seqwin.h"

/* One meter's accumulator in one flow. */
typedef struct acc {
  uint64_t packets;
  uint64_t bytes;
  int64_t first_ns;
  int64_t last_ns;
  int64_t dmin;
  int64_t dmax;
  double mean; /* Welford: running mean and sum of squared deviations */
  double m2;
  int64_t prev_delay;
  double jit_sum;
  uint64_t jit_n;
  double rfc_j;
  itg__hist hist;
  itg__seqwin win;
} acc;

enum { ACC_OWD, ACC_RTT, ACC_KINDS };

typedef struct flow {
  uint32_t id;
  int has_end;
  unsigned end_marks; /* 1 << ACC_*: meters named by FLOW_END flags */
  uint64_t end_sent;
  uint64_t tx_packets;
  uint64_t tx_bytes;
  uint64_t tx_top;
  uint64_t tx_held; /* a far TX number waiting for confirmation */
  int64_t tx_first;
  int64_t tx_last;
  uint64_t gaps;
  acc *acc[ACC_KINDS];
} flow;

typedef struct entry {
  const flow *f;
  itg_stats_meter meter;
} entry;

struct itg_stats {
  itg__idmap map;
  flow **flows; /* sorted by id */
  size_t nflows;
  size_t cap_flows;
  entry *entries;
  size_t nentries;
  size_t cap_entries;
  int dirty; /* the entry list needs rebuilding */
};

/* What an entry or a total adds up, before the derived values. */
typedef struct summary {
  uint32_t flow_id;
  uint32_t flows;
  itg_stats_meter meter;
  uint64_t packets;
  uint64_t bytes;
  int64_t first_ns;
  int64_t last_ns;
  uint64_t samples;
  double mean;
  double m2;
  int64_t dmin;
  int64_t dmax;
  double jit_sum;
  uint64_t jit_n;
  double rfc_weighted; /* J times jit_n, summed */
  uint64_t expected;
  uint64_t lost;
  uint64_t duplicates;
  uint64_t reordered;
  uint64_t bursts;
  uint64_t burst_missing;
  uint64_t gaps;
} summary;

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- flows --------------------------------------------------------------- */

static void flow_free(flow *f) {
  for (int k = 0; k < ACC_KINDS; k++) {
    if (f->acc[k] != NULL) {
      itg__hist_clear(&f->acc[k]->hist);
      free(f->acc[k]);
    }
  }
  free(f);
}

/* The id of an element of s->flows. */
static uint32_t flow_id_of(const void *elem) {
  return (*(flow *const *)elem)->id;
}

/* Returns the flow with this id, created (and placed in id order) if new;
 * NULL when out of memory. */
static flow *flow_get(itg_stats *s, uint32_t id) {
  flow *f = itg__idmap_get(&s->map, id);
  if (f != NULL)
    return f;
  if (s->nflows == s->cap_flows) {
    size_t cap = s->cap_flows ? s->cap_flows * 2 : 16;
    flow **grown = realloc(s->flows, cap * sizeof *grown);
    if (grown == NULL)
      return NULL;
    s->flows = grown;
    s->cap_flows = cap;
  }
  f = itg__idmap_put_new(&s->map, id, sizeof *f);
  if (f == NULL)
    return NULL;
  f->id = id;
  itg__id_insert(s->flows, &s->nflows, sizeof *s->flows, &f, flow_id_of);
  s->dirty = 1;
  return f;
}

/* Returns the flow's accumulator of one kind, created if new; NULL when
 * out of memory. */
static acc *acc_get(itg_stats *s, flow *f, int kind) {
  acc *a = f->acc[kind];
  if (a != NULL)
    return a;
  a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  itg__hist_init(&a->hist);
  itg__seqwin_init(&a->win);
  f->acc[kind] = a;
  s->dirty = 1;
  return a;
}

/* Counts one delay sample. Returns 0 or ITG_ENOMEM (nothing counted). */
static int acc_add(acc *a, const itg_logrec *r) {
  int64_t d = itg__sat_sub(r->rx_ns, r->tx_ns);
  double delta;
  int rc = itg__hist_add(&a->hist, d);
  if (rc != 0)
    return rc;
  a->packets++;
  a->bytes += r->size;
  if (a->packets == 1) {
    a->first_ns = a->last_ns = r->rx_ns;
    a->dmin = a->dmax = d;
  } else {
    double diff = fabs((double)d - (double)a->prev_delay);
    a->jit_sum += diff;
    a->jit_n++;
    a->rfc_j += (diff - a->rfc_j) / 16.0;
    if (r->rx_ns < a->first_ns)
      a->first_ns = r->rx_ns;
    if (r->rx_ns > a->last_ns)
      a->last_ns = r->rx_ns;
    if (d < a->dmin)
      a->dmin = d;
    if (d > a->dmax)
      a->dmax = d;
  }
  delta = (double)d - a->mean;
  a->mean += delta / (double)a->packets;
  a->m2 += delta * ((double)d - a->mean);
  a->prev_delay = d;
  itg__seqwin_add(&a->win, r->seq);
  return 0;
}

static void tx_add(flow *f, const itg_logrec *r) {
  if (f->tx_packets == 0 || r->tx_ns < f->tx_first)
    f->tx_first = r->tx_ns;
  if (f->tx_packets == 0 || r->tx_ns > f->tx_last)
    f->tx_last = r->tx_ns;
  f->tx_packets++;
  f->tx_bytes += r->size;
  itg__seq_raise(&f->tx_top, &f->tx_held, r->seq);
}

/* An end record can change which entries the flow has: rebuild them. */
static void end_add(itg_stats *s, flow *f, const itg_logrec *r) {
  if (r->flags & ITG_REC_RX)
    f->end_marks |= 1u << ACC_OWD;
  if (r->flags & ITG_REC_RTT)
    f->end_marks |= 1u << ACC_RTT;
  if (!f->has_end || r->seq > f->end_sent)
    f->end_sent = r->seq;
  f->has_end = 1;
  s->dirty = 1;
}

/* ---- entries ------------------------------------------------------------- */

static int entry_push(itg_stats *s, const flow *f, itg_stats_meter meter) {
  if (s->nentries == s->cap_entries) {
    size_t cap = s->cap_entries ? s->cap_entries * 2 : 16;
    entry *grown = realloc(s->entries, cap * sizeof *grown);
    if (grown == NULL)
      return ITG_ENOMEM;
    s->entries = grown;
    s->cap_entries = cap;
  }
  s->entries[s->nentries].f = f;
  s->entries[s->nentries].meter = meter;
  s->nentries++;
  return 0;
}

/* Lists each flow once per meter it is reported under (see itg/stats.h). */
static int entries_rebuild(itg_stats *s) {
  s->nentries = 0;
  for (size_t i = 0; i < s->nflows; i++) {
    const flow *f = s->flows[i];
    int owd = f->acc[ACC_OWD] != NULL || (f->end_marks & (1u << ACC_OWD));
    int rtt = f->acc[ACC_RTT] != NULL || (f->end_marks & (1u << ACC_RTT));
    int rc = 0;
    if (!owd && !rtt && f->tx_packets == 0 && f->end_sent > 0)
      owd = 1; /* a receiver's end record for a flow that sent no packet */
    if (owd)
      rc = entry_push(s, f, ITG_STATS_OWD);
    if (rc == 0 && rtt)
      rc = entry_push(s, f, ITG_STATS_RTT);
    if (rc == 0 && !owd && !rtt)
      rc = entry_push(s, f, ITG_STATS_SENT);
    if (rc != 0)
      return rc;
  }
  s->dirty = 0;
  return 0;
}

/* ---- public: life cycle and input ---------------------------------------- */

int itg_stats_new(itg_stats **out) {
  itg_stats *s;
  if (out == NULL)
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  itg__idmap_init(&s->map);
  *out = s;
  return 0;
}

void itg_stats_free(itg_stats *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->nflows; i++)
    flow_free(s->flows[i]);
  free(s->flows);
  free(s->entries);
  itg__idmap_free(&s->map);
  free(s);
}

int itg_stats_add(itg_stats *s, const itg_logrec *recs, size_t n) {
  int rc = 0;
  if (s == NULL || (recs == NULL && n > 0))
    return ITG_EINVAL;
  rc = itg__logrec_check(recs, n);
  if (rc != 0)
    return rc;
  for (size_t i = 0; i < n && rc == 0; i++) {
    const itg_logrec *r = &recs[i];
    flow *f = flow_get(s, r->flow_id);
    itg__rec_kind kind = itg__logrec_kind(r);
    acc *a;
    if (f == NULL) {
      rc = ITG_ENOMEM;
      break;
    }
    switch (kind) {
    case ITG__REC_GAP:
      f->gaps = sat_add(f->gaps, r->seq);
      break;
    case ITG__REC_END:
      end_add(s, f, r);
      break;
    case ITG__REC_OWD:
    case ITG__REC_RTT:
      a = acc_get(s, f, kind == ITG__REC_OWD ? ACC_OWD : ACC_RTT);
      rc = a == NULL ? ITG_ENOMEM : acc_add(a, r);
      break;
    case ITG__REC_SENT:
      tx_add(f, r);
      break;
    }
  }
  if (s->dirty) {
    int rc2 = entries_rebuild(s);
    if (rc == 0)
      rc = rc2;
  }
  return rc;
}

/* ---- reports ------------------------------------------------------------- */

static void summary_of(const entry *e, summary *out) {
  const flow *f = e->f;
  memset(out, 0, sizeof *out);
  out->flow_id = f->id;
  out->flows = 1;
  out->meter = e->meter;
  out->gaps = f->gaps;
  out->expected = itg__seq_sent(f->has_end, f->end_sent, f->tx_top, 0);
  if (e->meter == ITG_STATS_SENT) {
    out->packets = f->tx_packets;
    out->bytes = f->tx_bytes;
    out->first_ns = f->tx_first;
    out->last_ns = f->tx_last;
    return;
  }
  {
    const acc *a = f->acc[e->meter == ITG_STATS_OWD ? ACC_OWD : ACC_RTT];
    itg__seqwin_bursts b;
    uint64_t distinct = 0;
    if (a != NULL) {
      out->packets = a->packets;
      out->bytes = a->bytes;
      out->first_ns = a->first_ns;
      out->last_ns = a->last_ns;
      out->samples = a->packets;
      out->mean = a->mean;
      out->m2 = a->m2;
      out->dmin = a->dmin;
      out->dmax = a->dmax;
      out->jit_sum = a->jit_sum;
      out->jit_n = a->jit_n;
      out->rfc_weighted = a->rfc_j * (double)a->jit_n;
      out->duplicates = a->win.duplicates;
      out->reordered = a->win.reordered;
      distinct = a->win.distinct;
      out->expected =
          itg__seq_sent(f->has_end, f->end_sent, f->tx_top, a->win.top);
      if (a->win.top > out->expected)
        out->expected = a->win.top;
    }
    out->lost = out->expected > distinct ? out->expected - distinct : 0;
    itg__seqwin_bursts_at(a != NULL ? &a->win : NULL, out->expected, &b);
    out->bursts = b.bursts;
    out->burst_missing = b.missing;
  }
}

/* Folds src into dst (Chan et al.'s pairwise update for mean and M2). */
static void summary_merge(summary *dst, const summary *src) {
  if (src->packets > 0) {
    if (dst->packets == 0 || src->first_ns < dst->first_ns)
      dst->first_ns = src->first_ns;
    if (dst->packets == 0 || src->last_ns > dst->last_ns)
      dst->last_ns = src->last_ns;
  }
  if (src->samples > 0) {
    if (dst->samples == 0) {
      dst->dmin = src->dmin;
      dst->dmax = src->dmax;
      dst->mean = src->mean;
      dst->m2 = src->m2;
    } else {
      double na = (double)dst->samples, nb = (double)src->samples;
      double delta = src->mean - dst->mean;
      dst->mean += delta * nb / (na + nb);
      dst->m2 += src->m2 + delta * delta * na * nb / (na + nb);
      if (src->dmin < dst->dmin)
        dst->dmin = src->dmin;
      if (src->dmax > dst->dmax)
        dst->dmax = src->dmax;
    }
    dst->samples += src->samples;
  }
  dst->flows++;
  dst->packets = sat_add(dst->packets, src->packets);
  dst->bytes = sat_add(dst->bytes, src->bytes);
  dst->jit_sum += src->jit_sum;
  dst->jit_n += src->jit_n;
  dst->rfc_weighted += src->rfc_weighted;
  dst->expected = sat_add(dst->expected, src->expected);
  dst->lost = sat_add(dst->lost, src->lost);
  dst->duplicates = sat_add(dst->duplicates, src->duplicates);
  dst->reordered = sat_add(dst->reordered, src->reordered);
  dst->bursts = sat_add(dst->bursts, src->bursts);
  dst->burst_missing = sat_add(dst->burst_missing, src->burst_missing);
  dst->gaps = sat_add(dst->gaps, src->gaps);
}

/* Percentile from hist, kept inside the exact [min, max]. */
static int64_t quantile(const itg__hist *h, uint32_t ppm, const summary *m) {
  int64_t q = itg__hist_quantile(h, ppm);
  if (q < m->dmin)
    return m->dmin;
  if (q > m->dmax)
    return m->dmax;
  return q;
}

static void summary_finish(const summary *m, const itg__hist *h,
                           itg_flow_stats *out) {
  memset(out, 0, sizeof *out);
  out->flow_id = m->flow_id;
  out->meter = (uint32_t)m->meter;
  out->flows = m->flows;
  out->packets = m->packets;
  out->bytes = m->bytes;
  out->expected = m->expected;
  out->lost = m->lost;
  out->duplicates = m->duplicates;
  out->reordered = m->reordered;
  out->loss_bursts = m->bursts;
  out->log_gaps = m->gaps;
  if (m->packets > 0) {
    out->first_ns = m->first_ns;
    out->last_ns = m->last_ns;
    out->duration_ns = itg__sat_sub(m->last_ns, m->first_ns);
  }
  if (m->samples > 0) {
    out->delay_min_ns = m->dmin;
    out->delay_max_ns = m->dmax;
    out->delay_avg_ns = m->mean;
    out->delay_std_ns = m->m2 > 0 ? sqrt(m->m2 / (double)m->samples) : 0;
    out->delay_p50_ns = quantile(h, 500000, m);
    out->delay_p99_ns = quantile(h, 990000, m);
  }
  if (m->jit_n > 0) {
    out->jitter_avg_ns = m->jit_sum / (double)m->jit_n;
    out->jitter_rfc3550_ns = m->rfc_weighted / (double)m->jit_n;
  }
  if (m->expected > 0)
    /* The ratio first: 100 * x / x is not 100 for every large x. */
    out->loss_pct = 100.0 * ((double)m->lost / (double)m->expected);
  if (m->bursts > 0)
    out->loss_burst_avg = (double)m->burst_missing / (double)m->bursts;
  if (out->duration_ns > 0) {
    double secs = (double)out->duration_ns / 1e9;
    out->bitrate_kbps = (double)m->bytes * 8.0 / 1000.0 / secs;
    out->rate_pps = (double)m->packets / secs;
  }
}

size_t itg_stats_flow_count(const itg_stats *s) {
  return s != NULL ? s->nentries : 0;
}

/* Fills *out, the library's layout, with entry i. */
static int flow_entry(const itg_stats *s, size_t i, itg_flow_stats *out) {
  const entry *e;
  summary m;
  if (s == NULL || out == NULL || i >= s->nentries)
    return ITG_EINVAL;
  e = &s->entries[i];
  summary_of(e, &m);
  if (e->meter == ITG_STATS_SENT) {
    summary_finish(&m, NULL, out);
  } else {
    const acc *a = e->f->acc[e->meter == ITG_STATS_OWD ? ACC_OWD : ACC_RTT];
    summary_finish(&m, a != NULL ? &a->hist : NULL, out);
  }
  return 0;
}

int itg_stats_flow_size(const itg_stats *s, size_t i, itg_flow_stats *out,
                        size_t size) {
  itg_flow_stats full;
  int rc;

  if (out == NULL || !itg__struct_size_ok(size, sizeof full))
    return ITG_EINVAL;
  rc = flow_entry(s, i, &full);
  return rc != 0 ? rc : itg__struct_out(out, size, &full, sizeof full);
}

itg_stats_meter itg_stats_main_meter(const itg_stats *s) {
  int rtt = 0, sent = 0;
  for (size_t i = 0; s != NULL && i < s->nentries; i++) {
    if (s->entries[i].meter == ITG_STATS_OWD)
      return ITG_STATS_OWD;
    rtt |= s->entries[i].meter == ITG_STATS_RTT;
    sent |= s->entries[i].meter == ITG_STATS_SENT;
  }
  if (rtt)
    return ITG_STATS_RTT;
  return sent ? ITG_STATS_SENT : ITG_STATS_OWD;
}

/* Fills *out, the library's layout, with the total over meter. */
static int total(const itg_stats *s, itg_stats_meter meter,
                 itg_flow_stats *out) {
  summary tot, one;
  itg__hist *h;
  int rc = 0;
  if (s == NULL || out == NULL)
    return ITG_EINVAL;
  if (meter == ITG_STATS_MAIN)
    meter = itg_stats_main_meter(s);
  if (meter != ITG_STATS_OWD && meter != ITG_STATS_RTT &&
      meter != ITG_STATS_SENT)
    return ITG_EINVAL;
  h = malloc(sizeof *h);
  if (h == NULL)
    return ITG_ENOMEM;
  itg__hist_init(h);
  memset(&tot, 0, sizeof tot);
  tot.meter = meter;
  for (size_t i = 0; i < s->nentries && rc == 0; i++) {
    const entry *e = &s->entries[i];
    if (e->meter != meter)
      continue;
    summary_of(e, &one);
    summary_merge(&tot, &one);
    if (meter != ITG_STATS_SENT) {
      const acc *a = e->f->acc[meter == ITG_STATS_OWD ? ACC_OWD : ACC_RTT];
      if (a != NULL)
        rc = itg__hist_merge(h, &a->hist);
    }
  }
  if (rc == 0)
    summary_finish(&tot, h, out);
  itg__hist_clear(h);
  free(h);
  return rc;
}

int itg_stats_total_size(const itg_stats *s, itg_stats_meter meter,
                         itg_flow_stats *out, size_t size) {
  itg_flow_stats full;
  int rc;

  if (out == NULL || !itg__struct_size_ok(size, sizeof full))
    return ITG_EINVAL;
  rc = total(s, meter, &full);
  return rc != 0 ? rc : itg__struct_out(out, size, &full, sizeof full);
}
