/* libitg over MPI: the clocks of the ranks of a communicator referred to
 * rank 0's, and one common start for all of them.
 *
 * A separate library, libitg-mpi.a, built with Open MPI's compiler wrapper
 * (mpicc) and linked with libitg.a: the core library never depends on MPI.
 * This header is not included from itg.h, since it needs <mpi.h>.
 *
 * Every function taking a communicator is collective: each rank of it
 * calls the function, in the same order as the other collective calls on
 * that communicator. The arguments of all ranks are checked together
 * before anything else is exchanged, so an argument one rank refuses makes
 * the call fail on every rank (instead of leaving the others waiting for
 * it): that rank returns its own error code, the others the lowest code
 * any rank gave. A failure of MPI itself (with an error handler that
 * returns) is ITG_EIO.
 *
 * Times are int64_t nanoseconds of the real-time (wall) clock since the
 * Unix epoch, as itg_clock_real_ns gives them, unless said otherwise.
 */
#ifndef ITG_MPI_H
#define ITG_MPI_H

#include <mpi.h>

#include "itg/common.h"
#include "itg/experiment.h"
#include "itg/flow.h"
#include "itg/log.h"
#include "itg/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rounds of itg_mpi_clock_sync: at most this many round trips a rank. */
#define ITG_MPI_CLOCK_ROUNDS_MAX 100000

/* A rank's real-time clock referred to rank 0's (growable,
 * include/itg/common.h). */
typedef struct itg_mpi_clock {
  size_t struct_size;
  /* Rank 0's clock minus this rank's, at the round trip measured best:
   * adding it to a local stamp gives rank 0's time base (0 on rank 0). */
  int64_t offset_ns;
  /* Half that round trip, rounded up: rank 0 read its clock somewhere
   * between the two ends of it, so the true offset lies within
   * offset_ns +- uncertainty_ns however the way there and the way back
   * differ (as long as neither clock is stepped meanwhile). 0 on rank 0. */
  int64_t uncertainty_ns;
  /* This rank's real-time clock at the middle of that round trip: the
   * clocks drift apart at their rates' difference (parts per million)
   * from then on. */
  int64_t measured_ns;
  /* The round trips measured (0 on rank 0). */
  int rounds;
} itg_mpi_clock;

/* Measures the offset of each rank's real-time clock to rank 0's by
 * ping-pong: each rank other than 0, in turn, sends `rounds` messages to
 * rank 0, which answers each with its clock's reading; the rank keeps the
 * round trip that took least time, the one least disturbed by scheduling
 * and queuing, and takes rank 0's reading as made at its middle. Rank 0's
 * own result is offset 0, uncertainty 0; so is that of a communicator of
 * one rank. The messages go over a duplicate of comm, so they never meet
 * the caller's own. Collective; every rank passes the same rounds.
 * Returns 0, ITG_EINVAL (comm MPI_COMM_NULL or an intercommunicator,
 * rounds < 1, out NULL or a size this library does not know, rounds not
 * the same on every rank), ITG_ERANGE (rounds above
 * ITG_MPI_CLOCK_ROUNDS_MAX) or ITG_EIO; *out is written only on 0. */
ITG_API int itg_mpi_clock_sync_size(MPI_Comm comm, int rounds,
                                    itg_mpi_clock *out, size_t size);
#define itg_mpi_clock_sync(comm, rounds, out)                                  \
  itg_mpi_clock_sync_size((comm), (rounds), (out), sizeof *(out))

/* Returns local_ns, a stamp of this rank's real-time clock, in rank 0's
 * time base: local_ns + clock's offset (saturating at the ends of
 * int64_t). A NULL clock, or one whose size does not reach its offset,
 * counts as offset 0. */
ITG_API int64_t itg_mpi_clock_to_root(const itg_mpi_clock *clock,
                                      int64_t local_ns);

/* The reverse: root_ns, an instant in rank 0's time base, on this rank's
 * real-time clock. */
ITG_API int64_t itg_mpi_clock_from_root(const itg_mpi_clock *clock,
                                        int64_t root_ns);

/* The margin of itg_mpi_start_at when given 0, and the most it takes. */
#define ITG_MPI_START_MARGIN_NS 200000000LL
#define ITG_MPI_START_MARGIN_MAX_NS 3600000000000LL

/* One rank's side of a common start (growable). */
typedef struct itg_mpi_start {
  size_t struct_size;
  /* The instant, in rank 0's time base. */
  int64_t start_ns;
  /* The same instant on this rank's real-time clock. */
  int64_t local_ns;
  /* The same instant on the monotonic clock (itg_clock_mono_ns): the
   * deadline this rank slept until, and the one to pace a schedule from. */
  int64_t mono_ns;
  /* This rank's real-time clock read as it woke, in rank 0's time base. */
  int64_t woke_ns;
  /* This rank's clock uncertainty (itg_mpi_clock.uncertainty_ns). */
  int64_t uncertainty_ns;
} itg_mpi_start;

/* Starts every rank of comm at one instant: once all ranks have called it,
 * rank 0 takes its real-time clock plus margin_ns (0: the default,
 * ITG_MPI_START_MARGIN_NS) as the instant and sends it to all; each rank
 * turns it into its own real-time clock with its clock offset, then into
 * its monotonic clock, and sleeps until then (on the monotonic clock, so a
 * step of the wall clock meanwhile does not move the wake-up). The margin
 * must cover the sending of the instant and the scheduling of the ranks:
 * a rank that learns of it too late starts at once, and its woke_ns tells
 * by how much. clock is this rank's result of itg_mpi_clock_sync on comm.
 * Collective; rank 0's margin is the one used. Returns 0 with *out
 * written, ITG_EINVAL (comm MPI_COMM_NULL or an intercommunicator, clock
 * or out NULL or of a size this library does not know, margin_ns < 0),
 * ITG_ERANGE (margin_ns above ITG_MPI_START_MARGIN_MAX_NS) or ITG_EIO. */
ITG_API int itg_mpi_start_at_size(MPI_Comm comm, const itg_mpi_clock *clock,
                                  int64_t margin_ns, itg_mpi_start *out,
                                  size_t size);
#define itg_mpi_start_at(comm, clock, margin_ns, out)                          \
  itg_mpi_start_at_size((comm), (clock), (margin_ns), (out), sizeof *(out))

/* Agrees on the instant of a common start as itg_mpi_start_at does, and
 * fills *out with it (woke_ns 0), but returns at once instead of sleeping
 * until then: for a caller that hands the instant to something that
 * waits for it itself (itg_sender_release). Collective; the same
 * arguments and results as itg_mpi_start_at. */
ITG_API int itg_mpi_start_plan_size(MPI_Comm comm, const itg_mpi_clock *clock,
                                    int64_t margin_ns, itg_mpi_start *out,
                                    size_t size);
#define itg_mpi_start_plan(comm, clock, margin_ns, out)                        \
  itg_mpi_start_plan_size((comm), (clock), (margin_ns), (out), sizeof *(out))

/* How far apart the ranks woke (growable). Wake-ups are each rank's
 * woke_ns minus the instant, in rank 0's time base. */
typedef struct itg_mpi_skew {
  size_t struct_size;
  /* The latest wake-up minus the earliest. */
  int64_t skew_ns;
  /* The earliest and latest wake-ups (a small negative one is within the
   * clocks' uncertainty), and a rank that woke then (the lowest such). */
  int64_t early_ns;
  int64_t late_ns;
  int early_rank;
  int late_rank;
  /* The largest clock uncertainty of any rank: each wake-up is known to
   * within it, the skew to within twice it. */
  int64_t uncertainty_ns;
  /* The ranks of comm. */
  int ranks;
} itg_mpi_skew;

/* Gathers the wake-ups of a start (each rank's result of itg_mpi_start_at
 * on comm) and gives every rank the same summary. Separate from
 * itg_mpi_start_at so that the exchange does not delay the start: call it
 * once the work started at the instant allows. Collective. Returns 0 with
 * *out written, ITG_EINVAL (comm MPI_COMM_NULL or an intercommunicator,
 * start or out NULL or of a size this library does not know) or
 * ITG_EIO. */
ITG_API int itg_mpi_start_skew_size(MPI_Comm comm, const itg_mpi_start *start,
                                    itg_mpi_skew *out, size_t size);
#define itg_mpi_start_skew(comm, start, out)                                   \
  itg_mpi_start_skew_size((comm), (start), (out), sizeof *(out))

/* ---- logging to a gathering rank ---------------------------------------- */

/* The tag of the messages between the MPI loggers and their gatherer on
 * the communicator given: the caller's own messages there must not use
 * it. */
#define ITG_MPI_LOG_TAG 0x1754

/* Makes a logger (itg/log.h) whose records go over MPI to rank root of comm,
 * which collects them with itg_mpi_gather. Its writer thread packs the records
 * into one of two buffers of 2048 records while the other is in flight
 * (MPI_Isend). When both are still in flight it waits for one only while every
 * lane of the logger is less than three quarters full, and for 1 s at most;
 * then the records go to the log file spill_path (made when first needed;
 * decode it together with the gathered file), so the producers never wait for
 * root, nor does closing for a root that has stopped gathering.
 * itg_logger_spill_path gives spill_path back; itg_logger_stats.spilled counts
 * the records the spill file holds, as the end marker tells root, and lost
 * those neither root nor the spill file took (once the spill file fails, the
 * records it had not written). cfg gives the role, clock, lanes, capacity, batch and
 * flush_ms as for itg_logger_new; its path, server and spill fields are
 * ignored, and a flush_ms above 250 counts as 250. Each message carries a
 * sequence number of this rank, so root finds any missing. When the writer
 * has sent nothing for 1 s (nothing was logged), it sends a keepalive
 * telling the messages and spilled records so far: root waits for a rank as
 * long as it hears from it, however long the rank logs nothing, and finds a
 * missing message even before the end marker. Not collective: each logging
 * rank makes one such logger for each itg_mpi_gather of root, while root calls itg_mpi_gather (the log header
 * goes to root here, and is taken once root receives). itg_logger_close sends
 * what is left and the end marker, and waits at most 10 s for root to take
 * them (what root does not take is counted lost, the error ITG_ETIMEDOUT). The
 * writer thread calls MPI while the caller's threads may too, so MPI must have
 * been initialised with MPI_THREAD_MULTIPLE (MPI_Init_thread). Returns 0 with
 * *out set, ITG_EINVAL (NULL cfg, out or spill_path, an empty or too long
 * spill_path, comm MPI_COMM_NULL or an intercommunicator, root out of comm or
 * this rank itself, a cfg field out of range), ITG_ESTATE (MPI not
 * initialised, finalised, or its thread level below MPI_THREAD_MULTIPLE),
 * ITG_EIO, ITG_ENOMEM or ITG_ETHREAD. */
ITG_API int itg_mpi_logger_new(MPI_Comm comm, int root,
                               const itg_logger_cfg *cfg,
                               const char *spill_path, itg_logger **out);

/* The shortest timeout itg_mpi_gather takes: twice the 1 s after which an
 * MPI logger with nothing to send sends a keepalive, so that a keepalive
 * late by a scheduling delay does not get a live rank given up. */
#define ITG_MPI_GATHER_TIMEOUT_MIN_NS 2000000000LL

/* What itg_mpi_gather received from one rank. */
typedef struct itg_mpi_gather_rank {
  int rank;
  int hello;          /* its logger announced itself (a file was made) */
  int ended;          /* its end marker came */
  int silent;         /* given up: it had not ended and nothing came from
                         it for timeout_ns (killed, stuck, or it never made
                         its logger); what came before is kept */
  uint64_t records;   /* records received and written */
  uint64_t messages;  /* record messages received */
  uint64_t gaps;      /* record messages missing by their sequence
                         numbers (and each one out of order), found by
                         the messages after them, keepalives and end
                         marker included */
  uint64_t spilled;   /* records the rank kept in its spill file, as its
                         last message told (its end marker, or the last
                         keepalive or record message of a rank given up) */
  int64_t last_ns;    /* when its last message came, on root's real-time
                         clock (0: none came) */
  char path[ITG_PATH_MAX]; /* its log file ("" without hello) */
} itg_mpi_gather_rank;

/* The outcome of itg_mpi_gather (growable). */
typedef struct itg_mpi_gather_stats {
  size_t struct_size;
  /* One entry per rank of comm, indexed by rank (root's own is empty):
   * allocated by itg_mpi_gather, freed by itg_mpi_gather_stats_free. */
  itg_mpi_gather_rank *rank;
  int ranks; /* of comm */
  int root;
  int ended; /* ranks whose end marker came */
  uint64_t records;  /* the sums over the ranks */
  uint64_t messages;
  uint64_t gaps;
  uint64_t spilled;
  uint64_t bad; /* messages or records that were not as a sink sends
                   them, dropped */
  int silent; /* ranks given up (`silent`) */
} itg_mpi_gather_stats;

/* Collects, on rank root of comm (the caller), the records of the loggers
 * of itg_mpi_logger_new of every other rank of comm, into one log file a
 * rank, DIR/rank-R.itglog (a log file like any other: itg-dec reads it),
 * until every other rank has sent its end marker or been given up. Each
 * rank is timed on its own: root keeps when its last message came, and
 * gives it up (`silent`) once nothing has come from it for timeout_ns,
 * keeping what came before; the others are waited for all the same. A
 * logger sends a keepalive when it has had nothing to send for 1 s, so a
 * live rank with nothing to log is not given up; timeout_ns must be at
 * least ITG_MPI_GATHER_TIMEOUT_MIN_NS (2 s). A rank given up that is heard
 * from again while root still waits for others is waited for again. Not
 * collective. Returns 0 when every rank ended, ITG_ETIMEDOUT when some did
 * not (the ranks without `ended`, each `silent`), ITG_EIO (MPI failed
 * while receiving) or an error of itg_logwriter_open or _write (a file
 * that cannot be written), all with *out written (the counts received so
 * far; free it with itg_mpi_gather_stats_free); else, *out untouched:
 * ITG_EINVAL (dir or out NULL, a size this library does not know or not
 * reaching `rank`, timeout_ns below ITG_MPI_GATHER_TIMEOUT_MIN_NS, comm
 * MPI_COMM_NULL or an intercommunicator, root not this rank), ITG_ESTATE
 * (MPI not initialised or finalised), ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_mpi_gather_size(MPI_Comm comm, int root, const char *dir,
                                int64_t timeout_ns, itg_mpi_gather_stats *out,
                                size_t size);
#define itg_mpi_gather(comm, root, dir, timeout_ns, out)                       \
  itg_mpi_gather_size((comm), (root), (dir), (timeout_ns), (out),              \
                      sizeof *(out))

/* Frees the per-rank entries of a result of itg_mpi_gather; NULL is
 * accepted. */
ITG_API void itg_mpi_gather_stats_free(itg_mpi_gather_stats *stats);

/* ---- running an experiment ---------------------------------------------- */

/* How itg_mpi_run runs an experiment (growable). */
typedef struct itg_mpi_run_cfg {
  size_t struct_size; /* set by itg_mpi_run_cfg_init */
  /* Root: where the logs go, one a rank, DIR/rank-R.itglog (the
   * directory must exist). Required on root, unused elsewhere. */
  const char *log_dir;
  /* The network the ranks' receivers are reached on, "ADDR/PREFIX"
   * (IPv4 or IPv6): each rank takes the first address of its host's
   * interfaces within it. NULL or "": 127.0.0.1 when every rank runs on
   * one host, else the first IPv4 address of the host that is not
   * loopback. */
  const char *net;
  /* Where a rank whose log the gathering rank cannot take in time keeps
   * the records: DIR/itg-mpi-rank-R.PID.spill ("" or NULL: the current
   * directory). */
  const char *spill_dir;
  int clock_rounds;         /* itg_mpi_clock_sync's rounds, default 200 */
  int64_t start_margin_ns;  /* itg_mpi_start_at's margin, default 200 ms */
  /* How long after a flow's planned end (its start delay plus duration
   * past the start) its sender waits for it before stopping it, default
   * 10 s; its receiver waits 1 s more, to hear the sender stop it. Flows
   * without a duration are waited for without limit. */
  int64_t grace_ns;
  /* The gathering rank gives up on a rank that has sent nothing (not even
   * the keepalive its logger sends every second) for this long, and the
   * job ends without it; default 5 s, at least
   * ITG_MPI_GATHER_TIMEOUT_MIN_NS. */
  int64_t silence_ns;
  uint32_t log_batch;       /* D, records per write, default 64 */
  int sender_log;           /* 1 (default): gather the senders' records
                               too (the round-trip meter needs them); 0:
                               only the receivers' */
  int pin_cpu;              /* pin each rank's sending thread to this CPU;
                               -1 (default) none */
  /* 0 (default): ranks of one host (the same host name) read one clock,
   * so they share one offset, that of the host's rank measured with the
   * least uncertainty, and the ranks of rank 0's host have offset 0 and
   * uncertainty 0 exactly; 1: each rank's own measurement (for ranks
   * whose clocks differ on one host: virtual machines that share a name,
   * a clock moved by libfaketime). */
  int clock_per_rank;
} itg_mpi_run_cfg;

/* Fills cfg with the defaults and cfg->struct_size with `size`. Returns 0,
 * or ITG_EINVAL (NULL cfg, a size this library does not know). */
ITG_API int itg_mpi_run_cfg_init_size(itg_mpi_run_cfg *cfg, size_t size);
#define itg_mpi_run_cfg_init(cfg) itg_mpi_run_cfg_init_size((cfg), sizeof *(cfg))

/* One flow of a run: where it ran and how it ended. Times are in rank 0's
 * time base (each rank's clock offset applied). */
typedef struct itg_mpi_run_flow {
  uint32_t flow_id;       /* the id its records carry */
  unsigned line;          /* of the experiment file */
  int sender_rank;
  int receiver_rank;      /* -1: a receiver outside the job */
  char receiver[ITG_HOST_MAX]; /* the address it was sent to */
  uint16_t port;          /* the receiver's signaling port */
  uint16_t data_port;     /* and the data port it opened (0: none) */
  int reported;           /* its sender rank told how it ended */
  int status;             /* 0, or the ITG_E* code that ended it */
  char error[160];        /* a sentence about status */
  uint64_t packets;       /* sent */
  uint64_t bytes;         /* sent */
  uint64_t received;      /* packets its receiver said it logged */
  int64_t start_delay_ns; /* from the experiment */
  int64_t first_tx_ns;    /* its first departure (0: none) */
  int64_t last_tx_ns;
} itg_mpi_run_flow;

/* One rank of a run. */
typedef struct itg_mpi_run_rank {
  int rank;
  char host[ITG_HOST_MAX];
  char addr[ITG_HOST_MAX]; /* where its receiver listened ("" none) */
  uint16_t port;           /* its receiver's signaling port (0 none) */
  unsigned sends;          /* flows it sent */
  unsigned receives;       /* flows it received */
  int64_t offset_ns;       /* its clock offset to rank 0 */
  int64_t uncertainty_ns;  /* and the offset's uncertainty */
  int reported;            /* it told root how it ended */
  int silent;              /* root gave up on it (silence_ns) */
  int error;               /* a failure of its own (ITG_E*), 0 if none */
  char message[160];       /* about error */
  uint64_t records;        /* log records root received from it */
  uint64_t gaps;           /* messages of them missing */
  uint64_t spilled;        /* records it kept in its spill file */
  uint64_t lost;           /* records that no file holds */
  uint64_t malformed;      /* datagrams its receiver dropped */
  char log_path[ITG_PATH_MAX];   /* on root: its gathered log */
  char spill_path[ITG_PATH_MAX]; /* on its host: its spill file ("") */
} itg_mpi_run_rank;

/* The outcome of itg_mpi_run (growable). On root every entry is filled;
 * on another rank its own entry and the flows it sent. */
typedef struct itg_mpi_run_result {
  size_t struct_size;
  int ranks;
  int root;
  itg_mpi_run_rank *rank;  /* ranks entries, indexed by rank */
  size_t flows;
  itg_mpi_run_flow *flow;  /* flows entries, in the experiment's order */
  int64_t start_ns;        /* the common start, rank 0's time base */
  /* How far apart the flows that start at once (no start delay: the run
   * starts them together, ITG_START_TOGETHER, on every rank) left:
   * the latest first departure less the earliest, and the largest clock
   * uncertainty of their ranks, to which it is known (twice it). */
  int64_t start_skew_ns;
  int64_t skew_uncertainty_ns;
  int failed_ranks;        /* ranks with an error, silent or not reported */
  int failed_flows;        /* flows with status != 0 or not reported */
} itg_mpi_run_result;

/* Runs an experiment (itg/experiment.h) on the ranks of comm: places it,
 * measures the ranks' clock offsets to rank 0, starts a receiver on each
 * rank that receives a flow and sets every flow up with its receiver,
 * then releases all senders at one instant (itg_mpi_start_plan); each
 * rank's records go to the gathering rank root over MPI, where they are
 * written as DIR/rank-R.itglog (root writes its own directly). Once the
 * common start is set no collective call is made: a rank that dies, or is
 * cut off, is given up after cfg->silence_ns, its flows reported as not
 * ended, the others kept. Flow i of the experiment has flow id i + 1.
 * Collective, with MPI initialised at MPI_THREAD_MULTIPLE; every rank
 * passes the same experiment and cfg. Before the start, a failure on any
 * rank (a bad placement, no address in cfg->net, a receiver that cannot
 * start) fails every rank, err naming the rank and host. Returns 0 with
 * *out written (free it with itg_mpi_run_result_free) when the job ran,
 * even if flows or ranks failed (out says which); else an ITG_E* code,
 * *out untouched, and err (if not NULL; terminated when errlen > 0) says
 * why: ITG_EINVAL (NULL or bad arguments, a placement the job cannot
 * hold), ITG_ESTATE (MPI not initialised, or below MPI_THREAD_MULTIPLE),
 * ITG_EADDR (no address in cfg->net), the error of a receiver's start or
 * a log file, ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_mpi_run_size(MPI_Comm comm, const itg_experiment *e,
                             const itg_mpi_run_cfg *cfg,
                             itg_mpi_run_result *out, size_t size, char *err,
                             size_t errlen);
#define itg_mpi_run(comm, e, cfg, out, err, errlen)                            \
  itg_mpi_run_size((comm), (e), (cfg), (out), sizeof *(out), (err), (errlen))

/* Frees the entries of a result of itg_mpi_run; NULL is accepted. */
ITG_API void itg_mpi_run_result_free(itg_mpi_run_result *res);

/* On root, after itg_mpi_run: decodes the gathered logs (every rank's
 * log_path) into stats, with each record's stamps moved into rank 0's
 * time base when `correct` is 1: a send time by its flow's sender rank's
 * offset, a receive time by its file's rank's (so that one-way delays
 * between hosts are not their clocks' difference); 0 leaves the stamps as
 * logged. st (if not NULL) gets one status a rank, as itg_decode_files
 * gives them (a rank without a log: opened 0, error ITG_ENOENT). Returns
 * the result of itg_decode_files_size for the files that exist, or
 * ITG_EINVAL (NULL res or stats, a size this library does not know). */
ITG_API int itg_mpi_run_stats_size(const itg_mpi_run_result *res, int correct,
                                   itg_stats *stats, itg_decode_status *st,
                                   size_t size);
#define itg_mpi_run_stats(res, correct, stats, st)                             \
  itg_mpi_run_stats_size((res), (correct), (stats), (st), sizeof *(st))

#ifdef __cplusplus
}
#endif
#endif
