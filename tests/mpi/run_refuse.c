/* itg_mpi_run refuses, on every rank at once and with one message naming
 * the cause, what it cannot run (tests/mpi/run.sh runs it on three ranks;
 * a refusal on one rank that left the others waiting would hang here
 * until run.sh's time limit), and then runs a small experiment on the
 * same communicator, and one whose flow outlives its grace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itg.h"
#include "itg/mpi.h"

#define CHECK_NAME "run_refuse"
#include "check.h"

static char dir[256];

static itg_experiment *parse(const char *text) {
  itg_experiment *e = NULL;
  char err[256];
  int rc = itg_experiment_parse(text, strlen(text), &e, err, sizeof err);
  CHECK(rc == 0, "%s: %s", text, err);
  return e;
}

/* Runs text with cfg on every rank; returns the code, err the message. */
static int run(const char *text, const itg_mpi_run_cfg *cfg,
               itg_mpi_run_result *res, char *err, size_t len) {
  itg_experiment *e = parse(text);
  int rc = itg_mpi_run(MPI_COMM_WORLD, e, cfg, res, err, len);
  itg_experiment_free(e);
  return rc;
}

/* Every rank got the same code and message. */
static void same_everywhere(int rc, const char *err) {
  int lo = rc, hi = rc;
  char root_err[512];
  snprintf(root_err, sizeof root_err, "%s", err);
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Bcast(root_err, sizeof root_err, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(lo == hi, "codes differ between ranks (%d..%d)", lo, hi);
  CHECK(strcmp(root_err, err) == 0, "message '%s', rank 0's '%s'", err,
        root_err);
}

int main(int argc, char **argv) {
  itg_mpi_run_cfg cfg;
  itg_mpi_run_result res;
  char err[512], host[256];
  int provided, rc, all_fails;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(dir, sizeof dir, "%s/run_refuse.%d",
           getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp",
           (int)getppid());
  if (rank == 0)
    CHECK(mkdir(dir, 0755) == 0 || access(dir, W_OK) == 0,
          "cannot make %s", dir);
  if (gethostname(host, sizeof host) != 0)
    snprintf(host, sizeof host, "unknown");
  itg_mpi_run_cfg_init(&cfg);
  cfg.log_dir = dir;
  cfg.clock_rounds = 20;
  memset(&res, 0x5a, sizeof res);

  /* A rank the job does not have: the placement's message, everywhere. */
  rc = run("@5 -a @1 -C 10 -t 100\n", &cfg, &res, err, sizeof err);
  CHECK(rc == ITG_EINVAL, "rank 5: %s", itg_err_name(rc));
  CHECK(strstr(err, "line 1: @5: no such rank (the job has 3)") != NULL,
        "rank 5: '%s'", err);
  CHECK(res.ranks == 0x5a5a5a5a, "a refused run wrote the result");
  same_everywhere(rc, err);

  /* No address of any host in the network named: the receiving rank and
   * its host are named. */
  cfg.net = "2001:db8:7e57::/48";
  rc = run("@1 -a @2 -C 10 -t 100\n", &cfg, &res, err, sizeof err);
  CHECK(rc == ITG_EADDR, "no address: %s", itg_err_name(rc));
  {
    char want[400];
    snprintf(want, sizeof want,
             "rank 2 (%s): no address of this host in 2001:db8:7e57::/48", host);
    CHECK(strstr(err, want) != NULL, "no address: '%s'", err);
  }
  same_everywhere(rc, err);
  cfg.net = "not a network";
  rc = run("@1 -a @2 -C 10 -t 100\n", &cfg, &res, err, sizeof err);
  CHECK(rc == ITG_EINVAL, "bad network: %s", itg_err_name(rc));
  same_everywhere(rc, err);
  cfg.net = NULL;

  /* Root's log directory missing; a bad setting on one rank alone. */
  cfg.log_dir = "/nonexistent/itg-mpi-logs";
  rc = run("@1 -a @2 -C 10 -t 100\n", &cfg, &res, err, sizeof err);
  CHECK(rc == ITG_ENOENT, "no log dir: %s", itg_err_name(rc));
  same_everywhere(rc, err);
  cfg.log_dir = dir;
  cfg.clock_rounds = rank == 2 ? 0 : 20;
  rc = run("@1 -a @2 -C 10 -t 100\n", &cfg, &res, err, sizeof err);
  CHECK(rc == ITG_EINVAL, "bad rounds on rank 2: %s", itg_err_name(rc));
  same_everywhere(rc, err);
  cfg.clock_rounds = 20;

  /* Then a run on the same communicator: rank 1 sends to rank 2, rank 2
   * to rank 0, rank 0 to rank 1, flows 1, 2 and 3 by their lines. */
  rc = run("@1 -a @2 -T UDP -C 200 -c 100 -t 500\n"
           "@2 -a @0 -T UDP -C 100 -c 200 -t 500\n"
           "@0 -a @1 -T TCP -C 100 -c 300 -t 500\n",
           &cfg, &res, err, sizeof err);
  CHECK(rc == 0, "run: %s: %s", itg_err_name(rc), err);
  if (rc == 0) {
    CHECK(res.ranks == 3 && res.flows == 3, "%d ranks, %zu flows", res.ranks,
          res.flows);
    CHECK(res.flow[0].flow_id == 1 && res.flow[1].flow_id == 2 &&
              res.flow[2].flow_id == 3,
          "ids %u %u %u", res.flow[0].flow_id, res.flow[1].flow_id,
          res.flow[2].flow_id);
    for (size_t i = 0; i < res.flows; i++) {
      const itg_mpi_run_flow *f = &res.flow[i];
      if (rank != 0 && f->sender_rank != rank)
        continue; /* another rank's: known on rank 0 only */
      CHECK(f->reported && f->status == 0, "flow %zu: %s", i, f->error);
      CHECK(f->packets == 100 || f->packets == 50,
            "flow %zu: %llu sent", i, (unsigned long long)f->packets);
      CHECK(f->received == f->packets, "flow %zu: %llu of %llu received", i,
            (unsigned long long)f->received, (unsigned long long)f->packets);
    }
    if (rank == 0) {
      itg_stats *st = NULL;
      itg_decode_status ds[3];
      CHECK(res.failed_flows == 0 && res.failed_ranks == 0,
            "%d flows, %d ranks failed", res.failed_flows, res.failed_ranks);
      CHECK(itg_stats_new(&st) == 0, "stats");
      rc = itg_mpi_run_stats(&res, 1, st, ds);
      CHECK(rc == 0, "decoding: %s", itg_err_name(rc));
      for (int i = 0; i < 3; i++)
        CHECK(ds[i].opened && ds[i].error == 0, "rank %d's log: %s", i,
              itg_err_name(ds[i].error));
      for (size_t i = 0; i < itg_stats_flow_count(st); i++) {
        itg_flow_stats fs;
        itg_stats_flow(st, i, &fs);
        if (fs.meter != ITG_STATS_OWD)
          continue;
        CHECK(fs.packets == (fs.flow_id == 1 ? 100u : 50u) && fs.lost == 0,
              "flow %u: %llu packets, %llu lost", fs.flow_id,
              (unsigned long long)fs.packets, (unsigned long long)fs.lost);
        CHECK(fs.delay_min_ns > 0 && fs.delay_max_ns < 1000000000LL,
              "flow %u: delays %lld..%lld ns", fs.flow_id,
              (long long)fs.delay_min_ns, (long long)fs.delay_max_ns);
      }
      itg_stats_free(st);
    }
    itg_mpi_run_result_free(&res);
  }

  /* No grace past a flow's planned end, and a flow asking for more than
   * any machine sends, so still behind its schedule (a sender keeps
   * sending past the end for a tenth of the duration then): it is stopped
   * and says so. */
  cfg.grace_ns = 0;
  rc = run("@1 -a @2 -T UDP -C 5000000 -c 64 -t 300\n", &cfg, &res, err,
           sizeof err);
  CHECK(rc == 0, "no grace: %s: %s", itg_err_name(rc), err);
  if (rc == 0) {
    if (rank == 0 || rank == 1) {
      CHECK(res.flow[0].reported && res.flow[0].status == ITG_ETIMEDOUT,
            "no grace: status %s", itg_err_name(res.flow[0].status));
      CHECK(strstr(res.flow[0].error, "past its planned end") != NULL,
            "no grace: '%s'", res.flow[0].error);
    }
    if (rank == 0)
      CHECK(res.failed_flows == 1, "no grace: %d flows failed",
            res.failed_flows);
    itg_mpi_run_result_free(&res);
  }

  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("run_refuse: %s (%d failures)\n", all_fails ? "FAIL" : "ok",
           all_fails);
  MPI_Finalize();
  return all_fails != 0;
}
