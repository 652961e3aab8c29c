/* What every MPI test program shares: its rank, its count of failures, and
 * CHECK, which reports a failed condition with the program's name and rank
 * and goes on. A rank that stopped at its first failure would leave the
 * others waiting in a collective until mpirun's timeout; going on, every
 * rank reaches the end and the program exits non-zero with all its
 * failures said. Define CHECK_NAME before including it. */
#ifndef ITG_TESTS_MPI_CHECK_H
#define ITG_TESTS_MPI_CHECK_H

#include <stdio.h>

static int rank, fails;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, CHECK_NAME ": rank %d: FAIL %s: ", rank, #cond);         \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      fails++;                                                                 \
    }                                                                          \
  } while (0)

#endif
