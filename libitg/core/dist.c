/* Random laws for IDTs and packet sizes, and trace files (itg/dist.h). */
#include "itg/dist.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/gsl_guard.h"
#include "itg/parse.h"

/* GSL draws Poisson numbers as unsigned int (32 bits): a mean up to 4e9
 * keeps every step of its sampler, and any draw within thousands of
 * standard deviations, below 2^32. */
#define ITG__POISSON_MAX_MEAN 4e9
/* How many draws itg_dist_next_in tries before clamping. */
#define ITG__NEXT_IN_TRIES 64
/* Bytes read from a trace file at a time. */
#define ITG__READ_CHUNK 65536

struct itg_dist {
  itg_dist_kind kind;
  double p[ITG_DIST_MAX_PARAMS];
  gsl_rng *rng;   /* NULL for CONSTANT and EMPIRICAL */
  double *values; /* EMPIRICAL: the trace, its length and the next index */
  size_t nvalues;
  size_t next;
  double trace_mean;
};

static const struct {
  const char *name;
  int nparams;
} itg__laws[] = {
    [ITG_DIST_CONSTANT] = {"constant", 1},
    [ITG_DIST_UNIFORM] = {"uniform", 2},
    [ITG_DIST_EXPONENTIAL] = {"exponential", 1},
    [ITG_DIST_POISSON] = {"poisson", 1},
    [ITG_DIST_NORMAL] = {"normal", 2},
    [ITG_DIST_PARETO] = {"pareto", 2},
    [ITG_DIST_CAUCHY] = {"cauchy", 2},
    [ITG_DIST_GAMMA] = {"gamma", 2},
    [ITG_DIST_WEIBULL] = {"weibull", 2},
    [ITG_DIST_LOGNORMAL] = {"lognormal", 2},
    [ITG_DIST_EMPIRICAL] = {"empirical", 0},
    [ITG_DIST_STUDENT] = {"student", 3},
    [ITG_DIST_TELNET] = {"telnet", 0},
    [ITG_DIST_QUAKE3] = {"quake3", 0},
    [ITG_DIST_CS_ACTIVE] = {"cs-active", 0},
    [ITG_DIST_CS_IDLE] = {"cs-idle", 0},
};

/* D-ITG 2.8.1's application models (its traffic.cpp), as dist.h lists
 * them: a table of whole values and their probabilities, or two
 * components drawn with probability `weight` and 1 - weight. */
typedef struct itg__table {
  size_t n;
  double v[15];
  double p[15];
} itg__table;

static const itg__table itg__telnet = {
    15,
    {21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35},
    {0.65, 0.13, 0.07, 0.05, 0.03, 0.01, 0.01, 0.01, 0.01, 0.005, 0.005,
     0.005, 0.005, 0.005, 0.005}};
static const itg__table itg__cs_idle = {
    8,
    {27, 28, 29, 30, 31, 32, 33, 35},
    {0.8312, 0.0018, 0.0453, 0.0195, 0.0879, 0.0024, 0.0106, 0.0013}};
#define ITG__QUAKE3_WEIGHT 0.6 /* exponential, else constant */
#define ITG__QUAKE3_MEAN 4.29
#define ITG__QUAKE3_CONST 10.75
#define ITG__CSA_WEIGHT 0.3732 /* the first normal, else the second */
#define ITG__CSA_MEAN1 34.8352
#define ITG__CSA_STD1 4.3915
#define ITG__CSA_MEAN2 49.4904
#define ITG__CSA_STD2 3.6186

#define ITG__NLAWS (sizeof itg__laws / sizeof itg__laws[0])

static int itg__kind_known(itg_dist_kind kind) {
  return (unsigned)kind < ITG__NLAWS;
}

const char *itg_dist_kind_name(itg_dist_kind kind) {
  return itg__kind_known(kind) ? itg__laws[kind].name : NULL;
}

int itg_dist_kind_nparams(itg_dist_kind kind) {
  return itg__kind_known(kind) ? itg__laws[kind].nparams : -1;
}

/* Whether finite parameters p lie in the domain of a parametric law (the
 * table in dist.h). */
static int itg__params_valid(itg_dist_kind kind, const double *p) {
  switch (kind) {
  case ITG_DIST_CONSTANT:
    return p[0] >= 0;
  case ITG_DIST_UNIFORM:
    return p[0] <= p[1];
  case ITG_DIST_EXPONENTIAL:
    return p[0] > 0;
  case ITG_DIST_POISSON:
    return p[0] > 0 && p[0] <= ITG__POISSON_MAX_MEAN;
  case ITG_DIST_NORMAL:
    return p[1] >= 0;
  case ITG_DIST_CAUCHY:
  case ITG_DIST_LOGNORMAL:
    return p[1] > 0;
  case ITG_DIST_PARETO:
  case ITG_DIST_GAMMA:
  case ITG_DIST_WEIBULL:
    return p[0] > 0 && p[1] > 0;
  case ITG_DIST_STUDENT:
    return p[1] > 0 && p[2] > 0;
  case ITG_DIST_TELNET:
  case ITG_DIST_QUAKE3:
  case ITG_DIST_CS_ACTIVE:
  case ITG_DIST_CS_IDLE:
    return 1;
  case ITG_DIST_EMPIRICAL:
    break;
  }
  return 0;
}

/* Reduces a 64-bit seed to a non-zero 32-bit MT19937 seed (formula and
 * reasons in dist.h); the arithmetic is on uint32_t/uint64_t only, so it is
 * the same wherever unsigned long is 32 bits. */
static uint32_t itg__mt_seed(uint64_t seed) {
  uint32_t lo = (uint32_t)seed;
  uint32_t hi = (uint32_t)(seed >> 32);
  uint32_t s32 = lo ^ (uint32_t)(hi * UINT32_C(0x9E3779B9));
  return s32 % UINT32_C(0xFFFFFFFF) + 1;
}

int itg_dist_new(itg_dist_kind kind, const double *params, size_t nparams,
                 uint64_t seed, itg_dist **out) {
  itg_dist *d;
  size_t i;
  if (out == NULL || !itg__kind_known(kind) || kind == ITG_DIST_EMPIRICAL)
    return ITG_EINVAL;
  if (nparams != (size_t)itg__laws[kind].nparams ||
      (params == NULL && nparams > 0))
    return ITG_EINVAL;
  for (i = 0; i < nparams; i++)
    if (!isfinite(params[i]))
      return ITG_EINVAL;
  if (!itg__params_valid(kind, params))
    return ITG_EINVAL;
  d = calloc(1, sizeof *d);
  if (d == NULL)
    return ITG_ENOMEM;
  d->kind = kind;
  if (nparams > 0)
    memcpy(d->p, params, nparams * sizeof *params);
  if (kind != ITG_DIST_CONSTANT) {
    itg__gsl_init();
    d->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (d->rng == NULL)
      goto out_free_dist;
    gsl_rng_set(d->rng, itg__mt_seed(seed));
  }
  *out = d;
  return 0;

out_free_dist:
  free(d);
  return ITG_ENOMEM;
}

/* The mean of n finite values; summing values / n instead when the plain
 * sum overflows. */
static double itg__values_mean(const double *v, size_t n) {
  double sum = 0;
  size_t i;
  for (i = 0; i < n; i++)
    sum += v[i];
  if (isfinite(sum))
    return sum / (double)n;
  sum = 0;
  for (i = 0; i < n; i++)
    sum += v[i] / (double)n;
  return sum;
}

int itg_dist_new_empirical(const double *values, size_t n, itg_dist **out) {
  itg_dist *d;
  size_t i;
  if (out == NULL || values == NULL || n == 0 || n > SIZE_MAX / sizeof *values)
    return ITG_EINVAL;
  for (i = 0; i < n; i++)
    if (!isfinite(values[i]))
      return ITG_EINVAL;
  d = calloc(1, sizeof *d);
  if (d == NULL)
    return ITG_ENOMEM;
  d->values = malloc(n * sizeof *values);
  if (d->values == NULL)
    goto out_free_dist;
  memcpy(d->values, values, n * sizeof *values);
  d->kind = ITG_DIST_EMPIRICAL;
  d->nvalues = n;
  d->trace_mean = itg__values_mean(values, n);
  *out = d;
  return 0;

out_free_dist:
  free(d);
  return ITG_ENOMEM;
}

/* A draw of a table: one uniform number walks the cumulated
 * probabilities (the last value takes what rounding leaves). */
static double itg__table_draw(itg_dist *d, const itg__table *t) {
  double u = gsl_rng_uniform(d->rng), acc = 0;
  size_t i;
  for (i = 0; i + 1 < t->n; i++) {
    acc += t->p[i];
    if (u < acc)
      break;
  }
  return t->v[i];
}

static double itg__table_mean(const itg__table *t) {
  double m = 0;
  size_t i;
  for (i = 0; i < t->n; i++)
    m += t->v[i] * t->p[i];
  return m;
}

/* The share of a table's values below x. */
static double itg__table_below(const itg__table *t, double x) {
  double share = 0;
  size_t i;
  for (i = 0; i < t->n; i++)
    if (t->v[i] < x)
      share += t->p[i];
  return fmin(share, 1.0);
}

/* One draw of the law, before saturation. */
static double itg__draw(itg_dist *d) {
  const double *p = d->p;
  double x;
  switch (d->kind) {
  case ITG_DIST_CONSTANT:
    return p[0];
  case ITG_DIST_UNIFORM:
    /* min(1-u) + max u can round one ulp past a bound. */
    x = gsl_ran_flat(d->rng, p[0], p[1]);
    return x < p[0] ? p[0] : x > p[1] ? p[1] : x;
  case ITG_DIST_EXPONENTIAL:
    return gsl_ran_exponential(d->rng, p[0]);
  case ITG_DIST_POISSON:
    return (double)gsl_ran_poisson(d->rng, p[0]);
  case ITG_DIST_NORMAL:
    return p[0] + gsl_ran_gaussian_ziggurat(d->rng, p[1]);
  case ITG_DIST_PARETO:
    return gsl_ran_pareto(d->rng, p[0], p[1]);
  case ITG_DIST_CAUCHY:
    return p[0] + gsl_ran_cauchy(d->rng, p[1]);
  case ITG_DIST_GAMMA:
    return gsl_ran_gamma(d->rng, p[0], p[1]);
  case ITG_DIST_WEIBULL:
    /* GSL takes the scale first, then the shape. */
    return gsl_ran_weibull(d->rng, p[1], p[0]);
  case ITG_DIST_LOGNORMAL:
    return gsl_ran_lognormal(d->rng, p[0], p[1]);
  case ITG_DIST_STUDENT:
    return p[0] + p[1] * gsl_ran_tdist(d->rng, p[2]);
  case ITG_DIST_TELNET:
    return itg__table_draw(d, &itg__telnet);
  case ITG_DIST_CS_IDLE:
    return itg__table_draw(d, &itg__cs_idle);
  case ITG_DIST_QUAKE3:
    return gsl_rng_uniform(d->rng) < ITG__QUAKE3_WEIGHT
               ? gsl_ran_exponential(d->rng, ITG__QUAKE3_MEAN)
               : ITG__QUAKE3_CONST;
  case ITG_DIST_CS_ACTIVE:
    return gsl_rng_uniform(d->rng) < ITG__CSA_WEIGHT
               ? ITG__CSA_MEAN1 +
                     gsl_ran_gaussian_ziggurat(d->rng, ITG__CSA_STD1)
               : ITG__CSA_MEAN2 +
                     gsl_ran_gaussian_ziggurat(d->rng, ITG__CSA_STD2);
  case ITG_DIST_EMPIRICAL:
    x = d->values[d->next];
    d->next = d->next + 1 == d->nvalues ? 0 : d->next + 1;
    return x;
  }
  return NAN;
}

double itg_dist_next(itg_dist *d) {
  double x = itg__draw(d);
  if (isinf(x))
    x = copysign(DBL_MAX, x);
  return x;
}

double itg_dist_next_in(itg_dist *d, double lo, double hi) {
  double x = NAN;
  int i;
  if (!(lo <= hi))
    return NAN;
  for (i = 0; i < ITG__NEXT_IN_TRIES; i++) {
    x = itg_dist_next(d);
    if (x >= lo && x <= hi)
      return x;
  }
  return x < lo ? lo : hi;
}

double itg_dist_mean(const itg_dist *d) {
  const double *p = d->p;
  switch (d->kind) {
  case ITG_DIST_CONSTANT:
  case ITG_DIST_EXPONENTIAL:
  case ITG_DIST_POISSON:
  case ITG_DIST_NORMAL:
    return p[0];
  case ITG_DIST_UNIFORM:
    return 0.5 * p[0] + 0.5 * p[1];
  case ITG_DIST_PARETO:
    return p[0] > 1 ? p[0] * p[1] / (p[0] - 1) : NAN;
  case ITG_DIST_CAUCHY:
    return NAN;
  case ITG_DIST_GAMMA:
    return p[0] * p[1];
  case ITG_DIST_WEIBULL:
    return p[1] * tgamma(1 + 1 / p[0]);
  case ITG_DIST_LOGNORMAL:
    return exp(p[0] + 0.5 * p[1] * p[1]);
  case ITG_DIST_STUDENT:
    return p[2] > 1 ? p[0] : NAN;
  case ITG_DIST_TELNET:
    return itg__table_mean(&itg__telnet);
  case ITG_DIST_CS_IDLE:
    return itg__table_mean(&itg__cs_idle);
  case ITG_DIST_QUAKE3:
    return ITG__QUAKE3_WEIGHT * ITG__QUAKE3_MEAN +
           (1 - ITG__QUAKE3_WEIGHT) * ITG__QUAKE3_CONST;
  case ITG_DIST_CS_ACTIVE:
    return ITG__CSA_WEIGHT * ITG__CSA_MEAN1 +
           (1 - ITG__CSA_WEIGHT) * ITG__CSA_MEAN2;
  case ITG_DIST_EMPIRICAL:
    return d->trace_mean;
  }
  return NAN;
}

double itg_dist_below(const itg_dist *d, double x) {
  const double *p = d->p;
  double share = 0;
  size_t i;
  if (isnan(x))
    return NAN;
  switch (d->kind) {
  case ITG_DIST_CONSTANT:
    return p[0] < x ? 1 : 0;
  case ITG_DIST_UNIFORM:
    if (p[0] == p[1])
      return p[0] < x ? 1 : 0;
    return x <= p[0] ? 0 : x >= p[1] ? 1 : gsl_cdf_flat_P(x, p[0], p[1]);
  case ITG_DIST_EXPONENTIAL:
    return x <= 0 ? 0 : gsl_cdf_exponential_P(x, p[0]);
  case ITG_DIST_POISSON:
    /* Whole numbers: below x is at most ceil(x) - 1. */
    return x <= 0 ? 0
                  : ceil(x) - 1 >= 4294967295.0
                        ? 1
                        : gsl_cdf_poisson_P((unsigned)(ceil(x) - 1), p[0]);
  case ITG_DIST_NORMAL:
    if (p[1] == 0)
      return p[0] < x ? 1 : 0;
    return gsl_cdf_ugaussian_P((x - p[0]) / p[1]);
  case ITG_DIST_PARETO:
    return x <= p[1] ? 0 : gsl_cdf_pareto_P(x, p[0], p[1]);
  case ITG_DIST_CAUCHY:
    return gsl_cdf_cauchy_P(x - p[0], p[1]);
  case ITG_DIST_GAMMA:
    return x <= 0 ? 0 : gsl_cdf_gamma_P(x, p[0], p[1]);
  case ITG_DIST_WEIBULL:
    return x <= 0 ? 0 : gsl_cdf_weibull_P(x, p[1], p[0]);
  case ITG_DIST_LOGNORMAL:
    return x <= 0 ? 0 : gsl_cdf_lognormal_P(x, p[0], p[1]);
  case ITG_DIST_STUDENT:
    return gsl_cdf_tdist_P((x - p[0]) / p[1], p[2]);
  case ITG_DIST_TELNET:
    return itg__table_below(&itg__telnet, x);
  case ITG_DIST_CS_IDLE:
    return itg__table_below(&itg__cs_idle, x);
  case ITG_DIST_QUAKE3:
    return (x <= 0 ? 0
                   : ITG__QUAKE3_WEIGHT *
                         gsl_cdf_exponential_P(x, ITG__QUAKE3_MEAN)) +
           (ITG__QUAKE3_CONST < x ? 1 - ITG__QUAKE3_WEIGHT : 0);
  case ITG_DIST_CS_ACTIVE:
    return ITG__CSA_WEIGHT *
               gsl_cdf_ugaussian_P((x - ITG__CSA_MEAN1) / ITG__CSA_STD1) +
           (1 - ITG__CSA_WEIGHT) *
               gsl_cdf_ugaussian_P((x - ITG__CSA_MEAN2) / ITG__CSA_STD2);
  case ITG_DIST_EMPIRICAL:
    for (i = 0; i < d->nvalues; i++)
      if (d->values[i] < x)
        share += 1;
    return share / (double)d->nvalues;
  }
  return NAN;
}

itg_dist_kind itg_dist_get_kind(const itg_dist *d) { return d->kind; }

void itg_dist_free(itg_dist *d) {
  if (d == NULL)
    return;
  if (d->rng != NULL)
    gsl_rng_free(d->rng);
  free(d->values);
  free(d);
}

void itg_free(void *p) { free(p); }

/* ---- trace files --------------------------------------------------------- */

/* A growable array of bytes or of doubles. */
typedef struct itg__line {
  char *s;
  size_t len;
  size_t cap;
} itg__line;

typedef struct itg__trace {
  double *v;
  size_t len;
  size_t cap;
} itg__trace;

/* Appends n bytes to the line (l->len + n <= ITG_DIST_LINE_MAX), keeping
 * room for a terminating NUL. Returns 0 or ITG_ENOMEM. */
static int itg__line_append(itg__line *l, const char *bytes, size_t n) {
  if (l->len + n + 1 > l->cap) {
    size_t cap = l->cap ? l->cap : 128;
    char *s;
    while (cap < l->len + n + 1)
      cap *= 2;
    s = realloc(l->s, cap);
    if (s == NULL)
      return ITG_ENOMEM;
    l->s = s;
    l->cap = cap;
  }
  memcpy(l->s + l->len, bytes, n);
  l->len += n;
  return 0;
}

/* Appends one value. Returns 0, ITG_ELIMIT or ITG_ENOMEM. */
static int itg__trace_push(itg__trace *t, double x) {
  if (t->len == ITG_DIST_TRACE_MAX)
    return ITG_ELIMIT;
  if (t->len == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    double *v;
    if (cap > SIZE_MAX / sizeof *v)
      return ITG_ENOMEM;
    v = realloc(t->v, cap * sizeof *v);
    if (v == NULL)
      return ITG_ENOMEM;
    t->v = v;
    t->cap = cap;
  }
  t->v[t->len++] = x;
  return 0;
}

static int itg__is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Takes one complete line (without its '\n'): skips it if blank or a
 * comment, else appends its number to the trace. Returns 0, ITG_EBADMSG or
 * ITG_ENOMEM. */
static int itg__take_line(itg__line *l, itg__trace *t) {
  char *s = l->s;
  char *end;
  double x;
  if (l->len == 0)
    return 0;
  end = s + l->len;
  *end = '\0';
  while (s < end && itg__is_blank(*s))
    s++;
  while (end > s && itg__is_blank(end[-1]))
    *--end = '\0';
  if (s == end || *s == '#')
    return 0;
  if (itg_parse_double(s, &x) != 0)
    return ITG_EBADMSG;
  return itg__trace_push(t, x);
}

int itg_dist_read_file(const char *path, double **values, size_t *n,
                       size_t *bad_line) {
  itg__line line = {NULL, 0, 0};
  itg__trace trace = {NULL, 0, 0};
  size_t lineno = 0;
  size_t got;
  char *chunk;
  FILE *f;
  int rc = 0;
  if (bad_line != NULL)
    *bad_line = 0;
  if (path == NULL || values == NULL || n == NULL)
    return ITG_EINVAL;
  chunk = malloc(ITG__READ_CHUNK);
  if (chunk == NULL)
    return ITG_ENOMEM;
  /* Binary mode: CR is trimmed here, the same on every OS. */
  f = fopen(path, "rb");
  if (f == NULL) {
    rc = errno == ENOENT ? ITG_ENOENT : ITG_EIO;
    goto out_free_chunk;
  }
  while ((got = fread(chunk, 1, ITG__READ_CHUNK, f)) > 0) {
    size_t off = 0;
    while (off < got) {
      char *nl = memchr(chunk + off, '\n', got - off);
      size_t seg = nl != NULL ? (size_t)(nl - (chunk + off)) : got - off;
      /* Checked as the bytes come, not at the line's end: binary data
       * may have none. A NUL byte would hide the rest of the line from
       * the parser. */
      if (seg > ITG_DIST_LINE_MAX - line.len ||
          memchr(chunk + off, '\0', seg) != NULL) {
        lineno++;
        rc = ITG_EBADMSG;
        goto out_close_file;
      }
      rc = itg__line_append(&line, chunk + off, seg);
      if (rc != 0)
        goto out_close_file;
      off += seg;
      if (nl != NULL) {
        off++;
        lineno++;
        rc = itg__take_line(&line, &trace);
        if (rc != 0)
          goto out_close_file;
        line.len = 0;
      }
    }
  }
  if (ferror(f)) {
    rc = ITG_EIO;
    goto out_close_file;
  }
  if (line.len > 0) {
    lineno++;
    rc = itg__take_line(&line, &trace);
    if (rc != 0)
      goto out_close_file;
  }
  if (trace.len == 0) {
    rc = ITG_EINVAL;
    goto out_close_file;
  }
  *values = trace.v;
  *n = trace.len;
  trace.v = NULL;

out_close_file:
  fclose(f);
  if (rc == ITG_EBADMSG && bad_line != NULL)
    *bad_line = lineno;
out_free_chunk:
  free(chunk);
  free(line.s);
  free(trace.v);
  return rc;
}
