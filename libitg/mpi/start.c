/* One start for all ranks of a communicator, and how far apart they woke. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "core/growable.h"
#include "itg/mpi.h"
#include "mpi/coll.h"
#include "platform/platform.h"

/* Pairs of clock readings taken to keep the tightest (real_to_mono). */
#define PAIR_TRIES 8

static int64_t sub_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* real_ns, an instant of this rank's real-time clock, on the monotonic
 * clock. Both are read close together; a pair read across a preemption
 * would carry it into the deadline, so the pair read in the least time of
 * a few is kept. */
static int64_t real_to_mono(int64_t real_ns) {
  int64_t gap = INT64_MAX, mono = 0, real = 0;

  for (int i = 0; i < PAIR_TRIES; i++) {
    int64_t m1 = (int64_t)uv_hrtime();
    int64_t r = itg__real_ns();
    int64_t m2 = (int64_t)uv_hrtime();
    if (m2 - m1 < gap) {
      gap = m2 - m1;
      mono = m1 + gap / 2;
      real = r;
    }
  }
  return mono + sub_sat(real_ns, real);
}

/* The instant of a common start, into *st; clk gets the caller's clock. */
static int plan(MPI_Comm comm, const itg_mpi_clock *clock, int64_t margin_ns,
                const itg_mpi_start *out, size_t size, itg_mpi_clock *clk,
                itg_mpi_start *st) {
  int rc, rank, local = 0;

  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  memset(clk, 0, sizeof *clk);
  if (itg__struct_in(clk, sizeof *clk, clock, "itg_mpi_clock", NULL, 0) != 0 ||
      out == NULL || !itg__struct_size_ok(size, sizeof *st) || margin_ns < 0)
    local = ITG_EINVAL;
  else if (margin_ns > ITG_MPI_START_MARGIN_MAX_NS)
    local = ITG_ERANGE;
  if (margin_ns == 0)
    margin_ns = ITG_MPI_START_MARGIN_NS;
  /* Every rank has called once this returns, so rank 0 reads its clock
   * below with all of them ready to be told. */
  if ((rc = itg__mpi_agree(comm, local, 0)) != 0)
    return rc;
  if ((rc = itg__mpi_rc(MPI_Comm_rank(comm, &rank))) != 0)
    return rc;

  memset(st, 0, sizeof *st);
  st->struct_size = sizeof *st;
  if (rank == 0)
    st->start_ns = itg__real_ns() + margin_ns;
  if ((rc = itg__mpi_rc(MPI_Bcast(&st->start_ns, 1, MPI_INT64_T, 0, comm))) !=
      0)
    return rc;
  st->local_ns = itg_mpi_clock_from_root(clk, st->start_ns);
  st->mono_ns = real_to_mono(st->local_ns);
  st->uncertainty_ns = clk->uncertainty_ns;
  return 0;
}

int itg_mpi_start_plan_size(MPI_Comm comm, const itg_mpi_clock *clock,
                            int64_t margin_ns, itg_mpi_start *out,
                            size_t size) {
  itg_mpi_clock clk;
  itg_mpi_start st;
  int rc = plan(comm, clock, margin_ns, out, size, &clk, &st);
  if (rc != 0)
    return rc;
  return itg__struct_out(out, size, &st, sizeof st);
}

int itg_mpi_start_at_size(MPI_Comm comm, const itg_mpi_clock *clock,
                          int64_t margin_ns, itg_mpi_start *out, size_t size) {
  itg_mpi_clock clk;
  itg_mpi_start st;
  int rc = plan(comm, clock, margin_ns, out, size, &clk, &st);
  if (rc != 0)
    return rc;
  itg__sleep_until(st.mono_ns);
  st.woke_ns = itg_mpi_clock_to_root(&clk, itg__real_ns());
  return itg__struct_out(out, size, &st, sizeof st);
}

int itg_mpi_start_skew_size(MPI_Comm comm, const itg_mpi_start *start,
                            itg_mpi_skew *out, size_t size) {
  itg_mpi_start st;
  itg_mpi_skew sk;
  int64_t lo, hi[2];
  int rc, rank, ranks, who[2], local = 0;

  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  memset(&st, 0, sizeof st);
  if (itg__struct_in(&st, sizeof st, start, "itg_mpi_start", NULL, 0) != 0 ||
      out == NULL || !itg__struct_size_ok(size, sizeof sk))
    local = ITG_EINVAL;
  if ((rc = itg__mpi_agree(comm, local, 0)) != 0)
    return rc;
  if ((rc = itg__mpi_rc(MPI_Comm_rank(comm, &rank))) != 0 ||
      (rc = itg__mpi_rc(MPI_Comm_size(comm, &ranks))) != 0)
    return rc;

  /* The earliest and latest wake-up and the largest uncertainty, then the
   * lowest rank that woke at each end. */
  lo = sub_sat(st.woke_ns, st.start_ns);
  hi[0] = lo;
  hi[1] = st.uncertainty_ns;
  if ((rc = itg__mpi_rc(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T,
                                      MPI_MIN, comm))) != 0 ||
      (rc = itg__mpi_rc(MPI_Allreduce(MPI_IN_PLACE, hi, 2, MPI_INT64_T,
                                      MPI_MAX, comm))) != 0)
    return rc;
  who[0] = sub_sat(st.woke_ns, st.start_ns) == lo ? rank : INT_MAX;
  who[1] = sub_sat(st.woke_ns, st.start_ns) == hi[0] ? rank : INT_MAX;
  if ((rc = itg__mpi_rc(MPI_Allreduce(MPI_IN_PLACE, who, 2, MPI_INT, MPI_MIN,
                                      comm))) != 0)
    return rc;

  memset(&sk, 0, sizeof sk);
  sk.struct_size = sizeof sk;
  sk.early_ns = lo;
  sk.late_ns = hi[0];
  sk.skew_ns = sub_sat(hi[0], lo);
  sk.early_rank = who[0];
  sk.late_rank = who[1];
  sk.uncertainty_ns = hi[1];
  sk.ranks = ranks;
  return itg__struct_out(out, size, &sk, sizeof sk);
}
