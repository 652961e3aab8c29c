/* The logger: one SPSC ring per producer lane, drained in batches by one
 * writer thread into a log file or to a log server (core/logship.c; see
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
#include "core/logfile.h"
#include "core/logship.h"
#include "core/ring.h"
#include "itg/flow.h"

struct itg_logger {
  itg_logwriter *w; /* file sink, or */
  itg__ship *ship;  /* remote sink */
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
  _Atomic int connected;
  _Atomic uint64_t lost;
  uint64_t taken; /* file sink: records given to the writer (writer thread) */
  itg_log_error_cb on_error;
  void *error_user;
  char path[ITG_PATH_MAX]; /* file sink: the file made */
  char spill_path[512];
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

/* Publishes the remote sink's counters for itg_logger_get_stats. */
static void ship_counters(itg_logger *l, const itg__ship_stats *st) {
  atomic_store_explicit(&l->spilled, st->spilled, memory_order_relaxed);
  atomic_store_explicit(&l->lost, st->lost, memory_order_relaxed);
  atomic_store_explicit(&l->reconnects, st->reconnects, memory_order_relaxed);
  atomic_store_explicit(&l->missing, st->missing, memory_order_relaxed);
  atomic_store_explicit(&l->connected, st->connected, memory_order_relaxed);
}

static void take_ship_counters(itg_logger *l) {
  itg__ship_stats st;
  itg__ship_get_stats(l->ship, &st);
  ship_counters(l, &st);
}

/* Keeps the first sink error (later ones are consequences of it) and
 * tells of it. A failed file writer holds nothing more: what it was given
 * and did not write is lost, and so is all that follows. */
static void note_error(itg_logger *l, int rc) {
  itg_log_error e;
  int none = 0;
  if (l->w != NULL)
    atomic_store_explicit(&l->lost, l->taken - itg_logwriter_written(l->w),
                          memory_order_relaxed);
  if (!atomic_compare_exchange_strong(&l->error, &none, rc) ||
      l->on_error == NULL)
    return;
  e.path = l->ship != NULL ? l->spill_path : l->path;
  e.error = rc;
  e.lost = atomic_load_explicit(&l->lost, memory_order_relaxed);
  l->on_error(&e, l->error_user);
}

static void sink_write(itg_logger *l, size_t n) {
  int rc;
  if (l->ship != NULL) {
    rc = itg__ship_write(l->ship, l->scratch, n);
    take_ship_counters(l);
  } else {
    l->taken += n;
    rc = itg_logwriter_write(l->w, l->scratch, n);
  }
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
    if (timed_out || stop || l->ship != NULL) {
      int rc = l->ship != NULL ? itg__ship_flush(l->ship)
                               : itg_logwriter_flush(l->w);
      if (l->ship != NULL)
        take_ship_counters(l);
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

/* Opens the file, or the session with the log server. */
static int open_sink(itg_logger *l, const itg_logger_cfg *cfg,
                     const itg_log_hdr *hdr) {
  itg__ship_cfg sc;
  int rc;
  if (!remote(cfg) && cfg->create_new)
    return itg__logwriter_create(cfg->path, hdr, l->path, sizeof l->path,
                                 &l->w);
  if (!remote(cfg)) {
    snprintf(l->path, sizeof l->path, "%s", cfg->path);
    return itg_logwriter_open(cfg->path, hdr, &l->w);
  }
  memset(&sc, 0, sizeof sc);
  sc.host = cfg->server_host;
  sc.port = cfg->server_port;
  sc.transport = cfg->transport;
  sc.token = cfg->token;
  sc.name = cfg->path != NULL && cfg->path[0] != '\0' ? cfg->path : NULL;
  sc.spill_path = cfg->spill_path;
  sc.flows = cfg->flow_ids;
  sc.nflows = cfg->n_flow_ids;
  sc.batch = cfg->batch;
  sc.hdr = *hdr;
  sc.hurry = lanes_pressed;
  sc.hurry_arg = l;
  rc = itg__ship_open(&sc, &l->ship);
  if (rc == 0) {
    snprintf(l->spill_path, sizeof l->spill_path, "%s",
             itg__ship_spill_path(l->ship));
    take_ship_counters(l);
  }
  return rc;
}

int itg_logger_new(const itg_logger_cfg *caller, itg_logger **out) {
  itg_logger_cfg copy;
  const itg_logger_cfg *cfg = &copy;
  itg_logger *l;
  itg_log_hdr hdr;
  uint32_t i, cap;
  int rc;
  if (caller == NULL || out == NULL ||
      ITG__CFG_IN(&copy, caller, itg_logger_cfg, NULL, 0) != 0 || !cfg_ok(cfg))
    return ITG_EINVAL;
  l = calloc(1, sizeof *l);
  if (l == NULL)
    return ITG_ENOMEM;
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
  rc = open_sink(l, cfg, &hdr);
  if (rc != 0)
    goto out_destroy_room;
  rc = ITG_ETHREAD;
  if (uv_thread_create(&l->thread, writer_main, l) != 0)
    goto out_close_writer;
  *out = l;
  return 0;

out_close_writer:
  itg__ship_close(l->ship, NULL);
  itg_logwriter_close(l->w);
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
  out->connected = atomic_load_explicit(&l->connected, memory_order_relaxed);
  out->lost = atomic_load_explicit(&l->lost, memory_order_relaxed);
  return itg__struct_out(dst, size, out, sizeof *out);
}

int itg_logger_spill_path(const itg_logger *l, char *buf, size_t len) {
  if (l == NULL || buf == NULL || l->ship == NULL)
    return ITG_EINVAL;
  if (len > 0)
    snprintf(buf, len, "%s", l->spill_path);
  return 0;
}

int itg_logger_path(const itg_logger *l, char *buf, size_t len) {
  if (l == NULL || buf == NULL || l->w == NULL)
    return ITG_EINVAL;
  if (len > 0)
    snprintf(buf, len, "%s", l->path);
  return 0;
}

int itg_logger_close(itg_logger *l) {
  return itg_logger_close_stats_size(l, NULL, 0);
}

int itg_logger_close_stats_size(itg_logger *l, itg_logger_stats *final,
                                size_t size) {
  int rc, rc_close;
  uint32_t i;
  if (l == NULL)
    return 0;
  uv_mutex_lock(&l->mu);
  l->stopping = 1;
  uv_cond_signal(&l->work);
  uv_mutex_unlock(&l->mu);
  uv_thread_join(&l->thread);
  if (l->ship != NULL) {
    itg__ship_stats st;
    rc_close = itg__ship_close(l->ship, &st);
    ship_counters(l, &st);
  } else {
    /* Flushed first, so that what it wrote is counted before it goes. */
    rc_close = itg_logwriter_flush(l->w);
    if (rc_close != 0)
      note_error(l, rc_close);
    rc = itg_logwriter_close(l->w);
    if (rc_close == 0)
      rc_close = rc;
    l->w = NULL;
  }
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
