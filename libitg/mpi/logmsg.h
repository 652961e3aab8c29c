/* The messages of an MPI log sink (mpi/sink.c) to its gatherer
 * (mpi/gather.c), all on tag ITG_MPI_LOG_TAG of the caller's
 * communicator: a header, then a log file header (HELLO) or records
 * (DATA), little endian as in a log file; ALIVE and END are a header
 * alone. */
#ifndef ITG_MPI_LOGMSG_H
#define ITG_MPI_LOGMSG_H

#include <stdint.h>

#include "core/byteorder.h"

#define ITG__MPI_LOG_MAGIC 0x4d475449u /* "ITGM" */
#define ITG__MPI_LOG_HDR_LEN 32u

/* Records a DATA message holds at most: 2048 x 32 bytes, large enough
 * that the messages stay few, small enough that two buffers of them cost
 * little on each rank. */
#define ITG__MPI_LOG_RECS 2048u

/* A sink that has sent nothing for this long sends an ALIVE: the gatherer
 * tells a rank that is alive but has nothing to log from one that is gone
 * by the time since its last message, which must therefore be longer
 * (itg_mpi_gather takes no timeout below twice this). */
#define ITG__MPI_LOG_ALIVE_MS 1000u

enum {
  ITG__MPI_LOG_HELLO = 1, /* the rank's log file header */
  ITG__MPI_LOG_DATA = 2,  /* seq: 0, 1, 2, ... per rank; count records */
  ITG__MPI_LOG_END = 3,   /* seq: DATA messages sent; spilled: records
                             the rank kept in its spill file */
  ITG__MPI_LOG_ALIVE = 4  /* seq and spilled as in END, so far: the rank
                             lives and has had nothing to send */
};

typedef struct itg__mpi_log_head {
  uint32_t kind;
  uint32_t count;
  uint64_t seq;
  uint64_t spilled;
} itg__mpi_log_head;

static inline void itg__mpi_log_head_put(uint8_t *p,
                                         const itg__mpi_log_head *h) {
  itg__put_le32(p, ITG__MPI_LOG_MAGIC);
  itg__put_le32(p + 4, h->kind);
  itg__put_le32(p + 8, h->count);
  itg__put_le32(p + 12, 0);
  itg__put_le64(p + 16, h->seq);
  itg__put_le64(p + 24, h->spilled);
}

/* Returns 0, or -1 when p does not begin as a message of this kind. */
static inline int itg__mpi_log_head_get(const uint8_t *p,
                                        itg__mpi_log_head *h) {
  if (itg__get_le32(p) != ITG__MPI_LOG_MAGIC)
    return -1;
  h->kind = itg__get_le32(p + 4);
  h->count = itg__get_le32(p + 8);
  h->seq = itg__get_le64(p + 16);
  h->spilled = itg__get_le64(p + 24);
  return 0;
}

#endif
