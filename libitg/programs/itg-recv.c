/* itg-recv: serves senders until SIGINT or SIGTERM, logging every packet
 * (D-ITG's ITGRecv). One line per flow set up, refused or ended on stderr,
 * the counters at exit. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
#include "programs/cli.h"
#include "programs/json.h"

static const char prog[] = "itg-recv";

static const char usage_text[] =
    "usage: itg-recv [-Sp PORT] [-a ADDR] [-i IFACE] [-Si IFACE] [-l FILE]\n"
    "                [--log-dir DIR] [-q D]\n"
    "                [--max-flows N] [--rcvbuf BYTES] [--cpu N]\n"
    "                [--log-servers LIST] [--allow-privileged-ports]\n"
    "                [--handshake MS] [--idle MS] [--peer-conns N]\n"
    "                [--interval SEC] [--json | --json-stream]\n"
    "                [--peer-flows N] [--fd-reserve N] [--echo-queue BYTES]\n"
    "                [-h|--help] [--version]\n";

static const char help_text[] =
    "\n"
    "Waits for senders on the signaling port and logs every packet of their\n"
    "flows, until SIGINT or SIGTERM (then flushes every log and exits 0).\n"
    "\n"
    "  -Sp PORT, --sig-port PORT  signaling port (default 9000; 0: one the\n"
    "                 system picks)\n"
    "  -a ADDR        address to listen on (default: every address, IPv4\n"
    "                 and IPv6)\n"
    "  -i IFACE, --iface IFACE  data ports take packets arriving on the\n"
    "                 network interface IFACE only (SO_BINDTODEVICE; Linux)\n"
    "  -Si IFACE, --sig-iface IFACE  the same for the signaling port\n"
    "  -l FILE        log of the flows that name no log of their own\n"
    "                 (default: none; those flows are only counted)\n"
    "  --log-dir DIR  where the logs that senders name (-x) are written\n"
    "                 (default: the current directory; it must exist).\n"
    "                 A name never reaches an existing file: a new file\n"
    "                 is made, NAME.1, NAME.2, ... when NAME exists\n"
    "  -q D           records per log write (default 64)\n"
    "  --max-flows N  flows served at once (default 1024)\n"
    "  --rcvbuf BYTES each data socket's receive buffer (default 33554432;\n"
    "                 more absorbs longer stalls at high rates)\n"
    "  --cpu N        pin the receiving thread to CPU N\n"
    "  --log-servers LIST  the log servers senders may have their flow's\n"
    "                 log shipped to (-X), besides loopback and the\n"
    "                 sender's own address: networks ADDR[/PREFIX]\n"
    "                 separated by commas, at most 16 (0.0.0.0/0,::/0\n"
    "                 for any); a flow naming another is refused\n"
    "  --allow-privileged-ports  let senders have data ports below 1024\n"
    "                 opened (refused by default)\n"
    "D-ITG's -H ADDR (passive mode: the receiver opens the signaling\n"
    "connection to a sender behind a NAT) and -n N (UDP packets sent first\n"
    "to open the NAT's path, with -H) are refused: itg-send does not take\n"
    "signaling connections.\n"
    "\n"
    "What one sender may hold, so that none locks the others out:\n"
    "  --handshake MS a signaling connection must open its flow, a TCP data\n"
    "                 connection send its first packet, within MS (default\n"
    "                 10000)\n"
    "  --idle MS      a signaling connection with no message and no packet\n"
    "                 of its flow for MS is closed, its flow ended, a\n"
    "                 sender's start delay (-d) included (default 600000;\n"
    "                 0: never)\n"
    "  --peer-conns N signaling connections from one address at once\n"
    "                 (default 256)\n"
    "  --peer-flows N flows from one address at once (default 256)\n"
    "  --fd-reserve N descriptors kept from connections and data ports\n"
    "                 (default 64): near the limit, a new connection closes\n"
    "                 the oldest one that has not opened its flow\n"
    "  --echo-queue BYTES  round trip over TCP: echo bytes held per flow\n"
    "                 while its sender does not read them; more are dropped\n"
    "                 and counted (default 65536)\n"
    "The limit on open descriptors is raised to the hard limit at start.\n"
    "\n"
    "Reports:\n"
    "  --interval SEC every SEC seconds (0.1 to 3600), a line per flow on\n"
    "                 what arrived since the last one: packets, kbit/s,\n"
    "                 lost, delay mean and p99, jitter (and the total of\n"
    "                 the flows). Without it, a terminal on stdout gets\n"
    "                 the total each second while packets arrive; 0: none\n"
    "                 (D-ITG's -i is the interface, as above)\n"
    "  --json         one JSON document on stdout, ended at exit: start\n"
    "                 (version, host, time, command line, ports), intervals\n"
    "                 (with --interval), end (each flow ended, the\n"
    "                 counters), errors (README: JSON output); the\n"
    "                 listening line goes to stderr\n"
    "  --json-stream  the same events as JSON lines, each as it happens;\n"
    "                 the start line, with the ports, replaces the\n"
    "                 listening line\n"
    "\n"
    "Once listening it prints one line on stdout, the port it bound:\n"
    "  itg-recv: listening sig=PORT\n";

/* The options that set a count, a time or a size of the configuration. */
static const struct bound_opt {
  const char *name;
  size_t off; /* of a uint32_t in itg_receiver_cfg */
  uint64_t min, max;
} bound_opts[] = {
    {"--handshake", offsetof(itg_receiver_cfg, handshake_ms), 1, 86400000},
    {"--idle", offsetof(itg_receiver_cfg, idle_ms), 0, 86400000},
    {"--peer-conns", offsetof(itg_receiver_cfg, max_peer_conns), 1, 1000000},
    {"--peer-flows", offsetof(itg_receiver_cfg, max_peer_flows), 1, 1000000},
    {"--fd-reserve", offsetof(itg_receiver_cfg, fd_reserve), 0, 1000000},
    {"--echo-queue", offsetof(itg_receiver_cfg, echo_queue), 0, 1u << 30},
};

/* Returns the entry of bound_opts named a, or NULL. */
static const struct bound_opt *bound_opt(const char *a) {
  size_t i;
  for (i = 0; i < sizeof bound_opts / sizeof bound_opts[0]; i++)
    if (strcmp(a, bound_opts[i].name) == 0)
      return &bound_opts[i];
  return NULL;
}

/* A flow that ended, for JSON's end. */
typedef struct ended_flow {
  uint32_t flow_id;
  itg_proto proto;
  itg_meter meter;
  uint16_t port;
  int sent_known;
  uint64_t packets, bytes, sent;
  uint64_t log_lost, log_spilled, log_missing, log_unconfirmed;
  char peer[ITG_HOST_MAX];
  char *log_spill; /* the spill file's name if log_spilled, else NULL */
} ended_flow;

#define ENDED_MAX 65536 /* flows JSON's end lists; more are counted */

/* The reports besides the summary: interval lines, JSON events, the
 * flows that ended. The receiver's thread writes `ended` (on_flow) until
 * it stops; the thread of main reads it after. */
static struct report {
  itg__json_run json;
  int argc;
  char **argv;
  int64_t every_ns; /* --interval; -1: not given */
  int per_flow;     /* a line per flow (--interval), else the total */
  int64_t t0, last; /* monotonic: listening since, the last report */
  itg_receiver_flow_live *live;
  size_t cap;
  ended_flow *ended;
  size_t nended, ended_cap;
  uint64_t ended_omitted;
} rep;

static void note_ended(const itg_flow_event *ev) {
  ended_flow *e;
  if (rep.json.mode == ITG__JSON_OFF)
    return;
  if (rep.nended == rep.ended_cap) {
    size_t cap = rep.ended_cap ? rep.ended_cap * 2 : 64;
    ended_flow *v = cap <= ENDED_MAX ? realloc(rep.ended, cap * sizeof *v)
                                     : NULL;
    if (v == NULL) {
      rep.ended_omitted++;
      return;
    }
    rep.ended = v;
    rep.ended_cap = cap;
  }
  e = &rep.ended[rep.nended++];
  e->flow_id = ev->flow_id;
  e->proto = ev->proto;
  e->meter = ev->meter;
  e->port = ev->port;
  e->sent_known = ev->sent_known;
  e->packets = ev->packets;
  e->bytes = ev->bytes;
  e->sent = ev->sent;
  e->log_lost = ev->log_lost;
  e->log_spilled = ev->log_spilled;
  e->log_missing = ev->log_missing;
  e->log_unconfirmed = ev->log_unconfirmed;
  memcpy(e->peer, ev->peer, sizeof e->peer);
  /* Held only where records were spilled: most flows have none, and up
   * to ENDED_MAX flows are kept. */
  e->log_spill = ev->log_spilled > 0 ? strdup(ev->log_spill) : NULL;
}

/* What arrived in one interval, of a flow or of all. */
typedef struct arrivals {
  uint64_t packets, bytes, lost;
  double delay_sum_ns, jitter_sum_ns, pps, kbps;
} arrivals;

static double loss_pct(const arrivals *a) {
  uint64_t due = a->packets + a->lost;
  return due ? 100.0 * (double)a->lost / (double)due : 0.0;
}

static void arrivals_json(itg__json *j, const itg_receiver_flow_live *f,
                          const arrivals *a) {
  itg__json_open(j, f != NULL ? NULL : "total", '{');
  if (f != NULL) {
    itg__json_u64(j, "flow", f->flow_id);
    itg__json_str(j, "peer", f->peer);
    itg__json_str(j, "proto", itg_proto_name(f->proto));
    itg__json_u64(j, "port", f->port);
    itg__json_u64(j, "ended", (uint64_t)f->ended);
    itg__json_num(j, "seconds", (double)f->int_ns / 1e9);
  }
  itg__json_u64(j, "packets", a->packets);
  itg__json_u64(j, "bytes", a->bytes);
  itg__json_num(j, "rate_pps", a->pps);
  itg__json_num(j, "bitrate_kbps", a->kbps);
  itg__json_u64(j, "lost", a->lost);
  itg__json_num(j, "loss_pct", loss_pct(a));
  itg__json_num(j, "delay_avg_s",
                a->packets ? a->delay_sum_ns / (double)a->packets / 1e9 : 0);
  if (f != NULL)
    itg__json_num(j, "delay_p99_s", (double)f->int_delay_p99_ns / 1e9);
  itg__json_num(j, "jitter_s",
                a->packets ? a->jitter_sum_ns / (double)a->packets / 1e9 : 0);
  itg__json_close(j);
}

static void arrivals_text(const char *who, const arrivals *a,
                          const itg_receiver_flow_live *f) {
  printf(" %s: %llu packets, %.1f kbit/s, lost %llu (%.2f %%), delay %.3f ms",
         who, (unsigned long long)a->packets, a->kbps,
         (unsigned long long)a->lost, loss_pct(a),
         a->packets ? a->delay_sum_ns / (double)a->packets / 1e6 : 0.0);
  if (f != NULL)
    printf(" (p99 %.3f ms)", (double)f->int_delay_p99_ns / 1e6);
  printf(", jitter %.3f ms%s\n",
         a->packets ? a->jitter_sum_ns / (double)a->packets / 1e6 : 0.0,
         f != NULL && f->ended ? " (ended)" : "");
}

/* Reports what arrived since the last report (each flow over its own
 * interval, int_ns). */
static void report_interval(void *server) {
  int64_t now = itg_clock_mono_ns();
  double from = (double)(rep.last - rep.t0) / 1e9;
  double to = (double)(now - rep.t0) / 1e9;
  arrivals total;
  itg__json *j = NULL;
  size_t count, n;
  char who[ITG_HOST_MAX + 32];
  if (itg_receiver_flows_live(server, rep.live, rep.cap, &count) != 0)
    return;
  n = count < rep.cap ? count : rep.cap;
  if (count > rep.cap) {
    /* The flows past cap kept their interval: the next report has them. */
    itg_receiver_flow_live *v = realloc(rep.live, count * sizeof *v);
    if (v != NULL) {
      rep.live = v;
      rep.cap = count;
    }
  }
  rep.last = now;
  memset(&total, 0, sizeof total);
  for (size_t i = 0; i < n; i++) {
    const itg_receiver_flow_live *f = &rep.live[i];
    total.packets += f->int_packets;
    total.lost += f->int_lost;
  }
  /* A terminal unasked sees the arrivals only, not an idle receiver. */
  if (n == 0 || (!rep.per_flow && rep.json.mode == ITG__JSON_OFF &&
                 total.packets + total.lost == 0))
    return;
  memset(&total, 0, sizeof total);
  if (rep.json.mode != ITG__JSON_OFF) {
    j = itg__json_event(&rep.json, "interval");
    itg__json_num(j, "start_s", from);
    itg__json_num(j, "end_s", to);
    itg__json_open(j, "flows", '[');
  }
  for (size_t i = 0; i < n; i++) {
    const itg_receiver_flow_live *f = &rep.live[i];
    double secs = (double)f->int_ns / 1e9;
    arrivals a;
    a.packets = f->int_packets;
    a.bytes = f->int_bytes;
    a.lost = f->int_lost;
    a.delay_sum_ns = f->int_delay_avg_ns * (double)f->int_packets;
    a.jitter_sum_ns = f->int_jitter_avg_ns * (double)f->int_packets;
    a.pps = secs > 0 ? (double)a.packets / secs : 0.0;
    a.kbps = secs > 0 ? (double)a.bytes * 8 / secs / 1e3 : 0.0;
    total.packets += a.packets;
    total.bytes += a.bytes;
    total.lost += a.lost;
    total.delay_sum_ns += a.delay_sum_ns;
    total.jitter_sum_ns += a.jitter_sum_ns;
    total.pps += a.pps;
    total.kbps += a.kbps;
    if (j != NULL) {
      arrivals_json(j, f, &a);
    } else if (rep.per_flow || n == 1) {
      snprintf(who, sizeof who, "flow %u from %s", f->flow_id, f->peer);
      printf("[%7.2f-%7.2f s]", from, to);
      arrivals_text(who, &a, f);
    }
  }
  if (j != NULL) {
    itg__json_close(j);
    arrivals_json(j, NULL, &total);
    itg__json_event_end(&rep.json);
  } else if (n > 1) {
    snprintf(who, sizeof who, "%zu flows", n);
    printf("[%7.2f-%7.2f s]", from, to);
    arrivals_text(who, &total, NULL);
  }
  fflush(stdout);
}

/* The start event, once listening: the ports bound (and the listening
 * line on stderr for a document, whose stdout is JSON alone). */
static void json_listening(void *server, const itg__cli_port *ports,
                           size_t n) {
  itg__json *j;
  (void)server;
  if (rep.json.mode == ITG__JSON_DOC) {
    fprintf(stderr, "%s: listening", prog);
    for (size_t i = 0; i < n; i++)
      fprintf(stderr, " %s=%u", ports[i].name, ports[i].port);
    fprintf(stderr, "\n");
  }
  j = itg__json_event(&rep.json, "start");
  itg__json_start(j, prog, rep.argc, rep.argv);
  itg__json_num(j, "interval_s", (double)rep.every_ns / 1e9);
  itg__json_open(j, "ports", '{');
  for (size_t i = 0; i < n; i++)
    itg__json_u64(j, ports[i].name, ports[i].port);
  itg__json_close(j);
  itg__json_event_end(&rep.json);
}

/* The end event: each flow that ended and the receiver's counters. */
static void json_end(const itg_receiver_stats *st) {
  itg__json *j = itg__json_event(&rep.json, "end");
  itg__json_open(j, "flows", '[');
  for (size_t i = 0; i < rep.nended; i++) {
    const ended_flow *e = &rep.ended[i];
    itg__json_open(j, NULL, '{');
    itg__json_u64(j, "flow", e->flow_id);
    itg__json_str(j, "peer", e->peer);
    itg__json_str(j, "proto", itg_proto_name(e->proto));
    itg__json_u64(j, "port", e->port);
    itg__json_str(j, "meter", itg_meter_name(e->meter));
    itg__json_u64(j, "packets", e->packets);
    itg__json_u64(j, "bytes", e->bytes);
    if (e->sent_known) {
      itg__json_u64(j, "sent", e->sent);
      itg__json_u64(j, "lost", e->sent > e->packets ? e->sent - e->packets
                                                    : 0);
    }
    itg__json_u64(j, "log_lost", e->log_lost);
    itg__json_u64(j, "log_spilled", e->log_spilled);
    if (e->log_spill != NULL)
      itg__json_str(j, "log_spill_file", e->log_spill);
    itg__json_u64(j, "log_missing", e->log_missing);
    itg__json_u64(j, "log_unconfirmed", e->log_unconfirmed);
    itg__json_close(j);
  }
  itg__json_close(j);
  if (rep.ended_omitted > 0)
    itg__json_u64(j, "flows_omitted", rep.ended_omitted);
  itg__json_open(j, "total", '{');
  itg__json_u64(j, "packets", st->packets);
  itg__json_u64(j, "bytes", st->bytes);
  itg__json_u64(j, "malformed", st->malformed);
  itg__json_u64(j, "flows_served", st->flows_served);
  itg__json_u64(j, "flows_refused", st->flows_refused);
  itg__json_u64(j, "echoes", st->echoes);
  itg__json_u64(j, "echoes_dropped", st->echoes_dropped);
  itg__json_u64(j, "conns_refused", st->conns_refused);
  itg__json_u64(j, "conns_expired", st->conns_expired);
  itg__json_close(j);
  itg__json_event_end(&rep.json);
}

static void on_flow(const itg_flow_event *ev, void *user) {
  (void)user;
  switch (ev->kind) {
  case ITG_FLOW_OPENED:
    fprintf(stderr, "%s: flow %u from %s: %s port %u%s open%s%s\n", prog,
            ev->flow_id, ev->peer, itg_proto_name(ev->proto), ev->port,
            ev->meter == ITG_METER_RTT ? " (round trip)" : "",
            ev->log_file[0] != '\0' ? ", log " : "", ev->log_file);
    if (ev->log_unreachable)
      fprintf(stderr, "%s: flow %u: the log server cannot be reached; its "
              "records go to the spill file %s until it can\n", prog,
              ev->flow_id, ev->log_spill);
    break;
  case ITG_FLOW_REFUSED:
    fprintf(stderr, "%s: flow %u from %s: refused: %s\n", prog, ev->flow_id,
            ev->peer, ev->message);
    break;
  case ITG_PEER_DROPPED:
    fprintf(stderr, "%s: connection from %s dropped: %s\n", prog, ev->peer,
            ev->message);
    break;
  case ITG_FLOW_ENDED:
    note_ended(ev);
    if (ev->sent_known)
      fprintf(stderr, "%s: flow %u from %s: %s port %u ended, %llu of %llu "
              "packets received\n", prog, ev->flow_id, ev->peer,
              itg_proto_name(ev->proto), ev->port,
              (unsigned long long)ev->packets,
              (unsigned long long)ev->sent);
    else
      fprintf(stderr, "%s: flow %u from %s: %s port %u ended (%s), %llu "
              "packets received\n", prog, ev->flow_id, ev->peer,
              itg_proto_name(ev->proto), ev->port,
              ev->message[0] != '\0' ? ev->message
                                     : "the sender left without saying",
              (unsigned long long)ev->packets);
    if (ev->log_spilled > 0)
      fprintf(stderr, "%s: flow %u: receiver log: %llu records went to the "
              "spill file %s (the log server could not take them)\n", prog,
              ev->flow_id, (unsigned long long)ev->log_spilled,
              ev->log_spill);
    if (ev->log_missing > 0)
      fprintf(stderr, "%s: flow %u: receiver log: %llu records lost on the "
              "way to the log server (UDP)\n", prog, ev->flow_id,
              (unsigned long long)ev->log_missing);
    if (ev->log_unconfirmed > 0)
      fprintf(stderr, "%s: flow %u: receiver log: the log server did not "
              "confirm the end of %llu session(s) (UDP): records it missed "
              "there are not counted\n", prog, ev->flow_id,
              (unsigned long long)ev->log_unconfirmed);
    if (ev->log_lost > 0)
      fprintf(stderr, "%s: flow %u: receiver log: %llu records lost so far "
              "(the log could not be written)\n", prog, ev->flow_id,
              (unsigned long long)ev->log_lost);
    break;
  }
}

/* Says at once that a log cannot be written (on that log's writer
 * thread); the exit status says it again. */
static void on_log_error(const itg_log_error *e, void *user) {
  (void)user;
  fprintf(stderr, "%s: cannot write the receiver log %s: %s: %llu records "
          "lost so far, and the records that follow are lost too\n", prog,
          e->path, itg_strerror(e->error), (unsigned long long)e->lost);
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, itg_receiver_cfg *cfg) {
  char msg[160];
  const char *v;
  int i, rc;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const struct bound_opt *b = bound_opt(a);
    uint64_t n;
    rc = itg__cli_info(prog, a, 1, usage_text, help_text);
    if (rc >= 0)
      return rc;
    if (b != NULL) {
      uint32_t u;
      rc = itg__cli_value(prog, usage_text, argc, argv, &i, &v);
      if (rc != 0)
        return rc;
      if (itg_parse_u64(v, b->min, b->max, &n) != 0) {
        snprintf(msg, sizeof msg, "%s: '%.64s' is not a number in %llu..%llu",
                 a, v, (unsigned long long)b->min,
                 (unsigned long long)b->max);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      u = (uint32_t)n;
      memcpy((char *)cfg + b->off, &u, sizeof u);
      continue;
    }
    if (strcmp(a, "--json") == 0 || strcmp(a, "--json-stream") == 0) {
      itg__json_run_init(&rep.json, a[6] == '\0' ? ITG__JSON_DOC
                                                  : ITG__JSON_STREAM);
      continue;
    }
    if (strcmp(a, "--interval") == 0) {
      rc = itg__cli_value(prog, usage_text, argc, argv, &i, &v);
      if (rc == 0)
        rc = itg__cli_interval(prog, usage_text, a, v, &rep.every_ns);
      if (rc != 0)
        return rc;
      continue;
    }
    if (strcmp(a, "-H") == 0 || strcmp(a, "-n") == 0) {
      snprintf(msg, sizeof msg,
               "%s: D-ITG's passive mode (the receiver connects to a sender "
               "behind a NAT) is not supported: itg-send does not take "
               "signaling connections", a);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
    if (strcmp(a, "-Sp") != 0 && strcmp(a, "--sig-port") != 0 &&
        strcmp(a, "-i") != 0 && strcmp(a, "--iface") != 0 &&
        strcmp(a, "-Si") != 0 && strcmp(a, "--sig-iface") != 0 &&
        strcmp(a, "-a") != 0 && strcmp(a, "-l") != 0 &&
        strcmp(a, "--log-dir") != 0 && strcmp(a, "-q") != 0 &&
        strcmp(a, "--max-flows") != 0 && strcmp(a, "--rcvbuf") != 0 &&
        strcmp(a, "--cpu") != 0 && strcmp(a, "--log-servers") != 0 &&
        strcmp(a, "--allow-privileged-ports") != 0) {
      snprintf(msg, sizeof msg, "unknown option '%.64s'", a);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
    if (strcmp(a, "--allow-privileged-ports") == 0) {
      cfg->allow_privileged_ports = 1;
      continue;
    }
    rc = itg__cli_value(prog, usage_text, argc, argv, &i, &v);
    if (rc != 0)
      return rc;
    if (strcmp(a, "-a") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->bind_host, sizeof cfg->bind_host);
    else if (strcmp(a, "-i") == 0 || strcmp(a, "--iface") == 0 ||
             strcmp(a, "-Si") == 0 || strcmp(a, "--sig-iface") == 0) {
      char *dst = strcmp(a, "-i") == 0 || strcmp(a, "--iface") == 0
                      ? cfg->data_iface
                      : cfg->sig_iface;
      if (v[0] == '\0') {
        snprintf(msg, sizeof msg, "%s: empty interface name", a);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      rc = itg__cli_copy_value(prog, usage_text, a, v, dst, ITG_IFACE_MAX);
    }
    else if (strcmp(a, "-l") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->log_path, sizeof cfg->log_path);
    else if (strcmp(a, "--log-dir") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->log_dir, sizeof cfg->log_dir);
    else if (strcmp(a, "--log-servers") == 0) {
      itg_logserver_net nets[ITG_LOGSERVER_MAX_NETS];
      uint32_t n_nets;
      char bad[64];
      rc = itg_logserver_net_list_parse(v, nets, ITG_LOGSERVER_MAX_NETS,
                                        &n_nets, bad, sizeof bad);
      if (rc == ITG_ELIMIT)
        snprintf(msg, sizeof msg, "--log-servers: more than %u networks",
                 (unsigned)ITG_LOGSERVER_MAX_NETS);
      else if (rc != 0)
        snprintf(msg, sizeof msg, "--log-servers: '%s' is not a network "
                 "(ADDR or ADDR/PREFIX)", bad);
      if (rc != 0)
        return itg__cli_bad_usage(prog, msg, usage_text);
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->log_servers,
                               sizeof cfg->log_servers);
    } else if (strcmp(a, "--cpu") == 0)
      rc = itg__cli_cpu(prog, usage_text, v, &cfg->cpu);
    else if (strcmp(a, "--rcvbuf") == 0) {
      int64_t bytes;
      if (itg_parse_i64(v, 4096, INT32_MAX, &bytes) != 0) {
        snprintf(msg, sizeof msg,
                 "--rcvbuf: '%.64s' is not a size in 4096..2147483647", v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      cfg->rcvbuf = (int)bytes;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--max-flows") == 0) {
      if (itg_parse_u64(v, 1, 1000000, &n) != 0) {
        snprintf(msg, sizeof msg, "%s: '%.64s' is not a count in 1..1000000",
                 a, v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      if (strcmp(a, "-q") == 0)
        cfg->log_batch = (uint32_t)n;
      else
        cfg->max_flows = (uint32_t)n;
    } else if (itg_parse_port(v, &cfg->sig_port) != 0) {
      snprintf(msg, sizeof msg, "%s: '%.64s' is not a port", a, v);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
    if (rc != 0)
      return rc;
  }
  return -1;
}

static int create(const void *cfg, void **server) {
  return itg_receiver_new(cfg, (itg_receiver **)server);
}

static void destroy(void *server) { itg_receiver_free(server); }

static int start(void *server) { return itg_receiver_start(server); }

static void start_failed(const void *c, int rc, char *msg, size_t len) {
  const itg_receiver_cfg *cfg = c;
  if (rc == ITG_ENOENT && itg_log_dir_check(cfg->log_dir) != 0)
    snprintf(msg, len, "--log-dir: '%.200s' is not a directory",
             cfg->log_dir);
  else if (cfg->sig_iface[0] != '\0')
    snprintf(msg, len, "cannot start on %.100s port %u, interface %s: %s",
             cfg->bind_host[0] ? cfg->bind_host : "every address",
             (unsigned)cfg->sig_port, cfg->sig_iface,
             rc == ITG_EADDR ? "no such interface" : itg_strerror(rc));
  else
    snprintf(msg, len, "cannot start on %.100s port %u: %s",
             cfg->bind_host[0] ? cfg->bind_host : "every address",
             (unsigned)cfg->sig_port, itg_strerror(rc));
}

static size_t ports(void *server, itg__cli_port *out) {
  out[0].name = "sig";
  out[0].port = itg_receiver_port(server);
  return 1;
}

static int stop(void *server) { return itg_receiver_stop(server); }

static int summary(void *server, int stop_rc) {
  itg_receiver_stats st;
  char msg[256];
  if (rep.every_ns > 0)
    report_interval(server);
  itg_receiver_get_stats(server, &st);
  fprintf(stderr, "%s: %llu packets, %llu bytes, %llu malformed, %llu flows "
          "served, %llu refused, %llu echoes\n", prog,
          (unsigned long long)st.packets, (unsigned long long)st.bytes,
          (unsigned long long)st.malformed,
          (unsigned long long)st.flows_served,
          (unsigned long long)st.flows_refused,
          (unsigned long long)st.echoes);
  if (st.echoes_dropped + st.conns_refused + st.conns_expired > 0)
    fprintf(stderr, "%s: %llu echoes dropped (their sender did not read "
            "them), %llu connections refused (limits), %llu closed (no flow "
            "in time, or idle)\n", prog,
            (unsigned long long)st.echoes_dropped,
            (unsigned long long)st.conns_refused,
            (unsigned long long)st.conns_expired);
  if (stop_rc < 0)
    snprintf(msg, sizeof msg, "writing a log failed: %s",
             itg_strerror(stop_rc));
  if (rep.json.mode != ITG__JSON_OFF)
    json_end(&st);
  if (stop_rc < 0)
    itg__json_run_say(&rep.json, prog, msg);
  itg__json_run_finish(&rep.json);
  return stop_rc < 0 ? ITG__CLI_EXIT_FAIL : ITG__CLI_EXIT_OK;
}

int main(int argc, char **argv) {
  itg__cli_daemon steps = {
      prog, create, destroy, start, start_failed, ports, stop, summary,
      NULL, NULL, 0,
  };
  itg_receiver_cfg cfg;
  int status;
  itg_receiver_cfg_init(&cfg);
  cfg.on_flow = on_flow;
  cfg.on_log_error = on_log_error;
  rep.argc = argc;
  rep.argv = argv;
  rep.every_ns = -1;
  status = parse_args(argc, argv, &cfg);
  if (status >= 0)
    return status;
  if (rep.every_ns < 0)
    rep.every_ns = rep.json.mode == ITG__JSON_OFF &&
                           itg__cli_stdout_is_terminal()
                       ? 1000000000
                       : 0;
  else
    rep.per_flow = rep.every_ns > 0;
  if (rep.json.mode != ITG__JSON_OFF)
    steps.listening = json_listening;
  if (rep.every_ns > 0) {
    cfg.live_stats = 1;
    steps.tick = report_interval;
    steps.tick_ns = rep.every_ns;
  }
  rep.live = calloc(16, sizeof *rep.live);
  rep.cap = rep.live != NULL ? 16 : 0;
  rep.t0 = rep.last = itg_clock_mono_ns();
  status = itg__cli_daemon_main(&steps, &cfg);
  free(rep.live);
  for (size_t i = 0; i < rep.nended; i++)
    free(rep.ended[i].log_spill);
  free(rep.ended);
  return status;
}
