/* Checks of a flow's settings as the sender will use them (the rules are
 * listed at itg_flow_validate in itg/flow.h). */
#include "core/catchup.h"
#include "core/flow_internal.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/growable.h"
#include "core/payload.h"

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
    itg__err_set(err, errlen, "%s: trace file name is not terminated",
                      who);
    return ITG_EINVAL;
  }
  rc = itg_dist_read_file(s->file, &v, &n, &bad);
  switch (rc) {
  case 0:
    break;
  case ITG_ENOENT:
    itg__err_set(err, errlen, "%s: trace file '%s' does not exist", who,
                      s->file);
    return ITG_ENOENT;
  case ITG_EBADMSG:
    itg__err_set(err, errlen,
                      "%s: trace file '%s', line %zu: not a finite number (or "
                      "longer than %zu bytes)",
                      who, s->file, bad, ITG_DIST_LINE_MAX);
    return ITG_EINVAL;
  case ITG_ELIMIT:
    itg__err_set(err, errlen,
                      "%s: trace file '%s' holds more than %zu values", who,
                      s->file, ITG_DIST_TRACE_MAX);
    return ITG_EINVAL;
  case ITG_EINVAL:
    itg__err_set(err, errlen, "%s: trace file '%s' holds no value", who,
                      s->file);
    return ITG_EINVAL;
  default:
    itg__err_set(err, errlen, "%s: cannot read trace file '%s': %s", who,
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
    itg__err_set(err, errlen, "%s: unknown law %d", who, (int)s->kind);
    return ITG_EINVAL;
  }
  rc = itg_dist_new(s->kind, s->p, (size_t)n, 1, &d);
  if (rc != 0) {
    itg__flow_format_params(s, idt, params, sizeof params);
    if (rc == ITG_EINVAL)
      itg__err_set(err, errlen, "%s: invalid parameters for %s (%s)", who,
                        itg__flow_kind_name(s->kind), params);
    else
      itg__err_set(err, errlen, "%s: %s", who, itg_strerror(rc));
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
  case ITG_DIST_STUDENT:
  case ITG_DIST_CS_ACTIVE:
    *lo = -INFINITY;
    break;
  case ITG_DIST_PARETO:
    *lo = s->p[1];
    break;
  case ITG_DIST_TELNET:
    *lo = 21;
    *hi = 35;
    break;
  case ITG_DIST_CS_IDLE:
    *lo = 27;
    *hi = 35;
    break;
  default: /* exponential, Poisson, gamma, Weibull, lognormal, quake3 */
    break;
  }
  return 0;
}

int itg__flow_spec_check(const itg_dist_spec *s, int idt, double lo,
                         double hi, const char *who, char *err,
                         size_t errlen) {
  const char *unit = idt ? "s" : "B";
  double mean, slo, shi;
  int reaches, rc;
  if (!(isfinite(s->scale) && s->scale > 0)) {
    itg__err_set(err, errlen, "%s: scale %g is not > 0", who, s->scale);
    return ITG_EINVAL;
  }
  if (s->kind == ITG_DIST_EMPIRICAL) {
    rc = itg__trace_check(s, who, lo / s->scale, hi / s->scale, &reaches,
                          &mean, err, errlen);
    if (rc != 0)
      return rc;
    if (!reaches) {
      itg__err_set(err, errlen,
                   "%s: no value of trace file '%s' lies within [%g, %g] %s",
                        who, s->file, lo, hi, unit);
      return ITG_EINVAL;
    }
  } else {
    rc = itg__law_check(s, idt, who, &mean, &slo, &shi, err, errlen);
    if (rc != 0)
      return rc;
    if (slo == shi && (slo * s->scale < lo || slo * s->scale > hi)) {
      itg__err_set(err, errlen, "%s: %s %g %s is outside [%g, %g] %s", who,
                   idt ? "IDT" : "size", slo * s->scale, unit, lo, hi, unit);
      return ITG_EINVAL;
    }
    if (shi * s->scale < lo || slo * s->scale > hi) {
      itg__err_set(err, errlen,
                        "%s: %s draws only values outside [%g, %g] %s", who,
                        itg__flow_kind_name(s->kind), lo, hi, unit);
      return ITG_EINVAL;
    }
  }
  if (idt && isfinite(mean) && mean * s->scale < 1.0 / ITG_FLOW_RATE_MAX) {
    itg__err_set(err, errlen,
                 "%s: mean IDT %g s is below %g s (more than %g pkt/s)", who,
                 mean * s->scale, 1.0 / ITG_FLOW_RATE_MAX, ITG_FLOW_RATE_MAX);
    return ITG_EINVAL;
  }
  if (idt && isfinite(mean) && mean * s->scale > ITG_FLOW_IDT_MAX) {
    itg__err_set(err, errlen,
                 "%s: mean IDT %g s is above %g s (most draws would be cut)",
                      who, mean * s->scale, ITG_FLOW_IDT_MAX);
    return ITG_EINVAL;
  }
  return 0;
}

/* Reads a payload file (-Fp) to check it as the sender will read it. */
static int itg__payload_check(const char *path, char *err, size_t errlen) {
  uint8_t *buf;
  size_t len;
  int rc = itg__payload_read(path, &buf, &len);
  switch (rc) {
  case 0:
    free(buf);
    return 0;
  case ITG_EINVAL:
    itg__err_set(err, errlen, "-Fp: payload file '%s' is empty", path);
    return ITG_EINVAL;
  case ITG_ELIMIT:
    itg__err_set(err, errlen,
                 "-Fp: payload file '%s' is larger than %u bytes", path,
                 ITG_FLOW_PAYLOAD_MAX);
    return ITG_EINVAL;
  default:
    itg__err_set(err, errlen, "-Fp: cannot read payload file '%s': %s",
                 path, itg_strerror(rc));
    return rc;
  }
}

/* Checks the size law against the header of the flow's profile and
 * transport (hdr bytes). Sizes the native header cannot carry, but D-ITG's
 * smaller one can, are refused with a word on --wire ditg. */
static int itg__size_check(const itg_flow_cfg *cfg, size_t hdr, char *err,
                           size_t errlen) {
  const itg_dist_spec *size = &cfg->size;
  size_t ditg_hdr = itg_wire_hdr_len(ITG_WIRE_DITG, cfg->proto == ITG_PROTO_TCP);
  int rc;
  if (cfg->small == ITG_SMALL_DITG) /* every draw is sent, at a bound if
                                       outside */
    return itg__flow_spec_check(size, 0, -INFINITY, INFINITY, "size", err,
                                errlen);
  if (size->kind == ITG_DIST_CONSTANT && isfinite(size->scale) &&
      size->scale > 0) {
    double v = size->p[0] * size->scale;
    if (v < (double)hdr) {
      itg__err_set(err, errlen,
                   "size: constant %g B is smaller than the %zu-byte header "
                   "(%s wire over %s)%s",
                   v, hdr, cfg->wire == ITG_WIRE_DITG ? "ditg" : "native",
                   cfg->proto == ITG_PROTO_TCP ? "TCP" : "UDP",
                   cfg->wire == ITG_WIRE_NATIVE && v >= (double)ditg_hdr
                       ? ": --wire ditg (D-ITG's header, 16 B, 20 over TCP) "
                         "carries it"
                       : "");
      return ITG_EINVAL;
    }
    if (v > ITG_WIRE_MAX_PACKET) {
      itg__err_set(err, errlen, "size: constant %g B is larger than %u B",
                   v, ITG_WIRE_MAX_PACKET);
      return ITG_EINVAL;
    }
  }
  rc = itg__flow_spec_check(size, 0, (double)hdr, ITG_WIRE_MAX_PACKET, "size",
                            err, errlen);
  if (rc == ITG_EINVAL && cfg->wire == ITG_WIRE_NATIVE &&
      itg__flow_spec_check(size, 0, (double)ditg_hdr, ITG_WIRE_MAX_PACKET,
                           "size", NULL, 0) == 0) {
    size_t n = strlen(err != NULL ? err : "");
    if (n < errlen)
      snprintf(err + n, errlen - n,
               " (below the %zu-byte native header): --wire ditg (D-ITG's "
               "header, 16 B, 20 over TCP) carries its sizes",
               hdr);
  }
  return rc;
}

/* Checks that a string field ends within its array. */
static int itg__terminated(const char *s, size_t size, const char *what,
                           char *err, size_t errlen) {
  if (memchr(s, '\0', size) != NULL)
    return 0;
  itg__err_set(err, errlen, "%s is not terminated within %zu bytes", what,
                    size);
  return ITG_EINVAL;
}

int itg_flow_validate(const itg_flow_cfg *caller, char *err, size_t errlen) {
  itg_flow_cfg copy;
  const itg_flow_cfg *cfg = &copy;
  size_t hdr;
  int rc;
  errlen = itg__err_begin(err, errlen);
  if (caller == NULL) {
    itg__err_set(err, errlen, "no configuration");
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
                            "receiver log server", err, errlen)) != 0 ||
      (rc = itg__terminated(cfg->payload_file, sizeof cfg->payload_file,
                            "payload file name", err, errlen)) != 0)
    return rc;
  if (cfg->payload_file[0] != '\0' &&
      (rc = itg__payload_check(cfg->payload_file, err, errlen)) != 0)
    return rc;
  if (cfg->recv_log_server[0] != '\0' &&
      (cfg->recv_log_port == 0 ||
       (cfg->recv_log_transport != ITG_LOG_TCP &&
        cfg->recv_log_transport != ITG_LOG_UDP))) {
    itg__err_set(err, errlen, "receiver log server: %s",
                 cfg->recv_log_port == 0 ? "port 0 is out of range (1-65535)"
                      : "unknown transport");
    return ITG_EINVAL;
  }
  if (cfg->dst_host[0] == '\0') {
    itg__err_set(err, errlen, "no destination host");
    return ITG_EINVAL;
  }
  if (cfg->sig_port == 0) {
    itg__err_set(err, errlen,
                      "signaling port 0 is out of range (1-65535)");
    return ITG_EINVAL;
  }
  if (cfg->proto < ITG_PROTO_UDP || cfg->proto > ITG_PROTO_ICMP) {
    itg__err_set(err, errlen, "unknown transport %d", (int)cfg->proto);
    return ITG_EINVAL;
  }
  if (cfg->icmp_type < 0 || cfg->icmp_type > 255) {
    itg__err_set(err, errlen, "ICMP type %d is out of range (0-255)",
                 cfg->icmp_type);
    return ITG_EINVAL;
  }
  /* D-ITG takes -D on any flow and ignores it but over TCP: a flow
   * asked to send without Nagle's delay that cannot is refused instead. */
  if (cfg->nodelay && cfg->proto != ITG_PROTO_TCP) {
    itg__err_set(err, errlen,
                 "-D (TCP_NODELAY) is for TCP flows and this flow is %s "
                 "(-T): give -T TCP or drop -D", itg_proto_name(cfg->proto));
    return ITG_EINVAL;
  }
  if (cfg->meter != ITG_METER_OWD && cfg->meter != ITG_METER_RTT) {
    itg__err_set(err, errlen, "unknown meter %d", (int)cfg->meter);
    return ITG_EINVAL;
  }
  hdr = itg_wire_hdr_len(cfg->wire, cfg->proto == ITG_PROTO_TCP);
  if (hdr == 0) {
    itg__err_set(err, errlen, "unknown wire profile %d", (int)cfg->wire);
    return ITG_EINVAL;
  }
  if (itg__catchup_name(cfg->catchup) == NULL) {
    itg__err_set(err, errlen, "unknown catch-up policy %d",
                 (int)cfg->catchup);
    return ITG_EINVAL;
  }
  if (cfg->small != ITG_SMALL_REDRAW && cfg->small != ITG_SMALL_DITG) {
    itg__err_set(err, errlen, "unknown small rule %d", (int)cfg->small);
    return ITG_EINVAL;
  }
  if (cfg->peer != ITG_PEER_LIBITG && cfg->peer != ITG_PEER_DITG) {
    itg__err_set(err, errlen, "unknown peer %d", (int)cfg->peer);
    return ITG_EINVAL;
  }
  if (cfg->peer == ITG_PEER_DITG) {
    const char *why =
        cfg->wire != ITG_WIRE_DITG ? "takes only the ditg wire profile"
        /* D-ITG's log name fields hold 200 bytes, the NUL included */
        : strlen(cfg->recv_log) > 199
            ? "takes receiver log names (-x) of at most 199 bytes"
        /* ITGRecv keeps flow ids in an int and marks a free slot -1 */
        : cfg->flow_id > 2147483646u ? "takes flow ids up to 2147483646"
                                     : NULL;
    if (why != NULL) {
      itg__err_set(err, errlen, "a D-ITG receiver (--peer ditg) %s", why);
      return ITG_EINVAL;
    }
  }
  if (cfg->payload_type != ITG_PAYLOAD_FULL &&
      cfg->payload_type != ITG_PAYLOAD_SEQ &&
      cfg->payload_type != ITG_PAYLOAD_NONE) {
    itg__err_set(err, errlen, "unknown payload type %d",
                 (int)cfg->payload_type);
    return ITG_EINVAL;
  }
  if (cfg->payload_type != ITG_PAYLOAD_FULL) {
    const char *why =
        cfg->peer != ITG_PEER_DITG
            ? "goes to D-ITG's ITGRecv only (--peer ditg): libitg's "
              "receiver needs the whole header (flow id, sequence number "
              "and send time; native: its magic, length and token too)"
        : cfg->meter == ITG_METER_RTT
            ? "has no send time for a round trip to measure (-m rttm "
              "takes -p 0, as in D-ITG)"
            : NULL;
    if (why != NULL) {
      itg__err_set(err, errlen, "-p %d (%s) %s", (int)cfg->payload_type,
                   cfg->payload_type == ITG_PAYLOAD_SEQ
                       ? "flow id and sequence number only"
                       : "no header",
                   why);
      return ITG_EINVAL;
    }
  }
  if (cfg->tos < -1 || cfg->tos > 255) {
    itg__err_set(err, errlen, "DS byte %d is out of range (0-255, or -1)",
                      cfg->tos);
    return ITG_EINVAL;
  }
  if (cfg->ttl == 0 || cfg->ttl < -1 || cfg->ttl > 255) {
    itg__err_set(err, errlen, "TTL %d is out of range (1-255, or -1)",
                      cfg->ttl);
    return ITG_EINVAL;
  }
  if (cfg->duration_ns < 0 || cfg->start_delay_ns < 0) {
    itg__err_set(err, errlen, "negative %s",
                      cfg->duration_ns < 0 ? "duration" : "start delay");
    return ITG_EINVAL;
  }
  if (cfg->duration_ns == 0 && cfg->max_packets == 0 && cfg->max_bytes == 0) {
    itg__err_set(err, errlen,
                 "the flow has no end: give a duration (-t), a packet count "
                 "(-z) or a byte count (-k) above 0 (0 means no limit, for "
                      "each of the three)");
    return ITG_EINVAL;
  }
  rc = itg__flow_spec_check(&cfg->idt, 1, 0, ITG_FLOW_IDT_MAX, "IDT", err,
                            errlen);
  if (rc != 0)
    return rc;
  if (cfg->onoff &&
      ((rc = itg__flow_spec_check(&cfg->on, 1, 0, ITG_FLOW_IDT_MAX,
                                  "on period", err, errlen)) != 0 ||
       (rc = itg__flow_spec_check(&cfg->off, 1, 0, ITG_FLOW_IDT_MAX,
                                  "off period", err, errlen)) != 0))
    return rc;
  return itg__size_check(cfg, itg_flow_hdr_len(cfg), err, errlen);
}
