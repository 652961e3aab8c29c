/* itg-send: sends flows to itg-recv (or any libitg receiver), with
 * D-ITG's options: one flow from the command line, or one flow per line of
 * a script file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "itg.h"
#include "programs/agent_cli.h"
#include "programs/cli.h"
#include "programs/json.h"

static const char prog[] = "itg-send";

static const char usage_text[] =
    "usage: itg-send [options] [flow options]\n"
    "       itg-send [options] -F script   (or: itg-send [options] script)\n"
    "       itg-send -Q|--daemon [agent options]   (the agent: itg-agent)\n"
    "options: -l FILE sender log, -L ADDR[:PORT] [TCP|UDP] log server,\n"
    "  --log-peer libitg|ditg, -q D records per log write,\n"
    "  -i SEC report interval, --json, --json-stream,\n"
    "  --wait hybrid|sleep|spin (-poll: spin), --start spread|together,\n"
    "  --cpu N, -h/--help, --version\n";

static const char help_text[] =
    "\n"
    "Sends one flow described by the flow options, or one flow per line of a\n"
    "script file ('#' starts a comment), and prints per flow what it sent.\n"
    "\n"
    "Options of itg-send itself:\n"
    "  -l FILE          log every packet sent (and every round trip) to FILE\n"
    "                   (default: no log)\n"
    "  -L ADDR[:PORT] [TCP|UDP]  ship the sender log to the log server\n"
    "                   itg-log at ADDR (port 9001, TCP by default) instead\n"
    "                   of a file; -l then names the log asked for. Records\n"
    "                   the server cannot take go to a spill file, named on\n"
    "                   stderr\n"
    "  --log-peer libitg|ditg  the -L server is itg-log (default) or D-ITG's\n"
    "                   ITGLog, spoken to in its protocol: ITGLog writes the\n"
    "                   packets sent into the file -l names (required; a\n"
    "                   path is ITGLog's), which ITGDec reads; nothing\n"
    "                   spills (ITGLog acknowledges nothing)\n"
    "  -q D             records per log write (default 64)\n"
    "  --wait MODE      how to wait between packets: hybrid (default: sleep,\n"
    "                   then spin the last microseconds), sleep, spin\n"
    "  -poll            the same as --wait spin (D-ITG's word)\n"
    "  --start MODE     flows of one start delay: spread (default: the k-th\n"
    "                   of n starts k/n of its mean IDT, at most 100 ms,\n"
    "                   later, so that they take turns) or together (all\n"
    "                   at once, in the order given)\n"
    "  --cpu N          pin the sending thread to CPU N\n"
    "  -F SCRIPT        read the flows from SCRIPT, one per line\n"
    "  -i SEC, --interval SEC  every SEC seconds (0.1 to 3600), a line per\n"
    "                   flow (and the total) on what it sent since the last\n"
    "                   one: packets, pkt/s, kbit/s, late. Without -i, a\n"
    "                   terminal on stdout gets the total each second;\n"
    "                   -i 0: none\n"
    "  --json           one JSON document on stdout instead of the text:\n"
    "                   start (version, host, time, command line, each\n"
    "                   flow), intervals (with -i), end (each flow and the\n"
    "                   total), errors (README: JSON output)\n"
    "  --json-stream    the same events as JSON lines, each as it happens\n"
    "  -Q, --daemon     (first word) run as the remote control agent, as\n"
    "                   itg-agent does, with its options: itg-send -Q --help\n"
    "  -h, --help       this help;  --version  the version\n"
    "\n"
    "Flow options (D-ITG's words; long forms in brackets):\n"
    "  -a host [--dst] -rp port [--dst-port] -Sdp port [--sig-port]\n"
    "  -sa host [--src] -sp port [--src-port] -T UDP|TCP [--proto] -D\n"
    "  -T ICMP [type]: ICMP messages of that type (default 8) carrying\n"
    "  the packet header, to itg-recv or ITGRecv (--peer ditg), IPv4,\n"
    "  one-way, as root (D-ITG's -T SCTP and DCCP are refused with the\n"
    "  reason: the kernel has no such protocol, or libitg does not send it)\n"
    "  IDT: -C rate | -U min max | -E rate | -O rate | -N mean std |\n"
    "       -V shape scale | -Y loc scale | -G shape scale | -W shape scale |\n"
    "       --idt-lognormal mu sigma | -Ft file   (rates in pkt/s, else ms)\n"
    "  size: -c | -u | -e | -o | -n | -v | -y | -g | -w | --size-lognormal |\n"
    "       -Fs file   (bytes)\n"
    "  -t ms [--duration] -z packets [--packets] -k KB [--kbytes] -d ms\n"
    "  [--delay] -s seed [--seed] -b DS [--tos] -f TTL [--ttl]\n"
    "  -m owdm|rttm [--meter] -x receiver-log [--recv-log] --wire native|ditg\n"
    "  -Fp file [--payload-file]: the bytes after each header, from file\n"
    "       (at most 1 MiB; on from packet to packet, the packet finding\n"
    "       fewer left padded with zeros, the next starting over)\n"
    "  -p 0|1|2 [--payload-type]: D-ITG's payload types: 0, the full\n"
    "       header (default); 1, flow id and sequence only (8 B, 12 over\n"
    "       TCP); 2, no header (sizes from 4 B). 1 and 2 go to ITGRecv\n"
    "       only (--peer ditg), without -m rttm\n"
    "  -X ADDR[:PORT] [TCP|UDP] [--recv-log-server]: the receiver ships this\n"
    "       flow's log to the log server at ADDR (port 9001, TCP), under the\n"
    "       -x name (or one the server picks)\n"
    "  --peer libitg|ditg: the receiver is itg-recv (default) or D-ITG's\n"
    "       ITGRecv, spoken to in D-ITG's signaling (implies --wire ditg;\n"
    "       -x names ITGRecv's log, -X has ITGRecv ship it to a D-ITG log\n"
    "       server, ITGLog or itg-log, on port 9001; ITGRecv tells no\n"
    "       received count, so read its log with ITGDec)\n"
    "  A flow ends at the first of -t (default 10000 ms), -z and -k it\n"
    "  reaches; 0 means no limit for each of them, and a flow left with no\n"
    "  limit at all is refused.\n"
    "  -B on-law values off-law values [--onoff]: on/off source, e.g.\n"
    "       -B C 1000 E 500 (on periods of 1000 ms, off periods exponential\n"
    "       of mean 500 ms); laws C U E O N V Y G W, values in ms\n"
    "  --catchup law|skip|burst: what the flow does with the departures it\n"
    "       owes after a hold-up (the machine busy, the sender stopped): law\n"
    "       (default) catches up at most 1.25 times its own pace, each owed\n"
    "       gap its drawn IDT times 0.8, the last 5 ms owed at most 25 us a\n"
    "       gap; skip drops them, sending the latest only; burst sends them\n"
    "       all at once. -j 1 (D-ITG's default) is burst, -j 0 skip. The\n"
    "       summary counts the departures moved (shifted) and dropped\n"
    "       (skipped)\n"
    "  presets (D-ITG 2.8.1's models): VoIP [-x codec] [-h RTP|CRTP] [-VAD]\n"
    "       (codecs G.711.1, the default, G.711.2, G.729.2, G.729.3,\n"
    "       G.723.1), Telnet, DNS, Quake3, CSa, CSi. Telnet's and CSi's\n"
    "       sizes, below the 36-byte native header, need --wire ditg (16 B,\n"
    "       20 over TCP); what the header does to a size law is said at\n"
    "       start\n"
    "  --small redraw|ditg: a size drawn below the header is drawn again\n"
    "       (redraw, the default: the law keeps its shape above the header)\n"
    "       or, as D-ITG does, sent at the header's length, every size cut\n"
    "       to whole bytes and to at most 64000 B (ditg: D-ITG's own sizes)\n"
    "  One IDT option and one size option a flow; a preset first, the\n"
    "  options refining it after it; -D with TCP only: a line breaking one\n"
    "  of these rules is refused, naming both options.\n"
    "\n"
    "What it prints per flow: packets, bytes and time; pkt/s and kbit/s;\n"
    "the seed; \"late N (mean, max)\": the packets that left more than 1 us\n"
    "after their scheduled time (they were sent: the wait between packets\n"
    "is a timer, and on a busy machine most departures miss their instant\n"
    "by a few microseconds; the mean and the max say whether that matters\n"
    "for the flow's rate); send errors; the receiver's count.\n"
    "\n"
    "Exit status: 0 if every flow succeeded, 1 if one failed, 2 for a usage\n"
    "error (nothing is sent then), 130 or 143 when SIGINT or SIGTERM\n"
    "stopped the flows early (what was sent is printed first).\n";

/* What the command line asks for, besides the flows. */
typedef struct options {
  itg_sender_cfg cfg;
  int64_t interval_ns; /* -i; -1: not given */
  int json;            /* ITG__JSON_OFF, _DOC (--json), _STREAM */
  const char *script;
  const char **words; /* flow options, in order */
  int nwords;
  int argc; /* the command line, for JSON's start */
  char **argv;
} options;

/* -L ADDR[:PORT] [TCP|UDP] ("[v6]:PORT" for an IPv6 address with a port).
 * Returns 0, or the usage exit status. */
static int parse_log_server(options *o, int argc, char **argv, int *i) {
  char msg[160];
  const char *v;
  int rc = itg__cli_value(prog, usage_text, argc, argv, i, &v);
  if (rc != 0)
    return rc;
  if (itg_parse_host_port(v, o->cfg.log_server, sizeof o->cfg.log_server,
                          &o->cfg.log_server_port) != 0) {
    snprintf(msg, sizeof msg, "-L: '%.64s' is not ADDR[:PORT]", v);
    return itg__cli_bad_usage(prog, msg, usage_text);
  }
  if (*i + 1 < argc && (strcasecmp(argv[*i + 1], "TCP") == 0 ||
                        strcasecmp(argv[*i + 1], "UDP") == 0)) {
    (*i)++;
    o->cfg.log_transport =
        strcasecmp(argv[*i], "UDP") == 0 ? ITG_LOG_UDP : ITG_LOG_TCP;
  }
  return 0;
}

static int parse_wait(const char *w, itg_wait_mode *out) {
  if (strcmp(w, "hybrid") == 0)
    *out = ITG_WAIT_HYBRID;
  else if (strcmp(w, "sleep") == 0)
    *out = ITG_WAIT_SLEEP;
  else if (strcmp(w, "spin") == 0)
    *out = ITG_WAIT_SPIN;
  else
    return -1;
  return 0;
}

static int parse_start(const char *w, itg_start_mode *out) {
  if (strcmp(w, "spread") == 0)
    *out = ITG_START_SPREAD;
  else if (strcmp(w, "together") == 0)
    *out = ITG_START_TOGETHER;
  else
    return -1;
  return 0;
}

/* -h is help, except as the VoIP preset's header option (-h RTP|CRTP). */
static int is_voip_header(int argc, char **argv, int i) {
  return strcmp(argv[i], "-h") == 0 && i + 1 < argc &&
         (strcasecmp(argv[i + 1], "RTP") == 0 ||
          strcasecmp(argv[i + 1], "CRTP") == 0);
}

/* Says at once that the sender log cannot be written (on the log's
 * writer thread); the exit status says it again. */
static void on_log_error(const itg_log_error *e, void *user) {
  (void)user;
  fprintf(stderr, "%s: cannot write the sender log %s: %s: %llu records "
          "lost so far, and the records that follow are lost too\n", prog,
          e->path, itg_strerror(e->error), (unsigned long long)e->lost);
}

/* Takes itg-send's own options out of argv; the rest are flow words.
 * Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o) {
  char msg[160];
  const char *v;
  int i, rc;
  itg_sender_cfg_init(&o->cfg);
  o->cfg.on_log_error = on_log_error;
  o->script = NULL;
  o->argc = argc;
  o->argv = argv;
  o->interval_ns = -1;
  o->json = ITG__JSON_OFF;
  o->nwords = 0;
  o->words = calloc((size_t)argc + 1, sizeof *o->words);
  if (o->words == NULL) {
    itg__cli_error(prog, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    rc = itg__cli_info(prog, a, !is_voip_header(argc, argv, i), usage_text,
                       help_text);
    if (rc >= 0)
      return rc;
    if (strcmp(a, "-poll") == 0) {
      o->cfg.wait = ITG_WAIT_SPIN;
      continue;
    }
    if (strcmp(a, "--json") == 0 || strcmp(a, "--json-stream") == 0) {
      o->json = a[6] == '\0' ? ITG__JSON_DOC : ITG__JSON_STREAM;
      continue;
    }
    if (strcmp(a, "-L") == 0) {
      rc = parse_log_server(o, argc, argv, &i);
      if (rc != 0)
        return rc;
      continue;
    }
    if (strcmp(a, "-l") != 0 && strcmp(a, "-q") != 0 &&
        strcmp(a, "--wait") != 0 && strcmp(a, "--cpu") != 0 &&
        strcmp(a, "--start") != 0 &&
        strcmp(a, "-F") != 0 && strcmp(a, "--log-peer") != 0 &&
        strcmp(a, "-i") != 0 && strcmp(a, "--interval") != 0) {
      o->words[o->nwords++] = a;
      continue;
    }
    rc = itg__cli_value(prog, usage_text, argc, argv, &i, &v);
    if (rc != 0)
      return rc;
    if (strcmp(a, "-l") == 0) {
      if (strlen(v) >= sizeof o->cfg.log_path)
        return itg__cli_bad_usage(prog, "-l: file name too long", usage_text);
      strcpy(o->cfg.log_path, v);
    } else if (strcmp(a, "-q") == 0) {
      uint64_t d;
      if (itg_parse_u64(v, 1, 1000000, &d) != 0) {
        snprintf(msg, sizeof msg, "-q: '%.64s' is not a count in 1..1000000",
                 v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      o->cfg.log_batch = (uint32_t)d;
    } else if (strcmp(a, "--wait") == 0) {
      if (parse_wait(v, &o->cfg.wait) != 0) {
        snprintf(msg, sizeof msg,
                 "--wait: '%.64s' is not hybrid, sleep or spin", v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
    } else if (strcmp(a, "--start") == 0) {
      if (parse_start(v, &o->cfg.start) != 0) {
        snprintf(msg, sizeof msg, "--start: '%.64s' is not spread or together",
                 v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
    } else if (strcmp(a, "--log-peer") == 0) {
      if (strcmp(v, "libitg") != 0 && strcmp(v, "ditg") != 0) {
        snprintf(msg, sizeof msg, "--log-peer: '%.64s' is not libitg or ditg",
                 v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      o->cfg.log_server_kind = strcmp(v, "ditg") == 0 ? ITG_LOG_SERVER_DITG
                                                      : ITG_LOG_SERVER_LIBITG;
    } else if (strcmp(a, "--cpu") == 0) {
      rc = itg__cli_cpu(prog, usage_text, v, &o->cfg.cpu);
      if (rc != 0)
        return rc;
    } else if (strcmp(a, "-i") == 0 || strcmp(a, "--interval") == 0) {
      rc = itg__cli_interval(prog, usage_text, a, v, &o->interval_ns);
      if (rc != 0)
        return rc;
    } else {
      o->script = v;
    }
  }
  /* D-ITG's script mode: a sole word naming a file. */
  if (o->script == NULL && o->nwords == 1 && o->words[0][0] != '-') {
    FILE *fp = fopen(o->words[0], "r");
    if (fp != NULL) {
      fclose(fp);
      o->script = o->words[0];
      o->nwords = 0;
    }
  }
  if (o->cfg.log_server_kind == ITG_LOG_SERVER_DITG &&
      (o->cfg.log_server[0] == '\0' || o->cfg.log_path[0] == '\0'))
    return itg__cli_bad_usage(prog,
                              "--log-peer ditg: -L names ITGLog and -l the "
                              "file it writes",
                              usage_text);
  if (o->script != NULL && o->nwords > 0)
    return itg__cli_bad_usage(prog,
                              "flow options go into the script's lines, not "
                              "next to -F",
                              usage_text);
  return -1;
}

/* A growing array of flows. */
typedef struct flows {
  itg_flow_cfg *v;
  size_t n, cap;
} flows;

static itg_flow_cfg *flows_add(flows *fl) {
  if (fl->n == fl->cap) {
    size_t cap = fl->cap ? fl->cap * 2 : 16;
    itg_flow_cfg *nv = realloc(fl->v, cap * sizeof *nv);
    if (nv == NULL)
      return NULL;
    fl->v = nv;
    fl->cap = cap;
  }
  itg_flow_cfg_init(&fl->v[fl->n]);
  return &fl->v[fl->n++];
}

/* Reads the script, one flow per line; any bad line is reported as
 * FILE:LINE and nothing is sent. Returns -1 to go on, or an exit status. */
static int read_script(const char *path, flows *fl) {
  char line[8192], err[256];
  unsigned lineno = 0;
  int status = -1;
  FILE *fp = fopen(path, "r");
  if (fp == NULL) {
    fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
    return ITG__CLI_EXIT_USAGE;
  }
  while (fgets(line, sizeof line, fp) != NULL) {
    itg_flow_cfg *c;
    size_t len = strlen(line);
    int rc;
    lineno++;
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(fp)) {
      fprintf(stderr, "%s: %s:%u: line too long\n", prog, path, lineno);
      status = ITG__CLI_EXIT_USAGE;
      break;
    }
    c = flows_add(fl);
    if (c == NULL) {
      itg__cli_error(prog, "out of memory");
      status = ITG__CLI_EXIT_FAIL;
      break;
    }
    err[0] = '\0';
    rc = itg_flow_parse_line(c, line, err, sizeof err);
    if (rc == 0) {
      fl->n--; /* blank or comment */
      continue;
    }
    if (rc > 0)
      rc = itg_flow_validate(c, err, sizeof err);
    if (rc < 0) {
      fprintf(stderr, "%s: %s:%u: %s\n", prog, path, lineno,
              err[0] ? err : itg_strerror(rc));
      status = ITG__CLI_EXIT_USAGE;
      break;
    }
  }
  if (status < 0 && ferror(fp)) {
    fprintf(stderr, "%s: %s: read error\n", prog, path);
    status = ITG__CLI_EXIT_FAIL;
  }
  fclose(fp);
  if (status < 0 && fl->n == 0) {
    fprintf(stderr, "%s: %s: no flow in the script\n", prog, path);
    status = ITG__CLI_EXIT_USAGE;
  }
  return status;
}

/* The one flow of the command line. */
static int flow_from_args(const options *o, flows *fl) {
  char err[256] = "";
  itg_flow_cfg *c = flows_add(fl);
  int rc;
  if (c == NULL) {
    itg__cli_error(prog, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  rc = itg_flow_parse_args(c, o->nwords, o->words, err, sizeof err);
  if (rc == 0)
    rc = itg_flow_validate(c, err, sizeof err);
  if (rc < 0)
    return itg__cli_bad_usage(prog, err[0] ? err : itg_strerror(rc),
                              usage_text);
  return -1;
}

/* A flow's send rates over its first to last departure, *dur seconds;
 * 0 with fewer than two packets. n packets span n - 1 inter-departure
 * times. */
static void flow_rates(const itg_flow_result *r, double *dur, double *pps,
                       double *kbps) {
  *dur = (double)(r->last_tx_ns - r->first_tx_ns) / 1e9;
  *pps = *kbps = 0.0;
  if (r->packets >= 2 && *dur > 0) {
    double gaps = (double)(r->packets - 1);
    *pps = gaps / *dur;
    *kbps = gaps / (double)r->packets * (double)r->bytes * 8 / *dur / 1e3;
  }
}

/* The mean lateness of `late` late departures totalling sum_ns, in us. */
static double late_mean_us(uint64_t late, int64_t sum_ns) {
  return late ? (double)sum_ns / (double)late / 1e3 : 0.0;
}

/* One line per flow: what it sent on stdout (unless text is 0: JSON
 * has it); a failure on stderr. */
static void print_result(const itg_flow_result *r, int text) {
  double dur, pps, kbps;
  double late_mean = late_mean_us(r->late, r->late_sum_ns);
  FILE *out = r->status == 0 ? stdout : stderr;
  flow_rates(r, &dur, &pps, &kbps);
  if ((r->packets > 0 || r->status == 0) && (text || r->status != 0)) {
    fprintf(out, "flow %u: %llu packets, %llu bytes in %.3f s", r->flow_id,
            (unsigned long long)r->packets, (unsigned long long)r->bytes,
            dur);
    if (pps > 0)
      fprintf(out, ": %.1f pkt/s, %.1f kbit/s", pps, kbps);
    fprintf(out, "; seed %llu; late %llu (mean %.1f us, max %.1f us)",
            (unsigned long long)r->seed, (unsigned long long)r->late,
            late_mean, (double)r->late_max_ns / 1e3);
    fprintf(out, "; send errors %llu", (unsigned long long)r->send_errors);
    if (r->shifted > 0 || r->skipped > 0)
      fprintf(out, "; catch-up shifted %llu, skipped %llu",
              (unsigned long long)r->shifted, (unsigned long long)r->skipped);
    if (r->echoes > 0)
      fprintf(out, "; echoes %llu", (unsigned long long)r->echoes);
    if (r->received > 0)
      fprintf(out, "; receiver got %llu", (unsigned long long)r->received);
    fputc('\n', out);
  }
  if (r->status != 0)
    fprintf(stderr, "%s: flow %u failed: %s (%s)\n", prog, r->flow_id,
            r->error[0] ? r->error : itg_strerror(r->status),
            itg_err_name(r->status));
}

/* What became of the sender log, read once at the end for both reports. */
typedef struct log_end {
  itg_logger_stats st;
  char spill[ITG_PATH_MAX]; /* the spill file's name */
} log_end;

/* Says on stderr, and in the JSON document's errors, what of the sender
 * log lg did not reach the log server: records in the spill file (and its
 * name), records lost over UDP, UDP sessions whose losses went uncounted;
 * and the records lost when the log (or the spill file) could not be
 * written. Returns 0, or -1 if the log failed. */
static int report_log(const options *o, const log_end *lg,
                      itg__json_run *json) {
  const itg_logger_stats *st = &lg->st;
  char msg[ITG_PATH_MAX + 160];
  if (st->error != 0) {
    snprintf(msg, sizeof msg, "sender log %s: %llu records lost: %s",
             o->cfg.log_server[0] != '\0' ? lg->spill : o->cfg.log_path,
             (unsigned long long)st->lost, itg_strerror(st->error));
    itg__json_run_say(json, prog, msg);
  }
  if (st->spilled > 0) {
    snprintf(msg, sizeof msg, "sender log: %llu records went to the spill "
             "file %s (the log server could not take them)",
             (unsigned long long)st->spilled, lg->spill);
    itg__json_run_say(json, prog, msg);
  }
  if (st->missing > 0) {
    snprintf(msg, sizeof msg, "sender log: %llu records lost on the way to "
             "the log server (UDP)", (unsigned long long)st->missing);
    itg__json_run_say(json, prog, msg);
  }
  if (st->unconfirmed > 0) {
    snprintf(msg, sizeof msg, "sender log: the log server did not confirm "
             "the end of %llu session(s) (UDP): records it missed there are "
             "not counted", (unsigned long long)st->unconfirmed);
    itg__json_run_say(json, prog, msg);
  }
  return st->error != 0 ? -1 : 0;
}

/* The run's reports besides the summary: interval lines on stdout, or
 * the JSON events. */
typedef struct reporter {
  itg_sender *s;
  const flows *fl;
  itg__json_run json;
  int64_t every_ns; /* 0: no intervals */
  int per_flow;     /* a line per flow (-i); else the total alone */
  int64_t t0, last; /* monotonic: the run's start, the last report */
  itg_flow_result *prev; /* each flow at the last report */
} reporter;

/* Sets up the reports -i, --json and a terminal ask for. Returns 0 or -1
 * (out of memory). */
static int reporter_init(reporter *rp, const options *o, const flows *fl,
                         itg_sender *s) {
  memset(rp, 0, sizeof *rp);
  rp->s = s;
  rp->fl = fl;
  itg__json_run_init(&rp->json, o->json);
  rp->per_flow = o->interval_ns > 0;
  if (o->interval_ns >= 0)
    rp->every_ns = o->interval_ns;
  else if (o->json == ITG__JSON_OFF && itg__cli_stdout_is_terminal())
    rp->every_ns = 1000000000; /* a person watches: show progress */
  rp->prev = calloc(fl->n, sizeof *rp->prev);
  return rp->prev == NULL ? -1 : 0;
}

static void json_flow_cfg(itg__json *j, const itg_flow_cfg *c,
                          const itg_flow_result *r) {
  char desc[512];
  itg_flow_describe(c, desc, sizeof desc);
  itg__json_open(j, NULL, '{');
  itg__json_u64(j, "flow", r->flow_id);
  itg__json_str(j, "description", desc);
  itg__json_str(j, "dst", c->dst_host);
  itg__json_u64(j, "dst_port", r->data_port ? r->data_port : c->dst_port);
  itg__json_u64(j, "sig_port", c->sig_port);
  itg__json_str(j, "proto", itg_proto_name(c->proto));
  itg__json_str(j, "meter", itg_meter_name(c->meter));
  itg__json_num(j, "duration_s", (double)c->duration_ns / 1e9);
  itg__json_u64(j, "max_packets", c->max_packets);
  itg__json_u64(j, "max_bytes", c->max_bytes);
  itg__json_num(j, "start_delay_s", (double)c->start_delay_ns / 1e9);
  itg__json_u64(j, "seed", r->seed);
  itg__json_close(j);
}

/* The start event, once the flows are set up (their ids, seeds and data
 * ports known). */
static void report_start(reporter *rp, int argc, char **argv) {
  itg__json *j;
  if (rp->json.mode == ITG__JSON_OFF)
    return;
  j = itg__json_event(&rp->json, "start");
  itg__json_start(j, prog, argc, argv);
  itg__json_num(j, "interval_s", (double)rp->every_ns / 1e9);
  itg__json_open(j, "flows", '[');
  for (size_t i = 0; i < rp->fl->n; i++) {
    itg_flow_result r;
    itg_sender_flow_result(rp->s, i, &r);
    json_flow_cfg(j, &rp->fl->v[i], &r);
  }
  itg__json_close(j);
  itg__json_event_end(&rp->json);
}

/* What one flow (or the total) sent in an interval of secs seconds. */
typedef struct span {
  uint64_t packets, bytes, late;
  int64_t late_sum_ns;
} span;

static void span_text(const char *who, const span *d, double secs) {
  printf(" %s: %llu packets, %.1f pkt/s, %.1f kbit/s, late %llu (mean "
         "%.1f us)\n", who, (unsigned long long)d->packets,
         (double)d->packets / secs, (double)d->bytes * 8 / secs / 1e3,
         (unsigned long long)d->late, late_mean_us(d->late, d->late_sum_ns));
}

static void span_json(itg__json *j, uint32_t flow, const span *d,
                      double secs) {
  itg__json_open(j, flow ? NULL : "total", '{');
  if (flow)
    itg__json_u64(j, "flow", flow);
  itg__json_u64(j, "packets", d->packets);
  itg__json_u64(j, "bytes", d->bytes);
  itg__json_num(j, "rate_pps", (double)d->packets / secs);
  itg__json_num(j, "bitrate_kbps", (double)d->bytes * 8 / secs / 1e3);
  itg__json_u64(j, "late", d->late);
  itg__json_num(j, "late_mean_s", late_mean_us(d->late, d->late_sum_ns) / 1e6);
  itg__json_close(j);
}

/* Reports what each flow sent since the last report, up to now. */
static void report_interval(reporter *rp, int64_t now) {
  double from = (double)(rp->last - rp->t0) / 1e9;
  double secs = (double)(now - rp->last) / 1e9;
  itg__json *j = NULL;
  span total = {0, 0, 0, 0};
  char who[32];
  if (secs <= 0)
    return;
  if (rp->json.mode != ITG__JSON_OFF) {
    j = itg__json_event(&rp->json, "interval");
    itg__json_num(j, "start_s", from);
    itg__json_num(j, "end_s", from + secs);
    itg__json_open(j, "flows", '[');
  }
  for (size_t i = 0; i < rp->fl->n; i++) {
    itg_flow_result r, *p = &rp->prev[i];
    span d;
    itg_sender_flow_result(rp->s, i, &r);
    d.packets = r.packets - p->packets;
    d.bytes = r.bytes - p->bytes;
    d.late = r.late - p->late;
    d.late_sum_ns = r.late_sum_ns - p->late_sum_ns;
    *p = r;
    total.packets += d.packets;
    total.bytes += d.bytes;
    total.late += d.late;
    total.late_sum_ns += d.late_sum_ns;
    if (j != NULL) {
      span_json(j, r.flow_id, &d, secs);
    } else if (rp->per_flow || rp->fl->n == 1) {
      snprintf(who, sizeof who, "flow %u", r.flow_id);
      printf("[%7.2f-%7.2f s]", from, from + secs);
      span_text(who, &d, secs);
    }
  }
  if (j != NULL) {
    itg__json_close(j);
    span_json(j, 0, &total, secs);
    itg__json_event_end(&rp->json);
  } else if (rp->fl->n > 1) {
    snprintf(who, sizeof who, "%zu flows", rp->fl->n);
    printf("[%7.2f-%7.2f s]", from, from + secs);
    span_text(who, &total, secs);
  }
  fflush(stdout);
  rp->last = now;
}

/* Waits for every flow to end, reporting each interval meanwhile (and
 * the part of one left at the end). Returns itg_sender_wait's result. */
static int wait_reporting(reporter *rp) {
  int rc;
  rp->t0 = rp->last = itg_clock_mono_ns();
  if (rp->every_ns == 0)
    return itg_sender_wait(rp->s, -1);
  for (;;) {
    int64_t now = itg_clock_mono_ns(), due = rp->last + rp->every_ns;
    rc = itg_sender_wait(rp->s, due > now ? due - now : 0);
    if (rc != ITG_ETIMEDOUT)
      break;
    report_interval(rp, itg_clock_mono_ns());
  }
  if (rc == 0)
    report_interval(rp, itg_clock_mono_ns());
  return rc;
}

/* The end event's "log", for a run with a sender log lg: what reached
 * the file or the log server, and what did not (report_log says the same
 * on stderr). */
static void json_log(itg__json *j, const log_end *lg,
                     const itg_sender_cfg *cfg) {
  const itg_logger_stats *st = &lg->st;
  itg__json_open(j, "log", '{');
  itg__json_str(j, "path", cfg->log_path);
  if (cfg->log_server[0] != '\0') {
    itg__json_str(j, "server", cfg->log_server);
    itg__json_u64(j, "server_port", cfg->log_server_port);
    itg__json_str(j, "transport",
                  cfg->log_transport == ITG_LOG_UDP ? "udp" : "tcp");
  }
  itg__json_u64(j, "records", st->records);
  itg__json_u64(j, "lost", st->lost);
  if (st->error != 0)
    itg__json_str(j, "error", itg_err_name(st->error));
  itg__json_u64(j, "spilled", st->spilled);
  if (st->spilled > 0)
    itg__json_str(j, "spill_file", lg->spill);
  itg__json_u64(j, "missing", st->missing);
  itg__json_u64(j, "unconfirmed", st->unconfirmed);
  itg__json_close(j);
}

/* The end event: each flow's result, the total, and the sender log lg
 * (NULL: the run had none). */
static void report_end(reporter *rp, const itg_sender_cfg *cfg,
                       const log_end *lg) {
  itg__json *j;
  uint64_t packets = 0, bytes = 0, late = 0, errors = 0, received = 0;
  unsigned failed = 0;
  if (rp->json.mode == ITG__JSON_OFF)
    return;
  j = itg__json_event(&rp->json, "end");
  itg__json_open(j, "flows", '[');
  for (size_t i = 0; i < rp->fl->n; i++) {
    itg_flow_result r;
    double dur, pps, kbps;
    itg_sender_flow_result(rp->s, i, &r);
    flow_rates(&r, &dur, &pps, &kbps);
    itg__json_open(j, NULL, '{');
    itg__json_u64(j, "flow", r.flow_id);
    itg__json_str(j, "status", r.status == 0 ? "ok" : itg_err_name(r.status));
    if (r.status != 0)
      itg__json_str(j, "error", r.error[0] ? r.error
                                           : itg_strerror(r.status));
    itg__json_u64(j, "seed", r.seed);
    itg__json_u64(j, "packets", r.packets);
    itg__json_u64(j, "bytes", r.bytes);
    itg__json_num(j, "duration_s", dur);
    itg__json_num(j, "rate_pps", pps);
    itg__json_num(j, "bitrate_kbps", kbps);
    itg__json_u64(j, "late", r.late);
    itg__json_num(j, "late_mean_s", late_mean_us(r.late, r.late_sum_ns) / 1e6);
    itg__json_num(j, "late_max_s", (double)r.late_max_ns / 1e9);
    itg__json_u64(j, "catchup_shifted", r.shifted);
    itg__json_u64(j, "catchup_skipped", r.skipped);
    itg__json_u64(j, "send_errors", r.send_errors);
    itg__json_u64(j, "echoes", r.echoes);
    itg__json_u64(j, "received", r.received);
    itg__json_u64(j, "data_port", r.data_port);
    itg__json_close(j);
    packets += r.packets;
    bytes += r.bytes;
    late += r.late;
    errors += r.send_errors;
    received += r.received;
    failed += r.status != 0;
  }
  itg__json_close(j);
  itg__json_open(j, "total", '{');
  itg__json_u64(j, "flows", rp->fl->n);
  itg__json_u64(j, "failed", failed);
  itg__json_u64(j, "packets", packets);
  itg__json_u64(j, "bytes", bytes);
  itg__json_u64(j, "late", late);
  itg__json_u64(j, "send_errors", errors);
  itg__json_u64(j, "received", received);
  itg__json_close(j);
  if (lg != NULL)
    json_log(j, lg, cfg);
  itg__json_event_end(&rp->json);
}

/* What a signal stops: the sender, and the signal is kept for the exit
 * status (read after itg__cli_sigwatch_stop joins the thread that wrote
 * it). */
typedef struct stop_watch {
  itg_sender *sender;
  int signum;
} stop_watch;

static void on_signal(void *user, int signum) {
  stop_watch *sw = user;
  if (sw->signum == 0)
    sw->signum = signum;
  itg_sender_stop(sw->sender);
}

/* Runs the flows and prints what each did. Returns the exit status. */
static int send_all(const options *o, const flows *fl) {
  itg__cli_sigwatch w;
  stop_watch sw = {NULL, 0};
  reporter rp;
  log_end lg;
  itg_sender *s;
  char msg[256], err[200];
  size_t i;
  int rc, status = ITG__CLI_EXIT_OK, watching, failed = 0, has_log;
  rc = itg_sender_new(&o->cfg, &s);
  if (rc < 0) {
    snprintf(msg, sizeof msg, "cannot create the sender: %s", itg_strerror(rc));
    itg__cli_error(prog, msg);
    return ITG__CLI_EXIT_FAIL;
  }
  for (i = 0; i < fl->n; i++) {
    rc = itg_sender_add_flow(s, &fl->v[i], err, sizeof err);
    if (rc < 0) {
      snprintf(msg, sizeof msg, "flow %zu: %s", i + 1, err);
      itg_sender_free(s);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
  }
  if (reporter_init(&rp, o, fl, s) != 0) {
    itg__cli_error(prog, "out of memory");
    free(rp.prev);
    itg_sender_free(s);
    return ITG__CLI_EXIT_FAIL;
  }
  /* A size law the header cuts is said before anything is sent. */
  for (i = 0; i < fl->n; i++) {
    char note[400];
    itg_flow_size_note(&fl->v[i], note, sizeof note);
    if (note[0] != '\0')
      fprintf(stderr, "%s: flow %zu: %s\n", prog, i + 1, note);
  }
  sw.sender = s;
  watching = itg__cli_sigwatch_start(&w, on_signal, &sw) == 0;
  rc = itg_sender_start(s);
  for (i = 0; i < fl->n; i++) {
    itg_flow_result r;
    if (itg_sender_flow_result(s, i, &r) == 0 && r.receiver_note[0] != '\0')
      fprintf(stderr, "%s: flow %u: the receiver says: %s\n", prog,
              r.flow_id, r.receiver_note);
  }
  report_start(&rp, o->argc, o->argv);
  if (wait_reporting(&rp) == ITG_ESTATE) {
    /* Nothing was sent: the sender log (if any) could not be opened. */
    if (o->cfg.log_path[0] != '\0')
      snprintf(msg, sizeof msg, "cannot open the sender log '%.200s': %s",
               o->cfg.log_path, itg_strerror(rc));
    else
      snprintf(msg, sizeof msg, "cannot start: %s", itg_strerror(rc));
    itg__json_run_say(&rp.json, prog, msg);
    status = ITG__CLI_EXIT_FAIL;
  }
  if (watching)
    itg__cli_sigwatch_stop(&w);
  for (i = 0; status == ITG__CLI_EXIT_OK && i < fl->n; i++) {
    itg_flow_result r;
    itg_sender_flow_result(s, i, &r);
    print_result(&r, rp.json.mode == ITG__JSON_OFF);
    if (r.status != 0) {
      snprintf(msg, sizeof msg, "flow %u failed: %s (%s)", r.flow_id,
               r.error[0] ? r.error : itg_strerror(r.status),
               itg_err_name(r.status));
      itg__json_run_error(&rp.json, msg);
      failed = 1;
    }
  }
  has_log = itg_sender_log_stats(s, &lg.st, lg.spill, sizeof lg.spill) == 0;
  report_end(&rp, &o->cfg, has_log ? &lg : NULL);
  if ((has_log && report_log(o, &lg, &rp.json) != 0) || failed)
    status = ITG__CLI_EXIT_FAIL;
  itg_sender_free(s);
  /* A run cut short by a signal did not send what was asked: the shell's
   * convention, 128 + the signal, tells scripts so after the counts. */
  if (sw.signum != 0) {
    snprintf(msg, sizeof msg, "stopped by %s before the flows' end",
             sw.signum == SIGINT ? "SIGINT" : "SIGTERM");
    itg__json_run_error(&rp.json, msg);
    fflush(stdout);
    itg__cli_error(prog, msg);
    status = 128 + sw.signum;
  }
  itg__json_run_finish(&rp.json);
  free(rp.prev);
  return status;
}

int main(int argc, char **argv) {
  options o;
  flows fl = {NULL, 0, 0};
  int status;
  /* D-ITG's daemon mode: the agent, its options after the word. */
  if (argc > 1 && (strcmp(argv[1], "-Q") == 0 ||
                   strcmp(argv[1], "--daemon") == 0)) {
    argv[1] = argv[0];
    return itg__agent_cli_main("itg-send --daemon", argc - 1, argv + 1);
  }
  status = parse_args(argc, argv, &o);
  if (status < 0)
    status = o.script != NULL ? read_script(o.script, &fl)
                              : flow_from_args(&o, &fl);
  if (status < 0)
    status = send_all(&o, &fl);
  free(fl.v);
  free(o.words);
  return status;
}
