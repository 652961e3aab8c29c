/* itg-dec: decodes libitg log files, and D-ITG's, into QoS statistics, as
 * D-ITG's ITGDec does for its logs: a summary per flow and in total, a
 * JSON report, or interval series as CSV; and writes the records as a
 * D-ITG log for ITGDec. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
#include "programs/cli.h"
#include "programs/report.h"

#define PROG "itg-dec"
#define EXIT_DAMAGED 3 /* a log was cut short or corrupt */

#define CSV_CHUNK 4096 /* intervals formatted at a time */

static const char usage_text[] =
    "usage: itg-dec [options] LOG...\n"
    "Reads libitg log files (sender and receiver logs of the same flows\n"
    "merge) and D-ITG's binary and text logs (ITGRecv -l, ITGSend -x,\n"
    "ITGDec -l; each told by its content), and prints QoS statistics per\n"
    "flow and in total.\n"
    "\n"
    "  --json      print the report as JSON\n"
    "  -d T        mean delay per interval of T milliseconds, as CSV\n"
    "  -j T        mean jitter per interval, as CSV\n"
    "  -b T        bitrate (kbit/s) per interval, as CSV\n"
    "  -p T        packets lost per interval, as CSV\n"
    "  -c T        all of these, one row per flow and interval, as CSV\n"
    "  -o FILE     write the CSV to FILE and the report to standard output\n"
    "              (without -o the CSV alone goes to standard output)\n"
    "  --date YYYY-MM-DD\n"
    "              the UTC day on which each D-ITG log's first record was\n"
    "              received (D-ITG logs times of day only); by default the\n"
    "              day that puts its last record within the day before the\n"
    "              file was last modified. Within a log, a time of day that\n"
    "              goes back by more than half a day is the next day\n"
    "  --export-ditg FILE\n"
    "              also write the records the report's total counts (one-way\n"
    "              if any, else round-trip, else sent) to FILE as a D-ITG\n"
    "              binary log that ITGDec reads; addresses and ports, which\n"
    "              libitg does not log, are written 0.0.0.0 and 0\n"
    "  -h, --help  show this help\n"
    "  --version   show the version\n"
    "\n"
    "Exit status: 0 success; 1 an error while decoding; 2 a wrong option, a\n"
    "missing file or one that is neither a libitg nor a D-ITG log (or whose\n"
    "header is damaged); 3 a log was truncated or corrupt: it was decoded up\n"
    "to the damage, or past damaged blocks, which were skipped (each\n"
    "reported on standard error, with the records lost), and the results\n"
    "were written.\n"
    "A log is cut short when it ends inside its header, a block or a\n"
    "record, or holds records of a flow whose end record (its writer's) is\n"
    "in none of the logs given (the writer stopped early: a full disk, a\n"
    "crash). A sender's log shipped to a log server, and its spill file,\n"
    "are decoded together: the end may be in either. A D-ITG log is cut\n"
    "short when it ends inside a record or a line; a malformed D-ITG record\n"
    "is skipped and reported, as a damaged block is.\n";

typedef struct options {
  int json;
  itg_series_field field; /* 0: no series */
  int64_t interval_ns;
  const char *out_path;
  const char *export_path;
  int64_t day_ns; /* ITG_DITG_DAY_MTIME unless --date */
  const char **logs;
  itg_log_format *formats;
  size_t nlogs;
} options;

/* Prints "itg-dec: " and a formatted message on stderr (paths in it can
 * be long: the message is cut, never overflowed). */
#define DEC_ERROR(...)                                                         \
  do {                                                                         \
    char msg_[4352];                                                           \
    snprintf(msg_, sizeof msg_, __VA_ARGS__);                                  \
    itg__cli_error(PROG, msg_);                                                \
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

/* Reads the command line into *o (o->logs must hold argc entries).
 * Returns -1 to go on, or the exit status (help, version, a wrong
 * option). */
static int parse_args(int argc, char **argv, options *o) {
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    itg_series_field field;
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
    } else if (strcmp(a, "-o") == 0) {
      int rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &o->out_path);
      if (rc != 0)
        return rc;
    } else if (strcmp(a, "--export-ditg") == 0) {
      int rc =
          itg__cli_value(PROG, usage_text, argc, argv, &i, &o->export_path);
      if (rc != 0)
        return rc;
    } else if (strcmp(a, "--date") == 0) {
      const char *val;
      int rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val);
      if (rc != 0)
        return rc;
      if (parse_date(val, &o->day_ns) != 0)
        return bad_usage("--date takes a day YYYY-MM-DD from 1970-01-01 to "
                         "2200-01-01, not",
                         val);
    } else if ((field = series_option(a)) != 0) {
      const char *val;
      int64_t ns;
      int rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &val);
      if (rc != 0)
        return rc;
      if (o->field != 0)
        return bad_usage("one series at a time (-c gives them all); "
                         "unexpected",
                         a);
      if (itg_parse_ms(val, &ns) != 0 || ns <= 0)
        return bad_usage("the interval must be a positive number of "
                         "milliseconds, not",
                         val);
      o->field = field;
      o->interval_ns = ns;
    } else {
      return bad_usage("unknown option", a);
    }
  }
  if (o->nlogs == 0)
    return itg__cli_bad_usage(PROG, "no log file given", usage_text);
  if (o->out_path != NULL && o->field == 0)
    return bad_usage("-o names the CSV file of a series (-d, -j, -b, -p or "
                     "-c); nothing to write to",
                     o->out_path);
  if (o->json && o->field != 0 && o->out_path == NULL)
    return itg__cli_bad_usage(PROG,
                              "--json and a series cannot share standard "
                              "output: give the series a file with -o",
                              usage_text);
  return -1;
}

/* ---- decoding ------------------------------------------------------------ */

/* Tells of a D-ITG flow counted under another id than its own (D-ITG told
 * it from a flow of the same id by its addresses and ports). */
static void note_flow(const itg_ditg_flow *f, void *user) {
  (void)user;
  if (f->flow_id != f->ditg_flow_id)
    DEC_ERROR("D-ITG flow %u from %s:%u to %s:%u is reported as flow %u "
              "(its id is another flow's)",
              (unsigned)f->ditg_flow_id, f->src_addr, (unsigned)f->src_port,
              f->dst_addr, (unsigned)f->dst_port, (unsigned)f->flow_id);
}

/* Decodes every log, libitg's in one call (a flow's end may be in another
 * of them) and D-ITG's in another, into stats and series (either may be
 * NULL) through map (NULL: none); st (NULL: not wanted) gets the statuses
 * in the order of the command line. A file that cannot be opened, or is
 * neither, goes with libitg's, whose reader reports it. Returns the first
 * error, or a fatal one (ITG_ENOMEM, ITG_ELIMIT). */
static int decode_logs(const options *o, const itg_decode_map *map,
                       itg_stats *stats, itg_series *series,
                       itg_decode_status *st, int note_flows) {
  const char **paths[2];
  itg_decode_status *sub[2] = {NULL, NULL};
  size_t count[2] = {0, 0};
  itg_ditg_cfg cfg;
  int rc[2] = {0, 0};
  int fail = 0;
  paths[0] = calloc(o->nlogs, sizeof *paths[0]);
  paths[1] = calloc(o->nlogs, sizeof *paths[1]);
  if (st != NULL) {
    sub[0] = calloc(o->nlogs, sizeof *sub[0]);
    sub[1] = calloc(o->nlogs, sizeof *sub[1]);
  }
  if (paths[0] == NULL || paths[1] == NULL ||
      (st != NULL && (sub[0] == NULL || sub[1] == NULL))) {
    fail = ITG_ENOMEM;
    goto out_free;
  }
  for (size_t i = 0; i < o->nlogs; i++) {
    int k = o->formats[i] == ITG_LOG_FORMAT_DITG ||
            o->formats[i] == ITG_LOG_FORMAT_DITG_TEXT;
    paths[k][count[k]++] = o->logs[i];
  }
  if (count[0] > 0)
    rc[0] = itg_decode_files_map_size(paths[0], count[0], map, stats, series,
                                      sub[0], st != NULL ? sizeof *st : 0);
  itg_ditg_cfg_init(&cfg);
  cfg.day_ns = o->day_ns;
  cfg.on_flow = note_flows ? note_flow : NULL;
  if (count[1] > 0 && rc[0] != ITG_ENOMEM && rc[0] != ITG_ELIMIT)
    rc[1] = itg_ditg_decode_files_size(paths[1], count[1], &cfg, map, stats,
                                       series, sub[1],
                                       st != NULL ? sizeof *st : 0);
  if (st != NULL) {
    size_t next[2] = {0, 0};
    for (size_t i = 0; i < o->nlogs; i++) {
      int k = o->formats[i] == ITG_LOG_FORMAT_DITG ||
              o->formats[i] == ITG_LOG_FORMAT_DITG_TEXT;
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
    rc = decode_logs(o, &map, NULL, NULL, NULL, 0);
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

/* Decodes the logs again into a series of the stats' main meter and
 * writes it. Returns 0 or the exit status of a failure (reported). */
static int do_series(const options *o, const itg_stats *stats) {
  itg_series *ser = NULL;
  FILE *fp = stdout;
  int rc = itg_series_new(o->interval_ns, itg_stats_main_meter(stats), &ser);
  int status = 0;
  if (rc != 0)
    goto out_report;
  rc = decode_logs(o, NULL, NULL, ser, NULL, 0);
  if (rc == ITG_ELIMIT) {
    DEC_ERROR("the series would need more than %u cells (flows "
              "times intervals): choose a longer interval",
              (unsigned)ITG_SERIES_MAX_CELLS);
    status = ITG__CLI_EXIT_FAIL;
    goto out_free_series;
  }
  if (rc == ITG_ENOMEM)
    goto out_report;
  /* Damaged files were reported by the first pass; the same records are
   * read again here. */
  if (o->out_path != NULL) {
    fp = fopen(o->out_path, "w");
    if (fp == NULL) {
      DEC_ERROR("cannot write %s: %s", o->out_path, strerror(errno));
      status = ITG__CLI_EXIT_FAIL;
      goto out_free_series;
    }
  }
  rc = write_csv(ser, o->field, fp);
  if (fp != stdout && fclose(fp) != 0 && rc == 0)
    rc = ITG_EIO;
  if (rc != 0)
    goto out_report;
  itg_series_free(ser);
  return 0;

out_report:
  DEC_ERROR("series: %s", itg_strerror(rc));
  status = ITG__CLI_EXIT_FAIL;
out_free_series:
  itg_series_free(ser);
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

int main(int argc, char **argv) {
  options o;
  itg_stats *stats = NULL;
  itg_decode_status *st;
  int status, rc;
  memset(&o, 0, sizeof o);
  o.day_ns = ITG_DITG_DAY_MTIME;
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
  status = ITG__CLI_EXIT_FAIL;
  st = calloc(o.nlogs, sizeof *st);
  if (st == NULL || itg_stats_new(&stats) != 0) {
    itg__cli_error(PROG, "out of memory");
    goto out_free_status;
  }
  for (size_t i = 0; i < o.nlogs; i++)
    if (itg_log_format_of(o.logs[i], &o.formats[i]) != 0)
      o.formats[i] = ITG_LOG_FORMAT_LIBITG;
  rc = decode_logs(&o, NULL, stats, NULL, st, 1);
  if (rc == ITG_ENOMEM) {
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
  if (o.export_path != NULL) {
    int ers = do_export(&o, stats);
    if (ers != 0) {
      status = ers;
      goto out_free_stats;
    }
  }
  if (o.field != 0) {
    int srs = do_series(&o, stats);
    if (srs != 0) {
      status = srs;
      goto out_free_stats;
    }
    if (o.out_path == NULL)
      goto out_free_stats;
  }
  rc = o.json ? itg__cli_report_json(stats) : itg__cli_report_text(stats);
  if (rc != 0) {
    itg__cli_error(PROG, itg_strerror(rc));
    status = ITG__CLI_EXIT_FAIL;
  }
  if (fflush(stdout) != 0) {
    DEC_ERROR("cannot write the report: %s", strerror(errno));
    status = ITG__CLI_EXIT_FAIL;
  }

out_free_stats:
  itg_stats_free(stats);
out_free_status:
  free(st);
out_free_logs:
  free(o.formats);
  free(o.logs);
  return status;
}
