/* The sender's public face: configuration, flows, starting the threads,
 * waiting, stopping and results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errbuf.h"
#include "core/growable.h"
#include "core/payload.h"
#include "core/spread.h"
#include "engine/sender_ctl.h"
#include "engine/sender_send.h"
#include "engine/sender_setup.h"

int itg_sender_cfg_init_size(itg_sender_cfg *out, size_t size) {
  itg_sender_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  cfg->wait = ITG_WAIT_HYBRID;
  cfg->log_batch = 64;
  cfg->log_server_port = ITG_DEFAULT_LOG_PORT;
  cfg->log_transport = ITG_LOG_TCP;
  cfg->connect_timeout_ns = 5000000000LL;
  cfg->cpu = -1;
  cfg->start = ITG_START_SPREAD;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

int itg_sender_new(const itg_sender_cfg *caller, itg_sender **out) {
  itg_sender_cfg copy;
  const itg_sender_cfg *cfg = &copy;
  itg_sender *s;
  if (caller == NULL || out == NULL ||
      ITG__CFG_IN(&copy, caller, itg_sender_cfg, NULL, 0) != 0 ||
      cfg->wait < ITG_WAIT_HYBRID ||
      cfg->wait > ITG_WAIT_SPIN || cfg->log_batch == 0 ||
      cfg->connect_timeout_ns <= 0 || cfg->cpu < -1 ||
      strnlen(cfg->log_path, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->log_server, ITG_HOST_MAX) == ITG_HOST_MAX ||
      (cfg->hold != 0 && cfg->hold != 1) ||
      (cfg->start != ITG_START_SPREAD && cfg->start != ITG_START_TOGETHER) ||
      (cfg->log_server_kind != ITG_LOG_SERVER_LIBITG &&
       cfg->log_server_kind != ITG_LOG_SERVER_DITG) ||
      (cfg->log_server_kind == ITG_LOG_SERVER_DITG &&
       cfg->log_server[0] != '\0' && cfg->log_path[0] == '\0') ||
      (cfg->logger != NULL &&
       (cfg->logger_lane > UINT32_MAX - 2 ||
        itg_logger_lanes(cfg->logger) < cfg->logger_lane + 2)))
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  if (uv_mutex_init(&s->lock) != 0)
    goto out_free_s;
  if (uv_cond_init(&s->done_cond) != 0)
    goto out_destroy_lock;
  if (uv_cond_init(&s->go_cond) != 0)
    goto out_destroy_done;
  s->cfg = *cfg;
  *out = s;
  return 0;

out_destroy_done:
  uv_cond_destroy(&s->done_cond);
out_destroy_lock:
  uv_mutex_destroy(&s->lock);
out_free_s:
  free(s);
  return ITG_ENOMEM;
}

/* D-ITG's SCTP, DCCP and ICMP flows: the system is asked first, so that
 * the reason given is the one that matters here. An ICMP flow, one-way,
 * is taken when the system lets it open its socket (returns 0). */
static int refuse_proto(const itg_flow_cfg *flow, char *err, size_t errlen) {
  itg_proto proto = flow->proto;
  const char *name = itg_proto_name(proto);
  int rc = itg__sock_probe(proto);
  int icmp_ok = proto == ITG_PROTO_ICMP && flow->meter == ITG_METER_OWD;
  if (rc == 0 && icmp_ok)
    return 0;
  if (rc == ITG_ENOTSUP)
    itg__err_set(err, errlen,
                 "-T %s: this system has no %s (the kernel refuses its "
                 "sockets)", name, name);
  else if (rc == ITG_EPERM)
    itg__err_set(err, errlen,
                 "-T %s: a raw socket needs root (or CAP_NET_RAW)", name);
  else if (rc < 0)
    itg__err_set(err, errlen, "-T %s: cannot open a socket: %s", name,
                 itg_strerror(rc));
  else if (proto == ITG_PROTO_ICMP)
    itg__err_set(err, errlen,
                 "-T ICMP: ICMP flows are one-way (-m owdm; ITGSend sends "
                 "no ICMP round trip either)");
  else
    itg__err_set(err, errlen,
                 "-T %s: libitg sends UDP, TCP and ICMP flows only", name);
  return rc < 0 ? rc : ITG_ENOTSUP;
}

int itg_sender_add_flow(itg_sender *s, const itg_flow_cfg *caller, char *err,
                        size_t errlen) {
  itg_flow_cfg copy;
  const itg_flow_cfg *flow = &copy;
  itg__tx_flow *f;
  size_t i;
  int rc;
  errlen = itg__err_begin(err, errlen);
  if (s == NULL || caller == NULL) {
    itg__err_set(err, errlen, "no %s", s == NULL ? "sender" : "flow");
    return ITG_EINVAL;
  }
  rc = ITG__CFG_IN(&copy, caller, itg_flow_cfg, err, errlen);
  if (rc != 0)
    return rc;
  if (s->started) {
    itg__err_set(err, errlen,
                 "flows cannot be added once the sender has started");
    return ITG_ESTATE;
  }
  rc = itg_flow_validate(flow, err, errlen);
  if (rc < 0)
    return rc;
  if (flow->proto != ITG_PROTO_UDP && flow->proto != ITG_PROTO_TCP &&
      (rc = refuse_proto(flow, err, errlen)) != 0)
    return rc;
  for (i = 0; i < s->n; i++)
    if (flow->flow_id != 0 && s->flows[i]->cfg.flow_id == flow->flow_id) {
      itg__err_set(err, errlen, "flow id %u is already used by flow %zu",
                   (unsigned)flow->flow_id, i + 1);
      return ITG_EEXIST;
    }
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    itg__tx_flow **nf = realloc(s->flows, cap * sizeof *nf);
    if (nf == NULL) {
      itg__err_set(err, errlen, "out of memory");
      return ITG_ENOMEM;
    }
    s->flows = nf;
    s->cap = cap;
  }
  f = calloc(1, sizeof *f);
  if (f == NULL) {
    itg__err_set(err, errlen, "out of memory");
    return ITG_ENOMEM;
  }
  /* Read once here: the sending thread lays its bytes from memory. */
  if (flow->payload_file[0] != '\0') {
    rc = itg__payload_read(flow->payload_file, &f->payload, &f->payload_len);
    if (rc != 0) {
      itg__err_set(err, errlen, "-Fp: cannot read payload file '%s': %s",
                   flow->payload_file, itg_strerror(rc));
      free(f);
      return rc;
    }
  }
  f->s = s;
  f->cfg = *flow;
  f->sig = ITG__BAD_SOCK;
  f->data = ITG__BAD_SOCK;
  s->flows[s->n++] = f;
  return 0;
}

static int id_used(const itg_sender *s, uint32_t id) {
  size_t i;
  for (i = 0; i < s->n; i++)
    if (s->flows[i]->id == id)
      return 1;
  return 0;
}

/* Numbers the flows left at id 0 with 1, 2, ..., skipping the ids set by
 * the user. */
static void assign_ids(itg_sender *s) {
  uint32_t next = 1;
  size_t i;
  for (i = 0; i < s->n; i++)
    s->flows[i]->id = s->flows[i]->cfg.flow_id;
  for (i = 0; i < s->n; i++) {
    if (s->flows[i]->id != 0)
      continue;
    while (id_used(s, next))
      next++;
    s->flows[i]->id = next++;
  }
}

/* Opens the sender log (or takes the caller's): a lane for the sending
 * thread, the next for the control thread. */
static int open_log(itg_sender *s) {
  itg_logger_cfg lc;
  if (s->cfg.logger != NULL) {
    s->log = s->cfg.logger;
    s->lane_send = s->cfg.logger_lane;
    s->lane_ctl = s->cfg.logger_lane + 1;
    return 0;
  }
  if (s->cfg.log_path[0] == '\0' && s->cfg.log_server[0] == '\0')
    return 0;
  s->log_own = 1;
  s->lane_send = 0;
  s->lane_ctl = 1;
  itg_logger_cfg_init(&lc);
  lc.path = s->cfg.log_path;
  if (s->cfg.log_server[0] != '\0') {
    lc.server_host = s->cfg.log_server;
    lc.server_port = s->cfg.log_server_port;
    lc.transport = s->cfg.log_transport;
    lc.server_kind = s->cfg.log_server_kind;
  }
  lc.role = ITG_LOG_ROLE_SENDER;
  lc.clock = ITG_LOG_CLOCK_REALTIME;
  lc.batch = s->cfg.log_batch;
  lc.lanes = 2;
  lc.on_error = s->cfg.on_log_error;
  lc.error_user = s->cfg.log_error_user;
  return itg_logger_new(&lc, &s->log);
}

/* Sets the ready flows' spread_ns (itg_sender_cfg.start). Returns 0 or
 * ITG_ENOMEM. */
static int spread_starts(itg_sender *s) {
  int64_t *delay = NULL, *offset = NULL;
  double *period = NULL;
  size_t i, n = 0;
  int rc = ITG_ENOMEM;
  if (s->cfg.start == ITG_START_TOGETHER)
    return 0;
  delay = malloc(s->n * sizeof *delay);
  offset = malloc(s->n * sizeof *offset);
  period = malloc(s->n * sizeof *period);
  if (delay != NULL && offset != NULL && period != NULL) {
    for (i = 0; i < s->n; i++)
      if (s->flows[i]->ready) {
        itg__tx_flow *f = s->flows[i];
        delay[n] = f->cfg.start_delay_ns;
        period[n++] = itg_dist_mean(f->idt) * f->cfg.idt.scale * 1e9;
      }
    rc = itg__spread(delay, period, n, offset);
  }
  for (i = 0, n = 0; rc == 0 && i < s->n; i++)
    if (s->flows[i]->ready)
      s->flows[i]->spread_ns = offset[n++];
  free(delay);
  free(offset);
  free(period);
  return rc;
}

/* The threads could not start: the flows end here with that error. */
static void abandon_ready(itg_sender *s, int err, const char *msg) {
  size_t i;
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    if (!f->ready)
      continue;
    itg__tx_fail(f, err, msg);
    itg__sock_close(f->data);
    itg__sock_close(f->sig);
    f->data = f->sig = ITG__BAD_SOCK;
    f->ready = 0;
    itg__tx_mark_done(f);
  }
}

int itg_sender_start(itg_sender *s) {
  size_t i, ready = 0;
  int rc, first_err = 0;
  if (s == NULL)
    return ITG_EINVAL;
  if (s->started)
    return ITG_ESTATE;
  if (s->n == 0)
    return ITG_EINVAL;
  rc = itg__platform_init();
  if (rc < 0)
    return rc;
  rc = open_log(s);
  if (rc < 0)
    return rc;
  s->started = 1;
  assign_ids(s);
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    if (atomic_load(&s->stop)) {
      itg__tx_fail(f, ITG_ECANCELED, "the sender was stopped");
      rc = ITG_ECANCELED;
    } else {
      rc = itg__tx_setup(f, i);
    }
    if (rc < 0) {
      if (first_err == 0)
        first_err = rc;
      itg__tx_mark_done(f);
    } else {
      ready++;
    }
  }
  if (ready == 0)
    return first_err;
  s->pkt_bufs = calloc(ITG__TX_BATCH, ITG_WIRE_MAX_PACKET);
  if (s->pkt_bufs == NULL || spread_starts(s) != 0) {
    abandon_ready(s, ITG_ENOMEM, "out of memory");
    return ITG_ENOMEM;
  }
  rc = itg__tx_ctl_init(s);
  if (rc < 0) {
    abandon_ready(s, rc, "could not set up the control loop");
    return rc;
  }
  if (uv_thread_create(&s->ctl_thread, itg__tx_ctl_main, s) != 0) {
    itg__tx_ctl_undo(s);
    abandon_ready(s, ITG_ETHREAD, "could not start the control thread");
    return ITG_ETHREAD;
  }
  s->threads = 1;
  s->on_sent_all = itg__tx_ctl_wake;
  if (uv_thread_create(&s->send_thread, itg__tx_send_main, s) != 0) {
    /* The control thread closes the flows as if they had all ended. */
    for (i = 0; i < s->n; i++) {
      itg__tx_flow *f = s->flows[i];
      if (!f->ready)
        continue;
      itg__tx_fail(f, ITG_ETHREAD, "could not start the sending thread");
      atomic_store(&f->sent_all, 1);
    }
    itg__tx_ctl_wake(s);
    return ITG_ETHREAD;
  }
  s->threads = 2;
  return 0;
}

int itg_sender_wait(itg_sender *s, int64_t timeout_ns) {
  uint64_t deadline;
  int rc = 0;
  if (s == NULL)
    return ITG_EINVAL;
  if (!s->started)
    return ITG_ESTATE;
  deadline = uv_hrtime() + (uint64_t)(timeout_ns < 0 ? 0 : timeout_ns);
  uv_mutex_lock(&s->lock);
  while (s->done < s->n) {
    uint64_t now;
    if (timeout_ns < 0) {
      uv_cond_wait(&s->done_cond, &s->lock);
      continue;
    }
    now = uv_hrtime();
    if (now >= deadline ||
        uv_cond_timedwait(&s->done_cond, &s->lock, deadline - now) != 0) {
      if (s->done < s->n)
        rc = ITG_ETIMEDOUT;
      break;
    }
  }
  uv_mutex_unlock(&s->lock);
  if (rc < 0 || s->joined)
    return rc;
  s->joined = 1;
  if (s->threads >= 2)
    uv_thread_join(&s->send_thread);
  if (s->threads >= 1) {
    uv_thread_join(&s->ctl_thread);
    uv_loop_close(&s->loop);
  }
  if (s->log_own) {
    if (itg_logger_spill_path(s->log, s->log_spill, sizeof s->log_spill) != 0)
      s->log_spill[0] = '\0';
    rc = itg_logger_close_stats(s->log, &s->log_final);
    s->log = NULL;
    s->log_closed = 1;
  }
  return rc;
}

int itg_sender_release(itg_sender *s, int64_t at_mono_ns) {
  int rc = 0;
  if (s == NULL)
    return ITG_EINVAL;
  uv_mutex_lock(&s->lock);
  if (!s->started || !s->cfg.hold || s->released) {
    rc = ITG_ESTATE;
  } else {
    s->released = 1;
    s->release_ns = at_mono_ns;
    uv_cond_signal(&s->go_cond);
  }
  uv_mutex_unlock(&s->lock);
  return rc;
}

int itg_sender_stop(itg_sender *s) {
  if (s == NULL)
    return ITG_EINVAL;
  atomic_store(&s->stop, 1);
  uv_mutex_lock(&s->lock);
  uv_cond_signal(&s->go_cond);
  uv_mutex_unlock(&s->lock);
  itg__tx_ctl_wake(s);
  return 0;
}

int itg_sender_run(itg_sender *s) {
  size_t i;
  int rc = itg_sender_start(s);
  if (rc < 0 && (s == NULL || !s->started))
    return rc;
  rc = itg_sender_wait(s, -1);
  if (rc < 0)
    return rc;
  for (i = 0; i < s->n; i++)
    if (s->flows[i]->status != 0)
      return s->flows[i]->status;
  return 0;
}

size_t itg_sender_flow_count(const itg_sender *s) {
  return s != NULL ? s->n : 0;
}

static int64_t load_i64(_Atomic int64_t *v) {
  return atomic_load_explicit(v, memory_order_relaxed);
}

static uint64_t load_u64(_Atomic uint64_t *v) {
  return atomic_load_explicit(v, memory_order_relaxed);
}

int itg_sender_flow_result_size(const itg_sender *s, size_t i,
                                itg_flow_result *dst, size_t size) {
  itg_flow_result full, *out = &full;
  itg__tx_flow *f;
  if (s == NULL || dst == NULL || i >= s->n)
    return ITG_EINVAL;
  f = s->flows[i];
  memset(out, 0, sizeof *out);
  out->flow_id = f->id != 0 ? f->id : f->cfg.flow_id;
  out->seed = f->seed;
  memcpy(out->receiver_note, f->receiver_note, sizeof out->receiver_note);
  out->packets = load_u64(&f->ctr.packets);
  out->bytes = load_u64(&f->ctr.bytes);
  out->send_errors = load_u64(&f->ctr.send_errors);
  out->echoes = load_u64(&f->ctr.echoes);
  out->first_tx_ns = load_i64(&f->ctr.first_tx);
  out->last_tx_ns = load_i64(&f->ctr.last_tx);
  out->late = load_u64(&f->ctr.late);
  out->late_max_ns = load_i64(&f->ctr.late_max);
  out->late_sum_ns = load_i64(&f->ctr.late_sum);
  out->data_port = f->data_port;
  out->skipped = load_u64(&f->ctr.skipped);
  out->shifted = load_u64(&f->ctr.shifted);
  uv_mutex_lock((uv_mutex_t *)&s->lock);
  out->status = f->status;
  memcpy(out->error, f->error, sizeof out->error);
  out->received = f->received;
  out->ended = f->done;
  uv_mutex_unlock((uv_mutex_t *)&s->lock);
  return itg__struct_out(dst, size, out, sizeof *out);
}

int itg_sender_log_stats_size(const itg_sender *s, itg_logger_stats *out,
                              size_t size, char *spill, size_t len) {
  if (s == NULL || out == NULL || s->cfg.logger != NULL ||
      (s->cfg.log_path[0] == '\0' && s->cfg.log_server[0] == '\0'))
    return ITG_EINVAL;
  if (!s->log_closed)
    return ITG_ESTATE;
  if (itg__struct_out(out, size, &s->log_final, sizeof s->log_final) != 0)
    return ITG_EINVAL;
  if (spill != NULL && len > 0)
    snprintf(spill, len, "%s", s->log_spill);
  return 0;
}

void itg_sender_free(itg_sender *s) {
  size_t i;
  if (s == NULL)
    return;
  if (s->started) {
    itg_sender_stop(s);
    itg_sender_wait(s, -1);
  }
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    itg_dist_free(f->idt);
    free(f->payload);
    itg_dist_free(f->size);
    itg_dist_free(f->on);
    itg_dist_free(f->off);
    free(f->df);
    free(f);
  }
  if (s->log_own)
    itg_logger_close(s->log);
  free(s->flows);
  free(s->pkt_bufs);
  free(s->echo_bufs);
  uv_cond_destroy(&s->go_cond);
  uv_cond_destroy(&s->done_cond);
  uv_mutex_destroy(&s->lock);
  free(s);
}
