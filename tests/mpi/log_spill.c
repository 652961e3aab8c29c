/* The spill account of an MPI logger whose gatherer does not take its
 * messages (tests/mpi/run.sh runs it under mpirun on 4 ranks). Ranks 1
 * and 2 log a flow of RECORDS records and its FLOW_END while rank 0 has
 * not begun gathering: two messages of 2048 records go in flight, the
 * writer waits for them, then spills the rest, so that the rank's records
 * are spilled (or lost), never left waiting. Rank 2's spill file fails
 * past its first block (RLIMIT_FSIZE), as on a full disk. Once every
 * record is accounted for, rank 0 gathers and each rank closes its logger.
 * Then: the logger's spill path is the one given; its spilled count is
 * what its end marker told rank 0 and what the spill file holds (rank 2's
 * up to where it failed); its lost count is the rest, so that gathered,
 * spilled and lost add up to the records logged, none counted twice.
 * Rank 3 makes its logger only once rank 0 has given it up and stopped
 * gathering: it spills all but the messages in flight as well, and its
 * close gives up on those after its 10 s, counting them lost, instead of
 * waiting for ever. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <uv.h>

#include "itg.h"
#include "itg/mpi.h"

#define CHECK_NAME "log_spill"
#include "check.h"

#define RECORDS 10000u
#define IN_FLIGHT (2u * 2048u)
/* Rank 2's files stop growing past the header and one block. */
#define FSIZE_LIMIT (64 + 8 + 256 * 32 + 4 + 1000)
/* How long a rank waits for its writer to have spilled what it holds. */
#define SPILL_WAIT_NS 30000000000LL
/* The gatherer's timeout: rank 3 is given up after it. */
#define TIMEOUT_NS 2000000000LL
/* The longest a close may take: its 10 s for the messages in flight, and
 * room for a loaded machine. */
#define CLOSE_MAX_NS 20000000000LL

static itg_logrec record_of(int r, uint64_t i) {
  itg_logrec rec = {.flow_id = (uint32_t)r,
                    .size = (uint16_t)(i == RECORDS ? 0 : 100),
                    .flags = ITG_REC_TX |
                             (i == RECORDS ? ITG_REC_FLOW_END : 0),
                    .seq = i,
                    .tx_ns = (int64_t)i * 1000};
  return rec;
}

/* Counts the records of path readable up to its end or its damage. */
static uint64_t readable(const char *path) {
  itg_logreader *rd;
  itg_logrec rec;
  uint64_t n = 0;
  if (itg_logreader_open(path, &rd) != 0)
    return 0;
  while (itg_logreader_next(rd, &rec) == 1)
    n++;
  itg_logreader_close(rd);
  return n;
}

/* Logs the flow with root not gathering yet; waits, at most SPILL_WAIT_NS,
 * until all but the messages in flight are spilled or lost. Returns the
 * logger, or NULL. */
static itg_logger *log_unread(const char *spill) {
  itg_logger_cfg cfg;
  itg_logger *l;
  itg_logger_stats ls;
  char path[600];
  int64_t deadline;
  int rc;
  itg_logger_cfg_init(&cfg);
  cfg.flush_ms = 20;
  rc = itg_mpi_logger_new(MPI_COMM_WORLD, 0, &cfg, spill, &l);
  CHECK(rc == 0, "itg_mpi_logger_new: %s", itg_strerror(rc));
  if (rc != 0)
    return NULL;
  rc = itg_logger_spill_path(l, path, sizeof path);
  CHECK(rc == 0 && strcmp(path, spill) == 0, "spill path %s: %s", path,
        itg_strerror(rc));
  if (rank == 2) {
    struct rlimit lim = {FSIZE_LIMIT, FSIZE_LIMIT};
    /* A write past the limit fails (EFBIG) instead of killing the rank. */
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
  }
  for (uint64_t i = 0; i <= RECORDS; i++) {
    itg_logrec rec = record_of(rank, i);
    itg_logger_push(l, 0, &rec);
  }
  deadline = itg_clock_mono_ns() + SPILL_WAIT_NS;
  do {
    itg_logger_get_stats(l, &ls);
    if (ls.spilled + ls.lost == RECORDS + 1 - IN_FLIGHT)
      break;
    uv_sleep(10);
  } while (itg_clock_mono_ns() < deadline);
  CHECK(ls.spilled + ls.lost == RECORDS + 1 - IN_FLIGHT,
        "with root not gathering: %" PRIu64 " spilled, %" PRIu64 " lost",
        ls.spilled, ls.lost);
  return l;
}

int main(int argc, char **argv) {
  int provided = 0, all_fails, rc;
  char dir[512] = "", spill[600];
  uint64_t mine[3] = {0, 0, 0}, theirs[12]; /* spilled, lost, in the file */

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/log_spill.XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
      perror("mkdtemp");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(spill, sizeof spill, "%s/spill-%d", dir, rank);

  if (rank == 0) {
    itg_mpi_gather_stats st;
    MPI_Barrier(MPI_COMM_WORLD); /* ranks 1 and 2 have spilled */
    rc = itg_mpi_gather(MPI_COMM_WORLD, 0, dir, TIMEOUT_NS, &st);
    CHECK(rc == ITG_ETIMEDOUT, "gather: %s", itg_strerror(rc));
    MPI_Barrier(MPI_COMM_WORLD); /* rank 3 begins */
    MPI_Gather(mine, 3, MPI_UINT64_T, theirs, 3, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (rc == ITG_ETIMEDOUT) {
      CHECK(st.rank[3].silent && !st.rank[3].hello && st.ended == 2,
            "rank 3: silent %d hello %d; %d ranks ended", st.rank[3].silent,
            st.rank[3].hello, st.ended);
      CHECK(theirs[9] + theirs[10] == RECORDS + 1 && theirs[10] == IN_FLIGHT &&
                theirs[11] == theirs[9],
            "rank 3: %" PRIu64 " spilled, %" PRIu64 " lost, %" PRIu64
            " in its file",
            theirs[9], theirs[10], theirs[11]);
      printf("log_spill: rank 3, given up: %" PRIu64 " spilled, %" PRIu64
             " lost\n",
             theirs[9], theirs[10]);
      for (int r = 1; r <= 2; r++) {
        const itg_mpi_gather_rank *g = &st.rank[r];
        uint64_t spilled = theirs[3 * r], lost = theirs[3 * r + 1],
                 in_file = theirs[3 * r + 2];
        CHECK(g->records == IN_FLIGHT && g->gaps == 0,
              "rank %d: %" PRIu64 " records gathered, %" PRIu64 " gaps", r,
              g->records, g->gaps);
        CHECK(g->spilled == spilled && in_file == spilled,
              "rank %d: spilled %" PRIu64 " told, %" PRIu64
              " by its logger, %" PRIu64 " in its file",
              r, g->spilled, spilled, in_file);
        CHECK(g->records + spilled + lost == RECORDS + 1,
              "rank %d: %" PRIu64 " gathered + %" PRIu64 " spilled + %" PRIu64
              " lost",
              r, g->records, spilled, lost);
        CHECK(r == 2 ? lost > 0 : lost == 0, "rank %d: %" PRIu64 " lost", r,
              lost);
        printf("log_spill: rank %d: %" PRIu64 " gathered, %" PRIu64
               " spilled, %" PRIu64 " lost\n",
               r, g->records, spilled, lost);
      }
      itg_mpi_gather_stats_free(&st);
    }
  } else {
    itg_logger *l = NULL;
    itg_logger_stats ls;
    int64_t t0;
    if (rank != 3)
      l = log_unread(spill);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 3) {
      MPI_Barrier(MPI_COMM_WORLD);
      l = log_unread(spill);
    }
    if (l != NULL) {
      t0 = itg_clock_mono_ns();
      rc = itg_logger_close_stats(l, &ls);
      CHECK(rank == 1 ? rc == 0 : rc != 0 && ls.error == rc,
            "itg_logger_close: %s", itg_strerror(rc));
      CHECK(itg_clock_mono_ns() - t0 < CLOSE_MAX_NS, "close took %.1f s",
            (double)(itg_clock_mono_ns() - t0) / 1e9);
      mine[0] = ls.spilled;
      mine[1] = ls.lost;
      mine[2] = readable(spill);
    }
    if (rank != 3)
      MPI_Barrier(MPI_COMM_WORLD);
    MPI_Gather(mine, 3, MPI_UINT64_T, NULL, 3, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
  }
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all_fails == 0)
    printf("log_spill: ok\n");
  MPI_Finalize();
  return all_fails == 0 ? 0 : 1;
}
