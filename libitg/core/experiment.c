/* Experiment files: flow lines with '@' placements, and their placement
 * on a job's ranks (the format and the rule are in itg/experiment.h). */
#include "itg/experiment.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"

/* One end of a flow as its line places it. */
typedef struct itg__where {
  itg_experiment_where kind;
  int rank;                /* RANK */
  char host[ITG_HOST_MAX]; /* HOST, or ADDRESS */
} itg__where;

typedef struct itg__exp_flow {
  itg_flow_cfg cfg;
  unsigned line;
  itg__where sender, receiver;
  double rate; /* pkt/s */
  char *text;  /* the options, placement and comment left out */
} itg__exp_flow;

struct itg_experiment {
  itg__exp_flow *v;
  size_t n, cap;
};

/* Writes "line N: " and the message into err (nothing when err is NULL or
 * errlen 0). */
static void itg__exp_err(char *err, size_t errlen, unsigned line,
                         const char *fmt, ...) {
  va_list ap;
  int k;
  if (err == NULL || errlen == 0)
    return;
  k = line > 0 ? snprintf(err, errlen, "line %u: ", line) : 0;
  if (k < 0 || (size_t)k >= errlen)
    return;
  va_start(ap, fmt);
  vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
  va_end(ap);
}

/* Reads an '@' word (w[0] == '@', len bytes) into *out: '@' and digits is
 * a rank, anything else a host name. */
static int itg__where_parse(const char *w, size_t len, itg__where *out,
                            unsigned line, char *err, size_t errlen) {
  size_t k;
  unsigned long rank = 0;
  if (len < 2) {
    itg__exp_err(err, errlen, line, "'@' names no rank or host");
    return ITG_EINVAL;
  }
  if (memchr(w, '"', len) != NULL) {
    itg__exp_err(err, errlen, line, "%.*s: a placement holds no quotes",
                 (int)len, w);
    return ITG_EINVAL;
  }
  if (len >= ITG_HOST_MAX) {
    itg__exp_err(err, errlen, line, "placement longer than %d bytes",
                 ITG_HOST_MAX - 1);
    return ITG_EINVAL;
  }
  for (k = 1; k < len && isdigit((unsigned char)w[k]); k++)
    if (rank < ITG_EXPERIMENT_RANKS_MAX)
      rank = rank * 10 + (unsigned long)(w[k] - '0');
  memset(out, 0, sizeof *out);
  if (k < len) {
    out->kind = ITG_EXPERIMENT_HOST;
    out->rank = -1;
    memcpy(out->host, w + 1, len - 1);
    return 0;
  }
  if (rank >= ITG_EXPERIMENT_RANKS_MAX) {
    itg__exp_err(err, errlen, line, "%.*s: no job has that rank (at most %d)",
                 (int)len, w, ITG_EXPERIMENT_RANKS_MAX);
    return ITG_EINVAL;
  }
  out->kind = ITG_EXPERIMENT_RANK;
  out->rank = (int)rank;
  return 0;
}

/* The median of an IDT law without a mean, in the spec's unit: Pareto's
 * scale * 2^(1/shape); Cauchy's on the draws >= 0 the sender keeps, the x
 * with F(x) = (1 + F(0)) / 2, which comes to hypot(loc, scale); Student's,
 * its location (the share of draws below 0 left aside). */
static double itg__idt_median(const itg_dist_spec *s) {
  if (s->kind == ITG_DIST_PARETO)
    return s->p[1] * pow(2.0, 1.0 / s->p[0]);
  if (s->kind == ITG_DIST_CAUCHY)
    return hypot(s->p[0], s->p[1]);
  if (s->kind == ITG_DIST_STUDENT)
    return s->p[0];
  return NAN;
}

/* The mean of a law in seconds, NaN where it has none or cannot be made. */
static double itg__spec_mean(const itg_dist_spec *s) {
  itg_dist *d;
  double mean;
  if (itg_dist_spec_make(s, 0, &d) != 0)
    return NAN;
  mean = itg_dist_mean(d) * s->scale;
  itg_dist_free(d);
  return mean;
}

/* The flow's weight, its mean rate in pkt/s (see itg/experiment.h). */
static int itg__flow_rate(const itg_flow_cfg *cfg, double *rate) {
  itg_dist *d;
  double mean;
  int rc = itg_dist_spec_make(&cfg->idt, 0, &d);
  if (rc != 0)
    return rc;
  mean = itg_dist_mean(d);
  itg_dist_free(d);
  if (!isfinite(mean))
    mean = itg__idt_median(&cfg->idt);
  mean *= cfg->idt.scale;
  *rate = isfinite(mean) && mean > 0 ? 1.0 / mean : 0.0;
  if (cfg->onoff) {
    /* On a share on / (on + off) of the time. */
    double on = itg__spec_mean(&cfg->on), off = itg__spec_mean(&cfg->off);
    if (isfinite(on) && isfinite(off) && on + off > 0)
      *rate *= on / (on + off);
  }
  return 0;
}

static itg__exp_flow *itg__exp_add(itg_experiment *e) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 16;
    itg__exp_flow *nv;
    if (cap > ITG_EXPERIMENT_FLOWS_MAX)
      cap = ITG_EXPERIMENT_FLOWS_MAX;
    nv = realloc(e->v, cap * sizeof *nv);
    if (nv == NULL)
      return NULL;
    e->v = nv;
    e->cap = cap;
  }
  return &e->v[e->n];
}

/* Copies the words of p up to its comment: a '#' outside double quotes,
 * where itg_flow_parse_line stops. Returns the copy, or NULL. */
static char *itg__exp_text(const char *p) {
  size_t n = 0;
  int quoted = 0;
  char *t;
  while (isspace((unsigned char)*p))
    p++;
  for (; p[n] != '\0' && (quoted || p[n] != '#'); n++)
    quoted ^= p[n] == '"';
  while (n > 0 && isspace((unsigned char)p[n - 1]))
    n--;
  t = malloc(n + 1);
  if (t != NULL) {
    memcpy(t, p, n);
    t[n] = '\0';
  }
  return t;
}

/* Parses one line (terminated, no NUL inside, no end of line) into the
 * next flow of e, or nothing for a blank or comment line. */
static int itg__exp_line(itg_experiment *e, const char *text, unsigned line,
                         char *err, size_t errlen) {
  char msg[256];
  const char *p = text;
  itg__exp_flow *f;
  itg__where sender = {ITG_EXPERIMENT_ANY, -1, ""};
  int rc;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '@') {
    const char *w = p;
    while (*p != '\0' && !isspace((unsigned char)*p) && *p != '#')
      p++;
    rc = itg__where_parse(w, (size_t)(p - w), &sender, line, err, errlen);
    if (rc != 0)
      return rc;
  }
  if (e->n == ITG_EXPERIMENT_FLOWS_MAX) {
    itg__exp_err(err, errlen, line, "more than %d flows",
                 ITG_EXPERIMENT_FLOWS_MAX);
    return ITG_EINVAL;
  }
  f = itg__exp_add(e);
  if (f == NULL) {
    itg__exp_err(err, errlen, line, "out of memory");
    return ITG_ENOMEM;
  }
  itg_flow_cfg_init(&f->cfg);
  /* Emptied so that a line without -a is seen: the flow's default
   * receiver, this machine's loopback, means nothing in a job. */
  f->cfg.dst_host[0] = '\0';
  msg[0] = '\0';
  rc = itg_flow_parse_line(&f->cfg, p, msg, sizeof msg);
  if (rc == 0 && sender.kind != ITG_EXPERIMENT_ANY) {
    itg__exp_err(err, errlen, line, "a placement without a flow");
    return ITG_EINVAL;
  }
  if (rc == 0)
    return 0;
  if (rc > 0 && f->cfg.dst_host[0] == '\0') {
    itg__exp_err(err, errlen, line,
                 "no receiver: give -a @RANK, -a @HOST or an address");
    return ITG_EINVAL;
  }
  if (rc > 0)
    rc = itg_flow_validate(&f->cfg, msg, sizeof msg);
  if (rc < 0) {
    itg__exp_err(err, errlen, line, "%s", msg[0] ? msg : itg_strerror(rc));
    return rc;
  }
  if (f->cfg.dst_host[0] == '@') {
    rc = itg__where_parse(f->cfg.dst_host, strlen(f->cfg.dst_host),
                          &f->receiver, line, err, errlen);
    if (rc != 0)
      return rc;
  } else {
    f->receiver.kind = ITG_EXPERIMENT_ADDRESS;
    f->receiver.rank = -1;
    memcpy(f->receiver.host, f->cfg.dst_host, sizeof f->receiver.host);
  }
  rc = itg__flow_rate(&f->cfg, &f->rate);
  if (rc != 0) {
    itg__exp_err(err, errlen, line, "IDT law: %s", itg_strerror(rc));
    return rc;
  }
  f->text = itg__exp_text(p);
  if (f->text == NULL) {
    itg__exp_err(err, errlen, line, "out of memory");
    return ITG_ENOMEM;
  }
  f->sender = sender;
  f->line = line;
  e->n++;
  return 0;
}

int itg_experiment_parse(const char *text, size_t len, itg_experiment **out,
                         char *err, size_t errlen) {
  itg_experiment *e;
  char *buf;
  size_t off = 0;
  unsigned line = 0;
  int rc = 0;
  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if (out != NULL)
    *out = NULL;
  if (out == NULL || (text == NULL && len > 0)) {
    itg__exp_err(err, errlen, 0, "invalid arguments");
    return ITG_EINVAL;
  }
  e = calloc(1, sizeof *e);
  buf = malloc(ITG_EXPERIMENT_LINE_MAX + 1);
  if (e == NULL || buf == NULL) {
    itg__exp_err(err, errlen, 0, "out of memory");
    rc = ITG_ENOMEM;
    goto out_free;
  }
  while (off < len && rc == 0) {
    const char *nl = memchr(text + off, '\n', len - off);
    size_t n = nl != NULL ? (size_t)(nl - (text + off)) : len - off;
    line++;
    if (n > 0 && text[off + n - 1] == '\r')
      n--;
    if (n > ITG_EXPERIMENT_LINE_MAX) {
      itg__exp_err(err, errlen, line, "longer than %d bytes",
                   ITG_EXPERIMENT_LINE_MAX);
      rc = ITG_EINVAL;
    } else if (memchr(text + off, '\0', n) != NULL) {
      itg__exp_err(err, errlen, line, "holds a NUL byte");
      rc = ITG_EINVAL;
    } else {
      memcpy(buf, text + off, n);
      buf[n] = '\0';
      rc = itg__exp_line(e, buf, line, err, errlen);
    }
    off = nl != NULL ? (size_t)(nl - text) + 1 : len;
  }
  if (rc == 0 && e->n == 0) {
    itg__exp_err(err, errlen, 0, "no flow in the experiment");
    rc = ITG_EINVAL;
  }
  if (rc == 0) {
    free(buf);
    *out = e;
    return 0;
  }
out_free:
  free(buf);
  itg_experiment_free(e);
  return rc;
}

int itg_experiment_read(const char *path, itg_experiment **out, char *err,
                        size_t errlen) {
  char *text, *grown;
  size_t len = 0, cap = 64 * 1024;
  FILE *f;
  int rc;
  if (out != NULL)
    *out = NULL;
  if (path == NULL || out == NULL) {
    itg__exp_err(err, errlen, 0, "invalid arguments");
    return ITG_EINVAL;
  }
  /* Binary mode: CR is trimmed by the parser, the same on every OS. */
  f = fopen(path, "rb");
  if (f == NULL) {
    rc = errno == ENOENT ? ITG_ENOENT : ITG_EIO;
    itg__exp_err(err, errlen, 0, "%s: %s", path, itg_strerror(rc));
    return rc;
  }
  text = malloc(cap);
  if (text == NULL)
    goto out_nomem;
  for (;;) {
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (len > ITG_EXPERIMENT_FILE_MAX) {
      itg__exp_err(err, errlen, 0, "%s: larger than %d bytes", path,
                   ITG_EXPERIMENT_FILE_MAX);
      rc = ITG_EINVAL;
      goto out_free_text;
    }
    if (got == 0)
      break;
    if (len == cap) {
      /* One byte past the limit is enough to see a file above it. */
      cap = cap * 2 > ITG_EXPERIMENT_FILE_MAX ? ITG_EXPERIMENT_FILE_MAX + 1
                                              : cap * 2;
      grown = realloc(text, cap);
      if (grown == NULL)
        goto out_nomem;
      text = grown;
    }
  }
  if (ferror(f)) {
    itg__exp_err(err, errlen, 0, "%s: %s", path, itg_strerror(ITG_EIO));
    rc = ITG_EIO;
    goto out_free_text;
  }
  rc = itg_experiment_parse(text, len, out, err, errlen);
out_free_text:
  free(text);
  fclose(f);
  return rc;
out_nomem:
  itg__exp_err(err, errlen, 0, "out of memory");
  rc = ITG_ENOMEM;
  goto out_free_text;
}

void itg_experiment_free(itg_experiment *e) {
  if (e == NULL)
    return;
  for (size_t i = 0; i < e->n; i++)
    free(e->v[i].text);
  free(e->v);
  free(e);
}

size_t itg_experiment_count(const itg_experiment *e) {
  return e != NULL ? e->n : 0;
}

int itg_experiment_flow_cfg_size(const itg_experiment *e, size_t i,
                                 itg_flow_cfg *out, size_t size) {
  if (e == NULL || i >= e->n)
    return ITG_EINVAL;
  return itg__struct_out(out, size, &e->v[i].cfg, sizeof e->v[i].cfg);
}

const char *itg_experiment_flow_text(const itg_experiment *e, size_t i) {
  return e != NULL && i < e->n ? e->v[i].text : NULL;
}

static void itg__where_out(const itg__where *w, itg_experiment_where *kind,
                           int *rank, char host[ITG_HOST_MAX]) {
  *kind = w->kind;
  *rank = w->kind == ITG_EXPERIMENT_RANK ? w->rank : -1;
  memcpy(host, w->host, ITG_HOST_MAX);
}

int itg_experiment_flow_at_size(const itg_experiment *e, size_t i,
                                 itg_experiment_flow *out, size_t size) {
  itg_experiment_flow full;
  const itg__exp_flow *f;
  if (e == NULL || i >= e->n)
    return ITG_EINVAL;
  f = &e->v[i];
  memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  full.line = f->line;
  itg__where_out(&f->sender, &full.sender, &full.sender_rank,
                 full.sender_host);
  itg__where_out(&f->receiver, &full.receiver, &full.receiver_rank,
                 full.receiver_host);
  full.rate = f->rate;
  return itg__struct_out(out, size, &full, sizeof full);
}

int itg_experiment_job_init_size(itg_experiment_job *job, size_t size) {
  itg_experiment_job full;
  if (job == NULL || !itg__struct_size_ok(size, sizeof full))
    return ITG_EINVAL;
  memset(&full, 0, sizeof full);
  memcpy(job, &full, size);
  job->struct_size = size;
  return 0;
}

/* The rank a placement names on the job, or -1 after a message. */
static int itg__where_rank(const itg__where *w, const itg_experiment_job *job,
                           unsigned line, char *err, size_t errlen) {
  int r;
  if (w->kind == ITG_EXPERIMENT_RANK) {
    if (w->rank < job->nranks)
      return w->rank;
    itg__exp_err(err, errlen, line, "@%d: no such rank (the job has %d)",
                 w->rank, job->nranks);
    return -1;
  }
  if (job->hosts == NULL) {
    itg__exp_err(err, errlen, line, "@%s: the job names no hosts", w->host);
    return -1;
  }
  for (r = 0; r < job->nranks; r++)
    if (strcmp(job->hosts[r], w->host) == 0)
      return r;
  itg__exp_err(err, errlen, line, "@%s: no rank of the job runs on that host",
               w->host);
  return -1;
}

/* A flow to place: heavier first, then in line order. */
typedef struct itg__weighed {
  double rate;
  size_t i;
} itg__weighed;

static int itg__by_weight(const void *a, const void *b) {
  const itg__weighed *x = a, *y = b;
  if (x->rate != y->rate)
    return x->rate > y->rate ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The least-loaded sender rank (the lowest of equals), avoiding `avoid`
 * when another sender rank exists. Sender ranks: all but rank 0, unless
 * the job is rank 0 alone. */
static int itg__least_loaded(const double *load, int nranks, int avoid) {
  int first = nranks > 1 ? 1 : 0;
  int best = -1, r;
  for (r = first; r < nranks; r++) {
    if (r == avoid && nranks - first > 1)
      continue;
    if (best < 0 || load[r] < load[best])
      best = r;
  }
  return best;
}

int itg_experiment_place(const itg_experiment *e,
                         const itg_experiment_job *job_in, int *senders,
                         int *receivers, size_t n, char *err, size_t errlen) {
  itg_experiment_job job;
  int *snd, *rcv;
  double *load;
  itg__weighed *order;
  size_t i, k = 0;
  int r, rc = 0;
  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if (e == NULL || senders == NULL || receivers == NULL) {
    itg__exp_err(err, errlen, 0, "invalid arguments");
    return ITG_EINVAL;
  }
  rc = ITG__CFG_IN(&job, job_in, itg_experiment_job, err, errlen);
  if (rc != 0)
    return rc;
  if (n != e->n) {
    itg__exp_err(err, errlen, 0, "room for %zu flows, the experiment has %zu",
                 n, e->n);
    return ITG_EINVAL;
  }
  if (job.nranks < 1 || job.nranks > ITG_EXPERIMENT_RANKS_MAX) {
    itg__exp_err(err, errlen, 0, "a job has 1 to %d ranks, not %d",
                 ITG_EXPERIMENT_RANKS_MAX, job.nranks);
    return ITG_EINVAL;
  }
  if (job.hosts != NULL)
    for (r = 0; r < job.nranks; r++)
      if (job.hosts[r] == NULL) {
        itg__exp_err(err, errlen, 0, "rank %d has no host name", r);
        return ITG_EINVAL;
      }
  snd = malloc(n * sizeof *snd);
  rcv = malloc(n * sizeof *rcv);
  order = malloc(n * sizeof *order);
  load = calloc((size_t)job.nranks, sizeof *load);
  if (snd == NULL || rcv == NULL || order == NULL || load == NULL) {
    itg__exp_err(err, errlen, 0, "out of memory");
    rc = ITG_ENOMEM;
    goto out_free;
  }
  for (i = 0; i < n; i++) {
    const itg__exp_flow *f = &e->v[i];
    rcv[i] = -1;
    snd[i] = -1;
    if (f->receiver.kind != ITG_EXPERIMENT_ADDRESS) {
      rcv[i] = itg__where_rank(&f->receiver, &job, f->line, err, errlen);
      if (rcv[i] < 0)
        break;
    }
    if (f->sender.kind == ITG_EXPERIMENT_ANY) {
      order[k].rate = f->rate;
      order[k++].i = i;
      continue;
    }
    snd[i] = itg__where_rank(&f->sender, &job, f->line, err, errlen);
    if (snd[i] < 0)
      break;
    load[snd[i]] += f->rate;
  }
  if (i < n) {
    rc = ITG_EINVAL;
    goto out_free;
  }
  qsort(order, k, sizeof *order, itg__by_weight);
  for (i = 0; i < k; i++) {
    size_t j = order[i].i;
    snd[j] = itg__least_loaded(load, job.nranks, rcv[j]);
    load[snd[j]] += e->v[j].rate;
  }
  memcpy(senders, snd, n * sizeof *snd);
  memcpy(receivers, rcv, n * sizeof *rcv);
out_free:
  free(load);
  free(order);
  free(rcv);
  free(snd);
  return rc;
}
