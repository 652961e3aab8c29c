/* The text of a flow: its description, and the pieces of it that the
 * option and check messages share. */
#include "core/catchup.h"
#include "core/flow_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/growable.h"

const char *itg__flow_kind_name(itg_dist_kind kind) {
  const char *name = itg_dist_kind_name(kind);
  return name != NULL ? name : "unknown law";
}

void itg__flow_unit_text(const itg_dist_spec *s, int idt, char *buf,
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

void itg__flow_format_params(const itg_dist_spec *s, int idt, char *buf,
                             size_t len) {
  char unit[32];
  int n = itg_dist_kind_nparams(s->kind);
  itg__flow_unit_text(s, idt, unit, sizeof unit);
  if (n == 1)
    snprintf(buf, len, "%g %s", s->p[0], unit);
  else if (n == 2)
    snprintf(buf, len, "%g, %g %s", s->p[0], s->p[1], unit);
  else if (n == 3)
    snprintf(buf, len, "%g, %g, %g %s", s->p[0], s->p[1], s->p[2], unit);
  else
    snprintf(buf, len, "%s", unit);
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
    itg__flow_unit_text(s, idt, params, sizeof params);
    itg__cat(buf, len, pos, "trace(%.*s, %s)", (int)sizeof s->file, s->file,
             params);
    return;
  }
  itg__flow_format_params(s, idt, params, sizeof params);
  itg__cat(buf, len, pos, "%s(%s)", itg__flow_kind_name(s->kind), params);
}

const char *itg_proto_name(itg_proto proto) {
  switch (proto) {
  case ITG_PROTO_UDP:
    return "UDP";
  case ITG_PROTO_TCP:
    return "TCP";
  case ITG_PROTO_SCTP:
    return "SCTP";
  case ITG_PROTO_DCCP:
    return "DCCP";
  case ITG_PROTO_ICMP:
    return "ICMP";
  }
  return "unknown";
}

/* The share of a size law's draws below hdr bytes, NaN if the law cannot
 * be made (a trace file that cannot be read). */
static double itg__size_below(const itg_dist_spec *s, size_t hdr) {
  itg_dist *d;
  double share;
  if (!(isfinite(s->scale) && s->scale > 0) ||
      itg_dist_spec_make(s, 1, &d) != 0)
    return NAN;
  share = itg_dist_below(d, (double)hdr / s->scale);
  itg_dist_free(d);
  return share;
}

/* Draws below this share are not worth a word: a normal law's tail many
 * standard deviations away. */
#define ITG__NOTE_MIN_SHARE 1e-6

/* Appends the size note (itg_flow_size_note) of cfg, known to be read. */
static double itg__cat_size_note(const itg_flow_cfg *cfg, char *buf,
                                 size_t len, size_t *pos) {
  int tcp = cfg->proto == ITG_PROTO_TCP;
  size_t hdr = itg_flow_hdr_len(cfg);
  size_t ditg = itg_wire_hdr_len(ITG_WIRE_DITG, tcp);
  const char *wire = cfg->wire == ITG_WIRE_DITG ? "ditg" : "native";
  int small = cfg->small == ITG_SMALL_DITG;
  double share, ditg_share;
  if (hdr == 0)
    return NAN;
  if (cfg->size_raised != 0 && cfg->size.kind == ITG_DIST_CONSTANT) {
    itg__cat(buf, len, pos,
             "size: the preset's %u-byte packets are sent at %g B, the %s "
             "header's length",
             (unsigned)cfg->size_raised, cfg->size.p[0] * cfg->size.scale,
             wire);
    if (cfg->wire == ITG_WIRE_DITG || cfg->size_raised < ditg)
      itg__cat(buf, len, pos, "; D-ITG sends them at %zu B", ditg);
    else
      itg__cat(buf, len, pos,
               "; --wire ditg (D-ITG's %zu-byte header) sends them as they "
               "are",
               ditg);
    return 1;
  }
  share = itg__size_below(&cfg->size, hdr);
  if (!(share >= ITG__NOTE_MIN_SHARE))
    return share;
  itg__cat(buf, len, pos, "size: ");
  if (share >= 1) {
    itg__cat(buf, len, pos, "every draw of ");
    itg__cat_law(buf, len, pos, &cfg->size, 0);
    itg__cat(buf, len, pos, " falls below the %zu-byte %s header: ", hdr,
             wire);
    if (small)
      itg__cat(buf, len, pos, "every packet is sent at %zu B (--small ditg)",
               hdr);
    else
      itg__cat(buf, len, pos, "the flow is refused");
  } else {
    itg__cat(buf, len, pos, "%.3g %% of the draws of ", share * 100);
    itg__cat_law(buf, len, pos, &cfg->size, 0);
    itg__cat(buf, len, pos, " fall below the %zu-byte %s header and ", hdr,
             wire);
    if (small)
      itg__cat(buf, len, pos,
               "are sent at %zu B (--small ditg, D-ITG's rule: they pile up "
               "there, the mean moves up)",
               hdr);
    else
      itg__cat(buf, len, pos,
               "are drawn again (the law is cut there, its mean moves up)");
  }
  if (cfg->wire == ITG_WIRE_DITG) {
    if (!small)
      itg__cat(buf, len, pos,
               "; D-ITG would send them at %zu B (--small ditg does so)",
               hdr);
  } else {
    ditg_share = itg__size_below(&cfg->size, ditg);
    itg__cat(buf, len, pos,
             "; --wire ditg (D-ITG's %zu-byte header) lowers that to %.3g %%",
             ditg, ditg_share * 100);
  }
  return share;
}

double itg_flow_size_note(const itg_flow_cfg *caller, char *buf, size_t len) {
  itg_flow_cfg copy;
  char scratch[1];
  size_t pos = 0;
  if (buf == NULL || len == 0) {
    buf = scratch;
    len = sizeof scratch;
  }
  buf[0] = '\0';
  if (caller == NULL || ITG__CFG_IN(&copy, caller, itg_flow_cfg, NULL, 0) != 0)
    return NAN;
  return itg__cat_size_note(&copy, buf, len, &pos);
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
           itg_proto_name(cfg->proto), host_len,
           cfg->dst_host, (unsigned)cfg->dst_port);
  itg__cat_law(buf, len, &pos, &cfg->idt, 1);
  itg__cat(buf, len, &pos, " size ");
  itg__cat_law(buf, len, &pos, &cfg->size, 0);
  if (cfg->onoff) {
    itg__cat(buf, len, &pos, " on ");
    itg__cat_law(buf, len, &pos, &cfg->on, 1);
    itg__cat(buf, len, &pos, " off ");
    itg__cat_law(buf, len, &pos, &cfg->off, 1);
  }
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
  if (cfg->proto == ITG_PROTO_ICMP)
    itg__cat(buf, len, &pos, " icmp-type %d", cfg->icmp_type);
  if (cfg->nodelay && cfg->proto == ITG_PROTO_TCP)
    itg__cat(buf, len, &pos, " nodelay");
  if (cfg->meter == ITG_METER_RTT)
    itg__cat(buf, len, &pos, " round-trip");
  if (cfg->wire == ITG_WIRE_DITG)
    itg__cat(buf, len, &pos, " wire ditg");
  if (cfg->peer == ITG_PEER_DITG)
    itg__cat(buf, len, &pos, " peer ditg");
  if (cfg->catchup != ITG_CATCHUP_LAW && itg__catchup_name(cfg->catchup))
    itg__cat(buf, len, &pos, " catchup %s", itg__catchup_name(cfg->catchup));
  if (cfg->small == ITG_SMALL_DITG)
    itg__cat(buf, len, &pos, " small ditg");
  if (cfg->payload_type != ITG_PAYLOAD_FULL)
    itg__cat(buf, len, &pos, " payload-type %d", (int)cfg->payload_type);
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
  if (cfg->payload_file[0] != '\0')
    itg__cat(buf, len, &pos, " payload %.*s", (int)sizeof cfg->payload_file,
             cfg->payload_file);
  {
    size_t mark = pos;
    itg__cat(buf, len, &pos, "; ");
    if (!(itg__cat_size_note(cfg, buf, len, &pos) >= ITG__NOTE_MIN_SHARE)) {
      pos = mark;
      if (pos < len)
        buf[pos] = '\0';
    }
  }
}
