/* Reading D-ITG logs into libitg's statistics (see itg/ditg.h): format
 * detection, the dates of D-ITG's times of day, and the flows D-ITG tells
 * apart by address and port. */
#include "itg/ditg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "core/ditg_rec.h"
#include "core/growable.h"
#include "core/idmap.h"
#include "platform/platform.h"

#define BATCH 256
#define MAGIC_LEN 8
#define MAX_REL_NS ((int64_t)ITG_DITG_MAX_DAYS * ITG__DAY_NS)

static const uint8_t libitg_magic[MAGIC_LEN] = {'I', 'T', 'G', 'L',
                                                'O', 'G', '\r', '\n'};

/* ---- detection ----------------------------------------------------------- */

itg_log_format itg_log_format_detect(const uint8_t *buf, size_t len) {
  itg__ditg_rec r;
  const uint8_t *nl;
  if (buf == NULL)
    return len == 0 ? ITG_LOG_FORMAT_LIBITG : ITG_LOG_FORMAT_UNKNOWN;
  /* A file shorter than the magic that begins as it does is a libitg log
   * cut short, which the libitg reader reports as such. */
  if (memcmp(buf, libitg_magic, len < MAGIC_LEN ? len : MAGIC_LEN) == 0)
    return ITG_LOG_FORMAT_LIBITG;
  if (len >= ITG_DITG_RECORD_LEN && itg__ditg_rec_decode(buf, &r) == 0)
    return ITG_LOG_FORMAT_DITG;
  if (len > ITG_DITG_LINE_MAX + 1)
    len = ITG_DITG_LINE_MAX + 1;
  nl = memchr(buf, '\n', len);
  if (len >= 5 && memcmp(buf, "Flow>", 5) == 0 && nl != NULL &&
      itg__ditg_line_parse((const char *)buf, (size_t)(nl - buf), &r) == 0)
    return ITG_LOG_FORMAT_DITG_TEXT;
  return ITG_LOG_FORMAT_UNKNOWN;
}

int itg_log_format_of(const char *path, itg_log_format *out) {
  uint8_t buf[ITG_DITG_LINE_MAX + 1];
  size_t got;
  FILE *f;
  int rc = 0;
  if (path == NULL || out == NULL)
    return ITG_EINVAL;
  f = fopen(path, "rb");
  if (f == NULL)
    return itg__file_errno(errno);
  got = fread(buf, 1, sizeof buf, f);
  if (ferror(f))
    rc = ITG_EIO;
  fclose(f);
  if (rc == 0)
    *out = itg_log_format_detect(buf, got);
  return rc;
}

/* ---- the records of one file --------------------------------------------- */

typedef struct source {
  FILE *f;
  int text;
  uint64_t offset; /* where the next record starts */
  uint64_t at;     /* where the record just read starts */
  uint64_t index;  /* records (lines) passed */
} source;

static int source_open(source *s, const char *path, int text) {
  memset(s, 0, sizeof *s);
  s->text = text;
  s->f = fopen(path, "rb");
  return s->f == NULL ? itg__file_errno(errno) : 0;
}

/* Reads a line of at most ITG_DITG_LINE_MAX bytes (a longer one is
 * passed over whole and malformed). */
static int source_line(source *s, itg__ditg_rec *r) {
  char line[ITG_DITG_LINE_MAX];
  size_t n = 0;
  int c, over = 0;
  while ((c = getc(s->f)) != EOF && c != '\n') {
    if (n < sizeof line)
      line[n++] = (char)c;
    else
      over = 1;
    s->offset++;
  }
  if (c == EOF) {
    if (ferror(s->f))
      return ITG_EIO;
    if (s->offset == s->at)
      return 0;
    s->offset = s->at;
    return ITG_ETRUNC;
  }
  s->offset++;
  s->index++;
  if (over || itg__ditg_line_parse(line, n, r) != 0)
    return ITG_EBADMSG;
  return 1;
}

/* Reads the next record. Returns 1, 0 at the clean end, ITG_EBADMSG for
 * a malformed record (passed over: reading goes on after it), ITG_ETRUNC
 * (the file ends inside a record; offset stays at its start) or
 * ITG_EIO. */
static int source_next(source *s, itg__ditg_rec *r) {
  uint8_t buf[ITG_DITG_RECORD_LEN];
  size_t got;
  s->at = s->offset;
  if (s->text)
    return source_line(s, r);
  got = fread(buf, 1, sizeof buf, s->f);
  if (got < sizeof buf) {
    if (ferror(s->f))
      return ITG_EIO;
    return got == 0 ? 0 : ITG_ETRUNC;
  }
  s->offset += got;
  s->index++;
  return itg__ditg_rec_decode(buf, r) == 0 ? 1 : ITG_EBADMSG;
}

/* ---- dates --------------------------------------------------------------- */

/* Times are placed relative to midnight of the first record's day. */
typedef struct days {
  int have;
  int64_t prev_rx; /* the previous record's receive time */
} days;

/* d moved into [-half a day, half a day): the nearest of d + k days. */
static int64_t nearest(int64_t d) {
  d %= ITG__DAY_NS;
  if (d < 0)
    d += ITG__DAY_NS;
  return d >= ITG__DAY_NS / 2 ? d - ITG__DAY_NS : d;
}

/* Places r's times (see itg/ditg.h). Returns 0, or ITG_EBADMSG when the
 * date would move more than ITG_DITG_MAX_DAYS (the record is left out). */
static int days_place(days *d, const itg__ditg_rec *r, int64_t *tx,
                      int64_t *rx) {
  int64_t t = r->rx_tod_ns;
  if (d->have)
    t = d->prev_rx + nearest(r->rx_tod_ns - d->prev_rx);
  if (t > MAX_REL_NS || t < -MAX_REL_NS)
    return ITG_EBADMSG;
  d->have = 1;
  d->prev_rx = t;
  *rx = t;
  *tx = t + nearest(r->tx_tod_ns - r->rx_tod_ns);
  return 0;
}

/* The receive time of the file's last record that places, and whether
 * there is one. Returns 0 or ITG_EIO. */
static int last_rx(const char *path, int text, int64_t *last, int *any) {
  source s;
  days d;
  itg__ditg_rec r;
  int rc = source_open(&s, path, text);
  memset(&d, 0, sizeof d);
  *any = 0;
  if (rc != 0)
    return rc;
  for (;;) {
    int64_t tx, rx;
    rc = source_next(&s, &r);
    if (rc == 0 || rc == ITG_ETRUNC || rc == ITG_EIO)
      break;
    if (rc == 1 && days_place(&d, &r, &tx, &rx) == 0) {
      *last = rx;
      *any = 1;
    }
  }
  fclose(s.f);
  return rc == ITG_EIO ? rc : 0;
}

/* What to add to the file's relative times: the last record lands at most
 * a day before the modification time (plus the slack). Returns 0,
 * ITG_ERANGE (a modification time out of range) or the error of the
 * file. */
static int mtime_shift(const char *path, int text, int64_t *shift) {
  uv_fs_t req;
  int64_t last = 0, sec, nsec, limit;
  int any, rc = last_rx(path, text, &last, &any);
  if (rc != 0 || !any) {
    *shift = 0;
    return rc;
  }
  rc = uv_fs_stat(NULL, &req, path, NULL);
  if (rc != 0) {
    uv_fs_req_cleanup(&req);
    return itg__uv_err(rc);
  }
  sec = (int64_t)req.statbuf.st_mtim.tv_sec;
  nsec = (int64_t)req.statbuf.st_mtim.tv_nsec;
  uv_fs_req_cleanup(&req);
  if (sec < 0 || sec >= ITG_DITG_DAY_MAX / 1000000000)
    return ITG_ERANGE;
  limit = sec * 1000000000 + nsec + ITG_DITG_MTIME_SLACK_NS;
  *shift = limit - (((limit - last) % ITG__DAY_NS + ITG__DAY_NS) %
                    ITG__DAY_NS) - last;
  return 0;
}

/* ---- flows --------------------------------------------------------------- */

typedef struct tuple {
  itg_ditg_flow flow;
  size_t next; /* index + 1 of the next tuple of the same D-ITG id */
} tuple;

typedef struct flowmap {
  itg__idmap heads; /* D-ITG id -> size_t: index + 1 of a tuple of it */
  itg__idmap taken; /* flow ids given */
  tuple *v;
  size_t n;
  size_t cap;
  size_t last;  /* index + 1 of the previous record's tuple */
  uint32_t top; /* the highest id given */
} flowmap;

/* Marks an id as given (the map takes a pointer it never follows). */
static char taken_mark;

static void flowmap_free(flowmap *m) {
  for (size_t i = 0; i < m->heads.cap; i++)
    free(m->heads.slots[i].value);
  itg__idmap_free(&m->heads);
  itg__idmap_free(&m->taken);
  free(m->v);
}

static int same_flow(const itg_ditg_flow *f, const itg__ditg_rec *r) {
  return f->ditg_flow_id == r->flow_id && f->src_port == r->src_port &&
         f->dst_port == r->dst_port && strcmp(f->src_addr, r->src_addr) == 0 &&
         strcmp(f->dst_addr, r->dst_addr) == 0;
}

/* Adds r's flow, new to the map. Returns 0, ITG_ENOMEM or ITG_ELIMIT. */
static int flowmap_add(flowmap *m, const itg__ditg_rec *r,
                       const itg_ditg_cfg *cfg, size_t *head) {
  itg_ditg_flow *f;
  uint32_t id = r->flow_id;
  if (m->n == ITG_DITG_MAX_FLOWS)
    return ITG_ELIMIT;
  if (itg__idmap_get(&m->taken, id) != NULL) {
    if (m->top == UINT32_MAX)
      return ITG_ELIMIT;
    id = m->top + 1;
  }
  if (m->n == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    tuple *grown = realloc(m->v, cap * sizeof *grown);
    if (grown == NULL)
      return ITG_ENOMEM;
    m->v = grown;
    m->cap = cap;
  }
  if (head == NULL) {
    head = itg__idmap_put_new(&m->heads, r->flow_id, sizeof *head);
    if (head == NULL)
      return ITG_ENOMEM;
  }
  if (itg__idmap_put(&m->taken, id, &taken_mark) != 0)
    return ITG_ENOMEM;
  f = &m->v[m->n].flow;
  memset(f, 0, sizeof *f);
  f->flow_id = id;
  f->ditg_flow_id = r->flow_id;
  f->src_port = r->src_port;
  f->dst_port = r->dst_port;
  memcpy(f->src_addr, r->src_addr, sizeof f->src_addr);
  memcpy(f->dst_addr, r->dst_addr, sizeof f->dst_addr);
  m->v[m->n].next = *head;
  *head = ++m->n;
  m->last = m->n;
  if (id > m->top || m->n == 1)
    m->top = id;
  if (cfg->on_flow != NULL)
    cfg->on_flow(f, cfg->user);
  return 0;
}

/* The id r's records are counted under. Returns 0, ITG_ENOMEM or
 * ITG_ELIMIT. */
static int flowmap_id(flowmap *m, const itg__ditg_rec *r,
                      const itg_ditg_cfg *cfg, uint32_t *out) {
  size_t *head;
  int rc;
  if (m->last != 0 && same_flow(&m->v[m->last - 1].flow, r)) {
    *out = m->v[m->last - 1].flow.flow_id;
    return 0;
  }
  head = itg__idmap_get(&m->heads, r->flow_id);
  for (size_t i = head != NULL ? *head : 0; i != 0; i = m->v[i - 1].next) {
    if (same_flow(&m->v[i - 1].flow, r)) {
      m->last = i;
      *out = m->v[i - 1].flow.flow_id;
      return 0;
    }
  }
  rc = flowmap_add(m, r, cfg, head);
  if (rc == 0)
    *out = m->v[m->n - 1].flow.flow_id;
  return rc;
}

/* ---- decoding ------------------------------------------------------------ */

typedef struct decoder {
  itg_ditg_cfg cfg;
  const itg_decode_map *map;
  itg_stats *stats;
  itg_series *series;
  flowmap flows;
  itg_logrec recs[BATCH];
  size_t n;
} decoder;

/* Hands the batch to the map and the consumers. Returns 0 or their
 * error. */
static int flush(decoder *x, size_t file) {
  int rc = 0;
  if (x->n == 0)
    return 0;
  if (x->map != NULL)
    x->map->fn(x->recs, x->n, file, x->map->user);
  if (x->stats != NULL)
    rc = itg_stats_add(x->stats, x->recs, x->n);
  if (rc == 0 && x->series != NULL)
    rc = itg_series_add(x->series, x->recs, x->n);
  x->n = 0;
  return rc;
}

static void note_damage(itg_decode_status *st, const source *s) {
  if (st->damaged++ == 0) {
    st->first_damage.block = s->index - 1;
    st->first_damage.offset = s->at;
    st->first_damage.records = 1;
  }
  st->skipped++;
}

/* Reads one file. Returns 0, the file's error (kept in *st), or a
 * consumer's or the flows' error (fatal: *fatal set). */
static int decode_one(decoder *x, const char *path, size_t file,
                      itg_decode_status *st, int *fatal) {
  itg_log_format fmt;
  itg__ditg_rec r;
  source s;
  days d;
  int64_t shift = x->cfg.day_ns;
  int text, got;
  int rc = itg_log_format_of(path, &fmt);
  if (rc == 0 && fmt != ITG_LOG_FORMAT_DITG && fmt != ITG_LOG_FORMAT_DITG_TEXT)
    rc = ITG_EBADMSG;
  text = fmt == ITG_LOG_FORMAT_DITG_TEXT;
  if (rc == 0 && shift == ITG_DITG_DAY_MTIME)
    rc = mtime_shift(path, text, &shift);
  if (rc == 0)
    rc = source_open(&s, path, text);
  if (rc != 0) {
    st->error = rc;
    return rc;
  }
  st->opened = 1;
  memset(&d, 0, sizeof d);
  for (;;) {
    int64_t tx, rx;
    itg_logrec *out = &x->recs[x->n];
    got = source_next(&s, &r);
    if (got == 1 && days_place(&d, &r, &tx, &rx) != 0)
      got = ITG_EBADMSG;
    if (got == ITG_EBADMSG) {
      note_damage(st, &s);
      continue;
    }
    if (got != 1)
      break;
    rc = flowmap_id(&x->flows, &r, &x->cfg, &out->flow_id);
    if (rc != 0)
      break;
    out->size = (uint16_t)r.size;
    out->flags = ITG_REC_RX;
    out->seq = r.seq;
    out->tx_ns = shift + tx;
    out->rx_ns = shift + rx;
    st->records++;
    if (++x->n == BATCH && (rc = flush(x, file)) != 0)
      break;
  }
  if (rc == 0)
    rc = flush(x, file);
  fclose(s.f);
  if (rc != 0) {
    *fatal = 1;
    return rc;
  }
  st->offset = s.offset;
  rc = got < 0 ? got : st->damaged > 0 ? ITG_EBADMSG : 0;
  st->error = rc;
  return rc;
}

int itg_ditg_cfg_init_size(itg_ditg_cfg *out, size_t size) {
  itg_ditg_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.day_ns = ITG_DITG_DAY_MTIME;
  return itg__struct_out(out, size, &cfg, sizeof cfg);
}

int itg_ditg_decode_files_size(const char *const *paths, size_t n,
                               const itg_ditg_cfg *cfg,
                               const itg_decode_map *map, itg_stats *stats,
                               itg_series *series, itg_decode_status *st,
                               size_t size) {
  decoder *x;
  int first_err = 0, rc = 0;
  if (paths == NULL || n == 0 || (map != NULL && map->fn == NULL) ||
      (st != NULL && !itg__struct_size_ok(size, sizeof *st)))
    return ITG_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL)
      return ITG_EINVAL;
  x = calloc(1, sizeof *x);
  if (x == NULL)
    return ITG_ENOMEM;
  if (cfg != NULL)
    rc = ITG__CFG_IN(&x->cfg, cfg, itg_ditg_cfg, NULL, 0);
  else
    itg_ditg_cfg_init(&x->cfg);
  if (rc == 0 && x->cfg.day_ns != ITG_DITG_DAY_MTIME &&
      (x->cfg.day_ns < 0 || x->cfg.day_ns > ITG_DITG_DAY_MAX ||
       x->cfg.day_ns % ITG__DAY_NS != 0))
    rc = ITG_EINVAL;
  if (rc != 0) {
    free(x);
    return rc;
  }
  x->map = map;
  x->stats = stats;
  x->series = series;
  itg__idmap_init(&x->flows.heads);
  itg__idmap_init(&x->flows.taken);
  if (st != NULL)
    memset(st, 0, n * size);
  for (size_t i = 0; i < n; i++) {
    itg_decode_status one;
    int fatal = 0;
    memset(&one, 0, sizeof one);
    rc = decode_one(x, paths[i], i, &one, &fatal);
    if (st != NULL)
      itg__struct_out((char *)st + i * size, size, &one, sizeof one);
    if (fatal) {
      first_err = rc;
      break;
    }
    if (rc != 0 && first_err == 0)
      first_err = rc;
  }
  flowmap_free(&x->flows);
  free(x);
  return first_err;
}
