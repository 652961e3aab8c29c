/* Running an experiment over an MPI job: the phases in order (see
 * mpi/run_internal.h for the files and include/itg/mpi.h for the rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "mpi/coll.h"
#include "mpi/run_internal.h"

int itg_mpi_run_cfg_init_size(itg_mpi_run_cfg *out, size_t size) {
  itg_mpi_run_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.clock_rounds = 200;
  cfg.start_margin_ns = ITG_MPI_START_MARGIN_NS;
  cfg.grace_ns = 10000000000LL;
  cfg.silence_ns = 5000000000LL;
  cfg.log_batch = 64;
  cfg.sender_log = 1;
  cfg.pin_cpu = -1;
  return itg__struct_out(out, size, &cfg, sizeof cfg);
}

/* This rank's verdict on its arguments, before anything is exchanged. */
static int check_args(itg__run *r, const itg_experiment *e,
                      const itg_mpi_run_cfg *cfg, const void *out,
                      size_t size) {
  int level = MPI_THREAD_SINGLE;
  if (itg__struct_in(&r->cfg, sizeof r->cfg, cfg, "itg_mpi_run_cfg", NULL,
                     0) != 0 ||
      e == NULL || out == NULL ||
      !itg__struct_size_ok(size, sizeof(itg_mpi_run_result)))
    return itg__run_fail(r, ITG_EINVAL, "rank %d: bad arguments", r->rank);
  if (r->cfg.clock_rounds < 1 || r->cfg.start_margin_ns < 0 ||
      r->cfg.grace_ns < 0 ||
      r->cfg.silence_ns < ITG_MPI_GATHER_TIMEOUT_MIN_NS ||
      r->cfg.log_batch == 0 || r->cfg.pin_cpu < -1 ||
      (r->cfg.sender_log != 0 && r->cfg.sender_log != 1) ||
      (r->cfg.clock_per_rank != 0 && r->cfg.clock_per_rank != 1))
    return itg__run_fail(r, ITG_EINVAL, "rank %d: a setting out of range",
                         r->rank);
  if (r->rank == r->root &&
      (r->cfg.log_dir == NULL || itg_log_dir_check(r->cfg.log_dir) != 0))
    return itg__run_fail(r, ITG_ENOENT, "rank %d: %s: not a directory",
                         r->rank,
                         r->cfg.log_dir != NULL ? r->cfg.log_dir : "(none)");
  if (MPI_Query_thread(&level) != MPI_SUCCESS ||
      level < MPI_THREAD_MULTIPLE)
    return itg__run_fail(r, ITG_ESTATE,
                         "MPI was not initialised with MPI_THREAD_MULTIPLE");
  return 0;
}

static void gather_main(void *arg) {
  itg__run *r = arg;
  r->gather_rc = itg_mpi_gather(r->comm, r->root, r->cfg.log_dir,
                                r->cfg.silence_ns, &r->gathered);
}

/* The phases up to the common start, each agreed on by every rank. */
static int prepare(itg__run *r) {
  int rc;
  r->snd = calloc(r->n, sizeof *r->snd);
  r->rcv = calloc(r->n, sizeof *r->rcv);
  r->ids = calloc(r->n, sizeof *r->ids);
  r->flow = calloc(r->n, sizeof *r->flow);
  r->info = calloc((size_t)r->ranks, sizeof *r->info);
  if (r->snd == NULL || r->rcv == NULL || r->ids == NULL || r->flow == NULL ||
      r->info == NULL)
    itg__run_fail(r, ITG_ENOMEM, "rank %d: out of memory", r->rank);
  if ((rc = itg__run_agree(r)) != 0 || (rc = itg__run_setup(r)) != 0)
    return rc;
  itg__run_log_open(r);
  if ((rc = itg__run_agree(r)) != 0)
    return rc;
  if (r->rank == r->root && r->ranks > 1) {
    if (uv_thread_create(&r->gather_thread, gather_main, r) == 0)
      r->gathering = 1;
    else
      itg__run_fail(r, ITG_ETHREAD, "rank %d: no thread for gathering",
                    r->rank);
  }
  itg__run_rx_start(r);
  if ((rc = itg__run_agree(r)) != 0)
    return rc;
  {
    int mine = r->info[r->rank].port, *all = malloc((size_t)r->ranks *
                                                    sizeof *all);
    if (all == NULL)
      return ITG_ENOMEM;
    if (MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, r->comm) !=
        MPI_SUCCESS)
      rc = ITG_EIO;
    for (int i = 0; i < r->ranks && rc == 0; i++)
      r->info[i].port = (uint16_t)all[i];
    free(all);
    if (rc != 0)
      return rc;
  }
  itg__run_tx_setup(r);
  if ((rc = itg__run_agree(r)) != 0)
    return rc;
  rc = itg_mpi_start_plan(r->comm, &r->clock, r->cfg.start_margin_ns,
                          &r->start);
  if (rc != 0 && r->errlen > 0)
    snprintf(r->err, r->errlen, "agreeing on the start failed: %s",
             itg_strerror(rc));
  return rc;
}

/* Ends the gathering: returns once every other rank has closed its
 * logger or gone silent. */
static void end_gathering(itg__run *r) {
  if (r->gathering)
    uv_thread_join(&r->gather_thread);
  r->gathering = 0;
}

static void run_free(itg__run *r) {
  itg__run_local_free(r);
  end_gathering(r);
  itg_mpi_gather_stats_free(&r->gathered);
  free(r->snd);
  free(r->rcv);
  free(r->ids);
  free(r->flow);
  free(r->info);
  if (r->comm != MPI_COMM_NULL)
    MPI_Comm_free(&r->comm);
  uv_cond_destroy(&r->rx_cond);
  uv_mutex_destroy(&r->lock);
}

int itg_mpi_run_size(MPI_Comm comm, const itg_experiment *e,
                     const itg_mpi_run_cfg *cfg, itg_mpi_run_result *out,
                     size_t size, char *err, size_t errlen) {
  itg__run run, *r = &run;
  itg_mpi_run_result res;
  int rc;

  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  memset(r, 0, sizeof *r);
  r->err = err;
  r->errlen = err != NULL ? errlen : 0;
  r->comm = MPI_COMM_NULL;
  if (uv_mutex_init(&r->lock) != 0)
    return ITG_ENOMEM;
  if (uv_cond_init(&r->rx_cond) != 0) {
    uv_mutex_destroy(&r->lock);
    return ITG_ENOMEM;
  }
  if (MPI_Comm_rank(comm, &r->rank) != MPI_SUCCESS ||
      MPI_Comm_size(comm, &r->ranks) != MPI_SUCCESS ||
      MPI_Comm_dup(comm, &r->comm) != MPI_SUCCESS) {
    rc = ITG_EIO;
    goto out;
  }
  check_args(r, e, cfg, out, size);
  r->e = e;
  r->n = e != NULL ? itg_experiment_count(e) : 0;
  r->root = 0;
  if ((rc = itg__run_agree(r)) != 0 || (rc = prepare(r)) != 0)
    goto out;

  /* From here on, no collective call: a rank may die. */
  itg__run_local(r);
  if (r->rank != r->root) {
    itg__run_report_send(r);
  } else {
    end_gathering(r);
  }
  memset(&res, 0, sizeof res);
  res.struct_size = sizeof res;
  res.ranks = r->ranks;
  res.root = r->root;
  res.flows = r->n;
  if (r->rank == r->root)
    rc = itg__run_report_collect(r, &res);
  res.rank = r->info;
  res.flow = r->flow;
  r->info = NULL;
  r->flow = NULL;
  itg__struct_out(out, size, &res, sizeof res);

out:
  run_free(r);
  return rc;
}

void itg_mpi_run_result_free(itg_mpi_run_result *res) {
  if (res == NULL || res->struct_size < sizeof *res)
    return;
  free(res->rank);
  free(res->flow);
  res->rank = NULL;
  res->flow = NULL;
}
