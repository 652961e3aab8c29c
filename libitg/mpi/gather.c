/* The gathering side of the MPI log sinks (mpi/sink.c): one log file a
 * rank, written as it arrives, and the account of each rank. A rank is
 * waited for as long as it sends something within the timeout (its sink
 * says it is alive when it has nothing to log), each rank on its own
 * clock: a rank gone quiet is given up while the others go on. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "core/growable.h"
#include "itg/mpi.h"
#include "mpi/coll.h"
#include "mpi/logmsg.h"
#include "platform/platform.h"

_Static_assert(ITG_MPI_GATHER_TIMEOUT_MIN_NS ==
                   2 * (int64_t)ITG__MPI_LOG_ALIVE_MS * 1000000,
               "the shortest timeout is twice the keepalive period");

/* The pause between two looks for a message while none comes. */
#define POLL_NS 20000LL
#define MSG_MAX (ITG__MPI_LOG_HDR_LEN + ITG__MPI_LOG_RECS * ITG_LOG_RECORD_LEN)

typedef struct gatherer {
  const char *dir;
  itg_mpi_gather_rank *ranks;
  itg_logwriter **w;
  uint64_t *next_seq;
  int64_t *heard; /* per rank: when its last message came (monotonic) */
  itg_mpi_gather_stats st;
  itg_logrec *recs;
  int error; /* the first log file error */
} gatherer;

static void hello(gatherer *g, itg_mpi_gather_rank *r, const uint8_t *body,
                  size_t len) {
  itg_log_hdr hdr;
  int rc;
  if (r->hello || itg_log_hdr_decode(body, len, &hdr) != 0) {
    g->st.bad++;
    return;
  }
  r->hello = 1;
  if (snprintf(r->path, sizeof r->path, "%s/rank-%d.itglog", g->dir,
               r->rank) >= (int)sizeof r->path)
    rc = ITG_ERANGE;
  else
    rc = itg_logwriter_open(r->path, &hdr, &g->w[r->rank]);
  if (rc != 0 && g->error == 0)
    g->error = rc;
}

static void data(gatherer *g, itg_mpi_gather_rank *r,
                 const itg__mpi_log_head *h, const uint8_t *body, size_t len) {
  uint32_t n = 0;
  itg_logwriter *w = g->w[r->rank];
  if (!r->hello || r->ended || h->count > ITG__MPI_LOG_RECS ||
      len != (size_t)h->count * ITG_LOG_RECORD_LEN) {
    g->st.bad++;
    return;
  }
  if (h->seq > g->next_seq[r->rank])
    r->gaps += h->seq - g->next_seq[r->rank];
  else if (h->seq < g->next_seq[r->rank])
    r->gaps++; /* out of order: counted as a gap of its own */
  g->next_seq[r->rank] = h->seq + 1;
  r->messages++;
  for (uint32_t i = 0; i < h->count; i++)
    if (itg_logrec_decode(body + (size_t)i * ITG_LOG_RECORD_LEN,
                          &g->recs[n]) == 0)
      n++;
  g->st.bad += h->count - n;
  r->records += n;
  if (w != NULL && n > 0) {
    int rc = itg_logwriter_write(w, g->recs, n);
    if (rc != 0 && g->error == 0)
      g->error = rc;
  }
}

/* Counts the DATA messages that should have come before a message telling
 * that seq of them were sent. */
static void sent_before(gatherer *g, itg_mpi_gather_rank *r, uint64_t seq) {
  if (seq > g->next_seq[r->rank]) {
    r->gaps += seq - g->next_seq[r->rank];
    g->next_seq[r->rank] = seq;
  }
}

static void end(gatherer *g, itg_mpi_gather_rank *r,
                const itg__mpi_log_head *h) {
  if (r->ended) {
    g->st.bad++;
    return;
  }
  r->ended = 1;
  r->spilled = h->spilled;
  sent_before(g, r, h->seq);
  g->st.ended++;
}

static void alive(gatherer *g, itg_mpi_gather_rank *r,
                  const itg__mpi_log_head *h) {
  if (!r->hello || r->ended) {
    g->st.bad++;
    return;
  }
  r->spilled = h->spilled;
  sent_before(g, r, h->seq);
}

/* Takes one message from source: len bytes at msg. */
static void take(gatherer *g, int source, const uint8_t *msg, size_t len) {
  itg__mpi_log_head h;
  itg_mpi_gather_rank *r = &g->ranks[source];
  if (len < ITG__MPI_LOG_HDR_LEN || itg__mpi_log_head_get(msg, &h) != 0) {
    g->st.bad++;
    return;
  }
  msg += ITG__MPI_LOG_HDR_LEN;
  len -= ITG__MPI_LOG_HDR_LEN;
  switch (h.kind) {
  case ITG__MPI_LOG_HELLO:
    hello(g, r, msg, len);
    break;
  case ITG__MPI_LOG_DATA:
    data(g, r, &h, msg, len);
    break;
  case ITG__MPI_LOG_END:
    end(g, r, &h);
    break;
  case ITG__MPI_LOG_ALIVE:
    alive(g, r, &h);
    break;
  default:
    g->st.bad++;
  }
}

/* A message came from rank r: it is heard of, and waited for again if it
 * had been given up. */
static void heard(gatherer *g, itg_mpi_gather_rank *r) {
  g->heard[r->rank] = (int64_t)uv_hrtime();
  r->last_ns = itg__real_ns();
  if (r->silent) {
    r->silent = 0;
    g->st.silent--;
  }
}

/* Gives up on the ranks still waited for that have sent nothing for
 * timeout_ns by now, unless a message of theirs is waiting to be received
 * (the gatherer was slower than they). Returns when to look again: the
 * earliest deadline of those left. */
static int64_t give_up(gatherer *g, MPI_Comm comm, int64_t now,
                       int64_t timeout_ns) {
  int64_t next = now + timeout_ns;
  for (int i = 0; i < g->st.ranks; i++) {
    itg_mpi_gather_rank *r = &g->ranks[i];
    int flag = 0;
    if (i == g->st.root || r->ended || r->silent)
      continue;
    if (now - g->heard[i] >= timeout_ns) {
      if (MPI_Iprobe(i, ITG_MPI_LOG_TAG, comm, &flag, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS &&
          flag)
        g->heard[i] = now;
      else {
        r->silent = 1;
        g->st.silent++;
        continue;
      }
    }
    if (g->heard[i] + timeout_ns < next)
      next = g->heard[i] + timeout_ns;
  }
  return next;
}

/* Receives until every rank but root has ended or been given up. */
static int receive(gatherer *g, MPI_Comm comm, int64_t timeout_ns) {
  uint8_t *buf = malloc(MSG_MAX);
  int64_t now = (int64_t)uv_hrtime(), check = now + timeout_ns;
  int rc = 0;
  if (buf == NULL)
    return ITG_ENOMEM;
  for (int i = 0; i < g->st.ranks; i++)
    g->heard[i] = now;
  while (g->st.ended + g->st.silent < g->st.ranks - 1) {
    MPI_Status st;
    int flag = 0, len = 0;
    uint8_t *msg = buf;
    if (MPI_Iprobe(MPI_ANY_SOURCE, ITG_MPI_LOG_TAG, comm, &flag, &st) !=
        MPI_SUCCESS) {
      rc = ITG_EIO;
      break;
    }
    now = (int64_t)uv_hrtime();
    if (now >= check) {
      check = give_up(g, comm, now, timeout_ns);
      continue;
    }
    if (!flag) {
      itg__sleep_until(now + POLL_NS);
      continue;
    }
    if (MPI_Get_count(&st, MPI_BYTE, &len) != MPI_SUCCESS || len < 0) {
      rc = ITG_EIO;
      break;
    }
    /* A message larger than any sink sends is received whole, to take it
     * off the queue, and counted as bad. */
    if ((size_t)len > MSG_MAX && (msg = malloc((size_t)len)) == NULL) {
      rc = ITG_ENOMEM;
      break;
    }
    if (MPI_Recv(msg, len, MPI_BYTE, st.MPI_SOURCE, ITG_MPI_LOG_TAG, comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      rc = ITG_EIO;
    else if (st.MPI_SOURCE == g->st.root)
      g->st.bad++;
    else {
      heard(g, &g->ranks[st.MPI_SOURCE]);
      if ((size_t)len > MSG_MAX)
        g->st.bad++;
      else
        take(g, st.MPI_SOURCE, msg, (size_t)len);
    }
    if (msg != buf)
      free(msg);
    if (rc != 0)
      break;
  }
  free(buf);
  return rc;
}

int itg_mpi_gather_size(MPI_Comm comm, int root, const char *dir,
                        int64_t timeout_ns, itg_mpi_gather_stats *out,
                        size_t size) {
  gatherer g;
  int rc, rank = 0;

  memset(&g, 0, sizeof g);
  if (dir == NULL || out == NULL || timeout_ns < ITG_MPI_GATHER_TIMEOUT_MIN_NS ||
      !itg__struct_size_ok(size, sizeof g.st) ||
      size < offsetof(itg_mpi_gather_stats, rank) + sizeof g.st.rank)
    return ITG_EINVAL;
  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  if (MPI_Comm_size(comm, &g.st.ranks) != MPI_SUCCESS ||
      MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return ITG_EIO;
  if (root != rank)
    return ITG_EINVAL;
  g.st.struct_size = sizeof g.st;
  g.st.root = root;
  g.dir = dir[0] == '\0' ? "." : dir;
  g.ranks = calloc((size_t)g.st.ranks, sizeof *g.ranks);
  g.w = calloc((size_t)g.st.ranks, sizeof *g.w);
  g.next_seq = calloc((size_t)g.st.ranks, sizeof *g.next_seq);
  g.heard = calloc((size_t)g.st.ranks, sizeof *g.heard);
  g.recs = malloc(ITG__MPI_LOG_RECS * sizeof *g.recs);
  rc = ITG_ENOMEM;
  if (g.ranks == NULL || g.w == NULL || g.next_seq == NULL ||
      g.heard == NULL || g.recs == NULL)
    goto out_free;
  for (int i = 0; i < g.st.ranks; i++)
    g.ranks[i].rank = i;

  rc = receive(&g, comm, timeout_ns);
  for (int i = 0; i < g.st.ranks; i++) {
    itg_mpi_gather_rank *r = &g.ranks[i];
    if (g.w[i] != NULL) {
      int rc_close = itg_logwriter_close(g.w[i]);
      if (rc_close != 0 && g.error == 0)
        g.error = rc_close;
    }
    g.st.records += r->records;
    g.st.messages += r->messages;
    g.st.gaps += r->gaps;
    g.st.spilled += r->spilled;
  }
  if (rc == 0)
    rc = g.error;
  if (rc == 0 && g.st.ended < g.st.ranks - 1)
    rc = ITG_ETIMEDOUT;
  g.st.rank = g.ranks;
  g.ranks = NULL;
  itg__struct_out(out, size, &g.st, sizeof g.st);
out_free:
  free(g.ranks);
  free(g.w);
  free(g.next_seq);
  free(g.heard);
  free(g.recs);
  return rc;
}

void itg_mpi_gather_stats_free(itg_mpi_gather_stats *stats) {
  if (stats == NULL || stats->struct_size < offsetof(itg_mpi_gather_stats,
                                                     rank) + sizeof stats->rank)
    return;
  free(stats->rank);
  stats->rank = NULL;
}
