/* itg-mpi: runs an experiment file over the ranks of an MPI job (mpirun,
 * srun) and prints, on rank 0, the ranks' clocks, how each flow ended and
 * the QoS report of every flow with one-way delays in rank 0's time base. */
#define _GNU_SOURCE /* setns */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "itg.h"
#include "itg/mpi.h"
#include "programs/cli.h"
#include "programs/report.h"
#include "programs/run_report.h"

#define PROG "itg-mpi"

static const char usage_text[] =
    "usage: mpirun -np N itg-mpi [options] EXPERIMENT\n";

static const char help_text[] =
    "\n"
    "Runs the flows of an experiment file (itg-send's script lines, with\n"
    "'@' placements: see README, \"Experiment files\") on the ranks of an MPI\n"
    "job: receivers on the ranks that receive, senders started together,\n"
    "every rank's records gathered on rank 0, which prints the report.\n"
    "\n"
    "  -L, --logs DIR         where rank 0 writes the logs, one a rank,\n"
    "                         DIR/rank-R.itglog (default itg-mpi-logs; made\n"
    "                         if missing)\n"
    "  --json                 print the report as JSON\n"
    "  --no-clock-correction  report one-way delays as logged, without the\n"
    "                         ranks' clock offsets\n"
    "  --net ADDR/PREFIX      the network the receivers are reached on: each\n"
    "                         rank takes its host's address in it (default:\n"
    "                         loopback on one host, else the first IPv4\n"
    "                         address that is not loopback)\n"
    "  --spill-dir DIR        where a rank keeps the records rank 0 cannot\n"
    "                         take in time (default: the current directory)\n"
    "  --rounds N             clock ping-pong rounds a rank (default 200)\n"
    "  --clock-per-rank       measure each rank's clock, even where ranks\n"
    "                         share a host (whose ranks otherwise share its\n"
    "                         offset; 0 on rank 0's host): for clocks that\n"
    "                         differ on one host (libfaketime, virtual\n"
    "                         machines with one name)\n"
    "  --margin MS            the start's margin (default 200)\n"
    "  --grace MS             how long past a flow's planned end it is\n"
    "                         waited for (default 10000)\n"
    "  --silence MS           a rank silent this long is given up (default\n"
    "                         5000, at least 2000: each rank's logger sends\n"
    "                         a keepalive every second)\n"
    "  -D, --batch N          log records per write (default 64)\n"
    "  --no-sender-log        gather the receivers' records only\n"
    "  --cpu N                pin each rank's sending thread to CPU N\n"
    "  --netns NAME           this rank's flows run in network namespace\n"
    "                         NAME (/run/netns/NAME, as ip netns makes it;\n"
    "                         or a path): give it in an app context, one a\n"
    "                         rank; MPI's own traffic stays where it was\n"
    "  -h, --help             show this help\n"
    "  --version              show the version\n"
    "\n"
    "Exit status: 0 every flow ran and every rank reported; 1 a flow or a\n"
    "rank failed (the report of the others is printed), or the run could\n"
    "not start; 2 a wrong option or experiment.\n";

typedef struct options {
  itg_mpi_run_cfg cfg;
  const char *logs;
  const char *experiment;
  const char *netns;
  int json;
  int correct;
} options;

/* Parses the command line (every rank parses the same one). Returns 0,
 * or the exit status. */
static int parse_args(int argc, char **argv, options *o, int loud) {
  itg_mpi_run_cfg_init(&o->cfg);
  o->logs = "itg-mpi-logs";
  o->correct = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int64_t ns;
    uint64_t n;
    int rc;
    if (!loud && (itg__cli_is_help(a, 1) || strcmp(a, "--version") == 0))
      return -1;
    if (loud && itg__cli_info(PROG, a, 1, usage_text, help_text) == 0)
      return -1;
    if (a[0] != '-') {
      if (o->experiment != NULL)
        return loud ? itg__cli_bad_usage(PROG, "one experiment file only",
                                         usage_text)
                    : ITG__CLI_EXIT_USAGE;
      o->experiment = a;
      continue;
    }
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
      continue;
    }
    if (strcmp(a, "--no-clock-correction") == 0) {
      o->correct = 0;
      continue;
    }
    if (strcmp(a, "--clock-per-rank") == 0) {
      o->cfg.clock_per_rank = 1;
      continue;
    }
    if (strcmp(a, "--no-sender-log") == 0) {
      o->cfg.sender_log = 0;
      continue;
    }
    if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &v)) != 0)
      return rc;
    if (strcmp(a, "-L") == 0 || strcmp(a, "--logs") == 0) {
      o->logs = v;
    } else if (strcmp(a, "--net") == 0) {
      o->cfg.net = v;
    } else if (strcmp(a, "--netns") == 0) {
      o->netns = v;
    } else if (strcmp(a, "--spill-dir") == 0) {
      o->cfg.spill_dir = v;
    } else if (strcmp(a, "--rounds") == 0 &&
               itg_parse_u64(v, 1, ITG_MPI_CLOCK_ROUNDS_MAX, &n) == 0) {
      o->cfg.clock_rounds = (int)n;
    } else if (strcmp(a, "--margin") == 0 && itg_parse_ms(v, &ns) == 0 &&
               ns > 0 && ns <= ITG_MPI_START_MARGIN_MAX_NS) {
      o->cfg.start_margin_ns = ns;
    } else if (strcmp(a, "--grace") == 0 && itg_parse_ms(v, &ns) == 0) {
      o->cfg.grace_ns = ns;
    } else if (strcmp(a, "--silence") == 0 && itg_parse_ms(v, &ns) == 0 &&
               ns >= ITG_MPI_GATHER_TIMEOUT_MIN_NS) {
      o->cfg.silence_ns = ns;
    } else if ((strcmp(a, "-D") == 0 || strcmp(a, "--batch") == 0) &&
               itg_parse_u64(v, 1, 1u << 20, &n) == 0) {
      o->cfg.log_batch = (uint32_t)n;
    } else if (strcmp(a, "--cpu") == 0) {
      if ((rc = itg__cli_cpu(PROG, usage_text, v, &o->cfg.pin_cpu)) != 0)
        return rc;
    } else {
      char msg[320];
      snprintf(msg, sizeof msg, "%s %.256s: %s", a, v,
               strcmp(a, "--silence") == 0
                   ? "not a time of at least 2000 ms (twice the keepalive)"
                   : "not an option, or a value out of its range");
      return loud ? itg__cli_bad_usage(PROG, msg, usage_text)
                  : ITG__CLI_EXIT_USAGE;
    }
  }
  if (o->experiment == NULL)
    return loud ? itg__cli_bad_usage(PROG, "no experiment file", usage_text)
                : ITG__CLI_EXIT_USAGE;
  o->cfg.log_dir = o->logs;
  return 0;
}

/* Moves this thread, and so every thread the run starts from it (the
 * receiver's, the sender's, the loggers'), into the network namespace
 * named: MPI's connections, made by MPI_Init, stay in the namespace they
 * were made in, so ranks in separate namespaces still reach one another
 * while their flows cross the links between the namespaces. Returns 0 or
 * -1 with the reason printed. */
static int enter_netns(const char *name, int rank) {
  char path[512], msg[700];
  int fd;
  snprintf(path, sizeof path, "%s%s", strchr(name, '/') ? "" : "/run/netns/",
           name);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && setns(fd, CLONE_NEWNET) == 0) {
    close(fd);
    return 0;
  }
  snprintf(msg, sizeof msg, "rank %d: --netns %s: %s", rank, path,
           strerror(errno));
  itg__cli_error(PROG, msg);
  if (fd >= 0)
    close(fd);
  return -1;
}

/* Rank 0 reads the experiment file and sends its text to every rank, so
 * that the ranks of a cluster without a shared file system read the same
 * one. Returns 0 or the exit status, alike on every rank. */
static int load(const options *o, int rank, itg_experiment **e) {
  long long len = -1;
  char *text = NULL, err[512] = "";
  int rc = 0;
  if (rank == 0) {
    FILE *fp = fopen(o->experiment, "rb");
    if (fp != NULL && fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
        len <= ITG_EXPERIMENT_FILE_MAX && fseek(fp, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len + 1)) != NULL &&
        fread(text, 1, (size_t)len, fp) != (size_t)len)
      len = -1;
    if (fp == NULL || len < 0 || len > ITG_EXPERIMENT_FILE_MAX) {
      snprintf(err, sizeof err, "%s: %s", o->experiment,
               fp == NULL ? "cannot be opened"
               : len > ITG_EXPERIMENT_FILE_MAX ? "larger than 16 MiB"
                                               : "cannot be read");
      itg__cli_error(PROG, err);
      len = -1;
    }
    if (fp != NULL)
      fclose(fp);
  }
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (len < 0) {
    free(text);
    return ITG__CLI_EXIT_USAGE;
  }
  if (rank != 0 && (text = malloc((size_t)len + 1)) == NULL)
    MPI_Abort(MPI_COMM_WORLD, ITG__CLI_EXIT_FAIL);
  MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
  rc = itg_experiment_parse(text, (size_t)len, e, err, sizeof err);
  free(text);
  if (rc != 0 && rank == 0) {
    char msg[700];
    snprintf(msg, sizeof msg, "%s: %s", o->experiment, err);
    itg__cli_error(PROG, msg);
  }
  return rc != 0 ? ITG__CLI_EXIT_USAGE : 0;
}

/* ---- the report ---------------------------------------------------------- */

/* Fills run, place[ranks] and flow[flows] from res: the account
 * run_report.h prints, pointing into res. */
static void account(const itg_mpi_run_result *res, int correct,
                    itg__cli_run *run, itg__cli_run_place *place,
                    itg__cli_run_flow *flow) {
  for (int i = 0; i < res->ranks; i++) {
    const itg_mpi_run_rank *k = &res->rank[i];
    itg__cli_run_place *p = &place[i];
    p->host = k->host;
    p->addr = k->addr;
    p->port = k->port;
    p->sends = k->sends;
    p->receives = k->receives;
    p->offset_ns = k->offset_ns;
    p->uncertainty_ns = k->uncertainty_ns;
    p->records = k->records;
    p->gaps = k->gaps;
    p->spilled = k->spilled;
    p->lost = k->lost;
    p->malformed = k->malformed;
    p->reported = k->reported;
    p->silent = k->silent;
    p->error = k->error != 0 ? k->message : "";
    p->log_path = k->log_path;
    p->spill_path = k->spill_path;
  }
  for (size_t i = 0; i < res->flows; i++) {
    const itg_mpi_run_flow *f = &res->flow[i];
    itg__cli_run_flow *o = &flow[i];
    o->flow_id = f->flow_id;
    o->line = f->line;
    o->sender = f->sender_rank;
    o->receiver = f->receiver_rank;
    o->receiver_addr = f->receiver;
    o->port = f->port;
    o->data_port = f->data_port;
    o->reported = f->reported;
    o->status = f->status;
    o->error = f->error;
    o->packets = f->packets;
    o->bytes = f->bytes;
    o->received = f->received;
    o->first_tx_ns = f->first_tx_ns;
    o->last_tx_ns = f->last_tx_ns;
  }
  run->prog = PROG;
  run->word = "rank";
  run->places = res->ranks;
  run->place = place;
  run->flows = res->flows;
  run->flow = flow;
  run->start_ns = res->start_ns;
  run->start_skew_ns = res->start_skew_ns;
  run->skew_uncertainty_ns = res->skew_uncertainty_ns;
  run->correct = correct;
}

/* Rank 0: the report. Returns the exit status. */
static int report(const options *o, const itg_mpi_run_result *res) {
  itg_stats *stats = NULL;
  char *json = NULL;
  itg__cli_run run;
  itg__cli_run_place *place = calloc((size_t)res->ranks, sizeof *place);
  itg__cli_run_flow *flow = calloc(res->flows + 1, sizeof *flow);
  int rc = place == NULL || flow == NULL ? ITG_ENOMEM : itg_stats_new(&stats);
  int drc = 0;
  if (rc == 0)
    drc = itg_mpi_run_stats(res, o->correct, stats, NULL);
  if (rc == 0 && o->json)
    json = itg__cli_stats_json(stats, &rc);
  if (rc != 0) {
    itg__cli_error(PROG, itg_strerror(rc));
    itg_stats_free(stats);
    free(place);
    free(flow);
    return ITG__CLI_EXIT_FAIL;
  }
  account(res, o->correct, &run, place, flow);
  itg__cli_run_tell_failures(&run);
  if (drc != 0 && drc != ITG_ETRUNC) {
    char msg[200];
    snprintf(msg, sizeof msg, "decoding the gathered logs: %s",
             itg_strerror(drc));
    itg__cli_error(PROG, msg);
  }
  if (o->json) {
    itg__cli_run_print_json(&run, json);
  } else {
    itg__cli_run_print_text(&run);
    itg__cli_report_text(stats);
  }
  free(json);
  itg_stats_free(stats);
  free(place);
  free(flow);
  return res->failed_flows > 0 || res->failed_ranks > 0 ? ITG__CLI_EXIT_FAIL
                                                        : ITG__CLI_EXIT_OK;
}

int main(int argc, char **argv) {
  options o;
  itg_experiment *e = NULL;
  itg_mpi_run_result res;
  char err[512];
  int provided = 0, rank = 0, status, rc;

  /* Open MPI ends MPI_Finalize with a barrier of every rank, which a rank
   * that died never reaches: under mpirun --enable-recovery the others
   * would wait in it for good, report printed. itg_mpi_run has already
   * waited for every message it needs, so the barrier guards nothing
   * here; without it each rank finalizes alone. A setting of the user's
   * is kept. */
  setenv("OMPI_MCA_async_mpi_finalize", "1", 0);
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) !=
      MPI_SUCCESS)
    return ITG__CLI_EXIT_FAIL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  memset(&o, 0, sizeof o);
  status = parse_args(argc, argv, &o, rank == 0);
  if (status == 0 && o.netns != NULL && enter_netns(o.netns, rank) != 0)
    status = ITG__CLI_EXIT_USAGE;
  /* Every rank goes on only if all can: a rank that stopped here alone
   * would leave the others waiting for it. */
  MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (status == 0 && rank == 0) {
    uv_fs_t req;
    uv_fs_mkdir(NULL, &req, o.logs, 0755, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (status == 0)
    status = load(&o, rank, &e);
  if (status != 0) {
    MPI_Finalize();
    return status < 0 ? ITG__CLI_EXIT_OK : status;
  }
  rc = itg_mpi_run(MPI_COMM_WORLD, e, &o.cfg, &res, err, sizeof err);
  itg_experiment_free(e);
  if (rc != 0) {
    if (rank == 0) {
      char msg[700];
      snprintf(msg, sizeof msg, "%s (%s)", err[0] != '\0' ? err : "failed",
               itg_err_name(rc));
      itg__cli_error(PROG, msg);
    }
    MPI_Finalize();
    return ITG__CLI_EXIT_FAIL;
  }
  status = rank == 0 ? report(&o, &res) : ITG__CLI_EXIT_OK;
  fflush(stdout);
  itg_mpi_run_result_free(&res);
  MPI_Finalize();
  return status;
}
