/* The flow options: the D-ITG-style option table and its parser (the
 * option reference is in itg/flow.h; the defaults are in flow_cfg.c). */
#include "core/catchup.h"
#include "core/flow_internal.h"

#include <math.h>
#include <string.h>

#include "core/flow_presets.h"
#include "core/growable.h"
#include "itg/parse.h"

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
  ITG__OPT_SMALL,
  ITG__OPT_PAYLOAD_TYPE,
  ITG__OPT_PAYLOAD_FILE,
  ITG__OPT_PEER,
  ITG__OPT_ONOFF,
  ITG__OPT_CATCHUP,
  ITG__OPT_MEAN_ADJUST,
} itg__opt_id;

typedef struct itg__opt {
  const char *name; /* NULL for an option with a long form only */
  const char *long_name; /* NULL for a D-ITG option without one */
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
    {NULL, "--small", ITG__OPT_SMALL, 1},
    {"-p", "--payload-type", ITG__OPT_PAYLOAD_TYPE, 1},
    {"-Fp", "--payload-file", ITG__OPT_PAYLOAD_FILE, 1},
    {NULL, "--peer", ITG__OPT_PEER, 1},
    {"-B", "--onoff", ITG__OPT_ONOFF, 0},
    {NULL, "--catchup", ITG__OPT_CATCHUP, 1},
    {"-j", NULL, ITG__OPT_MEAN_ADJUST, 1},
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
  /* What set each law in this call, so that a second one is refused
   * rather than silently replacing the first: the option's name, or the
   * preset's word (NULL: nothing yet). */
  const char *idt_by;
  const char *size_by;
  const char *preset_by;
} itg__fp;

/* Takes the next word as the value of option `opt`. */
static int itg__value(itg__fp *fp, const char *opt, const char **out) {
  if (fp->i >= fp->argc || fp->argv[fp->i] == NULL) {
    itg__err_set(fp->err, fp->errlen, "%s: missing value", opt);
    return ITG_EINVAL;
  }
  *out = fp->argv[fp->i++];
  return 0;
}

/* Reads a number for option `opt`. */
static int itg__number(itg__fp *fp, const char *opt, const char *w,
                       double *out) {
  int rc = itg_parse_double(w, out);
  if (rc == ITG_ERANGE)
    itg__err_set(fp->err, fp->errlen, "%s: '%s' is out of range", opt, w);
  else if (rc != 0)
    itg__err_set(fp->err, fp->errlen, "%s: '%s' is not a number", opt, w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Reads a whole number in [min, max] for option `opt`; `range` describes
 * the bounds in the message. */
static int itg__whole(itg__fp *fp, const char *opt, const char *w,
                      uint64_t min, uint64_t max, const char *range,
                      uint64_t *out) {
  int rc = itg_parse_u64(w, min, max, out);
  if (rc == ITG_ERANGE)
    itg__err_set(fp->err, fp->errlen, "%s: '%s' is out of range (%s)",
                      opt, w, range);
  else if (rc != 0)
    itg__err_set(fp->err, fp->errlen, "%s: '%s' is not a whole number",
                      opt, w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Reads a duration in milliseconds for option `opt`. */
static int itg__millis(itg__fp *fp, const char *opt, const char *w,
                       int64_t *out_ns) {
  int rc = itg_parse_ms(w, out_ns);
  if (rc == ITG_ERANGE)
    itg__err_set(fp->err, fp->errlen,
                      "%s: '%s' is out of range (0 ms to one year)", opt, w);
  else if (rc != 0)
    itg__err_set(fp->err, fp->errlen, "%s: '%s' is not a number", opt, w);
  return rc != 0 ? ITG_EINVAL : 0;
}

/* Copies a string value into dst[0..size) when it fits. */
static int itg__copy(itg__fp *fp, const char *opt, const char *w, char *dst,
                     size_t size) {
  size_t n = strlen(w);
  if (n >= size) {
    itg__err_set(fp->err, fp->errlen,
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
      itg__err_set(fp->err, fp->errlen, "%s: rate must be > 0, got '%s'",
                        lo->name, words[k]);
      return ITG_EINVAL;
    }
  }
  s->scale = 1.0;
  switch (lo->kind) {
  case ITG_DIST_UNIFORM:
    if (v[0] > v[1]) {
      itg__err_set(fp->err, fp->errlen,
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
      itg__err_set(fp->err, fp->errlen, "%s: rate '%s' is out of range",
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
  const char **by;
  int k, rc;
  /* A preset's laws are there to be refined by the options after it; two
   * options of one kind on one line are a mistake the last would hide. */
  by = lo->idt ? &fp->idt_by : &fp->size_by;
  if (*by != NULL) {
    itg__err_set(fp->err, fp->errlen,
                 "%s: the %s law is already set by %s: give one %s option",
                 lo->name, lo->idt ? "IDT" : "size", *by,
                 lo->idt ? "IDT" : "size");
    return ITG_EINVAL;
  }
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
  rc = itg__flow_spec_check(&s, lo->idt, 0,
                            lo->idt ? ITG_FLOW_IDT_MAX : ITG_WIRE_MAX_PACKET,
                            lo->name, fp->err, fp->errlen);
  if (rc != 0)
    return rc;
  *by = lo->name;
  if (lo->idt) {
    fp->cfg.idt = s;
  } else {
    fp->cfg.size = s;
    fp->cfg.size_raised = 0;
    fp->preset_size = 0;
  }
  return 0;
}

/* Reads one law of -B: a letter of the IDT options (C, U, E, O, N, V, Y,
 * G, W), which gives the kind and the number of values, and its values,
 * all in milliseconds (D-ITG's on/off periods). */
static int itg__parse_period(itg__fp *fp, const char *who,
                             itg_dist_spec *out) {
  const itg__law_opt *lo = NULL;
  const char *w;
  itg_dist_spec s;
  size_t k;
  int j, rc;
  rc = itg__value(fp, who, &w);
  if (rc != 0)
    return rc;
  for (k = 0; k < ITG__COUNT(itg__law_opts); k++) {
    const char *name = itg__law_opts[k].name;
    if (itg__law_opts[k].idt && name[1] == w[0] && name[2] == '\0' &&
        w[0] != '\0' && w[1] == '\0')
      lo = &itg__law_opts[k];
  }
  if (lo == NULL) {
    itg__err_set(fp->err, fp->errlen,
                 "%s: '%s' is not a law (C, U, E, O, N, V, Y, G or W)", who,
                 w);
    return ITG_EINVAL;
  }
  memset(&s, 0, sizeof s);
  s.kind = lo->kind;
  s.scale = 1e-3;
  for (j = 0; j < lo->nargs; j++) {
    rc = itg__value(fp, who, &w);
    if (rc == 0)
      rc = itg__number(fp, who, w, &s.p[j]);
    if (rc != 0)
      return rc;
  }
  rc = itg__flow_spec_check(&s, 1, 0, ITG_FLOW_IDT_MAX, who, fp->err,
                            fp->errlen);
  if (rc == 0)
    *out = s;
  return rc;
}

/* -B on_law values off_law values. */
static int itg__parse_onoff(itg__fp *fp) {
  itg_dist_spec on, off;
  int rc = itg__parse_period(fp, "-B on", &on);
  if (rc == 0)
    rc = itg__parse_period(fp, "-B off", &off);
  if (rc != 0)
    return rc;
  fp->cfg.onoff = 1;
  fp->cfg.on = on;
  fp->cfg.off = off;
  return 0;
}

/* Reads the seed: a whole number, or x in (0,1) giving floor(x * 2^64). */
static int itg__parse_seed(itg__fp *fp, const char *opt, const char *w) {
  uint64_t u;
  double x;
  if (itg_parse_u64(w, 0, UINT64_MAX, &u) == 0) {
    fp->cfg.seed = u;
  } else if (itg_parse_double(w, &x) == 0 && x > 0 && x < 1) {
    fp->cfg.seed = (uint64_t)floor(ldexp(x, 64));
  } else {
    itg__err_set(fp->err, fp->errlen,
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
  if (itg_parse_host_port(w, c->recv_log_server, sizeof c->recv_log_server,
                          &c->recv_log_port) != 0) {
    itg__err_set(fp->err, fp->errlen, "%s: '%.64s' is not ADDR[:PORT]",
                      opt, w);
    return ITG_EINVAL;
  }
  if (next != NULL && (itg__word_eq(next, "TCP") || itg__word_eq(next, "UDP"))) {
    c->recv_log_transport =
        itg__word_eq(next, "UDP") ? ITG_LOG_UDP : ITG_LOG_TCP;
    fp->i++;
  }
  return 0;
}

/* Reads a word that is one of two (in any case): *second tells which. */
static int itg__either(itg__fp *fp, const char *opt, const char *w,
                       const char *first, const char *other, int *second) {
  if (!itg__word_eq(w, first) && !itg__word_eq(w, other)) {
    itg__err_set(fp->err, fp->errlen, "%s: expected %s or %s, got '%s'",
                      opt, first, other, w);
    return ITG_EINVAL;
  }
  *second = itg__word_eq(w, other);
  return 0;
}

/* --catchup law|skip|burst */
static int itg__parse_catchup(itg__fp *fp, const char *opt, const char *w) {
  static const itg_catchup policies[] = {ITG_CATCHUP_LAW, ITG_CATCHUP_SKIP,
                                         ITG_CATCHUP_BURST};
  size_t k;
  for (k = 0; k < ITG__COUNT(policies); k++)
    if (itg__word_eq(w, itg__catchup_name(policies[k]))) {
      fp->cfg.catchup = policies[k];
      return 0;
    }
  itg__err_set(fp->err, fp->errlen,
               "%s: expected law, skip or burst, got '%s'", opt, w);
  return ITG_EINVAL;
}

/* -T UDP|TCP|SCTP|DCCP|ICMP [type]: ICMP may be followed by D-ITG's
 * message type (a word that is not a number 0-255 is the next option). */
static int itg__parse_proto(itg__fp *fp, const char *opt, const char *w) {
  static const itg_proto protos[] = {ITG_PROTO_UDP, ITG_PROTO_TCP,
                                     ITG_PROTO_SCTP, ITG_PROTO_DCCP,
                                     ITG_PROTO_ICMP};
  uint64_t type;
  size_t k;
  for (k = 0; k < ITG__COUNT(protos); k++)
    if (itg__word_eq(w, itg_proto_name(protos[k])))
      break;
  if (k == ITG__COUNT(protos)) {
    itg__err_set(fp->err, fp->errlen,
                 "%s: expected UDP, TCP, SCTP, DCCP or ICMP, got '%s'", opt, w);
    return ITG_EINVAL;
  }
  fp->cfg.proto = protos[k];
  if (protos[k] == ITG_PROTO_ICMP && fp->i < fp->argc &&
      fp->argv[fp->i] != NULL &&
      itg_parse_u64(fp->argv[fp->i], 0, 255, &type) == 0) {
    fp->cfg.icmp_type = (int)type;
    fp->i++;
  }
  return 0;
}

/* Applies one option that is not a law. */
static int itg__parse_opt(itg__fp *fp, const itg__opt *o, const char *opt) {
  itg_flow_cfg *c = &fp->cfg;
  const char *w = NULL;
  uint64_t u;
  int rc, second;
  if (o->has_value) {
    rc = itg__value(fp, opt, &w);
    if (rc != 0)
      return rc;
  }
  switch (o->id) {
  case ITG__OPT_DST:
    if (*w == '\0') {
      itg__err_set(fp->err, fp->errlen, "%s: empty host", opt);
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
    return itg__parse_proto(fp, opt, w);
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
    rc = itg__either(fp, opt, w, "owdm", "rttm", &second);
    if (rc == 0)
      c->meter = second ? ITG_METER_RTT : ITG_METER_OWD;
    return rc;
  case ITG__OPT_WIRE:
    rc = itg__either(fp, opt, w, "native", "ditg", &second);
    if (rc == 0)
      c->wire = second ? ITG_WIRE_DITG : ITG_WIRE_NATIVE;
    return rc;
  case ITG__OPT_SMALL:
    rc = itg__either(fp, opt, w, "redraw", "ditg", &second);
    if (rc == 0)
      c->small = second ? ITG_SMALL_DITG : ITG_SMALL_REDRAW;
    return rc;
  case ITG__OPT_PAYLOAD_TYPE:
    rc = itg__whole(fp, opt, w, 0, 2, "0-2", &u);
    if (rc == 0)
      c->payload_type = (itg_payload_type)u;
    return rc;
  case ITG__OPT_PAYLOAD_FILE:
    if (*w == '\0') {
      itg__err_set(fp->err, fp->errlen, "%s: empty file name", opt);
      return ITG_EINVAL;
    }
    return itg__copy(fp, opt, w, c->payload_file, sizeof c->payload_file);
  case ITG__OPT_PEER:
    rc = itg__either(fp, opt, w, "libitg", "ditg", &second);
    if (rc == 0)
      c->peer = second ? ITG_PEER_DITG : ITG_PEER_LIBITG;
    if (rc == 0 && second)
      c->wire = ITG_WIRE_DITG; /* ITGRecv reads no other header */
    return rc;
  case ITG__OPT_ONOFF:
    return itg__parse_onoff(fp);
  case ITG__OPT_CATCHUP:
    return itg__parse_catchup(fp, opt, w);
  case ITG__OPT_MEAN_ADJUST:
    /* D-ITG's -j 1 (its default) pays a debt at once; its -j 0 keeps no
     * debt: each wait starts again from the previous packet, so a hold-up
     * delays every later packet and is never made up. SKIP drops the
     * debt as well, and keeps the schedule's instants. */
    rc = itg__either(fp, opt, w, "0", "1", &second);
    if (rc == 0)
      c->catchup = second ? ITG_CATCHUP_BURST : ITG_CATCHUP_SKIP;
    return rc;
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
    itg__err_set(fp->err, fp->errlen, "word %d is NULL", fp->i);
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
        (o->long_name != NULL && strcmp(w, o->long_name) == 0)) {
      fp->i++;
      return itg__parse_opt(fp, o, w);
    }
  }
  n = itg__preset_parse(fp->argc - fp->i, fp->argv + fp->i, &preset, fp->err,
                        fp->errlen);
  if (n < 0)
    return n;
  if (n == 0) {
    itg__err_set(fp->err, fp->errlen, "unknown option '%s'", w);
    return ITG_EINVAL;
  }
  if (fp->preset_by != NULL || fp->idt_by != NULL || fp->size_by != NULL) {
    itg__err_set(fp->err, fp->errlen,
                 "%s: the laws are already set by %s: a preset comes first, "
                 "the options refining it after it",
                 w, fp->preset_by != NULL ? fp->preset_by
                    : fp->idt_by != NULL ? fp->idt_by : fp->size_by);
    return ITG_EINVAL;
  }
  fp->preset_by = w;
  fp->i += n;
  fp->cfg.proto = preset.proto;
  fp->cfg.idt = preset.idt;
  fp->cfg.size = preset.size;
  fp->cfg.size_raised = 0;
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
    itg__err_set(err, errlen,
                      "an option sets a field this program's itg_flow_cfg "
                      "(%zu of %zu bytes) does not have: it was built "
                      "against an older libitg",
                      size, sizeof defaults);
    return ITG_EINVAL;
  }
  return itg__struct_out(cfg, size, c, sizeof *c);
}

int itg_flow_parse_args(itg_flow_cfg *cfg, int argc, const char *const *argv,
                        char *err, size_t errlen) {
  itg__fp fp;
  int rc;
  errlen = itg__err_begin(err, errlen);
  if (cfg == NULL || argc < 0 || (argc > 0 && argv == NULL)) {
    itg__err_set(err, errlen, "invalid arguments");
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
    size_t hdr = itg_flow_hdr_len(&fp.cfg);
    double nominal = fp.cfg.size.p[0] * fp.cfg.size.scale;
    if (nominal < (double)hdr) {
      fp.cfg.size_raised = (uint32_t)nominal;
      fp.cfg.size.p[0] = (double)hdr / fp.cfg.size.scale;
    }
  }
  return itg__flow_cfg_out(cfg, &fp.cfg, err, errlen);
}
