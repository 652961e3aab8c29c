/* The agent (itg/remote.h): its configuration, its loop thread with the
 * control port, and each control connection: the address check, the
 * challenge and the client's proof, then the controller's requests, whose
 * answers engine/agent_run.c writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errbuf.h"
#include "core/growable.h"
#include "core/hmac.h"
#include "core/netlist.h"
#include "core/sweep.h"
#include "engine/agent_internal.h"
#include "platform/platform.h"

/* A connection being closed after its last answer keeps reading (and
 * dropping) what its client still sends, for at most this long: closing
 * with bytes unread would reset it, and a reset may discard the answer
 * before the client reads it. */
#define LINGER_MS 1000u
#define SOFTWARE "libitg"
/* How often a waiting RESULTS looks whether the flows have ended. */
#define RESULTS_POLL_MS 10u

/* The instant ms from now on the monotonic clock: the loop's own clock is
 * kept in whole (and possibly coarse) milliseconds, which would end a
 * client's time a little before it has really passed. */
static int64_t deadline_after(uint64_t ms) {
  return (int64_t)uv_hrtime() + (int64_t)ms * 1000000;
}

int itg_agent_cfg_init_size(itg_agent_cfg *out, size_t size) {
  itg_agent_cfg defaults, *cfg = &defaults;
  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  snprintf(cfg->listen_host, sizeof cfg->listen_host, "127.0.0.1");
  cfg->listen_port = ITG_REMOTE_DEFAULT_PORT;
  cfg->auth_timeout_ms = 5000;
  cfg->max_conns = 8;
  cfg->recv_port = ITG_DEFAULT_SIG_PORT;
  cfg->log_server_port = ITG_DEFAULT_LOG_PORT;
  cfg->log_transport = ITG_LOG_TCP;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

/* Returns the first field of cfg out of range, or NULL. */
static const char *cfg_fault(const itg_agent_cfg *cfg) {
  char path[ITG_PATH_MAX];
  if (cfg->token_len == 0 || cfg->token_len > ITG_REMOTE_TOKEN_MAX)
    return "token: 1 to 256 bytes";
  if (cfg->allow_count > ITG_AGENT_MAX_NETS)
    return "allow_count: more than 16 networks";
  if (cfg->auth_timeout_ms == 0 || cfg->auth_timeout_ms > 600000)
    return "auth_timeout_ms: 1 to 600 000";
  if (cfg->max_conns == 0 || cfg->max_conns > 1024)
    return "max_conns: 1 to 1 024";
  if (strnlen(cfg->listen_host, ITG_HOST_MAX) == ITG_HOST_MAX ||
      strnlen(cfg->recv_host, ITG_HOST_MAX) == ITG_HOST_MAX ||
      strnlen(cfg->log_server, ITG_HOST_MAX) == ITG_HOST_MAX)
    return "a host name is not terminated";
  if (strnlen(cfg->recv_log, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->log_dir, ITG_PATH_MAX) == ITG_PATH_MAX ||
      strnlen(cfg->send_log, ITG_PATH_MAX) == ITG_PATH_MAX)
    return "a path is not terminated";
  if (strchr(cfg->send_log, '/') != NULL || strchr(cfg->recv_log, '/') != NULL ||
      strchr(cfg->send_log, '\\') != NULL || strchr(cfg->recv_log, '\\') != NULL)
    return "send_log and recv_log are names in log_dir, without '/'";
  if (itg__agent_path(path, sizeof path, cfg->log_dir, cfg->send_log) != 0 ||
      itg__agent_path(path, sizeof path, cfg->log_dir, cfg->recv_log) != 0)
    return "log_dir and a log's name make a path too long";
  if (cfg->log_server[0] != '\0' && cfg->log_server_port == 0)
    return "log_server_port: 1 to 65 535";
  return NULL;
}

int itg_agent_new(const itg_agent_cfg *caller, itg_agent **out, char *err,
                  size_t errlen) {
  itg_agent_cfg cfg;
  itg_receiver_cfg rc_cfg;
  const char *fault;
  itg_agent *a;
  int rc;
  itg__err_begin(err, errlen);
  if (out == NULL)
    return ITG_EINVAL;
  if (ITG__CFG_IN(&cfg, caller, itg_agent_cfg, err, errlen) != 0)
    return ITG_EINVAL;
  fault = cfg_fault(&cfg);
  if (fault != NULL) {
    itg__err_set(err, errlen, "itg_agent_cfg: %s", fault);
    return ITG_EINVAL;
  }
  a = calloc(1, sizeof *a);
  if (a == NULL)
    return ITG_ENOMEM;
  a->answer = malloc(ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER);
  if (a->answer == NULL || uv_mutex_init(&a->lock) != 0) {
    free(a->answer);
    free(a);
    return ITG_ENOMEM;
  }
  a->cfg = cfg;
  itg_receiver_cfg_init(&rc_cfg);
  memcpy(rc_cfg.bind_host, cfg.recv_host, sizeof rc_cfg.bind_host);
  rc_cfg.sig_port = cfg.recv_port;
  if (cfg.recv_log[0] != '\0')
    itg__agent_path(rc_cfg.log_path, sizeof rc_cfg.log_path, cfg.log_dir,
                    cfg.recv_log);
  memcpy(rc_cfg.log_dir, cfg.log_dir, sizeof rc_cfg.log_dir);
  rc_cfg.on_flow = itg__agent_on_flow;
  rc_cfg.user = a;
  rc = itg_receiver_new(&rc_cfg, &a->rx);
  if (rc < 0) {
    itg__err_set(err, errlen, "the receiver: %s", itg_strerror(rc));
    uv_mutex_destroy(&a->lock);
    free(a->answer);
    free(a);
    return rc;
  }
  if (cfg.recv_log[0] != '\0')
    itg__agent_log_add(a, cfg.recv_log);
  *out = a;
  return 0;
}

/* ---- connections ---------------------------------------------------- */

static void on_conn_closed(uv_handle_t *h) {
  itg__agent_conn *c = (itg__agent_conn *)h;
  free(c->buf);
  free(c);
}

/* Unlinks c and closes it at once. */
static void conn_close(itg__agent_conn *c) {
  itg_agent *a = c->agent;
  itg__agent_conn **p;
  for (p = &a->conns; *p != NULL; p = &(*p)->next)
    if (*p == c) {
      *p = c->next;
      break;
    }
  a->nconns--;
  if (a->controller == c)
    a->controller = NULL;
  if (a->waiting == c) {
    a->waiting = NULL;
    uv_timer_stop(&a->results);
  }
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

static void on_written(uv_write_t *req, int status) {
  (void)status;
  free(req);
}

/* Sends frame[0..len) (copied). Returns 0 or -1 (the connection is then
 * closed). */
static int conn_send(itg__agent_conn *c, const uint8_t *frame, size_t len) {
  uv_write_t *req = malloc(sizeof *req + len);
  uv_buf_t b;
  if (req == NULL) {
    conn_close(c);
    return -1;
  }
  memcpy(req + 1, frame, len);
  b = uv_buf_init((char *)(req + 1), (unsigned)len);
  if (uv_write(req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
    free(req);
    conn_close(c);
    return -1;
  }
  return 0;
}

static void on_shutdown(uv_shutdown_t *req, int status) {
  (void)status;
  free(req);
}

/* Sends an ERR and ends the connection: what the client still sends is
 * dropped until it closes or LINGER_MS pass. */
static void conn_refuse(itg__agent_conn *c, int code, const char *fmt,
                        const char *arg) {
  uint8_t frame[ITG__FRAME_HDR_LEN + 2 * ITG__RM_TEXT_MAX];
  uv_shutdown_t *req;
  itg__rm_msg m;
  int len;
  itg__rm_init(&m, ITG__RM_ERR);
  m.code = code;
  snprintf(m.text, sizeof m.text, fmt, arg);
  len = itg__rm_encode(&m, frame, sizeof frame);
  if (len < 0 || conn_send(c, frame, (size_t)len) != 0)
    return;
  if (c->agent->controller == c)
    c->agent->controller = NULL;
  c->closing = 1;
  c->deadline = deadline_after(LINGER_MS);
  req = malloc(sizeof *req);
  if (req == NULL ||
      uv_shutdown(req, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
    free(req);
    conn_close(c);
  }
}

/* Checks the client's proof: AUTH with HMAC(token, client label || Na ||
 * Nc). A good one makes the connection the controller (or, if another
 * client controls the agent, it is told so and closed). Returns 0 to go
 * on reading, -1 when c is closing. */
static int conn_auth(itg__agent_conn *c, const itg__rm_msg *m) {
  itg_agent *a = c->agent;
  uint8_t want[ITG__RM_MAC];
  uint8_t frame[ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY];
  itg__rm_msg ok;
  uint8_t *big;
  int len;
  if (m->type != ITG__RM_AUTH) {
    conn_refuse(c, ITG_EPERM, "authenticate first (%s)",
                itg__rm_type_name(m->type));
    return -1;
  }
  itg__rm_proof(a->cfg.token, a->cfg.token_len, ITG__RM_LABEL_CLIENT,
                c->nonce, m->nonce, want);
  if (!itg__mem_equal_ct(want, m->mac, sizeof want)) {
    conn_refuse(c, ITG_EPERM, "%s", "wrong token");
    return -1;
  }
  if (a->controller != NULL) {
    conn_refuse(c, ITG_EBUSY, "another client (%s) controls this agent",
                a->controller->peer);
    return -1;
  }
  big = realloc(c->buf, ITG__FRAME_HDR_LEN + ITG__RM_MAX_REQUEST);
  if (big == NULL) {
    conn_refuse(c, ITG_ENOMEM, "%s", "out of memory");
    return -1;
  }
  c->buf = big;
  c->cap = ITG__FRAME_HDR_LEN + ITG__RM_MAX_REQUEST;
  c->max_body = ITG__RM_MAX_REQUEST;
  c->authed = 1;
  a->controller = c;
  itg__rm_init(&ok, ITG__RM_AUTH_OK);
  itg__rm_proof(a->cfg.token, a->cfg.token_len, ITG__RM_LABEL_AGENT,
                m->nonce, c->nonce, ok.mac);
  snprintf(ok.text, sizeof ok.text, "%s %s", SOFTWARE, itg_version_string());
  ok.port = itg_receiver_port(a->rx);
  len = itg__rm_encode(&ok, frame, sizeof frame);
  return len < 0 ? -1 : conn_send(c, frame, (size_t)len);
}

static void on_results(uv_timer_t *t);
static void setup_work(uv_work_t *w);
static void setup_done(uv_work_t *w, int status);

/* Takes one whole frame. Returns 0 to go on, -1 when c is closing or
 * closed. */
static int conn_frame(itg__agent_conn *c, const uint8_t *frame, size_t len) {
  itg_agent *a = c->agent;
  itg__rm_msg m;
  int rc = itg__rm_decode(frame, len, c->max_body, &m);
  if (rc < 0) {
    conn_refuse(c, rc, "malformed message: %s", itg_strerror(rc));
    return -1;
  }
  if (!c->authed)
    return conn_auth(c, &m);
  rc = itg__agent_command(a, &m);
  if (rc < 0) {
    conn_refuse(c, rc, "cannot answer: %s", itg_strerror(rc));
    return -1;
  }
  if (rc == 0) {
    /* The answer comes later; the requests that follow wait for it in
     * the reader (its end, or a reset, is still seen). */
    a->waiting = c;
    if (m.type != ITG__RM_START) {
      uv_timer_start(&a->results, on_results, RESULTS_POLL_MS,
                     RESULTS_POLL_MS);
      return -1;
    }
    a->setup.data = a;
    a->setting_up = 1;
    if (uv_queue_work(&a->loop, &a->setup, setup_work, setup_done) != 0)
      setup_done(&a->setup, UV_ENOMEM);
    return -1;
  }
  if (conn_send(c, a->answer, (size_t)rc) != 0)
    return -1;
  if (m.type == ITG__RM_BYE) {
    a->controller = NULL;
    c->authed = 0;
    c->closing = 1;
    c->deadline = deadline_after(LINGER_MS);
    return -1;
  }
  return 0;
}

static void conn_take(itg__agent_conn *c);

/* Sends the waiting request's answer (a->answer[0..len), or an ERR for
 * len < 0) and reads the controller's requests again. */
static void answer_waiting(itg_agent *a, int len) {
  itg__agent_conn *c = a->waiting;
  a->waiting = NULL;
  if (c == NULL)
    return; /* the controller has gone */
  if (len < 0) {
    conn_refuse(c, len, "cannot answer: %s", itg_strerror(len));
    return;
  }
  if (conn_send(c, a->answer, (size_t)len) == 0)
    conn_take(c);
}

/* A RESULTS waiting: answered once the flows end or its wait is over. */
static void on_results(uv_timer_t *t) {
  itg_agent *a = t->data;
  int len;
  if (a->waiting == NULL) {
    uv_timer_stop(t);
    return;
  }
  len = itg__agent_results_poll(a);
  if (len == 0)
    return;
  uv_timer_stop(t);
  answer_waiting(a, len);
}

/* START's set-up, on a worker thread: each flow's signaling with its
 * receiver may take up to the connect timeout, which the loop, serving
 * the other connections and their timeouts, does not wait for. */
static void setup_work(uv_work_t *w) {
  itg_agent *a = w->data;
  a->setup_rc = itg_sender_start(a->tx);
}

static void setup_done(uv_work_t *w, int status) {
  itg_agent *a = w->data;
  a->setting_up = 0;
  answer_waiting(a, itg__agent_start_done(
                        a, status == 0 ? a->setup_rc : itg__uv_err(status)));
}

/* Takes the whole frames the reader holds, one at a time, until one is
 * to wait for its answer (a->waiting) or ends the connection. */
static void conn_take(itg__agent_conn *c) {
  uint8_t *frame;
  int len;
  while (c->agent->waiting != c &&
         (len = itg__frame_reader_next(&c->fr, c->buf, c->cap,
                                       itg__rm_measure, &c->max_body,
                                       &frame)) != 0) {
    if (len < 0) {
      conn_refuse(c, len, "malformed message: %s", itg_strerror(len));
      return;
    }
    if (conn_frame(c, frame, (size_t)len) != 0)
      return;
  }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg__agent_conn *c = h->data;
  size_t room;
  uint8_t *p;
  (void)hint;
  if (c->closing) {
    /* Dropped: only its end is waited for. */
    *buf = uv_buf_init((char *)c->buf, (unsigned)c->cap);
    return;
  }
  p = itg__frame_reader_space(&c->fr, c->buf, c->cap, &room);
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  itg__agent_conn *c = s->data;
  (void)buf;
  if (n < 0) {
    conn_close(c);
    return;
  }
  if (n == 0 || c->closing)
    return;
  itg__frame_reader_commit(&c->fr, (size_t)n);
  conn_take(c);
}

/* ---- the control port ------------------------------------------------ */

/* Returns 1 if a client at sa may connect: from one of cfg.allow, or
 * from loopback when none is given. */
static int allowed(const itg_agent *a, const struct sockaddr *sa) {
  if (a->cfg.allow_count == 0)
    return itg__net_allowed(sa, NULL, 0);
  for (uint32_t i = 0; i < a->cfg.allow_count; i++)
    if (itg__net_contains(&a->cfg.allow[i], sa))
      return 1;
  return 0;
}

/* Frees a connection turned away before it was one of the agent's. */
static void free_refused(uv_handle_t *h) { free(h); }

static void on_connection(uv_stream_t *server, int status) {
  itg_agent *a = server->data;
  uint8_t frame[ITG__FRAME_HDR_LEN + ITG__RM_NONCE];
  struct sockaddr_storage ss;
  int sslen = (int)sizeof ss, len;
  itg__agent_conn *c;
  itg__rm_msg m;
  itg__addr addr;
  if (status < 0)
    return;
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return;
  if (uv_tcp_init(&a->loop, &c->tcp) != 0) {
    free(c);
    return;
  }
  c->tcp.data = c;
  /* Turned away without a word: a client from a network not allowed, or
   * one too many, learns nothing and holds nothing. */
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 ||
      uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sslen) != 0 ||
      !allowed(a, (struct sockaddr *)&ss) ||
      a->nconns >= a->cfg.max_conns ||
      (c->buf = malloc(ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY)) == NULL ||
      itg__random_bytes(c->nonce, sizeof c->nonce) != 0) {
    free(c->buf);
    uv_close((uv_handle_t *)&c->tcp, free_refused);
    return;
  }
  memcpy(&addr.ss, &ss, sizeof ss);
  addr.len = (socklen_t)sslen;
  itg__addr_format(&addr, c->peer, sizeof c->peer);
  c->agent = a;
  c->cap = ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY;
  c->max_body = ITG__RM_MAX_AUTH_BODY;
  c->deadline = deadline_after(a->cfg.auth_timeout_ms);
  c->next = a->conns;
  a->conns = c;
  a->nconns++;
  /* A controller whose host vanished is found out and its place freed. */
  uv_tcp_keepalive(&c->tcp, 1, 30);
  uv_tcp_nodelay(&c->tcp, 1);
  itg__rm_init(&m, ITG__RM_CHALLENGE);
  memcpy(m.nonce, c->nonce, sizeof m.nonce);
  len = itg__rm_encode(&m, frame, sizeof frame);
  if (len < 0 || conn_send(c, frame, (size_t)len) != 0)
    return;
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0)
    conn_close(c);
}

/* Ends the connections past their time: a client that has not proved it
 * holds the token within auth_timeout_ms, a closing one past its linger. */
static void on_sweep(uv_timer_t *t) {
  itg_agent *a = t->data;
  int64_t now = (int64_t)uv_hrtime();
  itg__agent_conn *c, *next;
  for (c = a->conns; c != NULL; c = next) {
    next = c->next;
    if (c->authed || now < c->deadline)
      continue;
    if (c->closing)
      conn_close(c);
    else
      conn_refuse(c, ITG_ETIMEDOUT, "%s", "did not authenticate in time");
  }
}

/* Wake-up from another thread: the only message is "stop". */
static void on_wake(uv_async_t *h) {
  itg_agent *a = h->data;
  if (a->setting_up)
    itg_sender_stop(a->tx); /* the set-up gives up sooner */
  uv_close((uv_handle_t *)&a->server, NULL);
  uv_close((uv_handle_t *)&a->sweep, NULL);
  uv_close((uv_handle_t *)&a->results, NULL);
  while (a->conns != NULL)
    conn_close(a->conns);
  uv_close((uv_handle_t *)&a->wake, NULL);
}

static void loop_main(void *arg) {
  itg_agent *a = arg;
  itg__thread_block_sigpipe(); /* answers to clients that reset */
  uv_run(&a->loop, UV_RUN_DEFAULT);
}

static int bind_port(itg_agent *a) {
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  itg__addr addr;
  int rc;
  if (itg__addr_resolve(a->cfg.listen_host, a->cfg.listen_port, 1, &addr) != 0)
    return ITG_EADDR;
  rc = uv_tcp_bind(&a->server, (const struct sockaddr *)&addr.ss, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&a->server, 64, on_connection);
  if (rc != 0)
    return itg__uv_err(rc);
  if (uv_tcp_getsockname(&a->server, (struct sockaddr *)&ss, &len) != 0)
    return ITG_ESOCKET;
  memcpy(&addr.ss, &ss, sizeof ss);
  a->port = itg__addr_port(&addr);
  return 0;
}

int itg_agent_start(itg_agent *a, char *err, size_t errlen) {
  int rc;
  itg__err_begin(err, errlen);
  if (a == NULL)
    return ITG_EINVAL;
  if (a->started || a->stopped)
    return ITG_ESTATE;
  rc = itg__platform_init();
  if (rc < 0)
    return rc;
  rc = itg_receiver_start(a->rx);
  if (rc < 0) {
    itg__err_set(err, errlen, "the receiver (port %u): %s",
                 (unsigned)a->cfg.recv_port, itg_strerror(rc));
    return rc;
  }
  if (uv_loop_init(&a->loop) != 0) {
    itg_receiver_stop(a->rx);
    return ITG_ENOMEM;
  }
  uv_tcp_init(&a->loop, &a->server);
  uv_timer_init(&a->loop, &a->sweep);
  uv_timer_init(&a->loop, &a->results);
  a->server.data = a->sweep.data = a->results.data = a;
  rc = bind_port(a);
  if (rc < 0) {
    itg__err_set(err, errlen, "the control port %s:%u: %s",
                 a->cfg.listen_host, (unsigned)a->cfg.listen_port,
                 itg_strerror(rc));
    goto out_close;
  }
  uv_timer_start(&a->sweep, on_sweep, itg__sweep_every(a->cfg.auth_timeout_ms),
                 itg__sweep_every(a->cfg.auth_timeout_ms));
  rc = ITG_ETHREAD;
  if (uv_async_init(&a->loop, &a->wake, on_wake) != 0)
    goto out_close;
  a->wake.data = a;
  if (uv_thread_create(&a->thread, loop_main, a) != 0) {
    uv_close((uv_handle_t *)&a->wake, NULL);
    goto out_close;
  }
  a->started = 1;
  return 0;

out_close:
  uv_close((uv_handle_t *)&a->server, NULL);
  uv_close((uv_handle_t *)&a->sweep, NULL);
  uv_close((uv_handle_t *)&a->results, NULL);
  uv_run(&a->loop, UV_RUN_DEFAULT);
  uv_loop_close(&a->loop);
  itg_receiver_stop(a->rx);
  return rc;
}

uint16_t itg_agent_port(const itg_agent *a) { return a != NULL ? a->port : 0; }

uint16_t itg_agent_receiver_port(const itg_agent *a) {
  return a != NULL ? itg_receiver_port(a->rx) : 0;
}

int itg_agent_stop(itg_agent *a) {
  int join = 0;
  if (a == NULL)
    return ITG_EINVAL;
  uv_mutex_lock(&a->lock);
  if (!a->stopped) {
    a->stopped = 1;
    join = a->started;
  }
  uv_mutex_unlock(&a->lock);
  if (join) {
    uv_async_send(&a->wake);
    uv_thread_join(&a->thread);
    uv_loop_close(&a->loop);
    itg__agent_flows_free(a);
    itg_receiver_stop(a->rx);
  }
  return 0;
}

void itg_agent_free(itg_agent *a) {
  if (a == NULL)
    return;
  itg_agent_stop(a);
  itg__agent_flows_free(a);
  itg_receiver_free(a->rx);
  uv_mutex_destroy(&a->lock);
  free(a->answer);
  free(a);
}
