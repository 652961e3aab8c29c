/* The gatherer's account of a rank whose messages are not as a sink sends
 * them (tests/mpi/run.sh runs it under mpirun on 3 ranks). Rank 1 makes
 * its messages by hand, in the layout of libitg/mpi/logmsg.h: records
 * before its log header, two sequence numbers skipped, a message too
 * short to have a header, one whose record count does not match its
 * length, keepalives for 4.5 s, and an end marker telling of more messages
 * than came and of spilled records. Rank 2 sends its header, one message
 * of records and a keepalive telling of three messages and of spilled
 * records, and then nothing, as a rank killed would. Rank 0 first checks
 * that a timeout below the shortest is refused, then gathers with a
 * timeout of 3 s without a message, and checks the counts; that rank 2
 * (only) is given up and not ended, with the gaps its keepalive told of,
 * while rank 1 went on past the timeout; that the gatherer returned at
 * rank 1's end marker, not a timeout later; and reads back both files:
 * only the well-formed records, as sent. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "itg.h"
#include "itg/mpi.h"

#define MAGIC 0x4d475449u
#define HEAD_LEN 32u
enum { HELLO = 1, DATA = 2, END = 3, ALIVE = 4 };
/* The gatherer's timeout, and how long rank 1 keeps sending past it. */
#define TIMEOUT_NS 3000000000LL
#define ALIVE_FOR_NS 4500000000LL
#define ALIVE_EVERY_MS 100

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

/* Reads path back: records rec_of(0 .. n - 1), no more. */
static void read_back(const char *path, uint64_t want_n) {
  itg_logreader *rd;
  itg_logrec rec;
  uint64_t n = 0;
  int rc = itg_logreader_open(path, &rd);
  CHECK(rc == 0, "%s: %s", path, itg_strerror(rc));
  if (rc != 0)
    return;
  while ((rc = itg_logreader_next(rd, &rec)) == 1) {
    itg_logrec want = rec_of(n);
    CHECK(memcmp(&rec, &want, sizeof rec) == 0, "%s: record %" PRIu64, path,
          n);
    n++;
  }
  CHECK(rc == 0 && n == want_n, "%s: read %" PRIu64 ": %s", path, n,
        itg_strerror(rc));
  itg_logreader_close(rd);
}

int main(int argc, char **argv) {
  int provided = 0, all_fails, rc;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* Ranks 1 and 2 begin together: rank 1 goes on past the timeout after
   * rank 2 went quiet. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    uint8_t shorty[5] = {1, 2, 3, 4, 5};
    send_msg(DATA, 1, 0, 0, 100, 1); /* before HELLO: bad */
    send_msg(HELLO, 0, 0, 0, 0, 0);
    send_msg(DATA, 1, 0, 0, 0, 1);
    send_msg(DATA, 2, 2, 0, 1, 2); /* seq 1 missing: a gap */
    MPI_Send(shorty, 5, MPI_BYTE, 0, ITG_MPI_LOG_TAG, MPI_COMM_WORLD);
    send_msg(DATA, 3, 3, 0, 50, 1); /* count 3, one record: bad */
    /* Alive past the gatherer's timeout, with nothing to send. */
    for (int64_t t0 = itg_clock_mono_ns(), i = 0;
         i < ALIVE_FOR_NS / 1000000 / ALIVE_EVERY_MS &&
         itg_clock_mono_ns() - t0 < ALIVE_FOR_NS;
         i++) {
      send_msg(ALIVE, 0, 3, 7, 0, 0);
      uv_sleep(ALIVE_EVERY_MS);
    }
    send_msg(END, 0, 5, 7, 0, 0); /* seq 3 and 4 never came: 2 gaps */
  } else if (rank == 2) {
    send_msg(HELLO, 0, 0, 0, 0, 0);
    send_msg(DATA, 1, 0, 0, 0, 1);
    send_msg(ALIVE, 0, 3, 11, 0, 0); /* seq 1 and 2 never came: 2 gaps */
  } else if (rank == 0) {
    itg_mpi_gather_stats st;
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    int64_t t1_real;
    snprintf(dir, sizeof dir, "%s/log_account.XXXXXX", tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    /* A timeout a keepalive may miss is refused, *out untouched. */
    memset(&st, 0x5a, sizeof st);
    rc = itg_mpi_gather(MPI_COMM_WORLD, 0, dir,
                        ITG_MPI_GATHER_TIMEOUT_MIN_NS - 1, &st);
    CHECK(rc == ITG_EINVAL && st.rank == (void *)0x5a5a5a5a5a5a5a5aULL,
          "timeout below the shortest: %s", itg_strerror(rc));
    rc = itg_mpi_gather(MPI_COMM_WORLD, 0, dir, TIMEOUT_NS, &st);
    t1_real = itg_clock_real_ns();
    CHECK(rc == ITG_ETIMEDOUT, "gather: %s", itg_strerror(rc));
    if (rc == ITG_ETIMEDOUT) {
      itg_mpi_gather_rank *g = &st.rank[1], *g2 = &st.rank[2];
      CHECK(g->hello && g->ended && !g->silent && st.ended == 1,
            "hello %d ended %d silent %d", g->hello, g->ended, g->silent);
      CHECK(g2->hello && !g2->ended && g2->silent && st.silent == 1 &&
                g2->records == 1 && g2->gaps == 2 && g2->spilled == 11,
            "rank 2: hello %d ended %d silent %d records %" PRIu64
            " gaps %" PRIu64 " spilled %" PRIu64,
            g2->hello, g2->ended, g2->silent, g2->records, g2->gaps,
            g2->spilled);
      /* Rank 2 was given up while rank 1 went on: the gatherer returned as
       * rank 1 ended, where one global timer would have waited a timeout
       * more. */
      CHECK(g->last_ns - g2->last_ns > TIMEOUT_NS &&
                t1_real - g->last_ns < TIMEOUT_NS / 2,
            "rank 2 heard at %" PRId64 ", rank 1 at %" PRId64
            ", gatherer back at %" PRId64,
            g2->last_ns, g->last_ns, t1_real);
      CHECK(g->records == 3 && g->messages == 2,
            "records %" PRIu64 " messages %" PRIu64, g->records, g->messages);
      CHECK(g->gaps == 3 && st.gaps == 5, "gaps %" PRIu64 ", all %" PRIu64,
            g->gaps, st.gaps);
      CHECK(st.records == 4 && st.messages == 3,
            "all ranks: records %" PRIu64 " messages %" PRIu64, st.records,
            st.messages);
      CHECK(st.bad == 3, "bad %" PRIu64, st.bad);
      CHECK(g->spilled == 7 && st.spilled == 18, "spilled %" PRIu64,
            g->spilled);
      read_back(g->path, 3);
      read_back(g2->path, 1);
      if (fails == 0)
        printf("log_account: ok: rank 1: 3 records, 2 messages, 3 gaps, "
               "3 bad, 7 spilled; rank 2 given up (1 record, 2 gaps, "
               "11 spilled) %.1f s before rank 1 ended\n",
               (double)(g->last_ns - g2->last_ns) / 1e9);
      itg_mpi_gather_stats_free(&st);
    }
  }
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_fails == 0 ? 0 : 1;
}
