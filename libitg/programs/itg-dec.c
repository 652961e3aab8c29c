/* itg-dec: decodes libitg log files into QoS statistics, as D-ITG's ITGDec
 * does for its logs: a summary per flow and in total, a JSON report, or
 * interval series as CSV. */
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
    "merge) and prints QoS statistics per flow and in total.\n"
    "\n"
    "  --json      print the report as JSON\n"
    "  -d T        mean delay per interval of T milliseconds, as CSV\n"
    "  -j T        mean jitter per interval, as CSV\n"
    "  -b T        bitrate (kbit/s) per interval, as CSV\n"
    "  -p T        packets lost per interval, as CSV\n"
    "  -c T        all of these, one row per flow and interval, as CSV\n"
    "  -o FILE     write the CSV to FILE and the report to standard output\n"
    "              (without -o the CSV alone goes to standard output)\n"
    "  -h, --help  show this help\n"
    "  --version   show the version\n"
    "\n"
    "Exit status: 0 success; 1 an error while decoding; 2 a wrong option, a\n"
    "missing file or one that is not a libitg log (or whose header is\n"
    "damaged); 3 a log was truncated or corrupt: it was decoded up to the\n"
    "damage, or past damaged blocks, which were skipped (each reported on\n"
    "standard error, with the records lost), and the results were written.\n"
    "A log is cut short when it ends inside its header, a block or a\n"
    "record, or holds records of a flow whose end record (its writer's) is\n"
    "in none of the logs given (the writer stopped early: a full disk, a\n"
    "crash). A sender's log shipped to a log server, and its spill file,\n"
    "are decoded together: the end may be in either.\n";

typedef struct options {
  int json;
  itg_series_field field; /* 0: no series */
  int64_t interval_ns;
  const char *out_path;
  const char **logs;
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
  rc = itg_decode_files_size(o->logs, o->nlogs, NULL, ser, NULL, 0);
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
    if (!st[i].opened && st[i].error == ITG_ETRUNC) {
      DEC_ERROR("%s: cut short inside its header", o->logs[i]);
      if (status == 0)
        status = EXIT_DAMAGED;
      continue;
    }
    if (!st[i].opened) {
      if (st[i].error == ITG_EBADMSG || st[i].error == ITG_EVERSION)
        DEC_ERROR("%s: not a libitg log, or its header is damaged (%s)",
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
  o.logs = calloc((size_t)argc, sizeof *o.logs);
  if (o.logs == NULL) {
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
  rc = itg_decode_files(o.logs, o.nlogs, stats, NULL, st);
  if (rc == ITG_ENOMEM) {
    itg__cli_error(PROG, "out of memory");
    goto out_free_stats;
  }
  status = report_files(&o, st);
  if (status == ITG__CLI_EXIT_USAGE)
    goto out_free_stats;
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
  free(o.logs);
  return status;
}
