/* The MPI log sink (log/sink.h): the writer thread packs the records into
 * one of two buffers while the other is on its way to the gathering rank
 * (MPI_Isend), so that logging overlaps generation. When both buffers
 * are still in flight, it waits for one only while the logger's lanes
 * have room (the sink's hurry) and for STALL_NS at most: then the records
 * go to a local spill file (a log file like any other) and are counted as
 * spilled, so the producers never wait for the gatherer, nor does closing
 * wait for one that has stopped taking messages (it gave the rank up). A
 * sink that has sent nothing for a while says it is alive, so that the
 * gatherer tells a rank with nothing to log from one that is gone. The
 * messages are laid out in mpi/logmsg.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "core/growable.h"
#include "itg/flow.h"
#include "itg/mpi.h"
#include "log/logger.h"
#include "mpi/coll.h"
#include "mpi/logmsg.h"
#include "platform/platform.h"

/* How long close waits for the gatherer to take the last messages. */
#define CLOSE_WAIT_NS 10000000000LL
/* The pause between two looks at a message in flight, while closing. */
#define POLL_NS 50000LL
#define ALIVE_NS ((int64_t)ITG__MPI_LOG_ALIVE_MS * 1000000)
/* How long the writer waits for the gatherer to take one of the two
 * messages in flight before the records spill. */
#define STALL_NS 1000000000LL
#define BUF_LEN (ITG__MPI_LOG_HDR_LEN + ITG__MPI_LOG_RECS * ITG_LOG_RECORD_LEN)

/* What itg_mpi_logger_new_size gives the sink's open beyond the logger's
 * configuration. */
typedef struct mpi_sink_args {
  MPI_Comm comm;
  int root;
} mpi_sink_args;

typedef struct mpi_sink {
  MPI_Comm comm;
  int root;
  int (*hurry)(void *arg);
  void *hurry_arg;
  uint8_t *buf[2];
  MPI_Request req[2];
  uint32_t held[2]; /* records in each buffer */
  int cur;          /* the buffer filling, -1 while both are in flight */
  int64_t full_since; /* when both were found in flight (monotonic), 0
                         while one is free */
  uint8_t *alive;   /* the ALIVE message, and at last the END */
  MPI_Request alive_req;
  int64_t sent_ns;  /* when the last message left (monotonic) */
  uint64_t seq;     /* DATA messages sent */
  uint64_t to_spill; /* records given to the spill file */
  uint64_t lost;     /* records MPI did not take */
  int error;
  int spill_err;     /* the spill file's first error: what it held is lost */
  itg_log_hdr hdr;
  itg_logwriter *spill;
  char spill_path[ITG_PATH_MAX];
} mpi_sink;

static int sink_failed(mpi_sink *s, int rc) {
  if (rc != 0 && s->error == 0)
    s->error = rc;
  return rc;
}

static int spill_failed(mpi_sink *s, int rc) {
  if (rc != 0 && s->spill_err == 0)
    s->spill_err = rc;
  return sink_failed(s, rc);
}

/* The records the spill file lost: once it failed, those it did not write
 * (it takes nothing more). */
static uint64_t spill_lost(const mpi_sink *s) {
  return s->spill_err != 0 ? s->to_spill - itg_logwriter_written(s->spill)
                           : 0;
}

/* The records in the spill file, as the messages and the logger's stats
 * tell them. */
static uint64_t spilled(const mpi_sink *s) {
  return s->to_spill - spill_lost(s);
}

/* Takes back the buffers whose message has left; one of them becomes the
 * buffer filling if there was none. */
static int reap(mpi_sink *s) {
  for (int i = 0; i < 2; i++) {
    int done = 0;
    if (s->req[i] == MPI_REQUEST_NULL)
      continue;
    if (MPI_Test(&s->req[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return sink_failed(s, ITG_EIO);
    if (!done)
      continue;
    s->held[i] = 0;
    s->full_since = 0;
    if (s->cur < 0)
      s->cur = i;
  }
  return 0;
}

/* Sends the buffer filling and makes the other one the next to fill, if
 * its message has left. */
static int post(mpi_sink *s) {
  int b = s->cur;
  itg__mpi_log_head h = {.kind = ITG__MPI_LOG_DATA,
                         .count = s->held[b],
                         .seq = s->seq,
                         .spilled = spilled(s)};
  itg__mpi_log_head_put(s->buf[b], &h);
  if (MPI_Isend(s->buf[b],
                (int)(ITG__MPI_LOG_HDR_LEN + s->held[b] * ITG_LOG_RECORD_LEN),
                MPI_BYTE, s->root, ITG_MPI_LOG_TAG, s->comm,
                &s->req[b]) != MPI_SUCCESS) {
    s->lost += s->held[b];
    s->held[b] = 0;
    return sink_failed(s, ITG_EIO);
  }
  s->seq++;
  s->sent_ns = (int64_t)uv_hrtime();
  s->cur = s->req[1 - b] == MPI_REQUEST_NULL ? 1 - b : -1;
  return reap(s);
}

/* Sends an ALIVE when nothing has left for ITG__MPI_LOG_ALIVE_MS. */
static int keep_alive(mpi_sink *s) {
  itg__mpi_log_head h = {
      .kind = ITG__MPI_LOG_ALIVE, .seq = s->seq, .spilled = spilled(s)};
  int64_t now = (int64_t)uv_hrtime();
  int done = 0;
  if (now - s->sent_ns < ALIVE_NS)
    return 0;
  if (MPI_Test(&s->alive_req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return sink_failed(s, ITG_EIO);
  /* The last one has not left: the gatherer has yet to hear the rank lives,
   * and a second would tell it nothing more. */
  if (!done)
    return 0;
  itg__mpi_log_head_put(s->alive, &h);
  if (MPI_Isend(s->alive, (int)ITG__MPI_LOG_HDR_LEN, MPI_BYTE, s->root,
                ITG_MPI_LOG_TAG, s->comm, &s->alive_req) != MPI_SUCCESS)
    return sink_failed(s, ITG_EIO);
  s->sent_ns = now;
  return 0;
}

static int spill_records(mpi_sink *s, const itg_logrec *recs, size_t n) {
  int rc = s->spill_err;
  s->to_spill += n;
  if (rc == 0 && s->spill == NULL)
    rc = itg_logwriter_open(s->spill_path, &s->hdr, &s->spill);
  if (rc == 0)
    rc = itg_logwriter_write(s->spill, recs, n);
  return spill_failed(s, rc);
}

static int mpi_open(const itg_logger_cfg *cfg, void *arg,
                    const itg_log_hdr *hdr, int (*hurry)(void *arg),
                    void *hurry_arg, void **state) {
  const mpi_sink_args *args = arg;
  uint8_t hello[ITG__MPI_LOG_HDR_LEN + ITG_LOG_HEADER_LEN];
  itg__mpi_log_head h = {.kind = ITG__MPI_LOG_HELLO};
  mpi_sink *s;
  int rc = ITG_ENOMEM;
  if (args == NULL)
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  s->buf[0] = malloc(BUF_LEN);
  s->buf[1] = malloc(BUF_LEN);
  s->alive = malloc(ITG__MPI_LOG_HDR_LEN);
  if (s->buf[0] == NULL || s->buf[1] == NULL || s->alive == NULL)
    goto out_free;
  s->comm = args->comm;
  s->root = args->root;
  s->hurry = hurry;
  s->hurry_arg = hurry_arg;
  s->req[0] = s->req[1] = s->alive_req = MPI_REQUEST_NULL;
  s->hdr = *hdr;
  snprintf(s->spill_path, sizeof s->spill_path, "%s", cfg->spill_path);
  itg__mpi_log_head_put(hello, &h);
  itg_log_hdr_encode(hdr, hello + ITG__MPI_LOG_HDR_LEN);
  /* Sent before the writer thread starts, so it comes first. */
  rc = ITG_EIO;
  if (MPI_Send(hello, (int)sizeof hello, MPI_BYTE, s->root, ITG_MPI_LOG_TAG,
               s->comm) != MPI_SUCCESS)
    goto out_free;
  s->sent_ns = (int64_t)uv_hrtime();
  *state = s;
  return 0;

out_free:
  free(s->buf[0]);
  free(s->buf[1]);
  free(s->alive);
  free(s);
  return rc;
}

static int mpi_write(void *state, const itg_logrec *recs, size_t n) {
  mpi_sink *s = state;
  /* Open MPI moves a large message on only inside the sender's MPI calls:
   * a look at the buffers in flight on every write keeps them going. */
  int rc = reap(s);
  if (rc == 0)
    rc = keep_alive(s);
  if (rc != 0)
    return rc;
  for (size_t i = 0; i < n; i++) {
    while (s->cur < 0) {
      int64_t now;
      if ((rc = reap(s)) != 0)
        return rc;
      if (s->cur >= 0)
        break;
      now = (int64_t)uv_hrtime();
      if (s->full_since == 0)
        s->full_since = now;
      if (s->hurry(s->hurry_arg) || now - s->full_since >= STALL_NS)
        return spill_records(s, recs + i, n - i);
      itg__yield();
    }
    itg_logrec_encode(&recs[i], s->buf[s->cur] + ITG__MPI_LOG_HDR_LEN +
                                    s->held[s->cur] * ITG_LOG_RECORD_LEN);
    if (++s->held[s->cur] == ITG__MPI_LOG_RECS && (rc = post(s)) != 0)
      return rc;
  }
  return 0;
}

static int mpi_flush(void *state) {
  mpi_sink *s = state;
  int rc = reap(s);
  if (rc == 0 && s->cur >= 0 && s->held[s->cur] > 0)
    rc = post(s);
  if (rc == 0)
    rc = keep_alive(s);
  if (s->spill != NULL) {
    int rc_spill = spill_failed(s, itg_logwriter_flush(s->spill));
    if (rc == 0)
      rc = rc_spill;
  }
  return sink_failed(s, rc);
}

static void mpi_stats(void *state, itg__log_sink_stats *out) {
  mpi_sink *s = state;
  memset(out, 0, sizeof *out);
  out->spilled = spilled(s);
  out->lost = s->lost + spill_lost(s);
  out->connected = s->error == 0;
}

/* Waits, at most until deadline (monotonic), for the message of req to
 * leave. Returns 1 when it has. */
static int wait_sent(MPI_Request *req, int64_t deadline) {
  for (;;) {
    int done = 0;
    if (*req == MPI_REQUEST_NULL)
      return 1;
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return 0;
    if (done)
      return 1;
    if ((int64_t)uv_hrtime() >= deadline)
      return 0;
    itg__sleep_until((int64_t)uv_hrtime() + POLL_NS);
  }
}

static int mpi_close(void *state, itg__log_sink_stats *final) {
  mpi_sink *s = state;
  itg__mpi_log_head h = {.kind = ITG__MPI_LOG_END};
  int64_t deadline = (int64_t)uv_hrtime() + CLOSE_WAIT_NS;
  int rc = mpi_flush(s), leak = 0;

  for (int i = 0; i < 2; i++) {
    if (wait_sent(&s->req[i], deadline))
      continue;
    /* The gatherer never took it: its buffer stays with MPI (which may
     * still read it), and its records count as lost. */
    s->lost += s->held[i];
    MPI_Request_free(&s->req[i]);
    leak |= 1 << i;
    sink_failed(s, ITG_ETIMEDOUT);
  }
  /* The end marker goes in the keepalive's buffer once that has left; if
   * the gatherer does not take it, it stays with MPI as above (cancelling
   * is no way out: Open MPI does not cancel a send, and the wait for it
   * would not end). The spill file was flushed: the count the marker
   * tells is the logger's final one. */
  h.seq = s->seq;
  h.spilled = spilled(s);
  if (wait_sent(&s->alive_req, deadline)) {
    itg__mpi_log_head_put(s->alive, &h);
    if (MPI_Isend(s->alive, (int)ITG__MPI_LOG_HDR_LEN, MPI_BYTE, s->root,
                  ITG_MPI_LOG_TAG, s->comm, &s->alive_req) != MPI_SUCCESS)
      sink_failed(s, ITG_EIO);
  }
  if (!wait_sent(&s->alive_req, deadline)) {
    MPI_Request_free(&s->alive_req);
    leak |= 4;
    sink_failed(s, ITG_ETIMEDOUT);
  }
  mpi_stats(s, final);
  final->connected = 0;
  sink_failed(s, itg_logwriter_close(s->spill));
  if (rc == 0)
    rc = s->error;
  for (int i = 0; i < 2; i++)
    if (!(leak & (1 << i)))
      free(s->buf[i]);
  if (!(leak & 4))
    free(s->alive);
  free(s);
  return rc;
}

static const char *mpi_path(void *state) {
  return ((mpi_sink *)state)->spill_path;
}

static const itg__log_sink_ops mpi_sink_ops = {
    .open = mpi_open,
    .write = mpi_write,
    .flush = mpi_flush,
    .stats = mpi_stats,
    .close = mpi_close,
    .path = mpi_path,
    .spills = 1,
    .flush_each_pass = 0,
};

int itg_mpi_logger_new(MPI_Comm comm, int root, const itg_logger_cfg *caller,
                       const char *spill_path, itg_logger **out) {
  mpi_sink_args args = {.comm = comm, .root = root};
  itg_logger_cfg cfg;
  int rc, ranks = 0, rank = 0, level = 0;

  if (caller == NULL || out == NULL || spill_path == NULL ||
      spill_path[0] == '\0' || strlen(spill_path) >= ITG_PATH_MAX ||
      ITG__CFG_IN(&cfg, caller, itg_logger_cfg, NULL, 0) != 0)
    return ITG_EINVAL;
  if ((rc = itg__mpi_comm_check(comm)) != 0)
    return rc;
  /* The writer thread calls MPI while the caller's threads may too. */
  if (MPI_Query_thread(&level) != MPI_SUCCESS)
    return ITG_EIO;
  if (level < MPI_THREAD_MULTIPLE)
    return ITG_ESTATE;
  if (MPI_Comm_size(comm, &ranks) != MPI_SUCCESS ||
      MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return ITG_EIO;
  if (root < 0 || root >= ranks || root == rank)
    return ITG_EINVAL;
  /* The file header's fields come from cfg; no file is made by that name. */
  cfg.path = spill_path;
  cfg.server_host = NULL;
  cfg.spill_path = spill_path;
  cfg.create_new = 0;
  /* The writer looks for a keepalive to send only when it wakes. */
  if (cfg.flush_ms > ITG__MPI_LOG_ALIVE_MS / 4)
    cfg.flush_ms = ITG__MPI_LOG_ALIVE_MS / 4;
  return itg__logger_new_sink(&cfg, &mpi_sink_ops, &args, out);
}
