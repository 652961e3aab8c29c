/* The state of one rank in itg_mpi_run, shared by mpi/run*.c.
 *
 * The files are layers, each calling only the ones below it:
 *   run.c        the public calls: the phases in order
 *   run_setup.c  what the ranks agree on before the start: host names,
 *                placement, flow ids, addresses, clock offsets
 *   run_local.c  this rank's receiver, sender and logger
 *   run_report.c what each rank tells root at the end, and root's
 *                account of the ranks and flows
 * The phases before the common start are collective and fail on every
 * rank together (itg__mpi_agree); after it, ranks talk to root alone, so
 * a rank that dies holds up no one for longer than the silence limit. */
#ifndef ITG_MPI_RUN_INTERNAL_H
#define ITG_MPI_RUN_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "itg/mpi.h"
#include "itg/receiver.h"
#include "itg/sender.h"

/* The tag of the end-of-run reports to root, on the run's own duplicate
 * of the caller's communicator (the logs use ITG_MPI_LOG_TAG there). */
#define ITG__RUN_REPORT_TAG 0x1755
/* Logger lanes of a rank: the receiver's thread, then the sender's two. */
#define ITG__RUN_LANE_RX 0
#define ITG__RUN_LANE_TX 1
#define ITG__RUN_LANES 3

typedef struct itg__run {
  MPI_Comm comm; /* the run's duplicate */
  int rank, ranks, root;
  const itg_experiment *e;
  itg_mpi_run_cfg cfg;
  char *err;
  size_t errlen;

  /* agreed before the start: every rank holds the same */
  size_t n;            /* flows */
  int *snd, *rcv;      /* placement, by flow */
  uint32_t *ids;       /* flow ids, by flow */
  itg_mpi_run_rank *info; /* by rank: host, address, port, offsets */
  itg_mpi_run_flow *flow; /* by flow: this rank fills those it sends */
  itg_mpi_clock clock; /* this rank's */
  itg_mpi_start start;

  /* this rank */
  itg_logger *log;
  itg_receiver *rx;
  itg_sender *tx;
  size_t *tx_flow;     /* the sender's flow i is experiment flow tx_flow[i] */
  size_t tx_n;
  unsigned rx_expect;  /* flows this rank receives */
  uv_mutex_t lock;     /* rx_done, with rx_cond */
  uv_cond_t rx_cond;
  unsigned rx_done;    /* of them, ended or refused */
  uint64_t rx_malformed;
  itg_logger_stats log_final;
  char spill[ITG_PATH_MAX];
  int local_error;
  char local_msg[160];

  /* root */
  uv_thread_t gather_thread;
  int gathering;
  int gather_rc;
  itg_mpi_gather_stats gathered;
} itg__run;

/* ---- run_setup.c ---- */

/* Host names, placement and flow ids, addresses and clock offsets, in
 * that order, each agreed on by all ranks. Returns 0 or the error every
 * rank returns (err says it on every rank). */
int itg__run_setup(itg__run *r);

/* Notes this rank's failure: the code, and "rank R (HOST): " and the
 * message, for itg__run_agree to pass on. Returns rc. */
int itg__run_fail(itg__run *r, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Makes all ranks agree on whether to go on, as itg__mpi_agree, with
 * this rank's failure noted by itg__run_fail: when some rank failed,
 * every rank returns the lowest failing rank's code with its message in
 * r->err. */
int itg__run_agree(itg__run *r);

/* ---- run_local.c ---- */

/* Opens this rank's logger (root: its own file; others: the MPI sink). */
int itg__run_log_open(itg__run *r);

/* Starts this rank's receiver if it receives a flow (port in info). */
int itg__run_rx_start(itg__run *r);

/* Sets up this rank's flows with their receivers, held. */
int itg__run_tx_setup(itg__run *r);

/* Releases the flows at the common start and waits for this rank's
 * flows, sent and received, to end (bounded by the grace); then closes
 * the receiver and the logger. */
void itg__run_local(itg__run *r);

/* Frees what itg__run_log_open, _rx_start and _tx_setup made. */
void itg__run_local_free(itg__run *r);

/* ---- run_report.c ---- */

/* Sends this rank's account to root (root keeps its own). */
void itg__run_report_send(itg__run *r);

/* Root: receives the other ranks' accounts, waiting for each rank the
 * gatherer did not give up on at most silence_ns, and fills the totals of
 * out. */
int itg__run_report_collect(itg__run *r, itg_mpi_run_result *out);

#endif
