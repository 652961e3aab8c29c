/* The receiver's logs: files under log_dir, and sessions with log servers.
 * Opening a session waits for the server's answer and closing one waits
 * for its last records to be taken, each up to seconds when the server is
 * slow or gone; both run on libuv's thread pool, because the loop thread
 * they would otherwise hold up reads every other flow's packets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/receiver_internal.h"

/* A session being opened for the FLOW_OPEN of a signaling connection. */
struct itg__rx_log_open {
  uv_work_t work;
  itg_receiver *r;
  itg__rx_conn *c; /* NULL once the connection is gone */
  itg__ctl_msg m;  /* the FLOW_OPEN, handled again once the log is open */
  itg_logger_cfg lc;
  itg__rx_log *lg;
  int rc;
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

/* A -x name is a plain file name: it may not climb out of log_dir. */
static int log_name_ok(const char *name) {
  return name[0] != '\0' && strchr(name, '/') == NULL &&
         strchr(name, '\\') == NULL && strstr(name, "..") == NULL;
}

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

/* The open log with this path on this server (or file), or NULL. */
static itg__rx_log *find_log(itg_receiver *r, const char *path,
                             const itg__ctl_msg *m) {
  itg__rx_log *lg;
  int remote = m->log_host[0] != '\0';
  for (lg = r->logs; lg != NULL; lg = lg->next)
    if (strcmp(lg->path, path) == 0 && strcmp(lg->server, m->log_host) == 0 &&
        (!remote || (lg->server_port == m->log_port &&
                     lg->transport == (itg_log_transport)m->log_transport)))
      return lg;
  return NULL;
}

/* Whether lg is still among the open logs (a refused flow's release may
 * have closed it). */
static int listed(const itg_receiver *r, const itg__rx_log *lg) {
  const itg__rx_log *l;
  for (l = r->logs; l != NULL; l = l->next)
    if (l == lg)
      return 1;
  return 0;
}

static void open_work(uv_work_t *w) {
  itg__rx_log_open *o = w->data;
  o->rc = itg_logger_new(&o->lc, &o->lg->logger);
}

static void on_opened(uv_work_t *w, int status) {
  itg__rx_log_open *o = w->data;
  itg_receiver *r = o->r;
  itg__rx_log *lg = o->lg, *same;
  itg__rx_conn *c = o->c;
  (void)status;
  if (c != NULL)
    c->opening = NULL;
  if (o->rc < 0) {
    char msg[ITG__CTL_TEXT_MAX];
    snprintf(msg, sizeof msg, "cannot ship the receiver log to %s port %u: %s",
             o->m.log_host, (unsigned)o->m.log_port, itg_strerror(o->rc));
    if (c != NULL)
      itg__rx_conn_refuse(c, &o->m, o->rc, msg);
    free_log(lg);
    free(o);
    return;
  }
  same = find_log(r, lg->path, &o->m);
  if (c == NULL || r->stop_asked || same != NULL) {
    /* Nobody waits for this session any more, or another connection
     * opened the same one meanwhile, which the flow then joins. */
    close_log(r, lg, NULL, NULL);
  } else {
    itg_logger_stats st;
    itg_logger_get_stats(lg->logger, &st);
    lg->announce_unreachable = !st.connected;
    lg->next = r->logs;
    r->logs = lg;
  }
  if (c != NULL && !r->stop_asked) {
    itg__rx_conn_flow_open(c, &o->m);
    if (same == NULL && listed(r, lg) && lg->refs == 0) {
      /* The flow was refused before it took the log. */
      unlink_log(r, lg);
      close_log(r, lg, NULL, NULL);
    }
  }
  free(o);
}

/* Starts opening the session that m asks for, for connection c. Returns
 * ITG__RX_LOG_OPENING, or an ITG_E* code with a sentence in msg. */
static int start_open(itg_receiver *r, itg__rx_conn *c, const itg__ctl_msg *m,
                      const char *path, char *msg, size_t msglen) {
  const char *name = m->text;
  char file[ITG_PATH_MAX];
  itg__rx_log_open *o = calloc(1, sizeof *o);
  itg__rx_log *lg = calloc(1, sizeof *lg);
  if (o == NULL || lg == NULL) {
    free(o);
    free(lg);
    snprintf(msg, msglen, "out of memory");
    return ITG_ENOMEM;
  }
  /* Each session spills to a file of its own: two sessions of one name
   * (other servers, or one after the other) must not share one. */
  snprintf(file, sizeof file, "%.400s.%d.%u.spill",
           name[0] != '\0' ? name : "itg-recv", (int)uv_os_getpid(),
           (unsigned)++r->spills);
  if (join_path(r->cfg.log_dir, file, lg->spill, sizeof lg->spill) != 0) {
    snprintf(msg, msglen, "the spill file of receiver log '%s' would have "
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
  o->r = r;
  o->c = c;
  o->m = *m;
  o->lg = lg;
  itg__rx_log_cfg(r, lg->path, &o->lc);
  o->lc.capacity = ITG__RX_FLOW_LOG_CAP;
  o->lc.server_host = lg->server;
  o->lc.server_port = lg->server_port;
  o->lc.transport = lg->transport;
  o->lc.spill_path = lg->spill;
  o->work.data = o;
  if (uv_queue_work(&r->loop, &o->work, open_work, on_opened) != 0) {
    snprintf(msg, msglen, "cannot start the log session: out of resources");
    free_log(lg);
    free(o);
    return ITG_ENOMEM;
  }
  c->opening = o;
  return ITG__RX_LOG_OPENING;
}

/* Opens the file under log_dir that m names. */
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
  rc = itg_logger_new(&lc, &lg->logger);
  if (rc < 0) {
    snprintf(msg, msglen, "cannot open receiver log '%s': %s", path,
             itg_strerror(rc));
    free_log(lg);
    return rc;
  }
  memcpy(lg->path, path, sizeof lg->path);
  lg->next = r->logs;
  r->logs = lg;
  *out = lg;
  return 0;
}

int itg__rx_log_acquire(itg_receiver *r, itg__rx_conn *c,
                        const itg__ctl_msg *m, itg__rx_log **out,
                        int *unreachable, char *msg, size_t msglen) {
  char path[ITG_PATH_MAX];
  const char *name = m->text;
  int remote = m->log_host[0] != '\0';
  itg__rx_log *lg;
  int rc;
  *unreachable = 0;
  *out = NULL;
  if (name[0] == '\0' && !remote) {
    lg = r->default_log;
    goto out_hold;
  }
  if (name[0] != '\0' && !log_name_ok(name)) {
    snprintf(msg, msglen, "bad receiver log name '%s' (a plain file name, "
             "without '/' or '..')", name);
    return ITG_EINVAL;
  }
  if (remote) {
    snprintf(path, sizeof path, "%s", name); /* both ITG_PATH_MAX long */
  } else if (join_path(r->cfg.log_dir, name, path, sizeof path) != 0) {
    snprintf(msg, msglen, "receiver log name '%s' is too long", name);
    return ITG_EINVAL;
  }
  lg = find_log(r, path, m);
  if (lg == NULL && remote)
    return start_open(r, c, m, path, msg, msglen);
  if (lg == NULL) {
    rc = open_file(r, path, &lg, msg, msglen);
    if (rc < 0)
      return rc;
  }
  if (lg->announce_unreachable) {
    *unreachable = 1;
    lg->announce_unreachable = 0;
  }
out_hold:
  if (lg != NULL)
    lg->refs++;
  *out = lg;
  return 0;
}

void itg__rx_log_abandon(itg__rx_conn *c) {
  if (c->opening != NULL)
    c->opening->c = NULL;
  c->opening = NULL;
}
