/* The checks every collective call of libitg-mpi starts with. */
#include "mpi/coll.h"

#include "itg/common.h"

int itg__mpi_rc(int mpi_rc) { return mpi_rc == MPI_SUCCESS ? 0 : ITG_EIO; }

int itg__mpi_comm_check(MPI_Comm comm) {
  int up = 0, down = 0, inter = 0;

  if (MPI_Initialized(&up) != MPI_SUCCESS || !up ||
      MPI_Finalized(&down) != MPI_SUCCESS || down)
    return ITG_ESTATE;
  if (comm == MPI_COMM_NULL)
    return ITG_EINVAL;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return ITG_EIO;
  return inter ? ITG_EINVAL : 0;
}

int itg__mpi_agree(MPI_Comm comm, int local, int64_t same) {
  /* One reduction carries all three: the lowest verdict, and the lowest
   * and highest `same` (the highest as the lowest of its complement, which
   * unlike the negation cannot overflow). */
  int64_t v[3] = {local, same, ~same};
  int rc = itg__mpi_rc(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MIN,
                                     comm));

  if (rc != 0)
    return rc;
  if (local != 0)
    return local;
  if (v[0] != 0)
    return (int)v[0];
  return v[1] == ~v[2] ? 0 : ITG_EINVAL;
}
