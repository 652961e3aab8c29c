/* itg-dec: decodes libitg log files, and D-ITG's, into QoS statistics, as
 * D-ITG's ITGDec does for its logs, taking ITGDec's options: a summary
 * per flow and in total, or a JSON report; the decoded log in ITGDec's
 * text and Octave formats, per flow, combined with a sender's log;
 * interval series in ITGDec's files or as CSV; and the records as a D-ITG
 * log for ITGDec. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
#include "programs/cli.h"
#include "programs/ditg_out.h"
#include "programs/json.h"
#include "programs/report.h"

#define PROG "itg-dec"
#define EXIT_DAMAGED 3 /* a log was cut short or corrupt */

#define CSV_CHUNK 4096 /* intervals formatted at a time */
#define PLOT_SERIES 4  /* --plot's: delay, jitter, bitrate, loss */
#define MAX_SERIES (5 + PLOT_SERIES) /* -d, -j, -b, -p, -c and --plot's */
#define DAY_NS (INT64_C(86400) * 1000000000)

static const char usage_text[] =
    "usage: itg-dec [options] LOG...\n"
    "\n"
    "Reads libitg log files (sender and receiver logs of the same flows\n"
    "merge) and D-ITG's binary and text logs (ITGRecv -l, ITGSend -x,\n"
    "ITGDec -l; each told by its content), and prints QoS statistics per\n"
    "flow and in total. It takes D-ITG's ITGDec options with their meaning\n"
    "and output formats; a D-ITG log's addresses and ports are kept, a\n"
    "libitg log's (which libitg does not log) are written 0.0.0.0 and 0.\n"
    "\n"
    "  -v          print the summary (the default when no other output\n"
    "              below but --export-ditg is asked for, as ITGDec)\n"
    "  --json      print the report as one JSON document instead of the\n"
    "              summary: start (version, host, time, command line, the\n"
    "              logs), end (the report: each flow, the totals) and\n"
    "              errors (a log cut short, a damaged block: what standard\n"
    "              error says), as itg-send's and itg-recv's (README: JSON\n"
    "              output)\n"
    "  -l FILE     write the decoded log to FILE in ITGDec's text format\n"
    "  -o FILE     write the decoded log to FILE for Octave/Matlab, as\n"
    "              ITGDec: seq, send h m s, receive h m s, size per line\n"
    "  -t          the logs are D-ITG text logs (checked: the format is\n"
    "              told by the content anyway)\n"
    "  -s [SUFFIX] write each flow's packets to a D-ITG binary log of its\n"
    "              own, named as ITGDec names it: ID-SRC-DST.SUFFIX.dat\n"
    "              (SUFFIX: log by default)\n"
    "  -r SENDERLOG [FILE]\n"
    "              ITGDec's combined log: each packet with the send time\n"
    "              the sender's log SENDERLOG (D-ITG's or libitg's) holds\n"
    "              for its flow and sequence number, written to FILE as a\n"
    "              D-ITG binary log (reconstructed.dat by default, the name\n"
    "              ITGDec uses) and counted so; a packet the sender's log\n"
    "              lacks is an error\n"
    "  -P          print each packet's size on standard output\n"
    "  -I          print on standard output the time between each\n"
    "              packet's receive time and the previous one's, in s\n"
    "  -x [NAME]   write each packet's delay, in s, to eachdelay.dat and\n"
    "              the difference of each delay from the previous\n"
    "              packet's to eachjitter.dat (eachdelay_NAME.dat and\n"
    "              eachjitter_NAME.dat with NAME), as ITGDec\n"
    "  -i          print no summary (unless -v), as ITGDec; -w is taken\n"
    "              and does nothing, as in ITGDec\n"
    "  -f N        count only flows numbered N or less (-l, -o, -P, -I\n"
    "              and -r still write every packet, as ITGDec)\n"
    "  -f t        count every packet as one flow, 1 (127.0.0.1:9999 to\n"
    "              127.0.0.1:8999, ITGDec's name for it)\n"
    "  -d T [FILE] mean delay per interval of T milliseconds, in s\n"
    "              (delay.dat)\n"
    "  -j T [FILE] mean jitter per interval, in s (jitter.dat)\n"
    "  -b T [FILE] bitrate per interval, in kbit/s (bitrate.dat)\n"
    "  -p T [FILE] packets lost per interval (packetloss.dat)\n"
    "  -c T [FILE] all four, summed over the flows (combined_stats.dat)\n"
    "              The series files are ITGDec's: a header \"Time FLOW...\n"
    "              Aggregate-Flow\" (none for -c), then per interval its\n"
    "              start in s, each flow's value and their sum. Each\n"
    "              series option may come once; any of them together\n"
    "  --csv FILE  write the series (one series option) as CSV to FILE\n"
    "  --plot DIR  draw PNGs into the directory DIR with gnuplot: delay,\n"
    "              jitter, bitrate and loss per interval (delay.png,\n"
    "              jitter.png, bitrate.png, loss.png: a line per flow and\n"
    "              the total) and the delays' distribution over every\n"
    "              packet (delay_hist.png); the numbers drawn are the CSV\n"
    "              files beside them (the series of --csv, delays.csv the\n"
    "              packets' delays)\n"
    "  --plot-interval MS  their interval (default 1000)\n"
    "              instead (- for standard output): a column per flow and\n"
    "              the total, or for -c a row per flow and interval\n"
    "              A FILE or SUFFIX is taken from the word after the option\n"
    "              when it does not start with '-' and a log was named\n"
    "              before it (ITGDec's order: the log first); otherwise\n"
    "              that word is a log and the default name is used\n"
    "  --date YYYY-MM-DD\n"
    "              the UTC day on which each D-ITG log's first record was\n"
    "              received (D-ITG logs times of day only); by default the\n"
    "              day that puts its last record within the day before the\n"
    "              file was last modified. Within a log, a time of day that\n"
    "              goes back by more than half a day is the next day\n"
    "  --export-ditg FILE\n"
    "              also write the records the report's total counts (one-way\n"
    "              if any, else round-trip, else sent) to FILE as a D-ITG\n"
    "              binary log that ITGDec reads\n"
    "  -h, --help  show this help\n"
    "  --version   show the version\n"
    "\n"
    "What -l, -o, -s, -r, -P, -I and the series write are the packets the\n"
    "report's total counts (as --export-ditg), times of the UTC day as in\n"
    "D-ITG.\n"
    "Exit status: 0 success; 1 an error while decoding or writing; 2 a\n"
    "wrong option, a missing file or one that is neither a libitg nor a\n"
    "D-ITG log (or whose header is damaged); 3 a log was truncated or\n"
    "corrupt: it was decoded up to the damage, or past damaged blocks,\n"
    "which were skipped (each reported on standard error, with the records\n"
    "lost), and the results were written.\n"
    "A log is cut short when it ends inside its header, a block or a\n"
    "record, or holds records of a flow whose end record (its writer's) is\n"
    "in none of the logs given (the writer stopped early: a full disk, a\n"
    "crash). A sender's log shipped to a log server, and its spill file,\n"
    "are decoded together: the end may be in either. A D-ITG log is cut\n"
    "short when it ends inside a record or a line; a malformed D-ITG record\n"
    "is skipped and reported, as a damaged block is.\n";

/* One series option: its interval and the file it goes to. */
typedef struct series_opt {
  itg_series_field field;
  int64_t interval_ns;
  const char *path;
  int csv; /* CSV (--csv, --plot), else ITGDec's format */
} series_opt;

typedef struct options {
  int json;
  int summary;      /* -v */
  int text_input;   /* -t */
  int sizes;        /* -P */
  int gaps;         /* -I */
  int quiet;        /* -i: no summary unless -v */
  char each_delay[ITG_PATH_MAX];  /* -x: "" when not asked */
  char each_jitter[ITG_PATH_MAX];
  uint32_t max_flow; /* -f N; 0: every flow */
  int one_flow;     /* -f t */
  const char *text_path;     /* -l */
  const char *octave_path;   /* -o */
  const char *sender_path;   /* -r */
  const char *combined_path; /* -r's FILE */
  const char *split_suffix;  /* -s; NULL: not asked */
  series_opt series[MAX_SERIES];
  size_t nseries;
  const char *csv_path;
  const char *plot_dir;             /* --plot */
  int64_t plot_interval_ns;         /* --plot-interval */
  char plot_csv[PLOT_SERIES][ITG_PATH_MAX]; /* the series it draws */
  const char *export_path;
  int64_t day_ns; /* ITG_DITG_DAY_MTIME unless --date */
  const char **logs;
  itg_log_format *formats;
  size_t nlogs;
} options;

/* Prints "itg-dec: " and a formatted message on stderr (paths in it can
 * be long: the message is cut, never overflowed). */
/* --json's document: the errors below go into it too. */
static itg__json_run json_doc;

#define DEC_ERROR(...)                                                         \
  do {                                                                         \
    char msg_[4352];                                                           \
    snprintf(msg_, sizeof msg_, __VA_ARGS__);                                  \
    itg__json_run_say(&json_doc, PROG, msg_);                                  \
  } while (0)

/* Reports a wrong command line word with the usage. Returns
 * ITG__CLI_EXIT_USAGE. */
static int bad_usage(const char *what, const char *word) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s '%.256s'", what, word);
  return itg__cli_bad_usage(PROG, msg, usage_text);
}

/* Parses YYYY-MM-DD, a day from 1970-01-01 to 2200-01-01, into its
 * midnight UTC in ns. Returns 0 or -1. */
static int parse_date(const char *v, int64_t *out) {
  int y, m, d, end = 0;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t days;
  if (sscanf(v, "%4d-%2d-%2d%n", &y, &m, &d, &end) != 3 || v[end] != '\0' ||
      m < 1 || m > 12 || d < 1 ||
      d > mdays[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
    return -1;
  /* Days from the civil date (H. Hinnant's algorithm), March-based years. */
  {
    int yy = m <= 2 ? y - 1 : y;
    int era = yy / 400, yoe = yy - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    days = (int64_t)era * 146097 + doe - 719468;
  }
  if (days < 0 || days * 86400 * INT64_C(1000000000) > ITG_DITG_DAY_MAX)
    return -1;
  *out = days * 86400 * INT64_C(1000000000);
  return 0;
}

static itg_series_field series_option(const char *arg) {
  if (strcmp(arg, "-d") == 0)
    return ITG_SERIES_DELAY;
  if (strcmp(arg, "-j") == 0)
    return ITG_SERIES_JITTER;
  if (strcmp(arg, "-b") == 0)
    return ITG_SERIES_BITRATE;
  if (strcmp(arg, "-p") == 0)
    return ITG_SERIES_LOSS;
  if (strcmp(arg, "-c") == 0)
    return ITG_SERIES_COMBINED;
  return (itg_series_field)0;
}

/* The file a series goes to when no name follows its option: ITGDec's. */
static const char *series_default(itg_series_field field) {
  switch (field) {
  case ITG_SERIES_DELAY:
    return "delay.dat";
  case ITG_SERIES_JITTER:
    return "jitter.dat";
  case ITG_SERIES_BITRATE:
    return "bitrate.dat";
  case ITG_SERIES_LOSS:
    return "packetloss.dat";
  default:
    return "combined_stats.dat";
  }
}

/* The optional word after option argv[*i] (ITGDec's [filename]): taken,
 * advancing *i, when it does not start with '-' and a log came before;
 * else NULL. */
static const char *optional_word(int argc, char **argv, int *i,
                                 const options *o) {
  if (*i + 1 >= argc || argv[*i + 1][0] == '-' || o->nlogs == 0)
    return NULL;
  return argv[++*i];
}

/* Returns 1 if some option writes a file, or standard output, of its own
 * (then the summary is printed only when -v asks for it, as ITGDec). */
static int has_outputs(const options *o) {
  return o->text_path != NULL || o->octave_path != NULL ||
         o->sender_path != NULL || o->split_suffix != NULL || o->sizes ||
         o->gaps || o->each_delay[0] != '\0' || o->nseries > 0;
}

/* Returns 1 if the packets are written one by one (a second pass). */
static int writes_packets(const options *o) {
  return o->text_path != NULL || o->octave_path != NULL ||
         o->sender_path != NULL || o->split_suffix != NULL || o->sizes ||
         o->gaps || o->plot_dir != NULL || o->each_delay[0] != '\0';
}

/* --plot's series, in the order of PLOT_SERIES, and their names. */
static const itg_series_field plot_fields[PLOT_SERIES] = {
    ITG_SERIES_DELAY, ITG_SERIES_JITTER, ITG_SERIES_BITRATE, ITG_SERIES_LOSS};
static const char *const plot_names[PLOT_SERIES] = {"delay", "jitter",
                                                    "bitrate", "loss"};

/* Adds --plot's series, CSV files in its directory. Returns -1, or the
 * usage exit status. */
static int add_plot_series(options *o) {
  for (size_t k = 0; k < PLOT_SERIES; k++) {
    series_opt *s = &o->series[o->nseries++];
    if ((size_t)snprintf(o->plot_csv[k], sizeof o->plot_csv[k], "%s/%s.csv",
                         o->plot_dir, plot_names[k]) >= sizeof o->plot_csv[k])
      return bad_usage("--plot: the directory's name is too long:",
                       o->plot_dir);
    s->field = plot_fields[k];
    s->interval_ns = o->plot_interval_ns;
    s->path = o->plot_csv[k];
    s->csv = 1;
  }
  return -1;
}

/* Reads the command line into *o (o->logs must hold argc entries).
 * Returns -1 to go on, or the exit status (help, version, a wrong
 * option). */
static int parse_args(int argc, char **argv, options *o) {
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **value = NULL;
    itg_series_field field;
    int rc;
    if (only_files || a[0] != '-' || a[1] == '\0') {
      o->logs[o->nlogs++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_files = 1;
    } else if (itg__cli_is_help(a, 1)) {
      fputs(usage_text, stdout);
      return ITG__CLI_EXIT_OK;
    } else if (strcmp(a, "--version") == 0) {
      itg__cli_print_version(PROG);
      return ITG__CLI_EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "-v") == 0) {
      o->summary = 1;
    } else if (strcmp(a, "-t") == 0) {
      o->text_input = 1;
    } else if (strcmp(a, "-P") == 0) {
      o->sizes = 1;
    } else if (strcmp(a, "-I") == 0) {
      o->gaps = 1;
    } else if (strcmp(a, "-i") == 0) {
      o->quiet = 1;
    } else if (strcmp(a, "-w") == 0) {
      /* ITGDec 2.8.1 sets a flag that none of its code reads */
    } else if (strcmp(a, "-x") == 0) {
      const char *name = optional_word(argc, argv, &i, o);
      if (name != NULL && strlen(name) > ITG_PATH_MAX - 16)
        return bad_usage("-x: the name is too long:", name);
      snprintf(o->each_delay, sizeof o->each_delay, "eachdelay%s%s.dat",
               name != NULL ? "_" : "", name != NULL ? name : "");
      snprintf(o->each_jitter, sizeof o->each_jitter, "eachjitter%s%s.dat",
               name != NULL ? "_" : "", name != NULL ? name : "");
    } else if (strcmp(a, "-l") == 0) {
      value = &o->text_path;
    } else if (strcmp(a, "-o") == 0) {
      value = &o->octave_path;
    } else if (strcmp(a, "--csv") == 0) {
      value = &o->csv_path;
    } else if (strcmp(a, "--plot") == 0) {
      value = &o->plot_dir;
    } else if (strcmp(a, "--plot-interval") == 0) {
      const char *val;
      if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val)) != 0)
        return rc;
      if (itg_parse_ms(val, &o->plot_interval_ns) != 0 ||
          o->plot_interval_ns <= 0)
        return bad_usage("--plot-interval must be a positive number of "
                         "milliseconds, not",
                         val);
    } else if (strcmp(a, "--export-ditg") == 0) {
      value = &o->export_path;
    } else if (strcmp(a, "-s") == 0) {
      o->split_suffix = optional_word(argc, argv, &i, o);
      if (o->split_suffix == NULL)
        o->split_suffix = "log";
    } else if (strcmp(a, "-r") == 0) {
      if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i,
                               &o->sender_path)) != 0)
        return rc;
      o->combined_path = optional_word(argc, argv, &i, o);
      if (o->combined_path == NULL)
        o->combined_path = "reconstructed.dat";
    } else if (strcmp(a, "-f") == 0) {
      const char *val;
      char *end;
      unsigned long n;
      if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val)) != 0)
        return rc;
      if (strcmp(val, "t") == 0) {
        o->one_flow = 1;
      } else {
        errno = 0;
        n = strtoul(val, &end, 10);
        if (val[0] < '0' || val[0] > '9' || *end != '\0' || n == 0 ||
            n > UINT32_MAX || errno != 0)
          return bad_usage("-f takes a flow number from 1 to 4294967295 "
                           "or t, not",
                           val);
        o->max_flow = (uint32_t)n;
      }
    } else if (strcmp(a, "--date") == 0) {
      const char *val;
      if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val)) != 0)
        return rc;
      if (parse_date(val, &o->day_ns) != 0)
        return bad_usage("--date takes a day YYYY-MM-DD from 1970-01-01 to "
                         "2200-01-01, not",
                         val);
    } else if ((field = series_option(a)) != 0) {
      const char *val;
      series_opt *s = &o->series[o->nseries];
      if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val)) != 0)
        return rc;
      for (size_t k = 0; k < o->nseries; k++)
        if (o->series[k].field == field)
          return bad_usage("each series option once; again", a);
      if (itg_parse_ms(val, &s->interval_ns) != 0 || s->interval_ns <= 0)
        return bad_usage("the interval must be a positive number of "
                         "milliseconds, not",
                         val);
      s->field = field;
      s->path = optional_word(argc, argv, &i, o);
      if (s->path == NULL)
        s->path = series_default(field);
      o->nseries++;
    } else {
      return bad_usage("unknown option", a);
    }
    if (value != NULL &&
        (rc = itg__cli_value(PROG, usage_text, argc, argv, &i, value)) != 0)
      return rc;
  }
  if (o->nlogs == 0)
    return itg__cli_bad_usage(PROG, "no log file given", usage_text);
  if (o->max_flow != 0 && o->one_flow)
    return itg__cli_bad_usage(PROG, "-f takes a number or t, not both",
                              usage_text);
  if (o->csv_path != NULL && o->nseries != 1)
    return bad_usage("--csv writes one series (-d, -j, -b, -p or -c); give "
                     "one for",
                     o->csv_path);
  if (o->csv_path != NULL) {
    o->series[0].path = o->csv_path;
    o->series[0].csv = 1;
  }
  if (o->plot_dir != NULL) {
    int prc = add_plot_series(o);
    if (prc >= 0)
      return prc;
  }
  if (o->csv_path != NULL && strcmp(o->csv_path, "-") == 0 &&
      (o->json || o->summary || o->sizes || o->gaps))
    return itg__cli_bad_usage(PROG,
                              "--csv - takes standard output: no report, "
                              "-P or -I with it",
                              usage_text);
  /* An output named as a log would destroy it before it is read. */
  for (size_t k = 0; k < o->nlogs; k++) {
    const char *outs[7 + MAX_SERIES] = {o->text_path, o->octave_path,
                                        o->combined_path, o->export_path,
                                        o->sender_path, o->each_delay,
                                        o->each_jitter};
    for (size_t s = 0; s < o->nseries; s++)
      outs[7 + s] = o->series[s].path;
    for (size_t j = 0; j < 7 + o->nseries; j++)
      if (j != 4 && outs[j] != NULL && strcmp(outs[j], o->logs[k]) == 0)
        return bad_usage("an output file would overwrite the log", o->logs[k]);
    if (o->sender_path != NULL && strcmp(o->sender_path, o->logs[k]) == 0)
      return bad_usage("-r takes the sender's log, not a log given already:",
                       o->logs[k]);
  }
  return -1;
}

/* ---- decoding ------------------------------------------------------------ */

/* A packet's send time in the sender's log (-r). */
typedef struct sent_tx {
  uint32_t flow_id;
  uint64_t seq;
  int64_t tx_ns;
} sent_tx;

typedef struct sender_index {
  sent_tx *v;
  size_t n, cap;
  int rc;
} sender_index;

/* A -s file: one flow's D-ITG log. */
typedef struct split_file {
  uint32_t flow_id;
  itg_ditg_writer *w;
} split_file;

/* What one decoding does with the records, through its map. */
typedef struct pass {
  const options *o;
  itg__ditg_flows *flows;   /* the D-ITG flows met, by id */
  int note_flows;           /* tell of a D-ITG flow given another id */
  const sender_index *sent; /* -r: the send times taken */
  itg_stats *stats;         /* NULL: not counted */
  itg_series **series;      /* NULL, or one per o->series */
  int packets;              /* write the packets one by one (below) */
  itg_stats_meter meter;    /* the packets written */
  FILE *text, *octave;
  FILE *delays;             /* --plot: each packet's delay */
  FILE *each_delay, *each_jitter; /* -x */
  int have_delay;
  double prev_delay; /* -x: the last packet's delay, s */
  itg_ditg_writer *combined;
  split_file *split;
  size_t nsplit, capsplit;
  int have_prev;
  int64_t prev_rx;
  itg_logrec *buf;
  size_t cap;
  int rc;
  char what[512]; /* what failed, for the message */
} pass;

/* ITGDec's one flow of -f t. */
static const itg_ditg_flow one_flow = {1, 1, 9999, 8999, "127.0.0.1",
                                       "127.0.0.1"};

/* Tells of a D-ITG flow counted under another id than its own (D-ITG told
 * it from a flow of the same id by its addresses and ports), and keeps
 * its addresses for what is written. */
static void note_flow(const itg_ditg_flow *f, void *user) {
  pass *p = user;
  if (p->note_flows && f->flow_id != f->ditg_flow_id)
    DEC_ERROR("D-ITG flow %u from %s:%u to %s:%u is reported as flow %u "
              "(its id is another flow's)",
              (unsigned)f->ditg_flow_id, f->src_addr, (unsigned)f->src_port,
              f->dst_addr, (unsigned)f->dst_port, (unsigned)f->flow_id);
  if (p->rc == 0 && itg__ditg_flows_add(p->flows, f) != 0)
    p->rc = ITG_ENOMEM;
}

/* Decodes logs[0..n), libitg's in one call (a flow's end may be in
 * another of them) and D-ITG's in another, through map (NULL: none) into
 * stats and series (either may be NULL); st (NULL: not wanted) gets the
 * statuses in the order given. A file that cannot be opened, or is
 * neither, goes with libitg's, whose reader reports it. Returns the first
 * error, or a fatal one (ITG_ENOMEM, ITG_ELIMIT). */
static int decode_logs(const char *const *logs, const itg_log_format *formats,
                       size_t n, int64_t day_ns, const itg_decode_map *map,
                       pass *flows_to, itg_stats *stats, itg_series *series,
                       itg_decode_status *st) {
  const char **paths[2];
  itg_decode_status *sub[2] = {NULL, NULL};
  size_t count[2] = {0, 0};
  itg_ditg_cfg cfg;
  int rc[2] = {0, 0};
  int fail = 0;
  paths[0] = calloc(n, sizeof *paths[0]);
  paths[1] = calloc(n, sizeof *paths[1]);
  if (st != NULL) {
    sub[0] = calloc(n, sizeof *sub[0]);
    sub[1] = calloc(n, sizeof *sub[1]);
  }
  if (paths[0] == NULL || paths[1] == NULL ||
      (st != NULL && (sub[0] == NULL || sub[1] == NULL))) {
    fail = ITG_ENOMEM;
    goto out_free;
  }
  for (size_t i = 0; i < n; i++) {
    int k = formats[i] == ITG_LOG_FORMAT_DITG ||
            formats[i] == ITG_LOG_FORMAT_DITG_TEXT;
    paths[k][count[k]++] = logs[i];
  }
  if (count[0] > 0)
    rc[0] = itg_decode_files_map_size(paths[0], count[0], map, stats, series,
                                      sub[0], st != NULL ? sizeof *st : 0);
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = day_ns;
  cfg.on_flow = flows_to != NULL ? note_flow : NULL;
  cfg.user = flows_to;
  if (count[1] > 0 && rc[0] != ITG_ENOMEM && rc[0] != ITG_ELIMIT)
    rc[1] = itg_ditg_decode_files_size(paths[1], count[1], &cfg, map, stats,
                                       series, sub[1],
                                       st != NULL ? sizeof *st : 0);
  if (st != NULL) {
    size_t next[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
      int k = formats[i] == ITG_LOG_FORMAT_DITG ||
              formats[i] == ITG_LOG_FORMAT_DITG_TEXT;
      st[i] = sub[k][next[k]++];
    }
  }
  fail = rc[0] == ITG_ENOMEM || rc[0] == ITG_ELIMIT ? rc[0]
         : rc[1] == ITG_ENOMEM || rc[1] == ITG_ELIMIT ? rc[1]
         : rc[0] != 0                                 ? rc[0]
                                                      : rc[1];

out_free:
  free(sub[0]);
  free(sub[1]);
  free(paths[0]);
  free(paths[1]);
  return fail;
}

static int sent_cmp(const void *a, const void *b) {
  const sent_tx *x = a, *y = b;
  if (x->flow_id != y->flow_id)
    return x->flow_id < y->flow_id ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void index_batch(itg_logrec *recs, size_t n, size_t file,
                        void *user) {
  sender_index *x = user;
  (void)file;
  for (size_t i = 0; i < n && x->rc == 0; i++) {
    if (recs[i].flags & (ITG_REC_GAP | ITG_REC_FLOW_END))
      continue;
    if (x->n == x->cap) {
      size_t cap = x->cap != 0 ? x->cap * 2 : 1024;
      sent_tx *grown = realloc(x->v, cap * sizeof *grown);
      if (grown == NULL) {
        x->rc = ITG_ENOMEM;
        return;
      }
      x->v = grown;
      x->cap = cap;
    }
    x->v[x->n++] = (sent_tx){recs[i].flow_id, recs[i].seq, recs[i].tx_ns};
  }
}

/* Reads the sender's log of -r into x, sorted by flow and sequence.
 * Returns 0 or the exit status of a failure (reported). */
static int index_sender(const options *o, sender_index *x) {
  itg_decode_map map = {index_batch, x};
  itg_log_format format;
  itg_decode_status st;
  int rc;
  if (itg_log_format_of(o->sender_path, &format) != 0)
    format = ITG_LOG_FORMAT_LIBITG;
  rc = decode_logs(&o->sender_path, &format, 1, o->day_ns, &map, NULL, NULL,
                   NULL, &st);
  if (x->rc != 0)
    rc = x->rc;
  if (rc == ITG_ENOMEM) {
    itg__cli_error(PROG, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  if (!st.opened) {
    DEC_ERROR("%s: %s", o->sender_path, itg_strerror(st.error));
    return ITG__CLI_EXIT_USAGE;
  }
  if (rc != 0)
    DEC_ERROR("%s: %s: its packets up to the damage are used",
              o->sender_path, itg_strerror(rc));
  if (x->n > 0)
    qsort(x->v, x->n, sizeof *x->v, sent_cmp);
  return 0;
}

/* The writer of flow id's -s file, opened on its first packet. */
static int split_writer(pass *p, uint32_t id, itg_ditg_writer **out) {
  char name[2 * ITG_DITG_ADDR_LEN + 16], path[sizeof name + 64];
  split_file *f;
  int rc;
  for (size_t i = 0; i < p->nsplit; i++)
    if (p->split[i].flow_id == id) {
      *out = p->split[i].w;
      return 0;
    }
  if (p->nsplit == p->capsplit) {
    size_t cap = p->capsplit != 0 ? p->capsplit * 2 : 16;
    split_file *grown = realloc(p->split, cap * sizeof *grown);
    if (grown == NULL)
      return ITG_ENOMEM;
    p->split = grown;
    p->capsplit = cap;
  }
  itg__ditg_flow_name(name, sizeof name, id,
                      p->o->one_flow ? &one_flow
                                     : itg__ditg_flows_find(p->flows, id));
  snprintf(path, sizeof path, "%s.%s.dat", name, p->o->split_suffix);
  f = &p->split[p->nsplit];
  if ((rc = itg_ditg_writer_open(path, p->meter, &f->w)) != 0) {
    snprintf(p->what, sizeof p->what, "%s", path);
    return rc;
  }
  f->flow_id = id;
  p->nsplit++;
  *out = f->w;
  return 0;
}

/* Writes packet r (as logged, before -f) to -l, -o, -r, -P and -I. */
static int write_packet(pass *p, const itg_logrec *r) {
  const options *o = p->o;
  const itg_ditg_flow *f = itg__ditg_flows_find(p->flows, r->flow_id);
  int64_t tx, rx;
  int rc = 0;
  itg__ditg_times(r, p->meter, &tx, &rx);
  if (o->sizes && printf("%u\n", (unsigned)r->size) < 0)
    return ITG_EIO;
  if (o->gaps && p->have_prev &&
      printf("%lf\n", (double)(rx - p->prev_rx) / 1e9) < 0)
    return ITG_EIO;
  if (p->each_delay != NULL) {
    /* ITGDec's -x: each packet's delay, and from the second on its
     * difference from the previous packet's (of any flow) */
    double d = (double)(rx - tx) / 1e9;
    if (fprintf(p->each_delay, "%lf\n", d) < 0 ||
        (p->have_delay &&
         fprintf(p->each_jitter, "%lf\n", fabs(p->prev_delay - d)) < 0)) {
      snprintf(p->what, sizeof p->what, "%s", o->each_delay);
      return ITG_EIO;
    }
    p->prev_delay = d;
    p->have_delay = 1;
  }
  if (p->text != NULL && (rc = itg__ditg_text_line(p->text, r, p->meter,
                                                    f)) != 0) {
    snprintf(p->what, sizeof p->what, "%s", o->text_path);
    return rc;
  }
  if (p->octave != NULL &&
      (rc = itg__ditg_octave_line(p->octave, r, p->meter)) != 0) {
    snprintf(p->what, sizeof p->what, "%s", o->octave_path);
    return rc;
  }
  if (p->delays != NULL &&
      fprintf(p->delays, "%u,%.9f\n", (unsigned)r->flow_id,
              (double)(rx - tx) / 1e9) < 0) {
    snprintf(p->what, sizeof p->what, "%s/delays.csv", o->plot_dir);
    return ITG_EIO;
  }
  if (p->combined != NULL &&
      (rc = itg_ditg_writer_write_flow(p->combined, r, 1, f)) != 0)
    snprintf(p->what, sizeof p->what, "%s", o->combined_path);
  return rc;
}

/* Gives record r the send time of the sender's log (-r). */
static int take_send_time(pass *p, itg_logrec *r) {
  sent_tx key = {r->flow_id, r->seq, 0};
  const sent_tx *hit;
  if (r->flags & (ITG_REC_GAP | ITG_REC_FLOW_END))
    return 0;
  /* bsearch and qsort take no NULL array, even empty. */
  hit = p->sent->n > 0 ? bsearch(&key, p->sent->v, p->sent->n, sizeof key,
                                 sent_cmp)
                       : NULL;
  if (hit == NULL) {
    snprintf(p->what, sizeof p->what,
             "%s holds no packet %llu of flow %u",
             p->o->sender_path, (unsigned long long)r->seq,
             (unsigned)r->flow_id);
    return ITG_ENOENT;
  }
  r->tx_ns = hit->tx_ns;
  /* Each log's D-ITG times of day are dated on their own: the send time
   * is taken on the day nearest the arrival, as D-ITG's decoding does
   * within a log. */
  if (r->rx_ns != 0) {
    int64_t days = (r->rx_ns - r->tx_ns) / DAY_NS;
    int64_t rest = (r->rx_ns - r->tx_ns) % DAY_NS;
    days += rest > DAY_NS / 2 ? 1 : rest < -DAY_NS / 2 ? -1 : 0;
    r->tx_ns += days * DAY_NS;
  }
  return 0;
}

/* The map of every decoding: -r's send times, the packets written one by
 * one, then -f, and the records counted. */
static void pass_batch(itg_logrec *recs, size_t n, size_t file, void *user) {
  pass *p = user;
  const options *o = p->o;
  size_t m = 0;
  (void)file;
  if (p->rc != 0)
    return;
  if (n > p->cap) {
    itg_logrec *grown = realloc(p->buf, n * sizeof *grown);
    if (grown == NULL) {
      p->rc = ITG_ENOMEM;
      return;
    }
    p->buf = grown;
    p->cap = n;
  }
  for (size_t i = 0; i < n; i++) {
    itg_logrec r = recs[i];
    int packet;
    if (p->sent != NULL && (p->rc = take_send_time(p, &r)) != 0)
      return;
    packet = p->packets && itg__ditg_is_packet(&r, p->meter);
    if (packet && (p->rc = write_packet(p, &r)) != 0)
      return;
    if (o->max_flow != 0 && r.flow_id > o->max_flow)
      continue;
    if (packet) {
      itg__ditg_times(&r, p->meter, &(int64_t){0}, &p->prev_rx);
      p->have_prev = 1;
    }
    if (o->one_flow)
      r.flow_id = 1;
    if (packet && o->split_suffix != NULL) {
      itg_ditg_writer *w;
      if ((p->rc = split_writer(p, r.flow_id, &w)) != 0 ||
          (p->rc = itg_ditg_writer_write_flow(
               w, &r, 1,
               o->one_flow ? &one_flow
                           : itg__ditg_flows_find(p->flows, r.flow_id))) != 0)
        return;
    }
    p->buf[m++] = r;
  }
  if (p->stats != NULL && (p->rc = itg_stats_add(p->stats, p->buf, m)) != 0)
    return;
  for (size_t k = 0; p->series != NULL && k < o->nseries; k++)
    if ((p->rc = itg_series_add(p->series[k], p->buf, m)) != 0)
      return;
}

/* ---- exporting ----------------------------------------------------------- */

typedef struct export_ctx {
  itg_ditg_writer *w;
  int rc;
} export_ctx;

static void export_batch(itg_logrec *recs, size_t n, size_t file,
                         void *user) {
  export_ctx *c = user;
  (void)file;
  if (c->rc == 0)
    c->rc = itg_ditg_writer_write(c->w, recs, n);
}

/* Decodes the logs again, writing the records of the stats' main meter
 * to o->export_path. Returns 0 or the exit status of a failure
 * (reported). */
static int do_export(const options *o, const itg_stats *stats) {
  export_ctx c = {NULL, 0};
  itg_decode_map map = {export_batch, &c};
  int rc = itg_ditg_writer_open(o->export_path, itg_stats_main_meter(stats),
                                &c.w);
  if (rc == 0) {
    rc = decode_logs(o->logs, o->formats, o->nlogs, o->day_ns, &map, NULL,
                     NULL, NULL, NULL);
    /* Damaged files were reported by the first pass. */
    if (rc != ITG_ENOMEM && rc != ITG_ELIMIT)
      rc = c.rc;
    {
      int crc = itg_ditg_writer_close(c.w);
      if (rc == 0)
        rc = crc;
    }
  }
  if (rc == ITG_ERANGE) {
    DEC_ERROR("cannot write %s: a sequence number above 2^32 - 1 does not "
              "fit D-ITG's log", o->export_path);
    return ITG__CLI_EXIT_FAIL;
  }
  if (rc != 0) {
    DEC_ERROR("cannot write %s: %s", o->export_path, itg_strerror(rc));
    return ITG__CLI_EXIT_FAIL;
  }
  return 0;
}

/* ---- series and packets -------------------------------------------------- */
/* ---- series -------------------------------------------------------------- */

/* Writes the whole CSV, CSV_CHUNK intervals at a time. Returns 0,
 * ITG_ENOMEM or ITG_EIO. */
static int write_csv(const itg_series *ser, itg_series_field field, FILE *fp) {
  size_t n = itg_series_interval_count(ser);
  size_t cap = 0, need = 0;
  char *buf = NULL;
  int rc = 0;
  size_t first = 0;
  do {
    rc = itg_series_csv(ser, field, first, CSV_CHUNK, buf, cap, &need);
    if (rc == ITG_ERANGE) {
      char *grown = realloc(buf, need);
      if (grown == NULL) {
        rc = ITG_ENOMEM;
        break;
      }
      buf = grown;
      cap = need;
      rc = itg_series_csv(ser, field, first, CSV_CHUNK, buf, cap, &need);
    }
    if (rc != 0)
      break;
    if (fputs(buf, fp) == EOF) {
      rc = ITG_EIO;
      break;
    }
    first += CSV_CHUNK;
  } while (first < n);
  free(buf);
  return rc;
}


/* Writes series k to its file (or --csv's, "-": standard output). Returns
 * 0 or the exit status of a failure (reported). */
static int write_series(const options *o, size_t k, const itg_series *ser,
                        const itg__ditg_flows *flows) {
  const series_opt *s = &o->series[k];
  itg__ditg_flows one = {(itg_ditg_flow *)&one_flow, 1, 1};
  int to_stdout = s->csv && strcmp(s->path, "-") == 0;
  FILE *fp = to_stdout ? stdout : fopen(s->path, "w");
  int rc;
  if (fp == NULL) {
    DEC_ERROR("cannot write %s: %s", s->path, strerror(errno));
    return ITG__CLI_EXIT_FAIL;
  }
  rc = s->csv ? write_csv(ser, s->field, fp)
           : itg__ditg_series_write(fp, ser, s->field, s->interval_ns,
                                    o->one_flow ? &one : flows);
  if (!to_stdout && fclose(fp) != 0 && rc == 0)
    rc = ITG_EIO;
  if (rc != 0) {
    DEC_ERROR("cannot write %s: %s", s->path, itg_strerror(rc));
    return ITG__CLI_EXIT_FAIL;
  }
  return 0;
}

/* Opens path for writing into *fp (NULL path: nothing). Returns 0 or the
 * exit status of a failure (reported). */
static int open_out(const char *path, FILE **fp) {
  if (path == NULL)
    return 0;
  *fp = fopen(path, "w");
  if (*fp == NULL) {
    DEC_ERROR("cannot write %s: %s", path, strerror(errno));
    return ITG__CLI_EXIT_FAIL;
  }
  return 0;
}

/* Closes *fp (if open), keeping the first error in *rc. */
static void close_out(FILE *fp, int *rc) {
  if (fp != NULL && fclose(fp) != 0 && *rc == 0)
    *rc = ITG_EIO;
}

/* ---- plots --------------------------------------------------------------- */

/* The gnuplot script drawing --plot's PNGs from the CSV files beside it
 * (gnuplot runs in the directory). */
static const char plot_head[] =
    "set terminal pngcairo size 800,480 noenhanced\n"
    "set datafile separator ','\n"
    "set key autotitle columnhead outside right\n"
    "set grid\n"
    "set xlabel 'time (s)'\n";

static const char plot_series[] =
    "set output '%s.png'\n"
    "set title '%s'\n"
    "set ylabel '%s'\n"
    "set yrange [0:*]\n"
    "plot for [c=2:*] '%s.csv' using 1:c with %s\n";

static const char plot_hist[] =
    "set output 'delay_hist.png'\n"
    "set title 'delay distribution, every packet'\n"
    "set xlabel 'delay (s)'\n"
    "set ylabel 'packets'\n"
    "set autoscale y\n"
    "stats 'delays.csv' every ::1 using 2 nooutput\n"
    "w = (STATS_max - STATS_min) / 100.0\n"
    "if (w <= 0) w = 1e-9\n"
    "bin(x) = w * floor(x / w) + w / 2\n"
    "set boxwidth w\n"
    "set style fill solid 0.5\n"
    "plot 'delays.csv' every ::1 using (bin($2)):(1.0) smooth frequency "
    "with boxes notitle\n";

static void gnuplot_exited(uv_process_t *proc, int64_t status, int signum) {
  *(int64_t *)proc->data = signum != 0 ? 128 + signum : status;
  uv_close((uv_handle_t *)proc, NULL);
}

/* Runs `gnuplot plots.gp` in dir, its output going to `out`, and waits
 * for it. Returns its exit status, or a negative libuv error (gnuplot not
 * found: UV_ENOENT). */
static int64_t run_gnuplot(const char *dir, FILE *out) {
  int64_t exit_status = -1;
  uv_loop_t loop;
  uv_process_t proc;
  uv_process_options_t po;
  uv_stdio_container_t stdio[3];
  char *args[] = {"gnuplot", "plots.gp", NULL};
  int rc;
  memset(&po, 0, sizeof po);
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = fileno(out);
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = fileno(out);
  po.file = "gnuplot";
  po.args = args;
  po.cwd = dir;
  po.stdio = stdio;
  po.stdio_count = 3;
  po.exit_cb = gnuplot_exited;
  proc.data = &exit_status;
  if (uv_loop_init(&loop) != 0)
    return UV_ENOMEM;
  rc = uv_spawn(&loop, &proc, &po);
  if (rc == 0)
    uv_run(&loop, UV_RUN_DEFAULT);
  else
    uv_close((uv_handle_t *)&proc, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  return rc != 0 ? rc : exit_status;
}

/* Writes the gnuplot script into --plot's directory and runs it. Returns
 * 0 or the exit status of a failure (reported). */
static int draw_plots(const options *o, itg_stats_meter meter,
                      size_t intervals) {
  static const char *const titles[PLOT_SERIES] = {
      "mean delay per interval", "mean jitter per interval",
      "bitrate per interval", "packets lost per interval"};
  static const char *const units[PLOT_SERIES] = {"delay (s)", "jitter (s)",
                                                 "kbit/s", "packets"};
  char path[ITG_PATH_MAX + 16], log[ITG_PATH_MAX + 16];
  int64_t st;
  FILE *fp, *lp;
  if (intervals == 0) {
    DEC_ERROR("--plot: no packet to draw");
    return ITG__CLI_EXIT_FAIL;
  }
  snprintf(path, sizeof path, "%s/plots.gp", o->plot_dir);
  if (open_out(path, &fp) != 0)
    return ITG__CLI_EXIT_FAIL;
  fputs(plot_head, fp);
  for (size_t k = 0; k < PLOT_SERIES; k++)
    if (meter != ITG_STATS_SENT || plot_fields[k] == ITG_SERIES_BITRATE)
      fprintf(fp, plot_series, plot_names[k], titles[k], units[k],
              plot_names[k],
              plot_fields[k] == ITG_SERIES_LOSS ? "steps" : "lines");
  if (meter != ITG_STATS_SENT)
    fputs(plot_hist, fp);
  if (fclose(fp) != 0) {
    DEC_ERROR("cannot write %s: %s", path, strerror(errno));
    return ITG__CLI_EXIT_FAIL;
  }
  /* gnuplot's words (warnings on a flat series, say) are kept beside the
   * plots, shown only when it fails. */
  snprintf(log, sizeof log, "%s/gnuplot.log", o->plot_dir);
  if (open_out(log, &lp) != 0)
    return ITG__CLI_EXIT_FAIL;
  st = run_gnuplot(o->plot_dir, lp);
  fclose(lp);
  if (st == UV_ENOENT) {
    DEC_ERROR("--plot: gnuplot is not installed (Debian: apt-get install "
              "gnuplot-nox); the CSV files and %s are written", path);
    return ITG__CLI_EXIT_FAIL;
  }
  if (st != 0) {
    DEC_ERROR("--plot: gnuplot failed on %s (%s)", path,
              st < 0 ? uv_strerror((int)st) : log);
    return ITG__CLI_EXIT_FAIL;
  }
  return 0;
}

/* Decodes the logs a second time, the main meter of the first pass (p's
 * stats) known: writes the packets one by one and fills the series, then
 * writes these. Returns 0 or the exit status of a failure (reported). */
static int do_outputs(pass *p, itg_stats *stats) {
  const options *o = p->o;
  itg_series *series[MAX_SERIES] = {NULL};
  itg_decode_map map = {pass_batch, p};
  int status = 0, rc = 0;
  p->stats = NULL;
  p->note_flows = 0;
  p->packets = writes_packets(o);
  p->meter = itg_stats_main_meter(stats);
  p->series = series;
  for (size_t k = 0; k < o->nseries; k++)
    if ((rc = itg_series_new(o->series[k].interval_ns, p->meter,
                             &series[k])) != 0)
      goto out_close;
  if ((status = open_out(o->text_path, &p->text)) != 0 ||
      (status = open_out(o->octave_path, &p->octave)) != 0 ||
      (o->each_delay[0] != '\0' &&
       ((status = open_out(o->each_delay, &p->each_delay)) != 0 ||
        (status = open_out(o->each_jitter, &p->each_jitter)) != 0)))
    goto out_close;
  if (o->plot_dir != NULL && p->meter != ITG_STATS_SENT) {
    char path[ITG_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/delays.csv", o->plot_dir);
    if ((status = open_out(path, &p->delays)) != 0)
      goto out_close;
    if (fputs("flow,delay_s\n", p->delays) == EOF)
      rc = ITG_EIO;
  }
  if (o->combined_path != NULL &&
      (rc = itg_ditg_writer_open(o->combined_path, p->meter,
                                 &p->combined)) != 0) {
    snprintf(p->what, sizeof p->what, "%s", o->combined_path);
    goto out_close;
  }
  rc = decode_logs(o->logs, o->formats, o->nlogs, o->day_ns, &map, p, NULL,
                   NULL, NULL);
  /* Damaged files were reported by the first pass. */
  if (rc != ITG_ENOMEM && rc != ITG_ELIMIT)
    rc = p->rc;

out_close:
  close_out(p->text, &rc);
  close_out(p->octave, &rc);
  close_out(p->delays, &rc);
  close_out(p->each_delay, &rc);
  close_out(p->each_jitter, &rc);
  {
    int crc = itg_ditg_writer_close(p->combined);
    if (rc == 0)
      rc = crc;
  }
  for (size_t i = 0; i < p->nsplit; i++) {
    int crc = itg_ditg_writer_close(p->split[i].w);
    if (rc == 0)
      rc = crc;
  }
  if (status == 0 && rc == ITG_ELIMIT) {
    DEC_ERROR("a series would need more than %u cells (flows times "
              "intervals): choose a longer interval",
              (unsigned)ITG_SERIES_MAX_CELLS);
    status = ITG__CLI_EXIT_FAIL;
  } else if (status == 0 && rc != 0) {
    if (p->what[0] != '\0')
      DEC_ERROR("%s: %s", p->what, itg_strerror(rc));
    else
      DEC_ERROR("%s", itg_strerror(rc));
    status = ITG__CLI_EXIT_FAIL;
  }
  for (size_t k = 0; k < o->nseries && status == 0; k++)
    status = write_series(o, k, series[k], p->flows);
  if (status == 0 && o->plot_dir != NULL)
    status = draw_plots(o, p->meter,
                        itg_series_interval_count(series[o->nseries - 1]));
  if (status == 0 && (o->sizes || o->gaps) && fflush(stdout) != 0) {
    DEC_ERROR("cannot write standard output: %s", strerror(errno));
    status = ITG__CLI_EXIT_FAIL;
  }
  for (size_t k = 0; k < o->nseries; k++)
    itg_series_free(series[k]);
  return status;
}
/* ---- main ---------------------------------------------------------------- */

/* Reports every file that could not be read or stopped early. Returns the
 * exit status the files call for (0, ITG__CLI_EXIT_USAGE or EXIT_DAMAGED). */
static int report_files(const options *o, const itg_decode_status *st) {
  int status = 0;
  for (size_t i = 0; i < o->nlogs; i++) {
    int ditg = o->formats[i] == ITG_LOG_FORMAT_DITG ||
               o->formats[i] == ITG_LOG_FORMAT_DITG_TEXT;
    const char *unit = o->formats[i] == ITG_LOG_FORMAT_DITG_TEXT ? "line"
                                                                 : "record";
    if (ditg && !st[i].opened) {
      if (st[i].error == ITG_ERANGE)
        DEC_ERROR("%s: its modification time cannot date its D-ITG records: "
                  "give the day with --date", o->logs[i]);
      else
        DEC_ERROR("%s: %s", o->logs[i], itg_strerror(st[i].error));
      status = ITG__CLI_EXIT_USAGE;
      continue;
    }
    if (ditg) {
      /* D-ITG's lines count from 1, as an editor shows them. */
      uint64_t first = st[i].first_damage.block +
                       (o->formats[i] == ITG_LOG_FORMAT_DITG_TEXT);
      if (st[i].damaged == 1)
        DEC_ERROR("%s: %s %llu at byte %llu is malformed: skipped",
                  o->logs[i], unit, (unsigned long long)first,
                  (unsigned long long)st[i].first_damage.offset);
      else if (st[i].damaged > 1)
        DEC_ERROR("%s: %llu malformed %ss skipped, the first %s %llu at "
                  "byte %llu", o->logs[i],
                  (unsigned long long)st[i].damaged, unit, unit,
                  (unsigned long long)first,
                  (unsigned long long)st[i].first_damage.offset);
      if (st[i].error == ITG_ETRUNC)
        DEC_ERROR("%s: cut short at byte %llu: a partial %s", o->logs[i],
                  (unsigned long long)st[i].offset, unit);
      else if (st[i].error != 0 && st[i].error != ITG_EBADMSG)
        DEC_ERROR("%s: stopped at byte %llu: %s", o->logs[i],
                  (unsigned long long)st[i].offset, itg_strerror(st[i].error));
      if (st[i].error != 0 && status == 0)
        status = EXIT_DAMAGED;
      continue;
    }
    if (!st[i].opened && st[i].error == ITG_ETRUNC) {
      DEC_ERROR("%s: cut short inside its header", o->logs[i]);
      if (status == 0)
        status = EXIT_DAMAGED;
      continue;
    }
    if (!st[i].opened) {
      if (st[i].error == ITG_EBADMSG || st[i].error == ITG_EVERSION)
        DEC_ERROR("%s: not a libitg log, or its header is damaged; not a "
                  "D-ITG log either (%s)",
                  o->logs[i], itg_strerror(st[i].error));
      else
        DEC_ERROR("%s: %s", o->logs[i], itg_strerror(st[i].error));
      status = ITG__CLI_EXIT_USAGE;
      continue;
    }
    if (st[i].damaged == 1)
      DEC_ERROR("%s: block %llu at byte %llu is damaged: %llu records "
                "skipped", o->logs[i],
                (unsigned long long)st[i].first_damage.block,
                (unsigned long long)st[i].first_damage.offset,
                (unsigned long long)st[i].skipped);
    else if (st[i].damaged > 1)
      DEC_ERROR("%s: %llu damaged stretches, the first at block %llu (byte "
                "%llu): %llu records skipped", o->logs[i],
                (unsigned long long)st[i].damaged,
                (unsigned long long)st[i].first_damage.block,
                (unsigned long long)st[i].first_damage.offset,
                (unsigned long long)st[i].skipped);
    if (st[i].error == ITG_ETRUNC)
      DEC_ERROR("%s: cut short at byte %llu: a partial record or block, or "
                "a flow whose end record no log given holds",
                o->logs[i], (unsigned long long)st[i].offset);
    else if (st[i].error != 0 &&
             (st[i].damaged == 0 || st[i].error != ITG_EBADMSG))
      DEC_ERROR("%s: stopped at byte %llu: %s", o->logs[i],
                (unsigned long long)st[i].offset, itg_strerror(st[i].error));
    if (st[i].error != 0 && status == 0)
      status = EXIT_DAMAGED;
  }
  return status;
}


static const char *format_name(itg_log_format f) {
  switch (f) {
  case ITG_LOG_FORMAT_DITG:
    return "ditg";
  case ITG_LOG_FORMAT_DITG_TEXT:
    return "ditg-text";
  default:
    return "libitg";
  }
}

/* The JSON document: start, no intervals (the series go to files), end
 * (the report of itg_stats_json) and the errors met. Returns 0 or an
 * error of itg_stats_json. */
static int report_json(const options *o, int argc, char **argv,
                       const itg_stats *stats) {
  itg__json *j;
  int rc;
  char *text = itg__cli_stats_json(stats, &rc);
  if (text == NULL)
    return rc;
  j = itg__json_event(&json_doc, "start");
  itg__json_start(j, PROG, argc, argv);
  itg__json_open(j, "logs", '[');
  for (size_t i = 0; i < o->nlogs; i++) {
    itg__json_open(j, NULL, '{');
    itg__json_str(j, "path", o->logs[i]);
    itg__json_str(j, "format", format_name(o->formats[i]));
    itg__json_close(j);
  }
  itg__json_close(j);
  itg__json_event_end(&json_doc);
  itg__json_event_text(&json_doc, "end", text);
  itg__json_run_finish(&json_doc);
  free(text);
  return 0;
}

int main(int argc, char **argv) {
  options o;
  itg__ditg_flows flows = {NULL, 0, 0};
  sender_index sent = {NULL, 0, 0, 0};
  itg_stats *stats = NULL;
  itg_decode_status *st;
  itg_decode_map map;
  pass p;
  int status, rc;
  memset(&o, 0, sizeof o);
  memset(&p, 0, sizeof p);
  o.day_ns = ITG_DITG_DAY_MTIME;
  o.plot_interval_ns = 1000000000;
  o.logs = calloc((size_t)argc, sizeof *o.logs);
  o.formats = calloc((size_t)argc, sizeof *o.formats);
  if (o.logs == NULL || o.formats == NULL) {
    free(o.logs);
    free(o.formats);
    itg__cli_error(PROG, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  status = parse_args(argc, argv, &o);
  if (status >= 0)
    goto out_free_logs;
  itg__json_run_init(&json_doc, o.json ? ITG__JSON_DOC : ITG__JSON_OFF);
  status = ITG__CLI_EXIT_FAIL;
  st = calloc(o.nlogs, sizeof *st);
  if (st == NULL || itg_stats_new(&stats) != 0) {
    itg__cli_error(PROG, "out of memory");
    goto out_free_status;
  }
  for (size_t i = 0; i < o.nlogs; i++) {
    if (itg_log_format_of(o.logs[i], &o.formats[i]) != 0)
      o.formats[i] = ITG_LOG_FORMAT_LIBITG;
    else if (o.text_input && o.formats[i] != ITG_LOG_FORMAT_DITG_TEXT) {
      DEC_ERROR("-t: %s is not a D-ITG text log", o.logs[i]);
      status = ITG__CLI_EXIT_USAGE;
      goto out_free_stats;
    }
  }
  if (o.sender_path != NULL && (status = index_sender(&o, &sent)) != 0)
    goto out_free_stats;
  status = ITG__CLI_EXIT_FAIL;
  p.o = &o;
  p.flows = &flows;
  p.note_flows = 1;
  p.sent = o.sender_path != NULL ? &sent : NULL;
  p.stats = stats;
  map = (itg_decode_map){pass_batch, &p};
  rc = decode_logs(o.logs, o.formats, o.nlogs, o.day_ns, &map, &p, NULL,
                   NULL, st);
  if (rc == ITG_ENOMEM || p.rc == ITG_ENOMEM) {
    itg__cli_error(PROG, "out of memory");
    goto out_free_stats;
  }
  if (rc == ITG_ELIMIT) {
    DEC_ERROR("more than %u D-ITG flows (ids, addresses and ports), or no "
              "flow id left to give one", (unsigned)ITG_DITG_MAX_FLOWS);
    goto out_free_stats;
  }
  status = report_files(&o, st);
  if (status == ITG__CLI_EXIT_USAGE)
    goto out_free_stats;
  if (p.rc != 0) {
    DEC_ERROR("%s", p.what[0] != '\0' ? p.what : itg_strerror(p.rc));
    status = ITG__CLI_EXIT_FAIL;
    goto out_free_stats;
  }
  if (o.export_path != NULL) {
    int ers = do_export(&o, stats);
    if (ers != 0) {
      status = ers;
      goto out_free_stats;
    }
  }
  if (has_outputs(&o)) {
    int ors = do_outputs(&p, stats);
    if (ors != 0) {
      status = ors;
      goto out_free_stats;
    }
  }
  if (o.json)
    rc = report_json(&o, argc, argv, stats);
  else if (o.summary || (!has_outputs(&o) && !o.quiet))
    rc = itg__cli_report_text(stats);
  else
    rc = 0;
  if (rc != 0) {
    itg__cli_error(PROG, itg_strerror(rc));
    status = ITG__CLI_EXIT_FAIL;
  }
  if (fflush(stdout) != 0) {
    DEC_ERROR("cannot write the report: %s", strerror(errno));
    status = ITG__CLI_EXIT_FAIL;
  }

out_free_stats:
  itg__json_run_finish(&json_doc);
  itg_stats_free(stats);
  free(p.buf);
  free(p.split);
  free(sent.v);
  itg__ditg_flows_free(&flows);
out_free_status:
  free(st);
out_free_logs:
  free(o.formats);
  free(o.logs);
  return status;
}
