/* The ranks' real-time clocks referred to rank 0's, by ping-pong. */
#include <stdint.h>
#include <string.h>

#include "core/growable.h"
#include "itg/mpi.h"
#include "mpi/coll.h"
#include "platform/platform.h"

/* Rank 0 answers the rounds of each other rank in turn, the others ask:
 * one tag on the duplicate communicator is enough. */
#define PING_TAG 1

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* Rank 0's side: a reading of its clock for each ping, taken as late as
 * possible before the answer leaves. */
static int answer(MPI_Comm comm, int ranks, int rounds) {
  for (int r = 1; r < ranks; r++) {
    for (int i = 0; i < rounds; i++) {
      int seq;
      int64_t now;
      if (MPI_Recv(&seq, 1, MPI_INT, r, PING_TAG, comm, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS)
        return ITG_EIO;
      now = itg__real_ns();
      if (MPI_Send(&now, 1, MPI_INT64_T, r, PING_TAG, comm) !=
          MPI_SUCCESS)
        return ITG_EIO;
    }
  }
  return 0;
}

/* Another rank's side: the round trip that took least time is the one
 * least stretched by scheduling or queuing on either way, so its middle is
 * the best guess of when rank 0 read its clock. */
static int ask(MPI_Comm comm, int rounds, itg_mpi_clock *res) {
  int64_t best = INT64_MAX;

  for (int i = 0; i < rounds; i++) {
    int64_t sent, back, root, rtt;
    sent = itg__real_ns();
    if (MPI_Send(&i, 1, MPI_INT, 0, PING_TAG, comm) != MPI_SUCCESS ||
        MPI_Recv(&root, 1, MPI_INT64_T, 0, PING_TAG, comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return ITG_EIO;
    back = itg__real_ns();
    rtt = back - sent;
    /* A round across a step of this rank's clock says nothing. */
    if (rtt < 0 || rtt >= best)
      continue;
    best = rtt;
    res->measured_ns = sent + rtt / 2;
    res->offset_ns = root - res->measured_ns;
  }
  if (best == INT64_MAX)
    return ITG_EIO;
  /* The middle is rtt / 2 rounded down: the reading lies at most
   * rtt / 2 rounded up away from it. */
  res->uncertainty_ns = best / 2 + best % 2;
  res->rounds = rounds;
  return 0;
}

int itg_mpi_clock_sync_size(MPI_Comm comm, int rounds, itg_mpi_clock *out,
                            size_t size) {
  itg_mpi_clock res;
  MPI_Comm dup;
  int rc, rank, ranks, local = 0;

  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  if (out == NULL || !itg__struct_size_ok(size, sizeof res) || rounds < 1)
    local = ITG_EINVAL;
  else if (rounds > ITG_MPI_CLOCK_ROUNDS_MAX)
    local = ITG_ERANGE;
  if ((rc = itg__mpi_agree(comm, local, rounds)) != 0)
    return rc;
  if ((rc = itg__mpi_rc(MPI_Comm_rank(comm, &rank))) != 0 ||
      (rc = itg__mpi_rc(MPI_Comm_size(comm, &ranks))) != 0)
    return rc;

  memset(&res, 0, sizeof res);
  res.struct_size = sizeof res;
  res.measured_ns = itg__real_ns();
  if (ranks > 1) {
    if ((rc = itg__mpi_rc(MPI_Comm_dup(comm, &dup))) != 0)
      return rc;
    rc = rank == 0 ? answer(dup, ranks, rounds) : ask(dup, rounds, &res);
    if (MPI_Comm_free(&dup) != MPI_SUCCESS && rc == 0)
      rc = ITG_EIO;
    if (rc != 0)
      return rc;
  }
  return itg__struct_out(out, size, &res, sizeof res);
}

/* The caller's clock in the library's layout; a missing or short one has
 * offset 0. */
static int64_t offset_of(const itg_mpi_clock *clock) {
  itg_mpi_clock c;
  memset(&c, 0, sizeof c);
  if (itg__struct_in(&c, sizeof c, clock, "itg_mpi_clock", NULL, 0) != 0)
    return 0;
  return c.offset_ns;
}

int64_t itg_mpi_clock_to_root(const itg_mpi_clock *clock, int64_t local_ns) {
  return add_sat(local_ns, offset_of(clock));
}

int64_t itg_mpi_clock_from_root(const itg_mpi_clock *clock, int64_t root_ns) {
  int64_t off = offset_of(clock);
  /* -INT64_MIN does not exist: one step short of it saturates alike. */
  return add_sat(root_ns, off == INT64_MIN ? INT64_MAX : -off);
}
