/* The clocks and the common start of libitg-mpi, on every rank of
 * MPI_COMM_WORLD (tests/mpi/run.sh runs it under mpirun).
 *
 *   clock_start [--ahead SECONDS] [--rounds N] [--offset-max NS]
 *               [--skew-max NS] [--tries N]
 *
 * --ahead says how far this rank's real-time clock was set ahead of the
 * host's (libfaketime's FAKETIME; negative: behind), so each rank knows
 * the offset to expect: rank 0's ahead minus its own. The checks:
 *   - each rank's estimated offset lies within its uncertainty of the
 *     expected one (what the method guarantees: rank 0 read its clock
 *     during the round trip kept), and within --offset-max of it;
 *   - each rank other than 0 has a positive uncertainty and no more
 *     rounds than asked;
 *   - after itg_mpi_start_at, no rank woke before the instant (beyond the
 *     clocks' uncertainty), and the ranks woke within --skew-max of one
 *     another (plus twice the uncertainty). The wake-ups hang on the
 *     scheduler of a loaded machine, so up to --tries starts are made and
 *     one within the bound suffices; every try's skew is printed.
 * Rank 0 prints the figures; every rank exits 0 only if all checks held
 * on all ranks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itg.h"
#include "itg/mpi.h"

/* How long a rank stays idle after its wake-up before the wake-ups are
 * gathered (see main). */
#define IDLE_AFTER_START_NS 50000000LL

/* The conversion of the instant to the monotonic clock reads both clocks
 * once, close together: a rank may seem to wake this much early beyond
 * the offset's uncertainty. */
#define CONVERT_SLACK_NS 10000

#define CHECK_NAME "clock_start"
#include "check.h"

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static int64_t arg_i64(const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*end != '\0') {
    fprintf(stderr, "clock_start: not a number: %s\n", s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  int64_t ahead_ns = 0, root_ahead_ns, expected, offset_max = 1000000;
  int64_t skew_max = 1000000, row[4], *rows = NULL, err_max = 0;
  int rounds = 1000, tries = 5, ranks, rc, ok_start = 0, early, all_fails;
  itg_mpi_clock clk;
  itg_mpi_start st;
  itg_mpi_skew sk = {.struct_size = 0};

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--ahead") == 0)
      ahead_ns = (int64_t)(strtod(argv[i + 1], NULL) * 1e9 +
                           (argv[i + 1][0] == '-' ? -0.5 : 0.5));
    else if (strcmp(argv[i], "--rounds") == 0)
      rounds = (int)arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--offset-max") == 0)
      offset_max = arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--skew-max") == 0)
      skew_max = arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--tries") == 0)
      tries = (int)arg_i64(argv[i + 1]);
    else {
      fprintf(stderr, "clock_start: unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }

  root_ahead_ns = ahead_ns;
  MPI_Bcast(&root_ahead_ns, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  expected = root_ahead_ns - ahead_ns;

  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, rounds, &clk);
  CHECK(rc == 0, "itg_mpi_clock_sync: %s", itg_strerror(rc));
  if (rc != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  CHECK(abs64(clk.offset_ns - expected) <= clk.uncertainty_ns,
        "offset %" PRId64 " ns, expected %" PRId64 " +- %" PRId64,
        clk.offset_ns, expected, clk.uncertainty_ns);
  CHECK(abs64(clk.offset_ns - expected) <= offset_max,
        "offset %" PRId64 " ns, expected %" PRId64 " +- %" PRId64,
        clk.offset_ns, expected, offset_max);
  if (rank != 0) {
    CHECK(clk.uncertainty_ns > 0, "uncertainty %" PRId64, clk.uncertainty_ns);
    CHECK(clk.rounds == rounds, "rounds %d of %d", clk.rounds, rounds);
  }

  row[0] = clk.offset_ns;
  row[1] = expected;
  row[2] = clk.uncertainty_ns;
  row[3] = clk.rounds;
  if (rank == 0 && (rows = malloc(sizeof row * (size_t)ranks)) == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(row, 4, MPI_INT64_T, rows, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
  for (int r = 1; rank == 0 && r < ranks; r++) {
    int64_t *x = rows + 4 * r;
    if (abs64(x[0] - x[1]) > err_max)
      err_max = abs64(x[0] - x[1]);
    printf("clock: rank %d offset %" PRId64 " ns (expected %" PRId64
           ", error %" PRId64 " ns), uncertainty %" PRId64 " ns, %" PRId64
           " rounds\n",
           r, x[0], x[1], x[0] - x[1], x[2], x[3]);
  }
  free(rows);

  for (int t = 1; t <= tries && !ok_start; t++) {
    rc = itg_mpi_start_at(MPI_COMM_WORLD, &clk, 0, &st);
    CHECK(rc == 0, "itg_mpi_start_at: %s", itg_strerror(rc));
    if (rc != 0)
      break;
    CHECK(st.local_ns == itg_mpi_clock_from_root(&clk, st.start_ns),
          "local instant %" PRId64, st.local_ns);
    /* The work a start begins is idle here. Gathering at once would have
     * the ranks that woke first poll MPI (busily: shared memory has no
     * blocking wait) while the others, on a machine with fewer cores than
     * ranks, still wait for a core to wake on: the test would measure its
     * own polling. */
    {
      int64_t idle = st.mono_ns + IDLE_AFTER_START_NS, left;
      while ((left = idle - itg_clock_mono_ns()) > 0) {
        struct timespec ts = {(time_t)(left / 1000000000),
                              (long)(left % 1000000000)};
        nanosleep(&ts, NULL);
      }
    }
    rc = itg_mpi_start_skew(MPI_COMM_WORLD, &st, &sk);
    CHECK(rc == 0, "itg_mpi_start_skew: %s", itg_strerror(rc));
    if (rc != 0)
      break;
    CHECK(sk.ranks == ranks, "%d ranks", sk.ranks);
    early = sk.early_ns < -(sk.uncertainty_ns + CONVERT_SLACK_NS);
    ok_start = !early && sk.skew_ns <= skew_max + 2 * sk.uncertainty_ns;
    if (rank == 0)
      printf("start: try %d: skew %" PRId64 " ns (earliest %+" PRId64
             " ns rank %d, latest %+" PRId64 " ns rank %d), uncertainty %"
             PRId64 " ns, bound %" PRId64 " ns: %s\n",
             t, sk.skew_ns, sk.early_ns, sk.early_rank, sk.late_ns,
             sk.late_rank, sk.uncertainty_ns,
             skew_max + 2 * sk.uncertainty_ns, ok_start ? "ok" : "over");
    /* Waking early is no matter of load: it is not tried again. */
    CHECK(!early, "rank %d woke %" PRId64 " ns before the instant",
          sk.early_rank, -sk.early_ns);
    if (early)
      break;
  }
  CHECK(ok_start, "no start of %d within %" PRId64 " ns", tries, skew_max);

  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("clock_start: %s: %d ranks, largest offset error %" PRId64
           " ns, last skew %" PRId64 " ns\n",
           all_fails ? "FAILED" : "ok", ranks, err_max, sk.skew_ns);
  MPI_Finalize();
  return all_fails ? 1 : 0;
}
