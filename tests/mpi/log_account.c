/* The gatherer's account of a rank whose messages are not as a sink sends
 * them (tests/mpi/run.sh runs it under mpirun on 3 ranks). Rank 1 makes
 * its messages by hand, in the layout of libitg/mpi/logmsg.h: records
 * before its log header, two sequence numbers skipped, a message too
 * short to have a header, one whose record count does not match its
 * length, and an end marker telling of more messages than came and of
 * spilled records. Rank 2 sends its header and one message of records,
 * and stops without an end marker. Rank 0 gathers, with a timeout of 3 s
 * without a message, and checks the counts, that rank 2 (only) is named
 * as not ended, and reads back rank 1's file: only the well-formed
 * records, as sent. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
#include "itg/mpi.h"

#define MAGIC 0x4d475449u
#define HEAD_LEN 32u
enum { HELLO = 1, DATA = 2, END = 3 };

#define CHECK_NAME "log_account"
#include "check.h"

static void put_le(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static itg_logrec rec_of(uint64_t seq) {
  itg_logrec r = {.flow_id = 9, .size = 100, .flags = ITG_REC_TX,
                  .seq = seq, .tx_ns = (int64_t)seq * 7};
  return r;
}

/* Sends a message of kind with count in its header and n records from
 * seq0 on (a HELLO: the log header instead). */
static void send_msg(uint32_t kind, uint32_t count, uint64_t seq,
                     uint64_t spilled, uint64_t seq0, uint32_t n) {
  uint8_t msg[HEAD_LEN + 4 * ITG_LOG_RECORD_LEN + ITG_LOG_HEADER_LEN];
  size_t len = HEAD_LEN;
  put_le(msg, MAGIC, 4);
  put_le(msg + 4, kind, 4);
  put_le(msg + 8, count, 4);
  put_le(msg + 12, 0, 4);
  put_le(msg + 16, seq, 8);
  put_le(msg + 24, spilled, 8);
  if (kind == HELLO) {
    itg_log_hdr hdr = {.version = ITG_LOG_VERSION,
                       .role = ITG_LOG_ROLE_RECEIVER,
                       .clock = ITG_LOG_CLOCK_REALTIME,
                       .created_ns = 1,
                       .host = "forged"};
    itg_log_hdr_encode(&hdr, msg + len);
    len += ITG_LOG_HEADER_LEN;
  }
  for (uint32_t i = 0; i < n; i++) {
    itg_logrec r = rec_of(seq0 + i);
    itg_logrec_encode(&r, msg + len);
    len += ITG_LOG_RECORD_LEN;
  }
  MPI_Send(msg, (int)len, MPI_BYTE, 0, ITG_MPI_LOG_TAG, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int provided = 0, all_fails, rc;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    uint8_t shorty[5] = {1, 2, 3, 4, 5};
    send_msg(DATA, 1, 0, 0, 100, 1); /* before HELLO: bad */
    send_msg(HELLO, 0, 0, 0, 0, 0);
    send_msg(DATA, 1, 0, 0, 0, 1);
    send_msg(DATA, 2, 2, 0, 1, 2); /* seq 1 missing: a gap */
    MPI_Send(shorty, 5, MPI_BYTE, 0, ITG_MPI_LOG_TAG, MPI_COMM_WORLD);
    send_msg(DATA, 3, 3, 0, 50, 1); /* count 3, one record: bad */
    send_msg(END, 0, 5, 7, 0, 0);   /* seq 3 and 4 never came: 2 gaps */
  } else if (rank == 2) {
    send_msg(HELLO, 0, 0, 0, 0, 0);
    send_msg(DATA, 1, 0, 0, 0, 1);
  } else if (rank == 0) {
    itg_mpi_gather_stats st;
    itg_logreader *rd;
    itg_logrec rec;
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/log_account.XXXXXX", tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    rc = itg_mpi_gather(MPI_COMM_WORLD, 0, dir, 3000000000LL, &st);
    CHECK(rc == ITG_ETIMEDOUT, "gather: %s", itg_strerror(rc));
    if (rc == ITG_ETIMEDOUT) {
      itg_mpi_gather_rank *g = &st.rank[1], *g2 = &st.rank[2];
      CHECK(g->hello && g->ended && st.ended == 1, "hello %d ended %d",
            g->hello, g->ended);
      CHECK(g2->hello && !g2->ended && g2->records == 1 && g2->gaps == 0,
            "rank 2: hello %d ended %d records %" PRIu64 " gaps %" PRIu64,
            g2->hello, g2->ended, g2->records, g2->gaps);
      CHECK(g->records == 3 && g->messages == 2,
            "records %" PRIu64 " messages %" PRIu64, g->records, g->messages);
      CHECK(g->gaps == 3 && st.gaps == 3, "gaps %" PRIu64, g->gaps);
      CHECK(st.records == 4 && st.messages == 3,
            "all ranks: records %" PRIu64 " messages %" PRIu64, st.records,
            st.messages);
      CHECK(st.bad == 3, "bad %" PRIu64, st.bad);
      CHECK(g->spilled == 7 && st.spilled == 7, "spilled %" PRIu64,
            g->spilled);
      rc = itg_logreader_open(g->path, &rd);
      CHECK(rc == 0, "%s: %s", g->path, itg_strerror(rc));
      if (rc == 0) {
        uint64_t n = 0;
        while ((rc = itg_logreader_next(rd, &rec)) == 1) {
          itg_logrec want = rec_of(n);
          CHECK(memcmp(&rec, &want, sizeof rec) == 0, "record %" PRIu64, n);
          n++;
        }
        CHECK(rc == 0 && n == 3, "read %" PRIu64 ": %s", n, itg_strerror(rc));
        itg_logreader_close(rd);
      }
      if (fails == 0)
        printf("log_account: ok: rank 1: 3 records, 2 messages, 3 gaps, "
               "3 bad, 7 spilled; rank 2 not ended\n");
      itg_mpi_gather_stats_free(&st);
    }
  }
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_fails == 0 ? 0 : 1;
}
