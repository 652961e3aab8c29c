/* The receiver's logs: files under log_dir, and sessions with log servers.
 * Opening a session waits for the server's answer and closing one waits
 * for its last records to be taken, each up to seconds when the server is
 * slow or gone; both run on libuv's thread pool, because the loop thread
 * they would otherwise hold up reads every other flow's packets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/proto.h"
#include "core/netlist.h"
#include "engine/receiver_log.h"

/* A session being opened for a caller. */
struct itg__rx_log_wait {
  uv_work_t work;
  itg_receiver *r;
  itg__rx_log_ready done; /* NULL once the caller is gone */
  void *user;
  uint8_t peer_ip[16]; /* the sender's address */
  itg_logger_cfg lc;
  itg__rx_log *lg;
  int rc;
  char msg[ITG__CTL_TEXT_MAX]; /* why, when rc < 0 */
};

/* A session's last hold dropped: its logger being closed. */
typedef struct log_close {
  uv_work_t work;
  itg_receiver *r;
  itg__rx_log *lg;
  itg_logger_stats st;
  int rc;
  int has_ev;
  itg_flow_event ev;
  itg__rx_log_done done;
} log_close;

/* Joins dir and name into out[0..len). Returns 0, or -1 if it does not
 * fit. */
static int join_path(const char *dir, const char *name, char *out,
                     size_t len) {
  size_t dl = strlen(dir);
  int n = dl == 0 ? snprintf(out, len, "%s", name)
                  : snprintf(out, len, "%s%s%s", dir,
                             dir[dl - 1] == '/' ? "" : "/", name);
  return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Copies into ev what a flow's end tells of its remote log. */
static void note_counts(const itg__rx_log *lg, const itg_logger_stats *st,
                        itg_flow_event *ev) {
  ev->log_lost = st->lost;
  if (lg->server[0] == '\0')
    return;
  ev->log_spilled = st->spilled;
  ev->log_missing = st->missing;
  ev->log_unconfirmed = st->unconfirmed;
  if (st->spilled > 0)
    snprintf(ev->log_spill, sizeof ev->log_spill, "%s", lg->spill);
}

static void free_log(itg__rx_log *lg) {
  itg__idmap_free(&lg->ids);
  free(lg);
}

static void unlink_log(itg_receiver *r, itg__rx_log *lg) {
  itg__rx_log **pp;
  for (pp = &r->logs; *pp != NULL; pp = &(*pp)->next)
    if (*pp == lg) {
      *pp = lg->next;
      break;
    }
  if (r->default_log == lg)
    r->default_log = NULL;
}

void itg__rx_log_cfg(const itg_receiver *r, const char *path,
                     itg_logger_cfg *lc) {
  itg_logger_cfg_init(lc);
  lc->path = path;
  lc->role = ITG_LOG_ROLE_RECEIVER;
  lc->clock = ITG_LOG_CLOCK_KERNEL;
  lc->batch = r->cfg.log_batch;
  lc->on_error = r->cfg.on_log_error;
  lc->error_user = r->cfg.user;
}

/* ---- closing -------------------------------------------------------- */

static void close_work(uv_work_t *w) {
  log_close *k = w->data;
  k->rc = itg_logger_close_stats(k->lg->logger, &k->st);
}

/* The rest of a close whose result is rc and final counts st: the error
 * kept, done called with ev (if not NULL) and the log's counts, lg freed. */
static void closed(itg_receiver *r, itg__rx_log *lg, int rc,
                   const itg_logger_stats *st, const itg_flow_event *ev,
                   itg__rx_log_done done) {
  itg_flow_event e;
  itg__rx_log_error(r, rc);
  if (ev != NULL) {
    e = *ev;
    note_counts(lg, st, &e);
    done(r, &e);
  }
  free_log(lg);
}

static void on_closed(uv_work_t *w, int status) {
  log_close *k = w->data;
  (void)status;
  closed(k->r, k->lg, k->rc, &k->st, k->has_ev ? &k->ev : NULL, k->done);
  free(k);
}

/* Closes a log that no flow holds any more, then calls done with ev if ev
 * is not NULL. A session closes on the thread pool; a file here, as its
 * writer only has the disk to wait for. */
static void close_log(itg_receiver *r, itg__rx_log *lg,
                      const itg_flow_event *ev, itg__rx_log_done done) {
  itg_logger_stats st;
  log_close *k = lg->server[0] != '\0' ? calloc(1, sizeof *k) : NULL;
  if (k != NULL) {
    k->r = r;
    k->lg = lg;
    k->done = done;
    k->has_ev = ev != NULL;
    if (ev != NULL)
      k->ev = *ev;
    k->work.data = k;
    if (uv_queue_work(&r->loop, &k->work, close_work, on_closed) == 0)
      return;
    free(k);
  }
  memset(&st, 0, sizeof st);
  closed(r, lg, itg_logger_close_stats(lg->logger, &st), &st, ev, done);
}

void itg__rx_log_release(itg_receiver *r, itg__rx_log *lg,
                         const itg_flow_event *ev, itg__rx_log_done done) {
  itg_flow_event e;
  if (lg != NULL && --lg->refs == 0) {
    unlink_log(r, lg);
    close_log(r, lg, ev, done);
    return;
  }
  if (ev == NULL)
    return;
  e = *ev;
  if (lg != NULL) {
    itg_logger_stats st;
    itg_logger_get_stats(lg->logger, &st);
    note_counts(lg, &st, &e);
  }
  done(r, &e);
}

/* ---- opening -------------------------------------------------------- */

/* The open log with this path on this server ("": a file), or NULL. */
static itg__rx_log *find_log(itg_receiver *r, const char *path,
                             const char *server, uint16_t port,
                             itg_log_transport transport,
                             itg_log_server_kind kind) {
  itg__rx_log *lg;
  int remote = server[0] != '\0';
  /* The receiver's own log is never one a flow names, whatever the
   * spelling: a name that reaches its file gets a file of its own. */
  for (lg = r->logs; lg != NULL; lg = lg->next)
    if (lg != r->default_log && strcmp(lg->path, path) == 0 &&
        strcmp(lg->server, server) == 0 &&
        (!remote || (lg->server_port == port && lg->transport == transport &&
                     lg->kind == kind)))
      return lg;
  return NULL;
}

/* Whether logs may be shipped to a server at a for a sender at peer_ip:
 * loopback, the sender's own address, or cfg.log_servers. */
static int server_allowed(const itg_receiver *r, const itg__addr *a,
                          const uint8_t peer_ip[16]) {
  uint8_t ip[16];
  itg__net_ip_key((const struct sockaddr *)&a->ss, ip);
  return memcmp(ip, peer_ip, 16) == 0 ||
         itg__net_allowed((const struct sockaddr *)&a->ss, r->log_nets,
                          r->n_log_nets);
}

static void refused_server(const itg__rx_log *lg, char *msg, size_t msglen) {
  snprintf(msg, msglen, "this receiver ships logs only to loopback, the "
           "sender's own address and the networks of its --log-servers, "
           "not to %.100s (%s)", lg->server, lg->server_ip);
}

static void ship_failed(const itg__rx_log *lg, int rc, char *msg,
                        size_t msglen) {
  snprintf(msg, msglen, "cannot ship the receiver log to %.100s port %u: %s",
           lg->server, (unsigned)lg->server_port, itg_strerror(rc));
}

/* Resolves the server once, here (a name may take the resolver seconds),
 * checks it against the policy, and hands the logger the address itself:
 * a name resolved again could lead elsewhere. */
static void open_work(uv_work_t *w) {
  itg__rx_log_wait *o = w->data;
  itg__rx_log *lg = o->lg;
  const struct sockaddr *sa = (const struct sockaddr *)&lg->server_addr.ss;
  o->rc = itg__addr_resolve(lg->server, lg->server_port, 0, &lg->server_addr);
  if (o->rc < 0) {
    ship_failed(lg, o->rc, o->msg, sizeof o->msg);
    return;
  }
  if (sa->sa_family == AF_INET)
    uv_ip4_name((const struct sockaddr_in *)sa, lg->server_ip,
                sizeof lg->server_ip);
  else
    uv_ip6_name((const struct sockaddr_in6 *)sa, lg->server_ip,
                sizeof lg->server_ip);
  if (!server_allowed(o->r, &lg->server_addr, o->peer_ip)) {
    o->rc = ITG_EPERM;
    refused_server(lg, o->msg, sizeof o->msg);
    return;
  }
  o->lc.server_host = lg->server_ip;
  o->rc = itg_logger_new(&o->lc, &lg->logger);
  if (o->rc < 0)
    ship_failed(lg, o->rc, o->msg, sizeof o->msg);
}

/* The session is open (or failed): its caller is told, unless gone. */
static void on_opened(uv_work_t *w, int status) {
  itg__rx_log_wait *o = w->data;
  itg_receiver *r = o->r;
  itg__rx_log *lg = o->lg, *same;
  (void)status;
  if (o->rc < 0) {
    free_log(lg);
    lg = NULL;
  } else if (o->done == NULL) {
    close_log(r, lg, NULL, NULL);
  } else if ((same = find_log(r, lg->path, lg->server, lg->server_port,
                              lg->transport, lg->kind)) != NULL) {
    /* Another caller opened the same session meanwhile: this one joins
     * it, as it would have had it asked a moment later. */
    close_log(r, lg, NULL, NULL);
    lg = same;
    if (!server_allowed(r, &same->server_addr, o->peer_ip)) {
      o->rc = ITG_EPERM;
      refused_server(same, o->msg, sizeof o->msg);
      lg = NULL;
    }
  } else {
    itg_logger_stats st;
    itg_logger_get_stats(lg->logger, &st);
    lg->announce_unreachable = !st.connected;
    lg->next = r->logs;
    r->logs = lg;
  }
  if (o->done != NULL) {
    if (lg != NULL)
      lg->refs++;
    o->done(o->user, lg, o->rc < 0 ? o->rc : 0, o->msg);
  }
  free(o);
}

/* Starts opening the session that m asks for. Returns 0 with *out set, or
 * an ITG_E* code with a sentence in msg. */
static int start_open(itg_receiver *r, const uint8_t peer_ip[16],
                      const itg__ctl_msg *m, const char *path,
                      itg__rx_log_ready done, void *user,
                      itg__rx_log_wait **out, char *msg, size_t msglen) {
  const char *name = m->text;
  char file[ITG_PATH_MAX];
  itg__rx_log_wait *o = calloc(1, sizeof *o);
  itg__rx_log *lg = calloc(1, sizeof *lg);
  if (o == NULL || lg == NULL) {
    free(o);
    free(lg);
    snprintf(msg, msglen, "out of memory");
    return ITG_ENOMEM;
  }
  /* Each session spills to a file of its own: two sessions of one name
   * (other servers, or one after the other) must not share one. */
  snprintf(file, sizeof file, "%.400s.%d.%u" ITG__LP_SPILL_SUFFIX,
           name[0] != '\0' ? name : "itg-recv", (int)uv_os_getpid(),
           (unsigned)++r->spills);
  if (join_path(r->cfg.log_dir, file, lg->spill, sizeof lg->spill) != 0) {
    snprintf(msg, msglen, "the spill file of receiver log '%.200s' would have "
             "too long a name", name);
    free(o);
    free(lg);
    return ITG_EINVAL;
  }
  itg__idmap_init(&lg->ids);
  memcpy(lg->path, path, sizeof lg->path);
  snprintf(lg->server, sizeof lg->server, "%s", m->log_host);
  lg->server_port = m->log_port;
  lg->transport = (itg_log_transport)m->log_transport;
  lg->kind = (itg_log_server_kind)m->log_kind;
  o->r = r;
  o->done = done;
  o->user = user;
  memcpy(o->peer_ip, peer_ip, 16);
  o->lg = lg;
  itg__rx_log_cfg(r, lg->path, &o->lc);
  o->lc.capacity = ITG__RX_FLOW_LOG_CAP;
  o->lc.server_port = lg->server_port;
  o->lc.transport = lg->transport;
  o->lc.server_kind = lg->kind;
  o->lc.spill_path = lg->spill;
  o->work.data = o;
  if (uv_queue_work(&r->loop, &o->work, open_work, on_opened) != 0) {
    snprintf(msg, msglen, "cannot start the log session: out of resources");
    free_log(lg);
    free(o);
    return ITG_ENOMEM;
  }
  *out = o;
  return 0;
}

/* Creates the file under log_dir that a flow names: path, or path.1,
 * path.2, ... when the name is taken, never replacing or following what
 * is there (a peer chooses the name). */
static int open_file(itg_receiver *r, const char *path, itg__rx_log **out,
                     char *msg, size_t msglen) {
  itg_logger_cfg lc;
  itg__rx_log *lg = calloc(1, sizeof *lg);
  int rc;
  if (lg == NULL) {
    snprintf(msg, msglen, "out of memory");
    return ITG_ENOMEM;
  }
  itg__idmap_init(&lg->ids);
  itg__rx_log_cfg(r, path, &lc);
  lc.capacity = ITG__RX_FLOW_LOG_CAP;
  lc.create_new = 1;
  rc = itg_logger_new(&lc, &lg->logger);
  if (rc < 0) {
    snprintf(msg, msglen, "cannot create receiver log '%s': %s", path,
             rc == ITG_EBUSY ? "it and its numbered names all exist"
                             : itg_strerror(rc));
    free_log(lg);
    return rc;
  }
  memcpy(lg->path, path, sizeof lg->path);
  itg_logger_path(lg->logger, lg->file, sizeof lg->file);
  lg->refs = 1; /* the caller's */
  lg->next = r->logs;
  r->logs = lg;
  *out = lg;
  return 0;
}

/* Whether a log server's name holds only what a host name or address can
 * (it goes into messages, and from there to terminals). */
static int host_ok(const char *host) {
  for (; *host != '\0'; host++)
    if ((unsigned char)*host <= 0x20 || (unsigned char)*host >= 0x7f)
      return 0;
  return 1;
}

/* The file under log_dir that m names, or the name it asks of a log
 * server, into path[0..len). */
static int named_path(const itg_receiver *r, const itg__ctl_msg *m,
                      char *path, size_t len, char *msg, size_t msglen) {
  const char *name = m->text;
  if (name[0] != '\0' && !itg__lp_name_ok(name)) {
    char shown[64];
    size_t i;
    /* Shown to the receiver's user too: no control character reaches a
     * terminal. */
    snprintf(shown, sizeof shown, "%.63s", name);
    for (i = 0; shown[i] != '\0'; i++)
      if ((unsigned char)shown[i] < 0x20 || shown[i] == 0x7f)
        shown[i] = '?';
    snprintf(msg, msglen, "bad receiver log name '%s' (a plain file name of "
             "at most %u bytes, without '/', '\\', ':', '..', control "
             "characters or a leading '.')", shown,
             (unsigned)ITG__LP_NAME_MAX);
    return ITG_EINVAL;
  }
  if (m->log_host[0] != '\0' && !host_ok(m->log_host)) {
    snprintf(msg, msglen, "log server name refused: it holds spaces or "
             "control characters");
    return ITG_EINVAL;
  }
  if (m->log_host[0] != '\0')
    snprintf(path, len, "%s", name);
  else if (join_path(r->cfg.log_dir, name, path, len) != 0) {
    snprintf(msg, msglen, "receiver log name '%s' is too long", name);
    return ITG_EINVAL;
  }
  return 0;
}

int itg__rx_log_lookup(itg_receiver *r, const uint8_t peer_ip[16],
                       const itg__ctl_msg *m, char *path, itg__rx_log **out,
                       int *fresh, char *msg, size_t msglen) {
  itg__rx_log *lg;
  int rc;
  *out = NULL;
  *fresh = 0;
  if (m->text[0] == '\0' && m->log_host[0] == '\0') {
    *out = r->default_log;
    return 0;
  }
  rc = named_path(r, m, path, ITG_PATH_MAX, msg, msglen);
  if (rc < 0)
    return rc;
  lg = find_log(r, path, m->log_host, m->log_port,
                (itg_log_transport)m->log_transport,
                (itg_log_server_kind)m->log_kind);
  /* A session opened for one sender's own address is not another's. */
  if (lg != NULL && lg->server[0] != '\0' &&
      !server_allowed(r, &lg->server_addr, peer_ip)) {
    refused_server(lg, msg, msglen);
    return ITG_EPERM;
  }
  *out = lg;
  *fresh = lg == NULL;
  return 0;
}

itg__rx_log_wait *itg__rx_log_acquire(itg_receiver *r,
                                      const uint8_t peer_ip[16],
                                      const itg__ctl_msg *m, const char *path,
                                      itg__rx_log_ready done, void *user) {
  char msg[ITG__CTL_TEXT_MAX];
  itg__rx_log_wait *w = NULL;
  itg__rx_log *lg = NULL;
  int rc;
  if (m->log_host[0] != '\0')
    rc = start_open(r, peer_ip, m, path, done, user, &w, msg, sizeof msg);
  else
    rc = open_file(r, path, &lg, msg, sizeof msg);
  if (rc < 0)
    done(user, NULL, rc, msg);
  else if (w == NULL)
    done(user, lg, 0, "");
  return w;
}

void itg__rx_log_cancel(itg__rx_log_wait *w) {
  if (w != NULL)
    w->done = NULL;
}

void itg__rx_log_hold(itg__rx_log *lg) {
  if (lg != NULL)
    lg->refs++;
}

int itg__rx_log_announce_unreachable(itg__rx_log *lg) {
  if (lg == NULL || !lg->announce_unreachable)
    return 0;
  lg->announce_unreachable = 0;
  return 1;
}
