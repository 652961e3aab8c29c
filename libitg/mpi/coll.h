/* What every collective call of libitg-mpi does first: check the
 * communicator, and check the arguments of all ranks together. */
#ifndef ITG_MPI_COLL_H
#define ITG_MPI_COLL_H

#include <mpi.h>
#include <stdint.h>

/* Returns 0 when comm can carry a collective call of this library: MPI is
 * initialised and not finalised (else ITG_ESTATE), comm is not
 * MPI_COMM_NULL and not an intercommunicator (else ITG_EINVAL). A rank
 * given such a communicator has no one to agree with, so this is checked
 * alone, before itg__mpi_agree. */
int itg__mpi_comm_check(MPI_Comm comm);

/* Makes the ranks of comm agree on whether a collective call goes on:
 * `local` is this rank's verdict on its own arguments (0 or an ITG_E*
 * code) and `same` a value every rank must have passed alike. Returns 0
 * when every rank said 0 and passed the same `same`; else this rank's own
 * code if it had one, the lowest code of any rank, or ITG_EINVAL when only
 * `same` differed. Every rank learns the outcome, so all go on or none.
 * Being an all-reduce, it returns on no rank before every rank has called
 * it: it is also the call's barrier. ITG_EIO when MPI fails. */
int itg__mpi_agree(MPI_Comm comm, int local, int64_t same);

/* Maps the result of an MPI call: 0 for MPI_SUCCESS, else ITG_EIO. */
int itg__mpi_rc(int mpi_rc);

#endif
