/* The logger: one SPSC ring per producer lane, drained in batches by one
 * writer thread into a sink: a log file or a log server (log/sink.h; see
 * itg/log.h).
 *
 * The hot path is a ring push. A producer touches the mutex only when its
 * lane has just reached the wake-up level (a quarter full, or one batch if
 * that is more) or is full; the writer sleeps on `work` until then, or
 * until flush_ms has passed. Waking the writer once per batch would cost
 * the packet path a system call and, more often than not, an interrupt to
 * another CPU every D packets; a quarter of the ring leaves three quarters
 * as room while the writer catches up. A
 * producer that finds its lane full sleeps on `room`, which the writer
 * broadcasts after each pass that freed slots while someone waits. A
 * remote sink waits for its server only while every lane is less than
 * three quarters full (lanes_pressed): past that it spills, so a producer
 * waits for the local disk at most, never for a log server. */
#include "itg/log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "core/growable.h"
#include "core/ring.h"
#include "log/logger.h"

struct itg_logger {
  const itg__log_sink_ops *sink;
  void *sink_state;
  itg__ring **ring;
  uint32_t lanes;
  uint32_t batch;
  uint32_t wake_at; /* lane fill that wakes the writer */
  uint64_t flush_ns;
  itg_logrec *scratch; /* one batch; the writer thread's own */
  uv_thread_t thread;
  uv_mutex_t mu;
  uv_cond_t work; /* the writer waits here */
  uv_cond_t room; /* producers of full lanes wait here */
  int kick;       /* under mu: a lane wants draining */
  int stopping;   /* under mu */
  uint32_t waiting; /* under mu: producers waiting for room */
  _Atomic uint64_t records;
  _Atomic uint64_t batches;
  _Atomic uint64_t full_waits;
  _Atomic int error;
  _Atomic uint64_t spilled;
  _Atomic uint64_t reconnects;
  _Atomic uint64_t missing;
  _Atomic uint64_t unconfirmed;
  _Atomic int connected;
  _Atomic uint64_t lost;
  itg_log_error_cb on_error;
  void *error_user;
  char path[512]; /* the sink's local file, named after it closed too */
};

int itg_logger_cfg_init_size(itg_logger_cfg *out, size_t size) {
  itg_logger_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  cfg->role = ITG_LOG_ROLE_SENDER;
  cfg->clock = ITG_LOG_CLOCK_REALTIME;
  cfg->batch = 64;
  cfg->capacity = 65536;
  cfg->lanes = 1;
  cfg->flush_ms = 200;
  cfg->server_port = ITG_DEFAULT_LOG_PORT;
  cfg->transport = ITG_LOG_TCP;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

/* Publishes the sink's counters for itg_logger_get_stats. */
static void sink_counters(itg_logger *l, const itg__log_sink_stats *st) {
  atomic_store_explicit(&l->spilled, st->spilled, memory_order_relaxed);
  atomic_store_explicit(&l->lost, st->lost, memory_order_relaxed);
  atomic_store_explicit(&l->reconnects, st->reconnects, memory_order_relaxed);
  atomic_store_explicit(&l->missing, st->missing, memory_order_relaxed);
  atomic_store_explicit(&l->unconfirmed, st->unconfirmed,
                        memory_order_relaxed);
  atomic_store_explicit(&l->connected, st->connected, memory_order_relaxed);
}

static void take_sink_counters(itg_logger *l) {
  itg__log_sink_stats st;
  l->sink->stats(l->sink_state, &st);
  sink_counters(l, &st);
}

/* Keeps the first sink error (later ones are consequences of it) and
 * tells of it, with the records lost as the sink counted them. */
static void note_error(itg_logger *l, int rc) {
  itg_log_error e;
  int none = 0;
  if (!atomic_compare_exchange_strong(&l->error, &none, rc) ||
      l->on_error == NULL)
    return;
  e.path = l->path;
  e.error = rc;
  e.lost = atomic_load_explicit(&l->lost, memory_order_relaxed);
  l->on_error(&e, l->error_user);
}

static void sink_write(itg_logger *l, size_t n) {
  int rc = l->sink->write(l->sink_state, l->scratch, n);
  take_sink_counters(l);
  if (rc != 0) {
    note_error(l, rc);
    return;
  }
  atomic_fetch_add_explicit(&l->records, n, memory_order_relaxed);
  atomic_fetch_add_explicit(&l->batches, 1, memory_order_relaxed);
}

/* Takes a batch from each lane in turn, round after round, while some lane
 * still gave a full batch (all != 0: while any lane gave anything). A lane
 * left with less than a batch is taken later, when its producer wakes the
 * writer again or flush_ms passes. */
static void drain(itg_logger *l, int all) {
  int again = 1;
  uint32_t i;
  while (again) {
    int took = 0;
    again = 0;
    for (i = 0; i < l->lanes; i++) {
      size_t n = itg__ring_pop(l->ring[i], l->scratch, l->batch);
      if (n == 0)
        continue;
      sink_write(l, n);
      took = 1;
      if (all || n == l->batch)
        again = 1;
    }
    if (took) {
      uv_mutex_lock(&l->mu);
      if (l->waiting > 0)
        uv_cond_broadcast(&l->room);
      uv_mutex_unlock(&l->mu);
    }
  }
}

static void writer_main(void *arg) {
  itg_logger *l = arg;
  int stop = 0;
  while (!stop) {
    int timed_out = 0;
    uint64_t deadline = uv_hrtime() + l->flush_ns;
    uv_mutex_lock(&l->mu);
    while (!l->kick && !l->stopping) {
      uint64_t now = uv_hrtime();
      if (now >= deadline) {
        timed_out = 1;
        break;
      }
      uv_cond_timedwait(&l->work, &l->mu, deadline - now);
    }
    l->kick = 0;
    stop = l->stopping;
    uv_mutex_unlock(&l->mu);
    drain(l, timed_out || stop);
    /* A remote sink gathers small batches; they leave after each pass. A
     * file is handed to the operating system only on the timer. */
    if (timed_out || stop || l->sink->flush_each_pass) {
      int rc = l->sink->flush(l->sink_state);
      take_sink_counters(l);
      if (rc != 0)
        note_error(l, rc);
    }
  }
}

/* Fills the file header: role and clock from cfg, this host, now. */
static void make_header(const itg_logger_cfg *cfg, itg_log_hdr *hdr) {
  char name[UV_MAXHOSTNAMESIZE];
  size_t size = sizeof name;
  uv_timeval64_t tv;
  memset(hdr, 0, sizeof *hdr);
  hdr->version = ITG_LOG_VERSION;
  hdr->role = (uint32_t)cfg->role;
  hdr->clock = (uint32_t)cfg->clock;
  if (uv_gettimeofday(&tv) == 0)
    hdr->created_ns = tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
  if (uv_os_gethostname(name, &size) == 0) {
    size_t n = strlen(name);
    memcpy(hdr->host, name, n < sizeof hdr->host ? n : sizeof hdr->host - 1);
  }
}

static int remote(const itg_logger_cfg *cfg) {
  return cfg->server_host != NULL && cfg->server_host[0] != '\0';
}

static int cfg_ok(const itg_logger_cfg *cfg) {
  return (cfg->path != NULL || remote(cfg)) && cfg->batch >= 1 &&
         (cfg->server_kind == ITG_LOG_SERVER_LIBITG ||
          (cfg->server_kind == ITG_LOG_SERVER_DITG && cfg->path != NULL &&
           cfg->path[0] != '\0')) &&
         cfg->capacity >= 1 &&
         (cfg->transport == ITG_LOG_TCP || cfg->transport == ITG_LOG_UDP) &&
         cfg->capacity <= ITG__RING_MAX_CAPACITY && cfg->lanes >= 1 &&
         cfg->flush_ms >= 1;
}

/* Whether some lane is three quarters full: the remote sink stops waiting
 * for its server. The quarter left is what a producer fills while the
 * sink notices (it looks every millisecond). Called by the writer thread,
 * the lanes' consumer. */
static int lanes_pressed(void *arg) {
  itg_logger *l = arg;
  uint32_t cap = itg__ring_capacity(l->ring[0]), i;
  for (i = 0; i < l->lanes; i++)
    if (itg__ring_held(l->ring[i]) >= cap - cap / 4)
      return 1;
  return 0;
}

int itg_logger_new(const itg_logger_cfg *caller, itg_logger **out) {
  itg_logger_cfg cfg;

  if (caller == NULL || ITG__CFG_IN(&cfg, caller, itg_logger_cfg, NULL, 0) != 0)
    return ITG_EINVAL;
  return itg__logger_new_sink(&cfg,
                              !remote(&cfg) ? &itg__log_sink_file
                              : cfg.server_kind == ITG_LOG_SERVER_DITG
                                  ? &itg__log_sink_ditg
                                  : &itg__log_sink_remote,
                              NULL, out);
}

int itg__logger_new_sink(const itg_logger_cfg *cfg,
                         const itg__log_sink_ops *sink, void *sink_arg,
                         itg_logger **out) {
  itg_logger *l;
  itg_log_hdr hdr;
  uint32_t i, cap;
  int rc;
  if (cfg == NULL || sink == NULL || out == NULL || !cfg_ok(cfg))
    return ITG_EINVAL;
  l = calloc(1, sizeof *l);
  if (l == NULL)
    return ITG_ENOMEM;
  l->sink = sink;
  l->lanes = cfg->lanes;
  l->batch = cfg->batch;
  l->flush_ns = (uint64_t)cfg->flush_ms * 1000000u;
  l->on_error = cfg->on_error;
  l->error_user = cfg->error_user;
  atomic_init(&l->records, 0);
  atomic_init(&l->batches, 0);
  atomic_init(&l->full_waits, 0);
  atomic_init(&l->error, 0);
  atomic_init(&l->spilled, 0);
  atomic_init(&l->reconnects, 0);
  atomic_init(&l->missing, 0);
  atomic_init(&l->unconfirmed, 0);
  atomic_init(&l->connected, 0);
  atomic_init(&l->lost, 0);
  rc = ITG_ENOMEM;
  l->ring = calloc(cfg->lanes, sizeof *l->ring);
  if (l->ring == NULL)
    goto out_free_logger;
  for (i = 0; i < cfg->lanes; i++) {
    rc = itg__ring_new(cfg->capacity, &l->ring[i]);
    if (rc != 0)
      goto out_free_rings;
  }
  cap = itg__ring_capacity(l->ring[0]);
  l->wake_at = cfg->batch > cap / 4 ? cfg->batch : cap / 4;
  if (l->wake_at > cap)
    l->wake_at = cap;
  rc = ITG_ENOMEM;
  l->scratch = malloc((size_t)cfg->batch * sizeof *l->scratch);
  if (l->scratch == NULL)
    goto out_free_rings;
  rc = ITG_ETHREAD;
  if (uv_mutex_init(&l->mu) != 0)
    goto out_free_scratch;
  if (uv_cond_init(&l->work) != 0)
    goto out_destroy_mutex;
  if (uv_cond_init(&l->room) != 0)
    goto out_destroy_work;
  make_header(cfg, &hdr);
  rc = sink->open(cfg, sink_arg, &hdr, lanes_pressed, l, &l->sink_state);
  if (rc != 0)
    goto out_destroy_room;
  snprintf(l->path, sizeof l->path, "%s", sink->path(l->sink_state));
  take_sink_counters(l);
  rc = ITG_ETHREAD;
  if (uv_thread_create(&l->thread, writer_main, l) != 0)
    goto out_close_sink;
  *out = l;
  return 0;

out_close_sink:
  {
    itg__log_sink_stats st;
    sink->close(l->sink_state, &st);
  }
out_destroy_room:
  uv_cond_destroy(&l->room);
out_destroy_work:
  uv_cond_destroy(&l->work);
out_destroy_mutex:
  uv_mutex_destroy(&l->mu);
out_free_scratch:
  free(l->scratch);
out_free_rings:
  for (i = 0; i < cfg->lanes; i++)
    itg__ring_free(l->ring[i]);
  free(l->ring);
out_free_logger:
  free(l);
  return rc;
}

/* Wakes the writer; the caller holds the mutex. */
static void kick_writer(itg_logger *l) {
  l->kick = 1;
  uv_cond_signal(&l->work);
}

int itg_logger_push(itg_logger *l, uint32_t lane, const itg_logrec *rec) {
  itg__ring *ring;
  uint32_t fill;
  if (l == NULL || rec == NULL || lane >= l->lanes)
    return ITG_EINVAL;
  ring = l->ring[lane];
  fill = itg__ring_push(ring, rec);
  if (fill == 0) {
    atomic_fetch_add_explicit(&l->full_waits, 1, memory_order_relaxed);
    uv_mutex_lock(&l->mu);
    l->waiting++;
    while (itg__ring_push(ring, rec) == 0) {
      kick_writer(l);
      uv_cond_wait(&l->room, &l->mu);
    }
    l->waiting--;
    uv_mutex_unlock(&l->mu);
  } else if (fill == l->wake_at) {
    uv_mutex_lock(&l->mu);
    kick_writer(l);
    uv_mutex_unlock(&l->mu);
  }
  return 0;
}

int itg_logger_get_stats_size(itg_logger *l, itg_logger_stats *dst,
                              size_t size) {
  itg_logger_stats full, *out = &full;

  if (l == NULL)
    return ITG_EINVAL;
  memset(out, 0, sizeof *out);
  out->records = atomic_load_explicit(&l->records, memory_order_relaxed);
  out->batches = atomic_load_explicit(&l->batches, memory_order_relaxed);
  out->full_waits = atomic_load_explicit(&l->full_waits, memory_order_relaxed);
  out->error = atomic_load(&l->error);
  out->spilled = atomic_load_explicit(&l->spilled, memory_order_relaxed);
  out->reconnects = atomic_load_explicit(&l->reconnects, memory_order_relaxed);
  out->missing = atomic_load_explicit(&l->missing, memory_order_relaxed);
  out->unconfirmed =
      atomic_load_explicit(&l->unconfirmed, memory_order_relaxed);
  out->connected = atomic_load_explicit(&l->connected, memory_order_relaxed);
  out->lost = atomic_load_explicit(&l->lost, memory_order_relaxed);
  return itg__struct_out(dst, size, out, sizeof *out);
}

/* Copies the sink's local file into buf if it is a spill file (spill
 * set) or the log (spill 0). */
static int sink_path(const itg_logger *l, int spill, char *buf, size_t len) {
  if (l == NULL || buf == NULL || l->sink->spills != spill)
    return ITG_EINVAL;
  if (len > 0)
    snprintf(buf, len, "%s", l->path);
  return 0;
}

uint32_t itg_logger_lanes(const itg_logger *l) {
  return l == NULL ? 0 : l->lanes;
}

int itg_logger_spill_path(const itg_logger *l, char *buf, size_t len) {
  return sink_path(l, 1, buf, len);
}

int itg_logger_path(const itg_logger *l, char *buf, size_t len) {
  return sink_path(l, 0, buf, len);
}

int itg_logger_close(itg_logger *l) {
  return itg_logger_close_stats_size(l, NULL, 0);
}

int itg_logger_close_stats_size(itg_logger *l, itg_logger_stats *final,
                                size_t size) {
  itg__log_sink_stats st;
  int rc, rc_close;
  uint32_t i;
  if (l == NULL)
    return 0;
  uv_mutex_lock(&l->mu);
  l->stopping = 1;
  uv_cond_signal(&l->work);
  uv_mutex_unlock(&l->mu);
  uv_thread_join(&l->thread);
  rc_close = l->sink->close(l->sink_state, &st);
  sink_counters(l, &st);
  if (rc_close != 0)
    note_error(l, rc_close);
  rc = atomic_load(&l->error);
  if (rc == 0)
    rc = rc_close;
  if (final != NULL && itg_logger_get_stats_size(l, final, size) != 0 &&
      rc == 0)
    rc = ITG_EINVAL;
  uv_cond_destroy(&l->room);
  uv_cond_destroy(&l->work);
  uv_mutex_destroy(&l->mu);
  free(l->scratch);
  for (i = 0; i < l->lanes; i++)
    itg__ring_free(l->ring[i]);
  free(l->ring);
  free(l);
  return rc;
}
