/* Flow settings: defaults, D-ITG-style options, checks and a description
 * (the option reference is in itg/flow.h). */
#include "itg/flow.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/flow_presets.h"
#include "core/growable.h"
#include "core/parse.h"

/* How a law option's numbers become the spec's parameters. */
typedef enum itg__unit {
  ITG__RATE,  /* pkt/s, turned into an IDT in seconds (us for Poisson) */
  ITG__MS,    /* milliseconds, kept as given with scale 1e-3 */
  ITG__BYTES, /* bytes, kept as given */
} itg__unit;

typedef struct itg__law_opt {
  const char *name;
  int idt; /* 1: sets the IDT law, 0: the size law */
  itg_dist_kind kind;
  int nargs;
  itg__unit unit;
} itg__law_opt;

static const itg__law_opt itg__law_opts[] = {
    {"-C", 1, ITG_DIST_CONSTANT, 1, ITG__RATE},
    {"-U", 1, ITG_DIST_UNIFORM, 2, ITG__RATE},
    {"-E", 1, ITG_DIST_EXPONENTIAL, 1, ITG__RATE},
    {"-O", 1, ITG_DIST_POISSON, 1, ITG__RATE},
    {"-N", 1, ITG_DIST_NORMAL, 2, ITG__MS},
    {"-V", 1, ITG_DIST_PARETO, 2, ITG__MS},
    {"-Y", 1, ITG_DIST_CAUCHY, 2, ITG__MS},
    {"-G", 1, ITG_DIST_GAMMA, 2, ITG__MS},
    {"-W", 1, ITG_DIST_WEIBULL, 2, ITG__MS},
    {"--idt-lognormal", 1, ITG_DIST_LOGNORMAL, 2, ITG__MS},
    {"-Ft", 1, ITG_DIST_EMPIRICAL, 1, ITG__MS},
    {"-c", 0, ITG_DIST_CONSTANT, 1, ITG__BYTES},
    {"-u", 0, ITG_DIST_UNIFORM, 2, ITG__BYTES},
    {"-e", 0, ITG_DIST_EXPONENTIAL, 1, ITG__BYTES},
    {"-o", 0, ITG_DIST_POISSON, 1, ITG__BYTES},
    {"-n", 0, ITG_DIST_NORMAL, 2, ITG__BYTES},
    {"-v", 0, ITG_DIST_PARETO, 2, ITG__BYTES},
    {"-y", 0, ITG_DIST_CAUCHY, 2, ITG__BYTES},
    {"-g", 0, ITG_DIST_GAMMA, 2, ITG__BYTES},
    {"-w", 0, ITG_DIST_WEIBULL, 2, ITG__BYTES},
    {"--size-lognormal", 0, ITG_DIST_LOGNORMAL, 2, ITG__BYTES},
    {"-Fs", 0, ITG_DIST_EMPIRICAL, 1, ITG__BYTES},
};

typedef enum itg__opt_id {
  ITG__OPT_DST,
  ITG__OPT_DST_PORT,
  ITG__OPT_SRC,
  ITG__OPT_SRC_PORT,
  ITG__OPT_SIG_PORT,
  ITG__OPT_PROTO,
  ITG__OPT_NODELAY,
  ITG__OPT_DURATION,
  ITG__OPT_PACKETS,
  ITG__OPT_KBYTES,
  ITG__OPT_DELAY,
  ITG__OPT_SEED,
  ITG__OPT_TOS,
  ITG__OPT_TTL,
  ITG__OPT_METER,
  ITG__OPT_RECV_LOG,
  ITG__OPT_RECV_LOG_SERVER,
  ITG__OPT_WIRE,
} itg__opt_id;

typedef struct itg__opt {
  const char *name; /* NULL for an option with a long form only */
  const char *long_name;
  itg__opt_id id;
  int has_value;
} itg__opt;

static const itg__opt itg__opts[] = {
    {"-a", "--dst", ITG__OPT_DST, 1},
    {"-rp", "--dst-port", ITG__OPT_DST_PORT, 1},
    {"-sa", "--src", ITG__OPT_SRC, 1},
    {"-sp", "--src-port", ITG__OPT_SRC_PORT, 1},
    {"-Sdp", "--sig-port", ITG__OPT_SIG_PORT, 1},
    {"-T", "--proto", ITG__OPT_PROTO, 1},
    {"-D", "--nodelay", ITG__OPT_NODELAY, 0},
    {"-t", "--duration", ITG__OPT_DURATION, 1},
    {"-z", "--packets", ITG__OPT_PACKETS, 1},
    {"-k", "--kbytes", ITG__OPT_KBYTES, 1},
    {"-d", "--delay", ITG__OPT_DELAY, 1},
    {"-s", "--seed", ITG__OPT_SEED, 1},
    {"-b", "--tos", ITG__OPT_TOS, 1},
    {"-f", "--ttl", ITG__OPT_TTL, 1},
    {"-m", "--meter", ITG__OPT_METER, 1},
    {"-x", "--recv-log", ITG__OPT_RECV_LOG, 1},
    {"-X", "--recv-log-server", ITG__OPT_RECV_LOG_SERVER, 1},
    {NULL, "--wire", ITG__OPT_WIRE, 1},
};

#define ITG__COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The state of one itg_flow_parse_args call. */
typedef struct itg__fp {
  itg_flow_cfg cfg; /* the copy the options change */
  int argc;
  const char *const *argv;
  int i; /* the next word */
  char *err;
  size_t errlen;   /* 0 when err is NULL */
  int preset_size; /* the size law is a preset's nominal one */
} itg__fp;

/* Writes a message into err[0..errlen) (nothing when errlen is 0). */
static void itg__set_err(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const char *itg__kind_name(itg_dist_kind kind) {
  const char *name = itg_dist_kind_name(kind);
  return name != NULL ? name : "unknown law";
}

/* Writes the unit a spec's law draws in ("ms", "B", "x0.5 s"...) into buf,
 * for messages and descriptions. */
static void itg__unit_text(const itg_dist_spec *s, int idt, char *buf,
                           size_t len) {
  if (s->scale == 1.0)
    snprintf(buf, len, "%s", idt ? "s" : "B");
  else if (idt && s->scale == 1e-3)
    snprintf(buf, len, "ms");
  else if (idt && s->scale == 1e-6)
    snprintf(buf, len, "us");
  else
    snprintf(buf, len, "x%g %s", s->scale, idt ? "s" : "B");
}

/* Writes "p0, p1 unit" for a parametric law into buf. */
static void itg__format_params(const itg_dist_spec *s, int idt, char *buf,
                               size_t len) {
  char unit[32];
  int n = itg_dist_kind_nparams(s->kind);
  itg__unit_text(s, idt, unit, sizeof unit);
  if (n == 1)
    snprintf(buf, len, "%g %s", s->p[0], unit);
  else if (n == 2)
    snprintf(buf, len, "%g, %g %s", s->p[0], s->p[1], unit);
  else if (n == 3)
    snprintf(buf, len, "%g, %g, %g %s", s->p[0], s->p[1], s->p[2], unit);
  else
    snprintf(buf, len, "%s", unit);
}

/* Reads a trace for its checks: whether a value lies in [lo, hi] (in the
 * spec's unit) and the values' mean. */
static int itg__trace_check(const itg_dist_spec *s, const char *who, double lo,
                            double hi, int *reaches, double *mean, char *err,
                            size_t errlen) {
  double *v;
  size_t n, bad = 0, k;
  double sum = 0;
  int rc;
  if (memchr(s->file, '\0', sizeof s->file) == NULL) {
    itg__set_err(err, errlen, "%s: trace file name is not terminated", who);
    return ITG_EINVAL;
  }
  rc = itg_dist_read_file(s->file, &v, &n, &bad);
  switch (rc) {
  case 0:
    break;
  case ITG_ENOENT:
    itg__set_err(err, errlen, "%s: trace file '%s' does not exist", who,
                 s->file);
    return ITG_ENOENT;
  case ITG_EBADMSG:
    itg__set_err(err, errlen,
                 "%s: trace file '%s', line %zu: not a finite number (or "
                 "longer than %zu bytes)",
                 who, s->file, bad, ITG_DIST_LINE_MAX);
    return ITG_EINVAL;
  case ITG_ELIMIT:
    itg__set_err(err, errlen,
                 "%s: trace file '%s' holds more than %zu values", who,
                 s->file, ITG_DIST_TRACE_MAX);
    return ITG_EINVAL;
  case ITG_EINVAL:
    itg__set_err(err, errlen, "%s: trace file '%s' holds no value", who,
                 s->file);
    return ITG_EINVAL;
  default:
    itg__set_err(err, errlen, "%s: cannot read trace file '%s': %s", who,
                 s->file, itg_strerror(rc));
    return rc;
  }
  *reaches = 0;
  for (k = 0; k < n; k++) {
    sum += v[k];
    if (v[k] >= lo && v[k] <= hi)
      *reaches = 1;
  }
  *mean = sum / (double)n;
  itg_free(v);
  return 0;
}

/* Creates the law with a throwaway seed to check its parameters, and gives
 * its mean (NaN if it has none) and the smallest interval holding its
 * draws, in the spec's unit. */
static int itg__law_check(const itg_dist_spec *s, int idt, const char *who,
                          double *mean, double *lo, double *hi, char *err,
                          size_t errlen) {
  itg_dist *d;
  char params[128];
  int n = itg_dist_kind_nparams(s->kind);
  int rc;
  if (n < 0 || s->kind == ITG_DIST_EMPIRICAL) {
    itg__set_err(err, errlen, "%s: unknown law %d", who, (int)s->kind);
    return ITG_EINVAL;
  }
  rc = itg_dist_new(s->kind, s->p, (size_t)n, 1, &d);
  if (rc != 0) {
    itg__format_params(s, idt, params, sizeof params);
    if (rc == ITG_EINVAL)
      itg__set_err(err, errlen, "%s: invalid parameters for %s (%s)", who,
                   itg__kind_name(s->kind), params);
    else
      itg__set_err(err, errlen, "%s: %s", who, itg_strerror(rc));
    return rc;
  }
  *mean = itg_dist_mean(d);
  itg_dist_free(d);
  *lo = 0;
  *hi = INFINITY;
  switch (s->kind) {
  case ITG_DIST_CONSTANT:
    *lo = *hi = s->p[0];
    break;
  case ITG_DIST_UNIFORM:
    *lo = s->p[0];
    *hi = s->p[1];
    break;
  case ITG_DIST_NORMAL:
    if (s->p[1] == 0)
      *lo = *hi = s->p[0];
    else
      *lo = -INFINITY;
    break;
  case ITG_DIST_CAUCHY:
    *lo = -INFINITY;
    break;
  case ITG_DIST_PARETO:
    *lo = s->p[1];
    break;
  default: /* exponential, Poisson, gamma, Weibull, lognormal */
    break;
  }
  return 0;
}

/* Checks a spec as the engine will use it: scale, parameters or trace,
 * draws able to fall inside [lo, hi] (seconds or bytes) and, for an IDT,
 * a mean between 1 / ITG_FLOW_RATE_MAX and ITG_FLOW_IDT_MAX seconds (a law
 * without a mean is not held to it). `who` starts each message. */
static int itg__spec_check(const itg_dist_spec *s, int idt, double lo,
                           double hi, const char *who, char *err,
                           size_t errlen) {
  const char *unit = idt ? "s" : "B";
  double mean, slo, shi;
  int reaches, rc;
  if (!(isfinite(s->scale) && s->scale > 0)) {
    itg__set_err(err, errlen, "%s: scale %g is not > 0", who, s->scale);
    return ITG_EINVAL;
  }
  if (s->kind == ITG_DIST_EMPIRICAL) {
    rc = itg__trace_check(s, who, lo / s->scale, hi / s->scale, &reaches,
                          &mean, err, errlen);
    if (rc != 0)
      return rc;
    if (!reaches) {
      itg__set_err(err, errlen,
                   "%s: no value of trace file '%s' lies within [%g, %g] %s",
                   who, s->file, lo, hi, unit);
      return ITG_EINVAL;
    }
  } else {
    rc = itg__law_check(s, idt, who, &mean, &slo, &shi, err, errlen);
    if (rc != 0)
      return rc;
    if (slo == shi && (slo * s->scale < lo || slo * s->scale > hi)) {
      itg__set_err(err, errlen, "%s: %s %g %s is outside [%g, %g] %s", who,
                   idt ? "IDT" : "size", slo * s->scale, unit, lo, hi, unit);
      return ITG_EINVAL;
    }
    if (shi * s->scale < lo || slo * s->scale > hi) {
      itg__set_err(err, errlen,
                   "%s: %s draws only values outside [%g, %g] %s", who,
                   itg__kind_name(s->kind), lo, hi, unit);
      return ITG_EINVAL;
    }
  }
  if (idt && isfinite(mean) && mean * s->scale < 1.0 / ITG_FLOW_RATE_MAX) {
    itg__set_err(err, errlen,
                 "%s: mean IDT %g s is below %g s (more than %g pkt/s)", who,
                 mean * s->scale, 1.0 / ITG_FLOW_RATE_MAX, ITG_FLOW_RATE_MAX);
    return ITG_EINVAL;
  }
  if (idt && isfinite(mean) && mean * s->scale > ITG_FLOW_IDT_MAX) {
    itg__set_err(err, errlen,
                 "%s: mean IDT %g s is above %g s (most draws would be cut)",
                 who, mean * s->scale, ITG_FLOW_IDT_MAX);
    return ITG_EINVAL;
  }
  return 0;
}

int itg_flow_cfg_init_size(itg_flow_cfg *out, size_t size) {
  itg_flow_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  strcpy(cfg->dst_host, "127.0.0.1");
  cfg->dst_port = ITG_DEFAULT_DATA_PORT;
  cfg->sig_port = ITG_DEFAULT_SIG_PORT;
  cfg->proto = ITG_PROTO_UDP;
  cfg->meter = ITG_METER_OWD;
  cfg->wire = ITG_WIRE_NATIVE;
  cfg->idt.kind = ITG_DIST_CONSTANT;
  cfg->idt.p[0] = 1.0 / 1000;
  cfg->idt.scale = 1.0;
  cfg->size.kind = ITG_DIST_CONSTANT;
  cfg->size.p[0] = 512;
  cfg->size.scale = 1.0;
  cfg->duration_ns = 10000LL * 1000000;
  cfg->tos = -1;
  cfg->ttl = -1;
  cfg->recv_log_port = ITG_DEFAULT_LOG_PORT;
  cfg->recv_log_transport = ITG_LOG_TCP;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

/* Takes the next word as the value of option `opt`. */
static int itg__value(itg__fp *fp, const char *opt, const char **out) {
  if (fp->i >= fp->argc || fp->argv[fp->i] == NULL) {
    itg__set_err(fp->err, fp->errlen, "%s: missing value", opt);
    return ITG_EINVAL;
  }
  *out = fp->argv[fp->i++];
  return 0;
}

/* Reads a number for option `opt`. */
static int itg__number(itg__fp *fp, const char *opt, const char *w,
                       double *out) {
  int rc = itg__parse_double(w, out);
  if (rc == ITG_ERANGE)
    itg__set_err(fp->err, fp->errlen, "%s: '%s' is out of range", opt, w);
  else if (rc != 0)
    itg__set_err(fp->err, fp->errlen, "%s: '%s' is not a number", opt, w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Reads a whole number in [min, max] for option `opt`; `range` describes
 * the bounds in the message. */
static int itg__whole(itg__fp *fp, const char *opt, const char *w,
                      uint64_t min, uint64_t max, const char *range,
                      uint64_t *out) {
  int rc = itg__parse_u64(w, min, max, out);
  if (rc == ITG_ERANGE)
    itg__set_err(fp->err, fp->errlen, "%s: '%s' is out of range (%s)", opt, w,
                 range);
  else if (rc != 0)
    itg__set_err(fp->err, fp->errlen, "%s: '%s' is not a whole number", opt,
                 w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Reads a duration in milliseconds for option `opt`. */
static int itg__millis(itg__fp *fp, const char *opt, const char *w,
                       int64_t *out_ns) {
  int rc = itg__parse_ms(w, out_ns);
  if (rc == ITG_ERANGE)
    itg__set_err(fp->err, fp->errlen,
                 "%s: '%s' is out of range (0 ms to one year)", opt, w);
  else if (rc != 0)
    itg__set_err(fp->err, fp->errlen, "%s: '%s' is not a number", opt, w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Copies a string value into dst[0..size) when it fits. */
static int itg__copy(itg__fp *fp, const char *opt, const char *w, char *dst,
                     size_t size) {
  size_t n = strlen(w);
  if (n >= size) {
    itg__set_err(fp->err, fp->errlen,
                 "%s: '%.40s...' is too long (at most %zu bytes)", opt, w,
                 size - 1);
    return ITG_EINVAL;
  }
  memcpy(dst, w, n + 1);
  return 0;
}

/* Turns rates in pkt/s into the IDT spec of law option `lo`. */
static int itg__rate_spec(itg__fp *fp, const itg__law_opt *lo,
                          const char *const *words, const double *v,
                          itg_dist_spec *s) {
  int k;
  for (k = 0; k < lo->nargs; k++) {
    if (!(v[k] > 0)) {
      itg__set_err(fp->err, fp->errlen, "%s: rate must be > 0, got '%s'",
                   lo->name, words[k]);
      return ITG_EINVAL;
    }
  }
  s->scale = 1.0;
  switch (lo->kind) {
  case ITG_DIST_UNIFORM:
    if (v[0] > v[1]) {
      itg__set_err(fp->err, fp->errlen,
                   "%s: min rate '%s' is above max rate '%s'", lo->name,
                   words[0], words[1]);
      return ITG_EINVAL;
    }
    s->p[0] = 1.0 / v[1];
    s->p[1] = 1.0 / v[0];
    break;
  case ITG_DIST_POISSON:
    s->p[0] = 1e6 / v[0];
    s->scale = 1e-6;
    break;
  default: /* constant, exponential */
    s->p[0] = 1.0 / v[0];
    break;
  }
  for (k = 0; k < lo->nargs; k++) {
    if (!isfinite(s->p[k])) {
      itg__set_err(fp->err, fp->errlen, "%s: rate '%s' is out of range",
                   lo->name, words[k]);
      return ITG_EINVAL;
    }
  }
  return 0;
}

/* Reads an IDT or size law option and its values. */
static int itg__parse_law(itg__fp *fp, const itg__law_opt *lo) {
  const char *words[ITG_DIST_MAX_PARAMS];
  double v[ITG_DIST_MAX_PARAMS] = {0};
  itg_dist_spec s;
  int k, rc;
  memset(&s, 0, sizeof s);
  s.kind = lo->kind;
  for (k = 0; k < lo->nargs; k++) {
    rc = itg__value(fp, lo->name, &words[k]);
    if (rc != 0)
      return rc;
    if (lo->kind != ITG_DIST_EMPIRICAL) {
      rc = itg__number(fp, lo->name, words[k], &v[k]);
      if (rc != 0)
        return rc;
    }
  }
  if (lo->kind == ITG_DIST_EMPIRICAL) {
    rc = itg__copy(fp, lo->name, words[0], s.file, sizeof s.file);
    if (rc != 0)
      return rc;
    s.scale = lo->unit == ITG__MS ? 1e-3 : 1.0;
  } else if (lo->unit == ITG__RATE) {
    rc = itg__rate_spec(fp, lo, words, v, &s);
    if (rc != 0)
      return rc;
  } else {
    for (k = 0; k < lo->nargs; k++)
      s.p[k] = v[k];
    s.scale = lo->unit == ITG__MS ? 1e-3 : 1.0;
  }
  rc = itg__spec_check(&s, lo->idt, 0,
                       lo->idt ? ITG_FLOW_IDT_MAX : ITG_WIRE_MAX_PACKET,
                       lo->name, fp->err, fp->errlen);
  if (rc != 0)
    return rc;
  if (lo->idt) {
    fp->cfg.idt = s;
  } else {
    fp->cfg.size = s;
    fp->preset_size = 0;
  }
  return 0;
}

/* Reads the seed: a whole number, or x in (0,1) giving floor(x * 2^64). */
static int itg__parse_seed(itg__fp *fp, const char *opt, const char *w) {
  uint64_t u;
  double x;
  if (itg__parse_u64(w, 0, UINT64_MAX, &u) == 0) {
    fp->cfg.seed = u;
  } else if (itg__parse_double(w, &x) == 0 && x > 0 && x < 1) {
    fp->cfg.seed = (uint64_t)floor(ldexp(x, 64));
  } else {
    itg__set_err(fp->err, fp->errlen,
                 "%s: '%s' is neither a whole number nor a number in (0,1)",
                 opt, w);
    return ITG_EINVAL;
  }
  fp->cfg.has_seed = 1;
  return 0;
}

/* -X addr[:port] [TCP|UDP]: the transport word is optional (D-ITG's). */
static int itg__parse_log_server(itg__fp *fp, const char *opt, const char *w) {
  itg_flow_cfg *c = &fp->cfg;
  const char *next = fp->i < fp->argc ? fp->argv[fp->i] : NULL;
  if (itg__parse_host_port(w, c->recv_log_server, sizeof c->recv_log_server,
                           &c->recv_log_port) != 0) {
    itg__set_err(fp->err, fp->errlen, "%s: '%.64s' is not ADDR[:PORT]", opt,
                 w);
    return ITG_EINVAL;
  }
  if (next != NULL && (itg__word_eq(next, "TCP") || itg__word_eq(next, "UDP"))) {
    c->recv_log_transport =
        itg__word_eq(next, "UDP") ? ITG_LOG_UDP : ITG_LOG_TCP;
    fp->i++;
  }
  return 0;
}

/* Applies one option that is not a law. */
static int itg__parse_opt(itg__fp *fp, const itg__opt *o, const char *opt) {
  itg_flow_cfg *c = &fp->cfg;
  const char *w = NULL;
  uint64_t u;
  int rc;
  if (o->has_value) {
    rc = itg__value(fp, opt, &w);
    if (rc != 0)
      return rc;
  }
  switch (o->id) {
  case ITG__OPT_DST:
    if (*w == '\0') {
      itg__set_err(fp->err, fp->errlen, "%s: empty host", opt);
      return ITG_EINVAL;
    }
    return itg__copy(fp, opt, w, c->dst_host, sizeof c->dst_host);
  case ITG__OPT_SRC:
    return itg__copy(fp, opt, w, c->src_host, sizeof c->src_host);
  case ITG__OPT_RECV_LOG:
    return itg__copy(fp, opt, w, c->recv_log, sizeof c->recv_log);
  case ITG__OPT_RECV_LOG_SERVER:
    return itg__parse_log_server(fp, opt, w);
  case ITG__OPT_DST_PORT:
  case ITG__OPT_SIG_PORT:
  case ITG__OPT_SRC_PORT:
    /* Data port 0: the receiver opens one the system picks and answers
     * with it, so that nothing needs a port known to be free. */
    rc = o->id != ITG__OPT_SIG_PORT
             ? itg__whole(fp, opt, w, 0, 65535, "0-65535", &u)
             : itg__whole(fp, opt, w, 1, 65535, "1-65535", &u);
    if (rc != 0)
      return rc;
    if (o->id == ITG__OPT_DST_PORT)
      c->dst_port = (uint16_t)u;
    else if (o->id == ITG__OPT_SIG_PORT)
      c->sig_port = (uint16_t)u;
    else
      c->src_port = (uint16_t)u;
    return 0;
  case ITG__OPT_PROTO:
    if (itg__word_eq(w, "UDP")) {
      c->proto = ITG_PROTO_UDP;
    } else if (itg__word_eq(w, "TCP")) {
      c->proto = ITG_PROTO_TCP;
    } else {
      itg__set_err(fp->err, fp->errlen, "%s: expected UDP or TCP, got '%s'",
                   opt, w);
      return ITG_EINVAL;
    }
    return 0;
  case ITG__OPT_NODELAY:
    c->nodelay = 1;
    return 0;
  case ITG__OPT_DURATION:
    return itg__millis(fp, opt, w, &c->duration_ns);
  case ITG__OPT_DELAY:
    return itg__millis(fp, opt, w, &c->start_delay_ns);
  case ITG__OPT_PACKETS:
    return itg__whole(fp, opt, w, 0, UINT64_MAX, "0 or more",
                      &c->max_packets);
  case ITG__OPT_KBYTES:
    rc = itg__whole(fp, opt, w, 0, UINT64_MAX / 1024, "too many bytes", &u);
    if (rc == 0)
      c->max_bytes = u * 1024;
    return rc;
  case ITG__OPT_SEED:
    return itg__parse_seed(fp, opt, w);
  case ITG__OPT_TOS:
  case ITG__OPT_TTL:
    rc = o->id == ITG__OPT_TOS
             ? itg__whole(fp, opt, w, 0, 255, "0-255", &u)
             : itg__whole(fp, opt, w, 1, 255, "1-255", &u);
    if (rc != 0)
      return rc;
    if (o->id == ITG__OPT_TOS)
      c->tos = (int)u;
    else
      c->ttl = (int)u;
    return 0;
  case ITG__OPT_METER:
    if (itg__word_eq(w, "owdm")) {
      c->meter = ITG_METER_OWD;
    } else if (itg__word_eq(w, "rttm")) {
      c->meter = ITG_METER_RTT;
    } else {
      itg__set_err(fp->err, fp->errlen, "%s: expected owdm or rttm, got '%s'",
                   opt, w);
      return ITG_EINVAL;
    }
    return 0;
  case ITG__OPT_WIRE:
    if (itg__word_eq(w, "native")) {
      c->wire = ITG_WIRE_NATIVE;
    } else if (itg__word_eq(w, "ditg")) {
      c->wire = ITG_WIRE_DITG;
    } else {
      itg__set_err(fp->err, fp->errlen,
                   "%s: expected native or ditg, got '%s'", opt, w);
      return ITG_EINVAL;
    }
    return 0;
  }
  return ITG_EINVAL;
}

/* Reads the option (or preset) at the next word, and its values. */
static int itg__parse_word(itg__fp *fp) {
  const char *w = fp->argv[fp->i];
  itg__preset preset;
  size_t k;
  int n;
  if (w == NULL) {
    itg__set_err(fp->err, fp->errlen, "word %d is NULL", fp->i);
    return ITG_EINVAL;
  }
  for (k = 0; k < ITG__COUNT(itg__law_opts); k++) {
    if (strcmp(w, itg__law_opts[k].name) == 0) {
      fp->i++;
      return itg__parse_law(fp, &itg__law_opts[k]);
    }
  }
  for (k = 0; k < ITG__COUNT(itg__opts); k++) {
    const itg__opt *o = &itg__opts[k];
    if ((o->name != NULL && strcmp(w, o->name) == 0) ||
        strcmp(w, o->long_name) == 0) {
      fp->i++;
      return itg__parse_opt(fp, o, w);
    }
  }
  n = itg__preset_parse(fp->argc - fp->i, fp->argv + fp->i, &preset, fp->err,
                        fp->errlen);
  if (n < 0)
    return n;
  if (n == 0) {
    itg__set_err(fp->err, fp->errlen, "unknown option '%s'", w);
    return ITG_EINVAL;
  }
  fp->i += n;
  fp->cfg.proto = preset.proto;
  fp->cfg.idt = preset.idt;
  fp->cfg.size = preset.size;
  fp->preset_size = 1;
  return 0;
}

/* Writes the parsed copy c back into the caller's cfg. An option that set
 * a field past the caller's layout (a program built against an older
 * header, given an option that came later) is refused rather than lost. */
static int itg__flow_cfg_out(itg_flow_cfg *cfg, const itg_flow_cfg *c,
                             char *err, size_t errlen) {
  size_t size = cfg->struct_size;
  itg_flow_cfg defaults;

  itg_flow_cfg_init(&defaults);
  if (memcmp((const char *)c + size, (const char *)&defaults + size,
             sizeof defaults - size) != 0) {
    itg__set_err(err, errlen,
                 "an option sets a field this program's itg_flow_cfg (%zu "
                 "of %zu bytes) does not have: it was built against an "
                 "older libitg",
                 size, sizeof defaults);
    return ITG_EINVAL;
  }
  return itg__struct_out(cfg, size, c, sizeof *c);
}

int itg_flow_parse_args(itg_flow_cfg *cfg, int argc, const char *const *argv,
                        char *err, size_t errlen) {
  itg__fp fp;
  int rc;
  if (err == NULL)
    errlen = 0;
  else if (errlen > 0)
    err[0] = '\0';
  if (cfg == NULL || argc < 0 || (argc > 0 && argv == NULL)) {
    itg__set_err(err, errlen, "invalid arguments");
    return ITG_EINVAL;
  }
  memset(&fp, 0, sizeof fp);
  rc = ITG__CFG_IN(&fp.cfg, cfg, itg_flow_cfg, err, errlen);
  if (rc != 0)
    return rc;
  fp.argc = argc;
  fp.argv = argv;
  fp.err = err;
  fp.errlen = errlen;
  while (fp.i < argc) {
    rc = itg__parse_word(&fp);
    if (rc != 0)
      return rc;
  }
  if (fp.preset_size && fp.cfg.size.kind == ITG_DIST_CONSTANT) {
    size_t hdr = itg_wire_hdr_len(fp.cfg.wire, fp.cfg.proto == ITG_PROTO_TCP);
    if (fp.cfg.size.p[0] * fp.cfg.size.scale < (double)hdr)
      fp.cfg.size.p[0] = (double)hdr / fp.cfg.size.scale;
  }
  return itg__flow_cfg_out(cfg, &fp.cfg, err, errlen);
}

int itg_flow_parse_line(itg_flow_cfg *cfg, const char *line, char *err,
                        size_t errlen) {
  const char *p = line;
  const char **words;
  char *buf, *out;
  size_t len;
  int n = 0, rc;
  if (err == NULL)
    errlen = 0;
  else if (errlen > 0)
    err[0] = '\0';
  if (cfg == NULL || line == NULL) {
    itg__set_err(err, errlen, "invalid arguments");
    return ITG_EINVAL;
  }
  len = strlen(line);
  if (len > (size_t)INT32_MAX) {
    itg__set_err(err, errlen, "line too long");
    return ITG_EINVAL;
  }
  /* Each word takes at least one character and a separator, so a line of
   * len characters holds at most (len + 1) / 2 words, and their text with
   * terminators at most len + 1 bytes. */
  buf = malloc(len + 1);
  if (buf == NULL)
    goto out_nomem;
  words = malloc(((len + 1) / 2 + 1) * sizeof *words);
  if (words == NULL)
    goto out_free_buf;
  out = buf;
  for (;;) {
    while (*p != '\0' && isspace((unsigned char)*p))
      p++;
    if (*p == '\0' || *p == '#')
      break;
    words[n++] = out;
    while (*p != '\0' && !isspace((unsigned char)*p) && *p != '#') {
      if (*p != '"') {
        *out++ = *p++;
        continue;
      }
      p++;
      while (*p != '\0' && *p != '"')
        *out++ = *p++;
      if (*p == '\0') {
        itg__set_err(err, errlen, "unterminated quote in word %d", n);
        rc = ITG_EINVAL;
        goto out_free_words;
      }
      p++;
    }
    *out++ = '\0';
  }
  rc = n == 0 ? 0 : itg_flow_parse_args(cfg, n, words, err, errlen);
  if (rc == 0)
    rc = n;
out_free_words:
  free(words);
  free(buf);
  return rc;
out_free_buf:
  free(buf);
out_nomem:
  itg__set_err(err, errlen, "out of memory");
  return ITG_ENOMEM;
}

/* Checks that a string field ends within its array. */
static int itg__terminated(const char *s, size_t size, const char *what,
                           char *err, size_t errlen) {
  if (memchr(s, '\0', size) != NULL)
    return 0;
  itg__set_err(err, errlen, "%s is not terminated within %zu bytes", what,
               size);
  return ITG_EINVAL;
}

int itg_flow_validate(const itg_flow_cfg *caller, char *err, size_t errlen) {
  itg_flow_cfg copy;
  const itg_flow_cfg *cfg = &copy;
  const itg_dist_spec *size;
  size_t hdr;
  int rc;
  if (err == NULL)
    errlen = 0;
  else if (errlen > 0)
    err[0] = '\0';
  if (caller == NULL) {
    itg__set_err(err, errlen, "no configuration");
    return ITG_EINVAL;
  }
  rc = ITG__CFG_IN(&copy, caller, itg_flow_cfg, err, errlen);
  if (rc != 0)
    return rc;
  if ((rc = itg__terminated(cfg->dst_host, sizeof cfg->dst_host,
                            "destination host", err, errlen)) != 0 ||
      (rc = itg__terminated(cfg->src_host, sizeof cfg->src_host,
                            "source host", err, errlen)) != 0 ||
      (rc = itg__terminated(cfg->recv_log, sizeof cfg->recv_log,
                            "receiver log name", err, errlen)) != 0 ||
      (rc = itg__terminated(cfg->recv_log_server,
                            sizeof cfg->recv_log_server,
                            "receiver log server", err, errlen)) != 0)
    return rc;
  if (cfg->recv_log_server[0] != '\0' &&
      (cfg->recv_log_port == 0 ||
       (cfg->recv_log_transport != ITG_LOG_TCP &&
        cfg->recv_log_transport != ITG_LOG_UDP))) {
    itg__set_err(err, errlen, "receiver log server: %s",
                 cfg->recv_log_port == 0 ? "port 0 is out of range (1-65535)"
                                         : "unknown transport");
    return ITG_EINVAL;
  }
  if (cfg->dst_host[0] == '\0') {
    itg__set_err(err, errlen, "no destination host");
    return ITG_EINVAL;
  }
  if (cfg->sig_port == 0) {
    itg__set_err(err, errlen, "signaling port 0 is out of range (1-65535)");
    return ITG_EINVAL;
  }
  if (cfg->proto != ITG_PROTO_UDP && cfg->proto != ITG_PROTO_TCP) {
    itg__set_err(err, errlen, "unknown transport %d", (int)cfg->proto);
    return ITG_EINVAL;
  }
  if (cfg->meter != ITG_METER_OWD && cfg->meter != ITG_METER_RTT) {
    itg__set_err(err, errlen, "unknown meter %d", (int)cfg->meter);
    return ITG_EINVAL;
  }
  hdr = itg_wire_hdr_len(cfg->wire, cfg->proto == ITG_PROTO_TCP);
  if (hdr == 0) {
    itg__set_err(err, errlen, "unknown wire profile %d", (int)cfg->wire);
    return ITG_EINVAL;
  }
  if (cfg->tos < -1 || cfg->tos > 255) {
    itg__set_err(err, errlen, "DS byte %d is out of range (0-255, or -1)",
                 cfg->tos);
    return ITG_EINVAL;
  }
  if (cfg->ttl == 0 || cfg->ttl < -1 || cfg->ttl > 255) {
    itg__set_err(err, errlen, "TTL %d is out of range (1-255, or -1)",
                 cfg->ttl);
    return ITG_EINVAL;
  }
  if (cfg->duration_ns < 0 || cfg->start_delay_ns < 0) {
    itg__set_err(err, errlen, "negative %s",
                 cfg->duration_ns < 0 ? "duration" : "start delay");
    return ITG_EINVAL;
  }
  if (cfg->duration_ns == 0 && cfg->max_packets == 0 && cfg->max_bytes == 0) {
    itg__set_err(err, errlen,
                 "the flow has no end: give a duration (-t), a packet count "
                 "(-z) or a byte count (-k) above 0 (0 means no limit, for "
                 "each of the three)");
    return ITG_EINVAL;
  }
  rc = itg__spec_check(&cfg->idt, 1, 0, ITG_FLOW_IDT_MAX, "IDT", err, errlen);
  if (rc != 0)
    return rc;
  size = &cfg->size;
  if (size->kind == ITG_DIST_CONSTANT && isfinite(size->scale) &&
      size->scale > 0) {
    double v = size->p[0] * size->scale;
    if (v < (double)hdr) {
      itg__set_err(err, errlen,
                   "size: constant %g B is smaller than the %zu-byte header "
                   "(%s wire over %s)",
                   v, hdr, cfg->wire == ITG_WIRE_DITG ? "ditg" : "native",
                   cfg->proto == ITG_PROTO_TCP ? "TCP" : "UDP");
      return ITG_EINVAL;
    }
    if (v > ITG_WIRE_MAX_PACKET) {
      itg__set_err(err, errlen, "size: constant %g B is larger than %u B", v,
                   ITG_WIRE_MAX_PACKET);
      return ITG_EINVAL;
    }
  }
  return itg__spec_check(size, 0, (double)hdr, ITG_WIRE_MAX_PACKET, "size",
                         err, errlen);
}

/* Appends formatted text at *pos of buf[0..len), which stays terminated
 * (text past the end is cut). */
static void itg__cat(char *buf, size_t len, size_t *pos, const char *fmt,
                     ...) {
  va_list ap;
  int n;
  if (*pos >= len)
    return;
  va_start(ap, fmt);
  n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
  va_end(ap);
  if (n > 0)
    *pos += (size_t)n;
}

/* Appends "kind(params unit)" or "trace(file, unit)". */
static void itg__cat_law(char *buf, size_t len, size_t *pos,
                         const itg_dist_spec *s, int idt) {
  char params[128];
  if (s->kind == ITG_DIST_EMPIRICAL) {
    itg__unit_text(s, idt, params, sizeof params);
    itg__cat(buf, len, pos, "trace(%.*s, %s)", (int)sizeof s->file, s->file,
             params);
    return;
  }
  itg__format_params(s, idt, params, sizeof params);
  itg__cat(buf, len, pos, "%s(%s)", itg__kind_name(s->kind), params);
}

void itg_flow_describe(const itg_flow_cfg *caller, char *buf, size_t len) {
  itg_flow_cfg copy;
  const itg_flow_cfg *cfg = &copy;
  size_t pos = 0;
  const char *bound = "for";
  int host_len;
  if (buf == NULL || len == 0)
    return;
  buf[0] = '\0';
  /* A struct whose size is refused is described by the refusal. */
  if (caller == NULL ||
      ITG__CFG_IN(&copy, caller, itg_flow_cfg, buf, len) != 0)
    return;
  host_len = (int)sizeof cfg->dst_host;
  itg__cat(buf, len, &pos,
           strchr(cfg->dst_host, ':') != NULL ? "%s [%.*s]:%u IDT "
                                              : "%s %.*s:%u IDT ",
           cfg->proto == ITG_PROTO_TCP ? "TCP" : "UDP", host_len,
           cfg->dst_host, (unsigned)cfg->dst_port);
  itg__cat_law(buf, len, &pos, &cfg->idt, 1);
  itg__cat(buf, len, &pos, " size ");
  itg__cat_law(buf, len, &pos, &cfg->size, 0);
  if (cfg->duration_ns > 0) {
    itg__cat(buf, len, &pos, " %s %g s", bound, (double)cfg->duration_ns / 1e9);
    bound = "or";
  }
  if (cfg->max_packets > 0) {
    itg__cat(buf, len, &pos, " %s %" PRIu64 " pkts", bound, cfg->max_packets);
    bound = "or";
  }
  if (cfg->max_bytes > 0) {
    itg__cat(buf, len, &pos, " %s %" PRIu64 " B", bound, cfg->max_bytes);
    bound = "or";
  }
  if (bound[0] == 'f')
    itg__cat(buf, len, &pos, " without end");
  if (cfg->start_delay_ns > 0)
    itg__cat(buf, len, &pos, " after %g s", (double)cfg->start_delay_ns / 1e9);
  if (cfg->flow_id != 0)
    itg__cat(buf, len, &pos, " flow %" PRIu32, cfg->flow_id);
  if (cfg->src_host[0] != '\0' || cfg->src_port != 0)
    itg__cat(buf, len, &pos, " from %.*s:%u", host_len,
             cfg->src_host[0] != '\0' ? cfg->src_host : "*",
             (unsigned)cfg->src_port);
  if (cfg->sig_port != ITG_DEFAULT_SIG_PORT)
    itg__cat(buf, len, &pos, " sig %u", (unsigned)cfg->sig_port);
  if (cfg->nodelay && cfg->proto == ITG_PROTO_TCP)
    itg__cat(buf, len, &pos, " nodelay");
  if (cfg->meter == ITG_METER_RTT)
    itg__cat(buf, len, &pos, " round-trip");
  if (cfg->wire == ITG_WIRE_DITG)
    itg__cat(buf, len, &pos, " wire ditg");
  if (cfg->has_seed)
    itg__cat(buf, len, &pos, " seed %" PRIu64, cfg->seed);
  if (cfg->tos >= 0)
    itg__cat(buf, len, &pos, " tos %d", cfg->tos);
  if (cfg->ttl >= 0)
    itg__cat(buf, len, &pos, " ttl %d", cfg->ttl);
  if (cfg->recv_log[0] != '\0')
    itg__cat(buf, len, &pos, " recv-log %.*s", (int)sizeof cfg->recv_log,
             cfg->recv_log);
  if (cfg->recv_log_server[0] != '\0')
    itg__cat(buf, len, &pos,
             strchr(cfg->recv_log_server, ':') != NULL
                 ? " recv-log-server [%.*s]:%u %s"
                 : " recv-log-server %.*s:%u %s",
             host_len, cfg->recv_log_server, (unsigned)cfg->recv_log_port,
             cfg->recv_log_transport == ITG_LOG_UDP ? "UDP" : "TCP");
}
