/* The receiver's public face: configuration, its loop thread, counters,
 * idle waits and stopping. Signaling is in receiver_sig.c, flows in
 * receiver_flow.c, packets in receiver_data.c, logs in receiver_log.c
 * (the order of receiver_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/logfile.h"
#include "core/netlist.h"
#include "engine/receiver_data.h"
#include "engine/receiver_flow.h"
#include "engine/receiver_guard.h"
#include "engine/receiver_live.h"
#include "engine/receiver_log.h"
#include "engine/receiver_sig.h"

int itg_receiver_cfg_init_size(itg_receiver_cfg *out, size_t size) {
  itg_receiver_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  cfg->sig_port = ITG_DEFAULT_SIG_PORT;
  cfg->log_batch = 64;
  cfg->max_flows = 1024;
  cfg->rcvbuf = 32 * 1024 * 1024;
  cfg->cpu = -1;
  cfg->handshake_ms = 10000;
  cfg->idle_ms = 600000;
  cfg->max_peer_conns = 256;
  cfg->max_peer_flows = 256;
  cfg->fd_reserve = 64;
  cfg->echo_queue = 64 * 1024;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

int itg_receiver_new(const itg_receiver_cfg *caller, itg_receiver **out) {
  itg_receiver_cfg copy;
  const itg_receiver_cfg *cfg = &copy;
  itg_logserver_net nets[ITG_LOGSERVER_MAX_NETS];
  uint32_t n_nets;
  itg_receiver *r;
  if (caller == NULL || out == NULL ||
      ITG__CFG_IN(&copy, caller, itg_receiver_cfg, NULL, 0) != 0 ||
      cfg->log_batch == 0 ||
      cfg->max_flows == 0 || cfg->rcvbuf < 0 || cfg->cpu < -1 ||
      cfg->handshake_ms == 0 || cfg->max_peer_conns == 0 ||
      cfg->max_peer_flows == 0 ||
      strnlen(cfg->bind_host, ITG_HOST_MAX) == ITG_HOST_MAX ||
      strnlen(cfg->log_path, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->log_dir, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->log_servers, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->data_iface, ITG_IFACE_MAX) == ITG_IFACE_MAX ||
      strnlen(cfg->sig_iface, ITG_IFACE_MAX) == ITG_IFACE_MAX ||
      itg_logserver_net_list_parse(cfg->log_servers, nets,
                                   ITG_LOGSERVER_MAX_NETS, &n_nets, NULL,
                                   0) != 0)
    return ITG_EINVAL;
  r = calloc(1, sizeof *r);
  if (r == NULL)
    return ITG_ENOMEM;
  memcpy(r->log_nets, nets, sizeof nets);
  r->n_log_nets = n_nets;
  r->run_pending = itg__rx_run_pending;
  r->bufs = malloc((size_t)ITG__RX_BATCH * ITG__RX_BUF);
  if (r->bufs == NULL)
    goto out_free_r;
  if (uv_mutex_init(&r->lock) != 0)
    goto out_free_bufs;
  if (uv_cond_init(&r->idle_cond) != 0)
    goto out_destroy_lock;
  if (uv_mutex_init(&r->live_lock) != 0)
    goto out_destroy_cond;
  r->cfg = *cfg;
  *out = r;
  return 0;

out_destroy_cond:
  uv_cond_destroy(&r->idle_cond);
out_destroy_lock:
  uv_mutex_destroy(&r->lock);
out_free_bufs:
  free(r->bufs);
out_free_r:
  free(r);
  return ITG_ENOMEM;
}

/* Opens cfg.log_path, kept from start to stop. */
static int open_default_log(itg_receiver *r) {
  itg_logger_cfg lc;
  itg__rx_log *lg;
  int rc;
  if (r->cfg.log_path[0] == '\0')
    return 0;
  lg = calloc(1, sizeof *lg);
  if (lg == NULL)
    return ITG_ENOMEM;
  itg__idmap_init(&lg->ids);
  itg__rx_log_cfg(r, r->cfg.log_path, &lc);
  rc = itg_logger_new(&lc, &lg->logger);
  if (rc < 0) {
    free(lg);
    return rc;
  }
  memcpy(lg->path, r->cfg.log_path, sizeof lg->path);
  lg->refs = 1; /* the receiver's own hold, dropped at stop */
  lg->next = r->logs;
  r->logs = lg;
  r->default_log = lg;
  return 0;
}

/* Wake-up from another thread: the only message is "stop". */
static void on_wake(uv_async_t *h) {
  itg_receiver *r = h->data;
  if (r->stop_asked)
    return;
  r->stop_asked = 1;
  uv_close((uv_handle_t *)&r->server, NULL);
  uv_close((uv_handle_t *)&r->sweep, NULL);
  itg__rx_flow_end_all(r);
  itg__rx_sig_close_all(r);
  while (r->tcp_list != NULL)
    itg__rx_tcp_close(r->tcp_list);
  itg__rx_log_release(r, r->default_log, NULL, NULL);
  uv_close((uv_handle_t *)&r->wake, NULL);
}

/* Closes what has not got going or has gone quiet, then ends the flows
 * that completed meanwhile. */
static void on_sweep(uv_timer_t *h) {
  itg_receiver *r = h->data;
  uint64_t now = uv_now(&r->loop);
  itg__rx_conn_sweep(r, now);
  itg__rx_tcp_sweep(r, now);
  itg__rx_run_pending(r);
}

static void loop_main(void *arg) {
  itg_receiver *r = arg;
  itg__thread_block_sigpipe(); /* replies and echoes to reset peers */
  if (r->cfg.cpu >= 0)
    itg__thread_pin(r->cfg.cpu);
  itg__rx_guard_start(r, on_sweep);
  uv_run(&r->loop, UV_RUN_DEFAULT);
}

/* Closes whatever a failed start opened, on the caller's thread. */
static void undo_start(itg_receiver *r) {
  if (r->server.loop != NULL)
    uv_close((uv_handle_t *)&r->server, NULL);
  uv_run(&r->loop, UV_RUN_DEFAULT);
  uv_loop_close(&r->loop);
  if (r->default_log != NULL) {
    itg_logger_close(r->default_log->logger);
    free(r->default_log);
    r->default_log = NULL;
    r->logs = NULL;
  }
}

int itg_receiver_start(itg_receiver *r) {
  int rc;
  if (r == NULL)
    return ITG_EINVAL;
  if (r->started || r->stopped)
    return ITG_ESTATE;
  rc = itg__platform_init();
  /* Found missing only at a flow's start, the directory of the logs
   * senders name would refuse every such flow. */
  if (rc == 0)
    rc = itg_log_dir_check(r->cfg.log_dir);
  if (rc < 0)
    return rc;
  if (uv_loop_init(&r->loop) != 0)
    return ITG_ENOMEM;
  rc = open_default_log(r);
  if (rc < 0) {
    uv_loop_close(&r->loop);
    return rc;
  }
  if (uv_tcp_init(&r->loop, &r->server) != 0) {
    r->server.loop = NULL;
    rc = ITG_ESOCKET;
    goto out_undo;
  }
  rc = itg__rx_sig_listen(r);
  if (rc < 0)
    goto out_undo;
  rc = ITG_ETHREAD;
  if (uv_async_init(&r->loop, &r->wake, on_wake) != 0)
    goto out_undo;
  r->wake.data = r;
  if (uv_thread_create(&r->thread, loop_main, r) != 0) {
    uv_close((uv_handle_t *)&r->wake, NULL);
    goto out_undo;
  }
  r->started = 1;
  return 0;

out_undo:
  undo_start(r);
  return rc;
}

uint16_t itg_receiver_port(const itg_receiver *r) {
  return r != NULL ? r->port : 0;
}

int itg_receiver_get_stats_size(itg_receiver *r, itg_receiver_stats *dst,
                                size_t size) {
  itg_receiver_stats full, *out = &full;

  if (r == NULL)
    return ITG_EINVAL;
  memset(out, 0, sizeof *out);
  out->packets = atomic_load(&r->n_packets);
  out->bytes = atomic_load(&r->n_bytes);
  out->malformed = atomic_load(&r->n_malformed);
  out->flows_served = atomic_load(&r->n_served);
  out->flows_active = atomic_load(&r->n_active);
  out->flows_refused = atomic_load(&r->n_refused);
  out->echoes = atomic_load(&r->n_echoes);
  out->echoes_dropped = atomic_load(&r->n_echo_dropped);
  out->echo_backlog = atomic_load(&r->n_echo_backlog);
  out->conns_refused = atomic_load(&r->n_conns_refused);
  out->conns_expired = atomic_load(&r->n_conns_expired);
  return itg__struct_out(dst, size, out, sizeof *out);
}

int itg_receiver_wait_idle(itg_receiver *r, int64_t timeout_ns) {
  int rc = 0;
  uint64_t deadline = uv_hrtime() + (uint64_t)(timeout_ns < 0 ? 0 : timeout_ns);
  if (r == NULL)
    return ITG_EINVAL;
  uv_mutex_lock(&r->lock);
  while ((r->conns > 0 || r->flows > 0) && !r->stopped) {
    uint64_t now;
    if (timeout_ns < 0) {
      uv_cond_wait(&r->idle_cond, &r->lock);
      continue;
    }
    now = uv_hrtime();
    if (now >= deadline ||
        uv_cond_timedwait(&r->idle_cond, &r->lock, deadline - now) != 0) {
      rc = (r->conns > 0 || r->flows > 0) && !r->stopped ? ITG_ETIMEDOUT : 0;
      break;
    }
  }
  uv_mutex_unlock(&r->lock);
  return rc;
}

int itg_receiver_stop(itg_receiver *r) {
  int join = 0;
  int rc;
  if (r == NULL)
    return ITG_EINVAL;
  uv_mutex_lock(&r->lock);
  if (!r->stopped) {
    r->stopped = 1;
    join = r->started;
  }
  uv_cond_broadcast(&r->idle_cond);
  uv_mutex_unlock(&r->lock);
  if (join) {
    uv_async_send(&r->wake);
    uv_thread_join(&r->thread);
    uv_loop_close(&r->loop);
  }
  uv_mutex_lock(&r->lock);
  rc = r->log_error;
  uv_mutex_unlock(&r->lock);
  return rc;
}

void itg_receiver_free(itg_receiver *r) {
  if (r == NULL)
    return;
  itg_receiver_stop(r);
  itg__rx_live_free_all(r);
  uv_mutex_destroy(&r->live_lock);
  uv_cond_destroy(&r->idle_cond);
  uv_mutex_destroy(&r->lock);
  free(r->bufs);
  free(r);
}
