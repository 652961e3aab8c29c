/* MPI loggers on every rank but 0, gathered by rank 0 (tests/mpi/run.sh
 * runs it under mpirun).
 *
 *   log_gather [--records N] [--silent RANK] [--timeout-ms MS] [--idle-ms MS]
 *   log_gather --serialized
 *
 * Each rank other than 0 logs N records of its own flow (flow id = rank,
 * seq 0..N-1) and the flow's FLOW_END (seq N) through itg_mpi_logger_new,
 * as fast as its ring takes them, and closes it; rank 0 gathers with
 * itg_mpi_gather. Then rank 0 reads every rank's gathered file and spill
 * file with the library's reader and checks that every record came
 * exactly once, in order within each file, as written; that the counts of
 * the gatherer, of the loggers and of the files agree; that no message was
 * missing; and decodes the files with itg_decode_files. --silent names a rank
 * that makes no logger at all: the gatherer must return ITG_ETIMEDOUT
 * after the others ended, with that rank, and only it, not ended and given
 * up (silent). --idle-ms makes each logging rank log nothing for that long
 * halfway through, its logger open: with a timeout shorter than that, the
 * keepalives of the loggers must keep the gatherer waiting for every rank.
 * Rank 0 prints the figures; every rank exits 0 only if all checks held.
 * --serialized initialises MPI with MPI_THREAD_SERIALIZED: the writer
 * thread would call MPI beside the caller's, so every rank's
 * itg_mpi_logger_new must refuse with ITG_ESTATE, making no logger. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "itg.h"
#include "itg/mpi.h"

#define CHECK_NAME "log_gather"
#include "check.h"

static int64_t arg_i64(const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*end != '\0') {
    fprintf(stderr, "log_gather: not a number: %s\n", s);
    exit(2);
  }
  return v;
}

/* Record i of rank r's flow of n packets: its FLOW_END when i == n. */
static itg_logrec record_of(int r, uint64_t i, uint64_t n) {
  itg_logrec rec = {.flow_id = (uint32_t)r,
                    .size = (uint16_t)(i == n ? 0 : 64 + i % 1400),
                    .flags = ITG_REC_TX | (i == n ? ITG_REC_FLOW_END : 0),
                    .seq = i,
                    .tx_ns = (int64_t)(1000 * i + (uint64_t)r)};
  return rec;
}

/* Reads path (absent: no records, when may_lack) and marks each record of
 * rank r in seen (records + 1 of them); counts them in *n. */
static void read_file(const char *path, int r, uint64_t records,
                      uint8_t *seen, uint64_t *n, int may_lack) {
  itg_logreader *rd;
  itg_logrec rec;
  int rc = itg_logreader_open(path, &rd), more;
  int64_t last = -1;
  *n = 0;
  if (rc == ITG_ENOENT && may_lack)
    return;
  CHECK(rc == 0, "%s: %s", path, itg_strerror(rc));
  if (rc != 0)
    return;
  while ((more = itg_logreader_next(rd, &rec)) == 1) {
    itg_logrec want;
    if (rec.seq > records || rec.flow_id != (uint32_t)r) {
      CHECK(0, "%s: a record not logged: flow %" PRIu32 " seq %" PRIu64, path,
            rec.flow_id, rec.seq);
      break;
    }
    want = record_of(r, rec.seq, records);
    CHECK(memcmp(&want, &rec, sizeof rec) == 0, "%s: seq %" PRIu64 " altered",
          path, rec.seq);
    CHECK((int64_t)rec.seq > last, "%s: seq %" PRIu64 " after %" PRId64, path,
          rec.seq, last);
    CHECK(!seen[rec.seq], "%s: seq %" PRIu64 " twice", path, rec.seq);
    seen[rec.seq] = 1;
    last = (int64_t)rec.seq;
    (*n)++;
  }
  CHECK(more == 0, "%s: reading: %s", path, itg_strerror(more));
  itg_logreader_close(rd);
}

/* Decodes a rank's gathered file and its spill file (NULL: none) with
 * itg_decode_files: each must give the records read from it, and neither
 * is cut short, though the flow's FLOW_END is in only one of them. */
static void decode(const char *log, const char *spill, int r,
                   uint64_t in_log, uint64_t in_spill) {
  const char *paths[2] = {log, spill};
  itg_decode_status st[2];
  itg_stats *stats;
  size_t n = spill != NULL ? 2 : 1;
  int rc;
  if (itg_stats_new(&stats) != 0) {
    CHECK(0, "itg_stats_new");
    return;
  }
  rc = itg_decode_files(paths, n, stats, NULL, st);
  CHECK(rc == 0, "rank %d: decoding: %s", r, itg_strerror(rc));
  for (size_t i = 0; i < n; i++) {
    CHECK(st[i].opened && st[i].records == (i == 0 ? in_log : in_spill),
          "rank %d: %s: %" PRIu64 " records decoded", r, paths[i],
          st[i].records);
    CHECK(st[i].error == 0, "rank %d: %s: %s", r, paths[i],
          itg_strerror(st[i].error));
  }
  CHECK(itg_stats_flow_count(stats) == 1, "rank %d: %zu flows", r,
        itg_stats_flow_count(stats));
  itg_stats_free(stats);
}

static int serialized(int *argc, char ***argv) {
  int provided = 0, all_fails, rc, ranks;
  itg_logger_cfg cfg;
  itg_logger *l = NULL;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  itg_logger_cfg_init(&cfg);
  rc = itg_mpi_logger_new(MPI_COMM_WORLD, (rank + 1) % ranks, &cfg,
                          "never-made.spill", &l);
  CHECK(provided < MPI_THREAD_MULTIPLE, "thread level %d granted", provided);
  CHECK(rc == ITG_ESTATE && l == NULL, "itg_mpi_logger_new: %s",
        itg_strerror(rc));
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all_fails == 0)
    printf("log_gather: ok: MPI_THREAD_SERIALIZED refused on %d ranks\n",
           ranks);
  MPI_Finalize();
  return all_fails == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  int64_t records = 200000, timeout_ms = 20000, idle_ms = 0, t0_real;
  int ranks, silent = -1, provided = 0, rc, all_fails;
  char dir[512] = "", spill[600];
  uint64_t mine[2] = {0, 0}, *theirs = NULL; /* spilled, lost */

  if (argc == 2 && strcmp(argv[1], "--serialized") == 0)
    return serialized(&argc, &argv);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d granted",
        provided);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--records") == 0)
      records = arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--silent") == 0)
      silent = (int)arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--timeout-ms") == 0)
      timeout_ms = arg_i64(argv[i + 1]);
    else if (strcmp(argv[i], "--idle-ms") == 0)
      idle_ms = arg_i64(argv[i + 1]);
  }
  if (rank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/log_gather.XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
      perror("mkdtemp");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("log_gather: %d ranks, %" PRId64 " records each, thread level %s\n",
           ranks, records,
           provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                           : "below MPI_THREAD_MULTIPLE");
  }
  MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    itg_mpi_gather_stats st;
    uint64_t t0 = uv_hrtime(), ns;
    int64_t t1_real;
    t0_real = itg_clock_real_ns();
    rc = itg_mpi_gather(MPI_COMM_WORLD, 0, dir, timeout_ms * 1000000, &st);
    t1_real = itg_clock_real_ns();
    ns = uv_hrtime() - t0;
    theirs = calloc((size_t)ranks * 2, sizeof *theirs);
    MPI_Gather(mine, 2, MPI_UINT64_T, theirs, 2, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    CHECK(rc == (silent > 0 ? ITG_ETIMEDOUT : 0), "gather: %s",
          itg_strerror(rc));
    if (rc == 0 || rc == ITG_ETIMEDOUT) {
      uint8_t *seen = malloc((size_t)records + 1);
      printf("log_gather: gathered %" PRIu64 " records in %" PRIu64
             " messages in %.3f s (%.0f records/s), %" PRIu64
             " spilled, %d of %d ranks ended\n",
             st.records, st.messages, (double)ns / 1e9,
             (double)st.records / ((double)ns / 1e9), st.spilled, st.ended,
             ranks - 1);
      CHECK(st.gaps == 0 && st.bad == 0, "gaps %" PRIu64 " bad %" PRIu64,
            st.gaps, st.bad);
      CHECK(st.silent == (silent > 0), "%d ranks given up", st.silent);
      for (int r = 1; r < ranks; r++) {
        itg_mpi_gather_rank *g = &st.rank[r];
        uint64_t in_log = 0, in_spill = 0, missing = 0;
        if (r == silent) {
          CHECK(!g->ended && !g->hello && g->records == 0 && g->silent &&
                    g->last_ns == 0,
                "silent rank %d: ended %d hello %d records %" PRIu64
                " silent %d last %" PRId64,
                r, g->ended, g->hello, g->records, g->silent, g->last_ns);
          continue;
        }
        CHECK(g->ended && g->hello && !g->silent,
              "rank %d: ended %d hello %d silent %d", r, g->ended, g->hello,
              g->silent);
        CHECK(g->last_ns >= t0_real && g->last_ns <= t1_real,
              "rank %d: last message at %" PRId64 ", gathered from %" PRId64
              " to %" PRId64,
              r, g->last_ns, t0_real, t1_real);
        CHECK(theirs[2 * r + 1] == 0, "rank %d lost %" PRIu64, r,
              theirs[2 * r + 1]);
        CHECK(g->spilled == theirs[2 * r], "rank %d: spilled %" PRIu64
              " told, %" PRIu64 " by its logger", r, g->spilled,
              theirs[2 * r]);
        memset(seen, 0, (size_t)records + 1);
        read_file(g->path, r, (uint64_t)records, seen, &in_log, 0);
        snprintf(spill, sizeof spill, "%s/spill-%d", dir, r);
        read_file(spill, r, (uint64_t)records, seen, &in_spill, 1);
        for (int64_t i = 0; i <= records; i++)
          missing += !seen[i];
        CHECK(missing == 0, "rank %d: %" PRIu64 " records missing", r,
              missing);
        CHECK(in_log == g->records && in_spill == g->spilled,
              "rank %d: files hold %" PRIu64 " + %" PRIu64
              ", gatherer counted %" PRIu64 " + %" PRIu64, r, in_log,
              in_spill, g->records, g->spilled);
        decode(g->path, in_spill > 0 ? spill : NULL, r, in_log, in_spill);
        printf("log_gather: rank %d: %" PRIu64 " records in %" PRIu64
               " messages, %" PRIu64 " spilled, %" PRIu64 " gaps\n",
               r, g->records, g->messages, g->spilled, g->gaps);
      }
      free(seen);
      itg_mpi_gather_stats_free(&st);
    }
    free(theirs);
  } else {
    if (rank != silent) {
      itg_logger_cfg cfg;
      itg_logger *l;
      itg_logger_stats ls;
      itg_logger_cfg_init(&cfg);
      cfg.flush_ms = 20;
      snprintf(spill, sizeof spill, "%s/spill-%d", dir, rank);
      rc = itg_mpi_logger_new(MPI_COMM_WORLD, 0, &cfg, spill, &l);
      CHECK(rc == 0, "itg_mpi_logger_new: %s", itg_strerror(rc));
      if (rc == 0) {
        for (int64_t i = 0; i <= records; i++) {
          itg_logrec rec = record_of(rank, (uint64_t)i, (uint64_t)records);
          /* The pause is what is tested: a rank with nothing to log. */
          if (idle_ms > 0 && i == records / 2)
            uv_sleep((unsigned)idle_ms);
          itg_logger_push(l, 0, &rec);
        }
        rc = itg_logger_close_stats(l, &ls);
        CHECK(rc == 0, "itg_logger_close: %s", itg_strerror(rc));
        CHECK(ls.records == (uint64_t)records + 1, "logger wrote %" PRIu64,
              ls.records);
        mine[0] = ls.spilled;
        mine[1] = ls.lost;
      }
    }
    MPI_Gather(mine, 2, MPI_UINT64_T, NULL, 2, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
  }
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_fails == 0 ? 0 : 1;
}
