/* The log server's public face: configuration, allowed networks, its loop
 * thread with the TCP and UDP ports and the flush timer, counters and
 * stopping. Clients and their sessions are in log/server_session.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/logfile.h"
#include "core/netlist.h"
#include "core/sweep.h"
#include "log/server_internal.h"
#include "platform/platform.h"

int itg_logserver_cfg_init_size(itg_logserver_cfg *out, size_t size) {
  itg_logserver_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  cfg->port = ITG_DEFAULT_LOG_PORT;
  cfg->max_clients = 1024;
  cfg->max_peer_clients = 256;
  cfg->handshake_ms = 10000;
  cfg->flush_ms = 1000;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

int itg_logserver_cfg_allow(itg_logserver_cfg *caller, const char *cidr) {
  itg_logserver_cfg copy, *cfg = &copy;
  itg_logserver_net net;
  if (caller == NULL || cidr == NULL ||
      ITG__CFG_IN(&copy, caller, itg_logserver_cfg, NULL, 0) != 0 ||
      itg__net_parse(cidr, &net) != 0)
    return ITG_EINVAL;
  if (cfg->n_allow >= ITG_LOGSERVER_MAX_NETS)
    return ITG_ELIMIT;
  cfg->allow[cfg->n_allow++] = net;
  return itg__struct_out(caller, caller->struct_size, cfg, sizeof *cfg);
}

/* Returns 1 if the address may use the server (loopback or cfg.allow). */
static int allowed(const itg_logserver *s, const struct sockaddr *sa) {
  return itg__net_allowed(sa, s->cfg.allow, s->cfg.n_allow);
}

int itg_logserver_new(const itg_logserver_cfg *caller, itg_logserver **out) {
  itg_logserver_cfg copy;
  const itg_logserver_cfg *cfg = &copy;
  itg_logserver *s;
  if (caller == NULL || out == NULL ||
      ITG__CFG_IN(&copy, caller, itg_logserver_cfg, NULL, 0) != 0 ||
      cfg->max_clients == 0 || cfg->max_peer_clients == 0 ||
      cfg->handshake_ms == 0 || cfg->flush_ms == 0 ||
      cfg->n_allow > ITG_LOGSERVER_MAX_NETS ||
      strnlen(cfg->bind_host, ITG_HOST_MAX) == ITG_HOST_MAX ||
      strnlen(cfg->dir, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->token, sizeof cfg->token) == sizeof cfg->token)
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  if (uv_mutex_init(&s->lock) != 0) {
    free(s);
    return ITG_ENOMEM;
  }
  s->cfg = *cfg;
  s->next_session = 1;
  s->key_state = (uint64_t)itg__real_ns() ^ ((uint64_t)uv_os_getpid() << 32);
  *out = s;
  return 0;
}

/* Frees a refused client (its handle is its first member). */
static void free_refused(uv_handle_t *h) { free(h); }

/* Why a new client from ip may not connect, or NULL if it may. */
static const char *refusal(itg_logserver *s, const struct sockaddr *sa,
                           const uint8_t ip[16], int *status) {
  itg__ls_client *c;
  uint32_t same = 0;
  *status = ITG_ELIMIT;
  if (!allowed(s, sa)) {
    *status = ITG_EPERM;
    return "address not allowed";
  }
  if (s->nclients >= s->cfg.max_clients)
    return "too many clients";
  for (c = s->clients; c != NULL; c = c->next)
    same += memcmp(c->ip, ip, 16) == 0;
  return same >= s->cfg.max_peer_clients ? "too many clients from this address"
                                         : NULL;
}

static void on_connection(uv_stream_t *server, int status) {
  itg_logserver *s = server->data;
  itg__ls_client *c;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  const char *why = "the connection failed as it was accepted";
  int why_status = ITG_ESOCKET;
  if (status < 0)
    return;
  c = calloc(1, sizeof *c);
  if (c == NULL || uv_tcp_init(&s->loop, &c->tcp) != 0) {
    free(c);
    return;
  }
  if (uv_accept(server, (uv_stream_t *)&c->tcp) == 0 &&
      uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
    /* Named before the checks, so a refusal says whom it turned away. */
    itg__addr a;
    memcpy(&a.ss, &ss, sizeof ss);
    a.len = (socklen_t)len;
    itg__addr_format(&a, c->peer, sizeof c->peer);
    itg__net_ip_key((struct sockaddr *)&ss, c->ip);
    why = refusal(s, (struct sockaddr *)&ss, c->ip, &why_status);
  }
  if (why != NULL) {
    itg_log_session_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ITG_LOG_SESSION_REFUSED;
    ev.status = why_status;
    snprintf(ev.message, sizeof ev.message, "%s", why);
    memcpy(ev.peer, c->peer, sizeof ev.peer);
    atomic_fetch_add(&s->n_refused, 1);
    itg__ls_event(s, &ev);
    c->tcp.data = c;
    uv_close((uv_handle_t *)&c->tcp, free_refused);
    return;
  }
  c->deadline = uv_now(&s->loop) + s->cfg.handshake_ms;
  itg__ls_client_start(s, c);
}

static void on_udp_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg_logserver *s = h->data;
  (void)hint;
  *buf = uv_buf_init((char *)s->dgram, sizeof s->dgram);
}

static void on_udp(uv_udp_t *h, ssize_t n, const uv_buf_t *buf,
                   const struct sockaddr *from, unsigned flags) {
  itg_logserver *s = h->data;
  (void)buf;
  if (n <= 0 || from == NULL || (flags & UV_UDP_PARTIAL) ||
      !allowed(s, from))
    return;
  itg__ls_udp_batch(s, s->dgram, (size_t)n);
}

static void on_flush(uv_timer_t *t) { itg__ls_flush_all(t->data); }

/* Closes the clients that have not registered within handshake_ms. */
static void on_sweep(uv_timer_t *t) {
  itg_logserver *s = t->data;
  uint64_t now = uv_now(&s->loop);
  itg__ls_client *c, *next;
  for (c = s->clients; c != NULL; c = next) {
    next = c->next;
    if (c->session == 0 && now >= c->deadline) {
      itg_log_session_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = ITG_LOG_SESSION_REFUSED;
      ev.status = ITG_ETIMEDOUT;
      memcpy(ev.peer, c->peer, sizeof ev.peer);
      snprintf(ev.message, sizeof ev.message, "did not register in time");
      atomic_fetch_add(&s->n_expired, 1);
      itg__ls_event(s, &ev);
      itg__ls_client_close(c);
    }
  }
}

/* Wake-up from another thread: the only message is "stop". */
static void on_wake(uv_async_t *h) {
  itg_logserver *s = h->data;
  if (s->stop_asked)
    return;
  s->stop_asked = 1;
  uv_close((uv_handle_t *)&s->server, NULL);
  uv_close((uv_handle_t *)&s->udp, NULL);
  uv_close((uv_handle_t *)&s->flush, NULL);
  uv_close((uv_handle_t *)&s->sweep, NULL);
  while (s->clients != NULL)
    itg__ls_client_close(s->clients);
  uv_close((uv_handle_t *)&s->wake, NULL);
}

static void loop_main(void *arg) {
  itg_logserver *s = arg;
  itg__thread_block_sigpipe(); /* acknowledgements to reset clients */
  uv_run(&s->loop, UV_RUN_DEFAULT);
}

/* Binds the TCP port, then the UDP port (the same number unless 0). */
static int bind_ports(itg_logserver *s) {
  itg__addr a;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  int rc;
  if (itg__addr_resolve(s->cfg.bind_host, s->cfg.port, 1, &a) != 0)
    return ITG_EADDR;
  rc = uv_tcp_bind(&s->server, (const struct sockaddr *)&a.ss, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&s->server, 128, on_connection);
  if (rc != 0)
    return itg__uv_err(rc);
  if (uv_tcp_getsockname(&s->server, (struct sockaddr *)&ss, &len) != 0)
    return ITG_ESOCKET;
  memcpy(&a.ss, &ss, sizeof ss);
  s->port = itg__addr_port(&a);
  itg__addr_set_port(&a, s->cfg.port == 0 ? 0 : s->port);
  rc = uv_udp_bind(&s->udp, (const struct sockaddr *)&a.ss, 0);
  if (rc != 0)
    return itg__uv_err(rc);
  len = (int)sizeof ss;
  if (uv_udp_getsockname(&s->udp, (struct sockaddr *)&ss, &len) != 0)
    return ITG_ESOCKET;
  memcpy(&a.ss, &ss, sizeof ss);
  s->udp_port = itg__addr_port(&a);
  {
    int size = 8 * 1024 * 1024;
    uv_recv_buffer_size((uv_handle_t *)&s->udp, &size);
  }
  rc = uv_udp_recv_start(&s->udp, on_udp_alloc, on_udp);
  return rc != 0 ? itg__uv_err(rc) : 0;
}

int itg_logserver_start(itg_logserver *s) {
  int rc;
  if (s == NULL)
    return ITG_EINVAL;
  if (s->started || s->stopped)
    return ITG_ESTATE;
  rc = itg__platform_init();
  if (rc < 0)
    return rc;
  if (itg_log_dir_check(s->cfg.dir) != 0)
    return ITG_ENOENT;
  if (uv_loop_init(&s->loop) != 0)
    return ITG_ENOMEM;
  uv_tcp_init(&s->loop, &s->server);
  uv_udp_init(&s->loop, &s->udp);
  uv_timer_init(&s->loop, &s->flush);
  uv_timer_init(&s->loop, &s->sweep);
  s->server.data = s->udp.data = s->flush.data = s->sweep.data = s;
  rc = bind_ports(s);
  if (rc < 0)
    goto out_close;
  uv_timer_start(&s->flush, on_flush, s->cfg.flush_ms, s->cfg.flush_ms);
  uv_timer_start(&s->sweep, on_sweep, itg__sweep_every(s->cfg.handshake_ms),
                 itg__sweep_every(s->cfg.handshake_ms));
  rc = ITG_ETHREAD;
  if (uv_async_init(&s->loop, &s->wake, on_wake) != 0)
    goto out_close;
  s->wake.data = s;
  if (uv_thread_create(&s->thread, loop_main, s) != 0) {
    uv_close((uv_handle_t *)&s->wake, NULL);
    goto out_close;
  }
  s->started = 1;
  return 0;

out_close:
  uv_close((uv_handle_t *)&s->server, NULL);
  uv_close((uv_handle_t *)&s->udp, NULL);
  uv_close((uv_handle_t *)&s->flush, NULL);
  uv_close((uv_handle_t *)&s->sweep, NULL);
  uv_run(&s->loop, UV_RUN_DEFAULT);
  uv_loop_close(&s->loop);
  return rc;
}

uint16_t itg_logserver_port(const itg_logserver *s) {
  return s != NULL ? s->port : 0;
}

uint16_t itg_logserver_udp_port(const itg_logserver *s) {
  return s != NULL ? s->udp_port : 0;
}

int itg_logserver_get_stats_size(itg_logserver *s, itg_logserver_stats *dst,
                                 size_t size) {
  itg_logserver_stats full, *out = &full;

  if (s == NULL)
    return ITG_EINVAL;
  memset(out, 0, sizeof *out);
  out->sessions_open = atomic_load(&s->n_open);
  out->sessions_total = atomic_load(&s->n_total);
  out->incomplete = atomic_load(&s->n_incomplete);
  out->refused = atomic_load(&s->n_refused);
  out->records = atomic_load(&s->n_records);
  out->missing = atomic_load(&s->n_missing);
  out->expired = atomic_load(&s->n_expired);
  return itg__struct_out(dst, size, out, sizeof *out);
}

int itg_logserver_stop(itg_logserver *s) {
  int join = 0;
  if (s == NULL)
    return ITG_EINVAL;
  uv_mutex_lock(&s->lock);
  if (!s->stopped) {
    s->stopped = 1;
    join = s->started;
  }
  uv_mutex_unlock(&s->lock);
  if (join) {
    uv_async_send(&s->wake);
    uv_thread_join(&s->thread);
    uv_loop_close(&s->loop);
  }
  return 0;
}

void itg_logserver_free(itg_logserver *s) {
  if (s == NULL)
    return;
  itg_logserver_stop(s);
  uv_mutex_destroy(&s->lock);
  free(s);
}
