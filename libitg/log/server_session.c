/* The log server's clients: frames in, sessions and their files, gap
 * accounting for UDP batches (see itg/logserver.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/logfile.h"
#include "core/mix.h"
#include "log/ditg_proto.h"
#include "log/server_internal.h"
#include "platform/platform.h"

/* A frame on its way to a client. */
typedef struct out_msg {
  uv_write_t req;
  itg__ls_client *c;
  int close_after; /* a refusal: the connection ends once it is sent */
  uint8_t buf[ITG__LP_HDR_LEN + 32 + ITG__LP_NAME_MAX];
} out_msg;

static void on_handle_closed(uv_handle_t *h) {
  itg__ls_client *c = h->data;
  if (--c->handles == 0)
    free(c);
}

static void on_written(uv_write_t *req, int status) {
  out_msg *m = req->data;
  itg__ls_client *c = m->c;
  int close_after = m->close_after;
  free(m);
  if (status == UV_ECANCELED)
    return;
  if (status < 0 || close_after)
    itg__ls_client_close(c);
}

/* Queues a message to the client. */
static void send_msg(itg__ls_client *c, const itg__lp_msg *msg, int close_after) {
  out_msg *m;
  uv_buf_t b;
  int n;
  if (c->closing)
    return;
  m = malloc(sizeof *m);
  if (m == NULL) {
    itg__ls_client_close(c);
    return;
  }
  n = itg__lp_encode(msg, NULL, m->buf, sizeof m->buf);
  m->req.data = m;
  m->c = c;
  m->close_after = close_after;
  b = uv_buf_init((char *)m->buf, n > 0 ? (unsigned)n : 0);
  if (n <= 0 || uv_write(&m->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
    free(m);
    itg__ls_client_close(c);
  }
}

static void event_init(const itg__ls_client *c, itg_log_session_kind kind,
                       itg_log_session_event *ev) {
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->session = c->session;
  ev->transport = c->transport == ITG__LP_UDP ? ITG_LOG_UDP : ITG_LOG_TCP;
  ev->role = c->role;
  memcpy(ev->peer, c->peer, sizeof ev->peer);
  memcpy(ev->host, c->host, sizeof ev->host);
  memcpy(ev->file, c->file, sizeof ev->file);
}

/* Removes the session's file. */
static void remove_file(itg__ls_client *c) {
  uv_fs_t req;
  uv_fs_unlink(NULL, &req, c->path, NULL);
  uv_fs_req_cleanup(&req);
}

/* Ends the open session: flushed and closed; renamed NAME.incomplete when
 * its client did not leave, removed when a write error left it without a
 * record. */
static void end_session(itg__ls_client *c, int complete) {
  itg_logserver *s = c->srv;
  itg_log_session_event ev;
  if (!c->registered)
    return;
  c->registered = 0;
  uv_timer_stop(&c->linger);
  itg_logwriter_close(c->w);
  c->w = NULL;
  if (!complete && c->write_error != 0 && c->written + c->gaps == 0) {
    remove_file(c);
    c->file[0] = '\0';
  } else if (!complete) {
    itg__log_mark_incomplete(c->path, c->file, sizeof c->file);
  }
  if (!complete)
    atomic_fetch_add(&s->n_incomplete, 1);
  atomic_fetch_sub(&s->n_open, 1);
  event_init(c, ITG_LOG_SESSION_CLOSED, &ev);
  ev.records = c->written;
  ev.missing = c->missing;
  ev.complete = complete;
  ev.status = c->write_error;
  if (c->write_error != 0)
    snprintf(ev.message, sizeof ev.message, "cannot write the file: %s",
             itg_strerror(c->write_error));
  itg__ls_event(s, &ev);
}

void itg__ls_client_close(itg__ls_client *c) {
  itg_logserver *s = c->srv;
  if (c->closing)
    return;
  itg__ls_ditg_end(c);
  end_session(c, 0);
  c->closing = 1;
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    s->clients = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  s->nclients--;
  uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&c->linger, on_handle_closed);
}

static void on_drained(uv_timer_t *t) { itg__ls_client_close(t->data); }

static void on_shutdown(uv_shutdown_t *req, int status) {
  (void)req;
  (void)status;
}

/* The session's file cannot be written (err): it ends, incomplete,
 * holding the records the writer got out whole, and only those are
 * counted. Over TCP they are acknowledged, so the client keeps exactly the
 * others (to spill them): none in both places, none in neither. The
 * acknowledgement is followed by an orderly close (shutdown), and what
 * the client still sends is read and dropped until it closes: closing
 * with data unread would reset the connection, and a reset can discard
 * the acknowledgement before the client reads it. */
static void write_failed(itg__ls_client *c, int err) {
  uint64_t whole = itg_logwriter_written(c->w), was = c->written;
  /* The failed write may have put out some of the batch it was given. */
  c->written = whole > c->gaps ? whole - c->gaps : 0;
  if (c->written >= was)
    atomic_fetch_add(&c->srv->n_records, c->written - was);
  else
    atomic_fetch_sub(&c->srv->n_records, was - c->written);
  c->write_error = err;
  end_session(c, 0);
  if (c->transport == ITG__LP_TCP && c->written > c->acked) {
    itg__lp_msg ack;
    itg__lp_init(&ack, ITG__LP_ACK);
    ack.seq = c->written;
    c->acked = c->written;
    send_msg(c, &ack, 0);
  }
  c->draining = 1;
  if (c->closing)
    return;
  if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
    itg__ls_client_close(c);
    return;
  }
  uv_timer_start(&c->linger, on_drained, ITG__LS_DRAIN_MS, 0);
}

/* Writes records (and keeps the counters); a failed disk ends the session
 * (write_failed). */
static int put_records(itg__ls_client *c, const itg_logrec *recs, size_t n) {
  int rc = itg_logwriter_write(c->w, recs, n);
  if (rc != 0) {
    write_failed(c, rc);
    return -1;
  }
  c->dirty = 1;
  return 0;
}

/* Records `n` missing records as a gap record. */
static int put_gap(itg__ls_client *c, uint64_t n) {
  itg_logrec g;
  memset(&g, 0, sizeof g);
  g.flow_id = c->gap_flow;
  g.flags = ITG_REC_GAP;
  g.seq = n;
  g.tx_ns = itg__real_ns();
  c->missing += n;
  atomic_fetch_add(&c->srv->n_missing, n);
  if (put_records(c, &g, 1) < 0)
    return -1;
  c->gaps++;
  return 0;
}

/* Decodes and writes a batch that starts at offset seq. */
static int take_batch(itg__ls_client *c, const uint8_t *p, size_t n) {
  itg_logrec *recs = c->srv->recs;
  size_t i;
  for (i = 0; i < n; i++)
    if (itg_logrec_decode(p + i * ITG_LOG_RECORD_LEN, &recs[i]) != 0) {
      itg__ls_client_close(c);
      return -1;
    }
  if (put_records(c, recs, n) < 0)
    return -1;
  c->next_seq += n;
  c->written += n;
  atomic_fetch_add(&c->srv->n_records, n);
  return 0;
}

/* Creates DIR/NAME, or DIR/NAME.k for the first k that does not exist
 * (itg__logwriter_create: nothing that exists is replaced or followed). */
static int open_file(itg__ls_client *c, const char *name) {
  itg_logserver *s = c->srv;
  const char *dir = s->cfg.dir[0] != '\0' ? s->cfg.dir : ".";
  char base[sizeof c->path];
  itg_log_hdr hdr;
  int n, rc;
  memset(&hdr, 0, sizeof hdr);
  hdr.version = ITG_LOG_VERSION;
  hdr.role = c->role;
  hdr.clock = c->role == ITG_LOG_ROLE_RECEIVER ? ITG_LOG_CLOCK_KERNEL
                                              : ITG_LOG_CLOCK_REALTIME;
  hdr.created_ns = itg__real_ns();
  memcpy(hdr.host, c->host, sizeof hdr.host);
  n = snprintf(base, sizeof base, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= sizeof base)
    return ITG_ERANGE;
  rc = itg__logwriter_create(base, &hdr, c->path, sizeof c->path, &c->w);
  if (rc == 0)
    snprintf(c->file, sizeof c->file, "%s%s", name, c->path + n);
  return rc;
}

/* Turns a client's host name into something safe in a file name. */
static void safe_host(const char *host, char *out, size_t len) {
  size_t i;
  snprintf(out, len, "%s", host[0] != '\0' ? host : "client");
  for (i = 0; out[i] != '\0'; i++) {
    char ch = out[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
          (ch >= '0' && ch <= '9') || ch == '-' || ch == '_'))
      out[i] = '_';
  }
}

/* Constant-time comparison, so a token cannot be guessed byte by byte. */
static int token_ok(const char *want, const char *got) {
  size_t a = strlen(want), b = strlen(got), i;
  unsigned diff = (unsigned)(a ^ b);
  for (i = 0; i < a; i++)
    diff |= (unsigned)(want[i] ^ (i < b ? got[i] : 0));
  return diff == 0;
}

static void refuse(itg__ls_client *c, int status, const char *why) {
  itg_log_session_event ev;
  itg__lp_msg m;
  itg__lp_init(&m, ITG__LP_REGISTER_ACK);
  m.status = status;
  snprintf(m.name, sizeof m.name, "%s", why);
  event_init(c, ITG_LOG_SESSION_REFUSED, &ev);
  ev.status = status;
  snprintf(ev.message, sizeof ev.message, "%s", why);
  atomic_fetch_add(&c->srv->n_refused, 1);
  itg__ls_event(c->srv, &ev);
  send_msg(c, &m, 1);
}

/* Session keys no other client can guess from its own. */
static uint32_t next_key(itg_logserver *s) {
  return (uint32_t)itg__splitmix64(&s->key_state);
}

static void on_register(itg__ls_client *c, const itg__lp_msg *m) {
  itg_logserver *s = c->srv;
  itg_log_session_event ev;
  itg__lp_msg ack;
  char name[ITG__LP_NAME_MAX + 1];
  int rc;
  if (s->cfg.token[0] != '\0' && !token_ok(s->cfg.token, m->token)) {
    refuse(c, ITG_EPERM, "wrong token");
    return;
  }
  if (m->name[0] != '\0' && !itg__lp_name_ok(m->name)) {
    refuse(c, ITG_EINVAL, "log name refused (it could leave the directory)");
    return;
  }
  c->transport = m->transport;
  c->role = m->role;
  c->gap_flow = m->nflows > 0 ? m->flows[0] : 0;
  memcpy(c->host, m->host, sizeof c->host);
  c->session = s->next_session++;
  c->key = next_key(s);
  if (m->name[0] != '\0') {
    memcpy(name, m->name, sizeof name);
  } else {
    char host[32];
    safe_host(c->host, host, sizeof host);
    snprintf(name, sizeof name, "%s-%s-%u.itglog", host,
             c->role == ITG_LOG_ROLE_RECEIVER ? "receiver" : "sender",
             (unsigned)c->session);
  }
  rc = open_file(c, name);
  if (rc < 0) {
    char why[96];
    snprintf(why, sizeof why, "cannot create the log file: %s",
             itg_strerror(rc));
    refuse(c, rc, why);
    return;
  }
  c->registered = 1;
  atomic_fetch_add(&s->n_open, 1);
  atomic_fetch_add(&s->n_total, 1);
  itg__lp_init(&ack, ITG__LP_REGISTER_ACK);
  ack.session = c->session;
  ack.key = c->key;
  ack.udp_port = c->transport == ITG__LP_UDP ? s->udp_port : 0;
  memcpy(ack.name, c->file, sizeof ack.name);
  send_msg(c, &ack, 0);
  event_init(c, ITG_LOG_SESSION_OPENED, &ev);
  itg__ls_event(s, &ev);
}

/* The client left and every record it shipped is in (or counted lost). */
static void finish_leave(itg__ls_client *c) {
  itg__lp_msg m;
  if (c->leave_total > c->next_seq &&
      put_gap(c, c->leave_total - c->next_seq) < 0)
    return;
  itg__lp_init(&m, ITG__LP_LEAVE_ACK);
  m.seq = c->written;
  m.missing = c->missing;
  end_session(c, 1);
  send_msg(c, &m, 0);
}

static void on_linger(uv_timer_t *t) { finish_leave(t->data); }

/* Handles one frame. Returns 0, or -1 once the client is closed. */
static int on_frame(itg__ls_client *c, const itg__lp_msg *m) {
  if (m->type == ITG__LP_REGISTER && !c->registered && c->session == 0) {
    on_register(c, m);
    return c->closing ? -1 : 0;
  }
  if (!c->registered) {
    itg__ls_client_close(c);
    return -1;
  }
  if (m->type == ITG__LP_BATCH && c->transport == ITG__LP_TCP &&
      m->seq == c->next_seq)
    return take_batch(c, m->recs, m->nrecs);
  if (m->type == ITG__LP_LEAVE && !c->leave_asked) {
    c->leave_asked = 1;
    c->leave_total = m->seq;
    if (c->transport == ITG__LP_TCP || c->next_seq >= c->leave_total)
      finish_leave(c);
    else
      uv_timer_start(&c->linger, on_linger, ITG__LS_LINGER_MS, 0);
    return 0;
  }
  itg__ls_client_close(c);
  return -1;
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg__ls_client *c = h->data;
  size_t room;
  uint8_t *p = itg__frame_reader_space(&c->rd, c->rbuf, sizeof c->rbuf, &room);
  (void)hint;
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

static void on_read(uv_stream_t *h, ssize_t n, const uv_buf_t *buf) {
  itg__ls_client *c = h->data;
  (void)buf;
  if (n == 0 || c->closing)
    return;
  if (n < 0) {
    itg__ls_client_close(c);
    return;
  }
  if (c->draining)
    return; /* dropped: on_alloc hands out the same room again */
  itg__frame_reader_commit(&c->rd, (size_t)n);
  if (!c->spoke) {
    const uint8_t *first = c->rbuf + c->rd.start;
    size_t held = c->rd.len - c->rd.start;
    int ditg = itg__dlp_sniff(first, held);
    if (ditg == ITG_ETRUNC)
      return;
    c->spoke = 1;
    uv_timer_stop(&c->linger);
    if (ditg) {
      itg__ls_ditg_start(c, first, held);
      return;
    }
  }
  for (;;) {
    itg__lp_msg m;
    int rc = itg__lp_next(&c->rd, c->rbuf, sizeof c->rbuf, &m);
    if (rc == 0)
      break;
    if (rc < 0) {
      itg__ls_client_close(c);
      return;
    }
    if (on_frame(c, &m) < 0)
      return;
  }
  /* What was read is handed to the OS before it is acknowledged, so a
   * client keeps whatever a crash of this process could lose. */
  if (c->registered && c->transport == ITG__LP_TCP && c->next_seq > c->acked) {
    itg__lp_msg ack;
    int rc = itg_logwriter_flush(c->w);
    if (rc != 0) {
      write_failed(c, rc);
      return;
    }
    c->dirty = 0;
    c->acked = c->next_seq;
    itg__lp_init(&ack, ITG__LP_ACK);
    ack.seq = c->acked;
    send_msg(c, &ack, 0);
  }
}

/* The client has said nothing: it may be D-ITG's, waiting to be greeted
 * (log/ditg_proto.h). */
static void on_greet(uv_timer_t *t) {
  itg__ls_client *c = t->data;
  static const char hello = (char)ITG__DLP_CONNECT;
  uv_buf_t b = uv_buf_init((char *)&hello, 1);
  if (c->spoke || c->closing)
    return;
  /* The first byte on a connection that has sent nothing: the socket
   * takes it at once. */
  if (uv_try_write((uv_stream_t *)&c->tcp, &b, 1) != 1)
    itg__ls_client_close(c);
}

void itg__ls_client_start(itg_logserver *s, itg__ls_client *c) {
  s->close_client = itg__ls_client_close;
  c->srv = s;
  c->tcp.data = c;
  uv_timer_init(&s->loop, &c->linger);
  c->linger.data = c;
  c->handles = 2;
  c->next = s->clients;
  if (s->clients != NULL)
    s->clients->prev = c;
  s->clients = c;
  s->nclients++;
  uv_tcp_nodelay(&c->tcp, 1);
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) {
    itg__ls_client_close(c);
    return;
  }
  uv_timer_start(&c->linger, on_greet, ITG__LS_GREET_MS, 0);
}

void itg__ls_udp_batch(itg_logserver *s, const uint8_t *buf, size_t len) {
  uint32_t session, key;
  uint64_t seq;
  itg__ls_client *c;
  int n = itg__lp_dgram_decode(buf, len, &session, &key, &seq);
  if (n < 0)
    return;
  for (c = s->clients; c != NULL; c = c->next)
    if (c->session == session)
      break;
  if (c == NULL || !c->registered || c->transport != ITG__LP_UDP ||
      c->key != key || seq < c->next_seq)
    return;
  if (seq > c->next_seq) {
    if (put_gap(c, seq - c->next_seq) < 0)
      return;
    c->next_seq = seq;
  }
  if (take_batch(c, buf + ITG__LP_UDP_HDR, (size_t)n) < 0)
    return;
  if (c->leave_asked) {
    if (c->next_seq >= c->leave_total)
      finish_leave(c);
    else
      uv_timer_start(&c->linger, on_linger, ITG__LS_LINGER_MS, 0);
  }
}

void itg__ls_flush_all(itg_logserver *s) {
  itg__ls_client *c, *next;
  for (c = s->clients; c != NULL; c = next) {
    next = c->next;
    if (c->ditg != NULL)
      itg__ls_ditg_flush(c);
    if (c->registered && c->dirty) {
      int rc = itg_logwriter_flush(c->w);
      c->dirty = 0;
      if (rc != 0)
        write_failed(c, rc);
    }
  }
}
