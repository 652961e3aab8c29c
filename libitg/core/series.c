/* Interval series (see itg/stats.h). Each listed flow keeps one cell per
 * interval; all flows share the same index range so the total of an
 * interval is a sum across flows. */
#include "itg/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/idmap.h"
#include "core/record_kind.h"
#include "core/seqwin.h"
#include "core/text.h"

typedef struct cell {
  uint64_t packets;
  uint64_t bytes;
  uint64_t lost;
  uint64_t jit_n;
  double delay_sum;
  double jit_sum;
} cell;

typedef struct sflow {
  uint32_t id;
  int has_end;
  uint64_t end_sent;
  uint64_t tx_top; /* highest TX sequence number */
  uint64_t tx_held; /* a far TX number waiting for confirmation */
  uint64_t top;    /* highest sequence number among the samples */
  uint64_t held;   /* a far number waiting for confirmation (seqwin.h) */
  int64_t prev_delay;
  uint64_t samples;
  int64_t last_time; /* latest sample, and its interval index */
  int64_t last_idx;
  cell *cells; /* cells[i - base] for interval i; NULL: not listed */
} sflow;

struct itg_series {
  int64_t interval_ns;
  itg_stats_meter meter;
  int started;
  int64_t origin; /* time of the first sample: interval 0 starts there */
  int64_t lo, hi; /* interval indices in use; hi < lo: none */
  int64_t base;   /* index of cells[0] in every listed flow */
  size_t span;    /* cells allocated per listed flow */
  itg__idmap map;
  sflow **all; /* every flow seen, for freeing */
  size_t nall;
  size_t cap_all;
  sflow **listed; /* flows with samples, by id */
  size_t nlisted;
  size_t cap_listed;
};

int itg_series_new(int64_t interval_ns, itg_stats_meter meter,
                   itg_series **out) {
  itg_series *s;
  if (out == NULL || interval_ns <= 0 ||
      (meter != ITG_STATS_OWD && meter != ITG_STATS_RTT &&
       meter != ITG_STATS_SENT))
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  s->interval_ns = interval_ns;
  s->meter = meter;
  s->hi = -1;
  itg__idmap_init(&s->map);
  *out = s;
  return 0;
}

void itg_series_free(itg_series *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->nall; i++) {
    free(s->all[i]->cells);
    free(s->all[i]);
  }
  free(s->all);
  free(s->listed);
  itg__idmap_free(&s->map);
  free(s);
}

/* Grows an array of pointers to hold one more. Returns 0 or ITG_ENOMEM. */
static int room_for_one(sflow ***arr, size_t n, size_t *cap) {
  sflow **grown;
  size_t c;
  if (n < *cap)
    return 0;
  c = *cap ? *cap * 2 : 16;
  grown = realloc(*arr, c * sizeof *grown);
  if (grown == NULL)
    return ITG_ENOMEM;
  *arr = grown;
  *cap = c;
  return 0;
}

/* Returns the flow with this id, created if new; NULL when out of memory. */
static sflow *flow_get(itg_series *s, uint32_t id) {
  sflow *f = itg__idmap_get(&s->map, id);
  if (f != NULL)
    return f;
  if (room_for_one(&s->all, s->nall, &s->cap_all) != 0)
    return NULL;
  f = itg__idmap_put_new(&s->map, id, sizeof *f);
  if (f == NULL)
    return NULL;
  f->id = id;
  s->all[s->nall++] = f;
  return f;
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Re-seats every listed flow's cells on [base, base + span), all or
 * none. Returns 0 or ITG_ENOMEM. */
static int reseat(itg_series *s, int64_t base, size_t span) {
  cell **fresh = calloc(s->nlisted ? s->nlisted : 1, sizeof *fresh);
  size_t i;
  if (fresh == NULL)
    return ITG_ENOMEM;
  for (i = 0; i < s->nlisted; i++) {
    fresh[i] = calloc(span, sizeof **fresh);
    if (fresh[i] == NULL)
      goto out_free_fresh;
  }
  for (i = 0; i < s->nlisted; i++) {
    sflow *f = s->listed[i];
    if (s->hi >= s->lo)
      memcpy(fresh[i] + (s->lo - base), f->cells + (s->lo - s->base),
             (size_t)(s->hi - s->lo + 1) * sizeof **fresh);
    free(f->cells);
    f->cells = fresh[i];
  }
  free(fresh);
  s->base = base;
  s->span = span;
  return 0;

out_free_fresh:
  while (i > 0)
    free(fresh[--i]);
  free(fresh);
  return ITG_ENOMEM;
}

/* Makes interval idx available to `flows` listed flows: widens the range,
 * re-seating the cells with room to spare when they run out. Returns 0,
 * ITG_ELIMIT or ITG_ENOMEM. */
static int cover(itg_series *s, int64_t idx, size_t flows) {
  int empty = s->hi < s->lo;
  int64_t lo = empty || idx < s->lo ? idx : s->lo;
  int64_t hi = empty || idx > s->hi ? idx : s->hi;
  uint64_t width = (uint64_t)hi - (uint64_t)lo + 1;
  uint64_t span, limit;
  int64_t base;
  int rc;
  if (width > ITG_SERIES_MAX_CELLS || width * flows > ITG_SERIES_MAX_CELLS)
    return ITG_ELIMIT;
  if (s->span > 0 && lo >= s->base && hi - s->base < (int64_t)s->span) {
    s->lo = lo;
    s->hi = hi;
    return 0;
  }
  limit = ITG_SERIES_MAX_CELLS / flows;
  span = width * 2 < limit ? width * 2 : limit;
  if (span < width)
    span = width;
  /* The spare room goes on the side the range grew. */
  base = !empty && idx < s->lo ? hi - (int64_t)span + 1 : lo;
  rc = reseat(s, base, (size_t)span);
  if (rc != 0)
    return rc;
  s->lo = lo;
  s->hi = hi;
  return 0;
}

/* The id of an element of s->listed. */
static uint32_t listed_id_of(const void *elem) {
  return (*(sflow *const *)elem)->id;
}

/* Lists a flow that got its first sample, in id order. */
static int list_flow(itg_series *s, sflow *f) {
  int rc = room_for_one(&s->listed, s->nlisted, &s->cap_listed);
  if (rc != 0)
    return rc;
  f->cells = calloc(s->span ? s->span : 1, sizeof *f->cells);
  if (f->cells == NULL)
    return ITG_ENOMEM;
  itg__id_insert(s->listed, &s->nlisted, sizeof *s->listed, &f,
                 listed_id_of);
  return 0;
}

/* Moves the flow's top to seq if it is above it, counting the numbers
 * skipped as lost in c. */
static void top_raise(sflow *f, cell *c, uint64_t seq) {
  if (seq > f->top) {
    c->lost += seq - f->top - 1;
    f->top = seq;
  }
}

/* Takes a sample's sequence number under the far-number rule of
 * seqwin.h. */
static void seq_add(sflow *f, cell *c, uint64_t seq) {
  uint64_t confirmed = 0;
  if (seq == 0)
    return;
  switch (itg__seq_check(f->top, &f->held, seq, &confirmed)) {
  case ITG__SEQ_TAKE:
    top_raise(f, c, seq);
    break;
  case ITG__SEQ_HOLD:
    break;
  case ITG__SEQ_CONFIRM:
    top_raise(f, c, confirmed);
    top_raise(f, c, seq);
    break;
  }
}

/* Places one sample of the series' meter. Returns 0, ITG_ELIMIT or
 * ITG_ENOMEM. */
static int sample_add(itg_series *s, sflow *f, const itg_logrec *r) {
  int64_t t = s->meter == ITG_STATS_SENT ? r->tx_ns : r->rx_ns;
  int64_t idx;
  cell *c;
  int rc;
  if (!s->started) {
    s->started = 1;
    s->origin = t;
  }
  idx = floor_div(itg__sat_sub(t, s->origin), s->interval_ns);
  rc = cover(s, idx, s->nlisted + (f->cells == NULL));
  if (rc == 0 && f->cells == NULL)
    rc = list_flow(s, f);
  if (rc != 0)
    return rc;
  c = &f->cells[idx - s->base];
  c->packets++;
  c->bytes += r->size;
  if (s->meter != ITG_STATS_SENT) {
    int64_t d = itg__sat_sub(r->rx_ns, r->tx_ns);
    c->delay_sum += (double)d;
    if (f->samples > 0) {
      c->jit_sum += fabs((double)d - (double)f->prev_delay);
      c->jit_n++;
    }
    f->prev_delay = d;
    seq_add(f, c, r->seq);
  }
  if (f->samples == 0 || t >= f->last_time) {
    f->last_time = t;
    f->last_idx = idx;
  }
  f->samples++;
  return 0;
}

int itg_series_add(itg_series *s, const itg_logrec *recs, size_t n) {
  int rc;
  if (s == NULL || (recs == NULL && n > 0))
    return ITG_EINVAL;
  rc = itg__logrec_check(recs, n);
  for (size_t i = 0; i < n && rc == 0; i++) {
    const itg_logrec *r = &recs[i];
    sflow *f = flow_get(s, r->flow_id);
    if (f == NULL)
      return ITG_ENOMEM;
    switch (itg__logrec_kind(r)) {
    case ITG__REC_GAP:
      break;
    case ITG__REC_END:
      if (!f->has_end || r->seq > f->end_sent)
        f->end_sent = r->seq;
      f->has_end = 1;
      break;
    case ITG__REC_OWD:
      if (s->meter == ITG_STATS_OWD)
        rc = sample_add(s, f, r);
      break;
    case ITG__REC_RTT:
      if (s->meter == ITG_STATS_RTT)
        rc = sample_add(s, f, r);
      break;
    case ITG__REC_SENT:
      itg__seq_raise(&f->tx_top, &f->tx_held, r->seq);
      if (s->meter == ITG_STATS_SENT)
        rc = sample_add(s, f, r);
      break;
    }
  }
  return rc;
}

size_t itg_series_flow_count(const itg_series *s) {
  return s != NULL ? s->nlisted : 0;
}

size_t itg_series_interval_count(const itg_series *s) {
  if (s == NULL || s->nlisted == 0)
    return 0;
  return (size_t)(s->hi - s->lo + 1);
}

/* Adds one flow's cell of interval idx to *out, with the losses after its
 * last sample in its last interval. */
static void add_cell(const itg_series *s, const sflow *f, int64_t idx,
                     cell *out) {
  const cell *c = &f->cells[idx - s->base];
  out->packets += c->packets;
  out->bytes += c->bytes;
  out->lost += c->lost;
  out->jit_n += c->jit_n;
  out->delay_sum += c->delay_sum;
  out->jit_sum += c->jit_sum;
  if (s->meter != ITG_STATS_SENT && idx == f->last_idx) {
    uint64_t sent = itg__seq_sent(f->has_end, f->end_sent, f->tx_top, f->top);
    if (sent > f->top)
      out->lost += sent - f->top;
  }
}

/* Fills *out, the library's layout, with one point. */
static int point(const itg_series *s, size_t flow, size_t interval,
                 itg_series_point *out) {
  cell sum;
  int64_t idx;
  if (s == NULL || out == NULL || interval >= itg_series_interval_count(s) ||
      (flow != ITG_SERIES_TOTAL && flow >= s->nlisted))
    return ITG_EINVAL;
  idx = s->lo + (int64_t)interval;
  memset(&sum, 0, sizeof sum);
  memset(out, 0, sizeof *out);
  if (flow == ITG_SERIES_TOTAL) {
    for (size_t i = 0; i < s->nlisted; i++)
      add_cell(s, s->listed[i], idx, &sum);
  } else {
    add_cell(s, s->listed[flow], idx, &sum);
    out->flow_id = s->listed[flow]->id;
  }
  out->start_ns = (int64_t)interval <= INT64_MAX / s->interval_ns
                      ? (int64_t)interval * s->interval_ns
                      : INT64_MAX;
  out->packets = sum.packets;
  out->bytes = sum.bytes;
  out->lost = sum.lost;
  if (sum.packets > 0 && s->meter != ITG_STATS_SENT)
    out->delay_avg_ns = sum.delay_sum / (double)sum.packets;
  if (sum.jit_n > 0)
    out->jitter_avg_ns = sum.jit_sum / (double)sum.jit_n;
  out->bitrate_kbps =
      (double)sum.bytes * 8.0 / 1000.0 / ((double)s->interval_ns / 1e9);
  return 0;
}

int itg_series_get_size(const itg_series *s, size_t flow, size_t interval,
                        itg_series_point *out, size_t size) {
  itg_series_point full;
  int rc;

  if (out == NULL || !itg__struct_size_ok(size, sizeof full))
    return ITG_EINVAL;
  rc = point(s, flow, interval, &full);
  return rc != 0 ? rc : itg__struct_out(out, size, &full, sizeof full);
}

/* ---- CSV ----------------------------------------------------------------- */

/* Writes the field of one point, in the wide layout. */
static void put_value(itg__text *t, itg_series_field field,
                      const itg_series_point *p) {
  switch (field) {
  case ITG_SERIES_DELAY:
    itg__text_fixed(t, p->delay_avg_ns / 1e9, 9);
    break;
  case ITG_SERIES_JITTER:
    itg__text_fixed(t, p->jitter_avg_ns / 1e9, 9);
    break;
  case ITG_SERIES_BITRATE:
    itg__text_fixed(t, p->bitrate_kbps, 6);
    break;
  default:
    itg__text_u64(t, p->lost);
    break;
  }
}

/* One row of the combined layout, without the time and flow columns. */
static void put_combined(itg__text *t, const itg_series_point *p) {
  itg__text_str(t, ",");
  itg__text_u64(t, p->packets);
  itg__text_str(t, ",");
  itg__text_u64(t, p->bytes);
  itg__text_str(t, ",");
  itg__text_u64(t, p->lost);
  itg__text_str(t, ",");
  itg__text_fixed(t, p->delay_avg_ns / 1e9, 9);
  itg__text_str(t, ",");
  itg__text_fixed(t, p->jitter_avg_ns / 1e9, 9);
  itg__text_str(t, ",");
  itg__text_fixed(t, p->bitrate_kbps, 6);
  itg__text_str(t, "\n");
}

static void put_header(itg__text *t, const itg_series *s,
                       itg_series_field field) {
  if (field == ITG_SERIES_COMBINED) {
    itg__text_str(t, "time_s,flow,packets,bytes,lost,delay_avg_s,"
                     "jitter_avg_s,bitrate_kbps\n");
    return;
  }
  itg__text_str(t, "time_s");
  for (size_t i = 0; i < s->nlisted; i++) {
    itg__text_str(t, ",flow_");
    itg__text_u64(t, s->listed[i]->id);
  }
  itg__text_str(t, ",total\n");
}

int itg_series_csv(const itg_series *s, itg_series_field field, size_t first,
                   size_t count, char *buf, size_t len, size_t *needed) {
  itg__text t;
  itg_series_point p;
  size_t n, end;
  if (s == NULL || (buf == NULL && len > 0) || field < ITG_SERIES_DELAY ||
      field > ITG_SERIES_COMBINED)
    return ITG_EINVAL;
  itg__text_init(&t, buf, len);
  if (first == 0)
    put_header(&t, s, field);
  n = itg_series_interval_count(s);
  end = first < n ? (count < n - first ? first + count : n) : first;
  for (size_t k = first; k < end; k++) {
    double secs = (double)k * (double)s->interval_ns / 1e9;
    if (field != ITG_SERIES_COMBINED) {
      itg__text_fixed(&t, secs, 9);
      for (size_t i = 0; i < s->nlisted; i++) {
        itg_series_get(s, i, k, &p);
        itg__text_str(&t, ",");
        put_value(&t, field, &p);
      }
      itg_series_get(s, ITG_SERIES_TOTAL, k, &p);
      itg__text_str(&t, ",");
      put_value(&t, field, &p);
      itg__text_str(&t, "\n");
      continue;
    }
    for (size_t i = 0; i <= s->nlisted; i++) {
      itg_series_get(s, i < s->nlisted ? i : ITG_SERIES_TOTAL, k, &p);
      itg__text_fixed(&t, secs, 9);
      itg__text_str(&t, ",");
      if (i < s->nlisted)
        itg__text_u64(&t, p.flow_id);
      else
        itg__text_str(&t, "total");
      put_combined(&t, &p);
    }
  }
  return itg__text_finish(&t, needed);
}
