/* libitg-mpi refuses what it cannot use, on every rank at once, and leaves
 * the communicator fit for the next call (tests/mpi/run.sh runs it on two
 * ranks). A refusal on one rank alone that left the other waiting would
 * hang here until run.sh's time limit. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "itg.h"
#include "itg/mpi.h"

#define CHECK_NAME "bad_input"
#include "check.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aLL

static void fill(void *p, size_t n) { memset(p, 0x5a, n); }

int main(int argc, char **argv) {
  itg_mpi_clock clk, self;
  itg_mpi_start st;
  itg_mpi_skew sk;
  int rc, all_fails;

  /* Before MPI_Init there is no communicator to use. */
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, 10, &clk);
  CHECK(rc == ITG_ESTATE, "before MPI_Init: %s", itg_err_name(rc));

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  fill(&clk, sizeof clk);
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, 0, &clk);
  CHECK(rc == ITG_EINVAL, "rounds 0: %s", itg_err_name(rc));
  CHECK(clk.offset_ns == SENTINEL, "rounds 0 wrote the result");
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, -5, &clk);
  CHECK(rc == ITG_EINVAL, "rounds -5: %s", itg_err_name(rc));
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, ITG_MPI_CLOCK_ROUNDS_MAX + 1, &clk);
  CHECK(rc == ITG_ERANGE, "rounds above the most: %s", itg_err_name(rc));
  rc = itg_mpi_clock_sync_size(MPI_COMM_WORLD, 10, NULL, 0);
  CHECK(rc == ITG_EINVAL, "NULL out: %s", itg_err_name(rc));
  /* One rank's refusal is every rank's. */
  rc = itg_mpi_clock_sync_size(MPI_COMM_WORLD, 10, rank == 1 ? NULL : &clk,
                               rank == 1 ? 0 : sizeof clk);
  CHECK(rc == ITG_EINVAL, "NULL out on rank 1: %s", itg_err_name(rc));
  CHECK(clk.offset_ns == SENTINEL, "NULL out on rank 1 wrote the result");
  rc = itg_mpi_clock_sync_size(MPI_COMM_WORLD, 10, &clk, 4);
  CHECK(rc == ITG_EINVAL, "size 4: %s", itg_err_name(rc));
  rc = itg_mpi_clock_sync_size(MPI_COMM_WORLD, 10, &clk, sizeof clk + 8);
  CHECK(rc == ITG_EINVAL, "size beyond the library's: %s", itg_err_name(rc));
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, 10 + rank, &clk);
  CHECK(rc == ITG_EINVAL, "rounds unlike on each rank: %s", itg_err_name(rc));
  CHECK(clk.offset_ns == SENTINEL, "a refused call wrote the result");
  rc = itg_mpi_clock_sync(MPI_COMM_NULL, 10, &clk);
  CHECK(rc == ITG_EINVAL, "MPI_COMM_NULL: %s", itg_err_name(rc));

  /* A communicator of one rank: rank 0 alone, offset and uncertainty 0. */
  fill(&self, sizeof self);
  rc = itg_mpi_clock_sync(MPI_COMM_SELF, 10, &self);
  CHECK(rc == 0, "MPI_COMM_SELF: %s", itg_err_name(rc));
  CHECK(self.struct_size == sizeof self && self.offset_ns == 0 &&
            self.uncertainty_ns == 0 && self.rounds == 0,
        "MPI_COMM_SELF: offset %" PRId64 ", uncertainty %" PRId64
        ", rounds %d",
        self.offset_ns, self.uncertainty_ns, self.rounds);

  /* The conversions: a missing clock is offset 0, and the ends of int64_t
   * hold. */
  CHECK(itg_mpi_clock_to_root(NULL, 123) == 123, "NULL clock");
  self.offset_ns = 5;
  CHECK(itg_mpi_clock_to_root(&self, 100) == 105, "to root");
  CHECK(itg_mpi_clock_from_root(&self, 105) == 100, "from root");
  CHECK(itg_mpi_clock_to_root(&self, INT64_MAX - 1) == INT64_MAX, "saturates");
  self.offset_ns = INT64_MIN;
  CHECK(itg_mpi_clock_from_root(&self, 1) == INT64_MAX, "saturates");
  self.offset_ns = 0;

  /* Starts. */
  fill(&st, sizeof st);
  rc = itg_mpi_start_at(MPI_COMM_WORLD, NULL, 0, &st);
  CHECK(rc == ITG_EINVAL, "NULL clock: %s", itg_err_name(rc));
  rc = itg_mpi_start_at(MPI_COMM_WORLD, &self, -1, &st);
  CHECK(rc == ITG_EINVAL, "margin -1: %s", itg_err_name(rc));
  rc = itg_mpi_start_at(MPI_COMM_WORLD, &self,
                        ITG_MPI_START_MARGIN_MAX_NS + 1, &st);
  CHECK(rc == ITG_ERANGE, "margin above the most: %s", itg_err_name(rc));
  rc = itg_mpi_start_at_size(MPI_COMM_WORLD, &self, 0,
                             rank == 0 ? NULL : &st, sizeof st);
  CHECK(rc == ITG_EINVAL, "NULL out on rank 0: %s", itg_err_name(rc));
  CHECK(st.start_ns == SENTINEL, "a refused start wrote the result");
  rc = itg_mpi_start_at(MPI_COMM_SELF, &self, 1000000, &st);
  CHECK(rc == 0, "start on MPI_COMM_SELF: %s", itg_err_name(rc));
  CHECK(rc != 0 || (st.local_ns == st.start_ns && st.woke_ns >= st.start_ns),
        "start %" PRId64 ", local %" PRId64 ", woke %" PRId64, st.start_ns,
        st.local_ns, st.woke_ns);
  rc = itg_mpi_start_skew(MPI_COMM_SELF, &st, &sk);
  CHECK(rc == 0 && sk.ranks == 1 && sk.skew_ns == 0 && sk.early_rank == 0 &&
            sk.late_rank == 0 && sk.early_ns == st.woke_ns - st.start_ns,
        "skew on MPI_COMM_SELF: %s, %d ranks, skew %" PRId64,
        itg_err_name(rc), sk.ranks, sk.skew_ns);
  rc = itg_mpi_start_skew_size(MPI_COMM_WORLD, rank == 1 ? NULL : &st, &sk,
                               sizeof sk);
  CHECK(rc == ITG_EINVAL, "NULL start on rank 1: %s", itg_err_name(rc));

  /* After all these refusals, nothing is left in flight: the next calls
   * pair up as they should. */
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, 50, &clk);
  CHECK(rc == 0, "sync after the refusals: %s", itg_err_name(rc));
  CHECK(rc != 0 || rank == 0 || (clk.uncertainty_ns > 0 && clk.rounds == 50),
        "uncertainty %" PRId64 ", rounds %d", clk.uncertainty_ns, clk.rounds);
  rc = itg_mpi_start_at(MPI_COMM_WORLD, &clk, 1000000, &st);
  CHECK(rc == 0, "start after the refusals: %s", itg_err_name(rc));

  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  rc = itg_mpi_clock_sync(MPI_COMM_WORLD, 10, &clk);
  CHECK(rc == ITG_ESTATE, "after MPI_Finalize: %s", itg_err_name(rc));
  if (rank == 0)
    printf("bad_input: %s\n", all_fails || fails ? "FAILED" : "ok");
  return all_fails || fails ? 1 : 0;
}
