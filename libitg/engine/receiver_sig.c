/* The receiver's signaling: the listening port, one connection per flow,
 * and the conversation of control.h on each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/receiver_internal.h"

/* A reply on its way, with its bytes. */
typedef struct conn_write {
  uv_write_t req;
  uint8_t frame[ITG__CTL_MAX_FRAME];
} conn_write;

static void on_write_done(uv_write_t *req, int status) {
  (void)status; /* a failed reply shows up as a read error on the conn */
  free(req->data);
}

void itg__rx_conn_send(itg__rx_conn *c, const itg__ctl_msg *m) {
  conn_write *w;
  uv_buf_t b;
  int len;
  if (c->closing)
    return;
  w = malloc(sizeof *w);
  if (w == NULL)
    return;
  len = itg__ctl_encode(m, w->frame, sizeof w->frame);
  if (len < 0) {
    free(w);
    return;
  }
  w->req.data = w;
  b = uv_buf_init((char *)w->frame, (unsigned)len);
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write_done) != 0)
    free(w);
}

static void on_conn_closed(uv_handle_t *h) { free(h->data); }

/* The replies queued before a graceful close have gone: close. */
static void on_conn_shutdown(uv_shutdown_t *req, int status) {
  itg__rx_conn *c = req->data;
  (void)status;
  free(req);
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

void itg__rx_conn_close(itg__rx_conn *c, int graceful) {
  itg_receiver *r = c->r;
  itg__rx_flow *f = c->flow;
  uv_shutdown_t *req;
  if (c->closing)
    return;
  if (f != NULL && !graceful) {
    itg__rx_flow_orphan(f);
  } else if (f != NULL) {
    if (f->proto == ITG_PROTO_UDP)
      itg__rx_udp_drain(f->sock);
    itg__rx_flow_end(f);
  }
  c->closing = 1;
  c->flow = NULL;
  itg__rx_log_abandon(c);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    r->conn_list = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  else
    r->conn_tail = c->prev;
  r->fds--;
  c->from->conns--;
  itg__rx_peer_release(r, c->from);
  itg__rx_count(r, -1, 0);
  uv_read_stop((uv_stream_t *)&c->tcp);
  req = graceful ? malloc(sizeof *req) : NULL;
  if (req != NULL) {
    req->data = c;
    if (uv_shutdown(req, (uv_stream_t *)&c->tcp, on_conn_shutdown) == 0)
      return;
    free(req);
  }
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* Tells the sender what went wrong and ends the connection. */
static void protocol_error(itg__rx_conn *c, int code, const char *text) {
  itg__ctl_msg m;
  itg__ctl_init(&m, ITG__CTL_ERROR);
  m.status = code;
  snprintf(m.text, sizeof m.text, "%s", text);
  itg__rx_conn_send(c, &m);
  itg__rx_conn_close(c, 1);
}

/* HELLO: answers with our version; a sender older than it is turned
 * away. */
static void on_hello(itg__rx_conn *c, const itg__ctl_msg *m) {
  itg__ctl_msg a;
  itg__ctl_init(&a, ITG__CTL_HELLO_ACK);
  a.version = ITG__CTL_VERSION;
  snprintf(a.text, sizeof a.text, "libitg %s", itg_version_string());
  if (m->version < ITG__CTL_VERSION) {
    a.status = ITG_EVERSION;
    itg__rx_conn_send(c, &a);
    itg__rx_conn_close(c, 1);
    return;
  }
  c->hello_done = 1;
  itg__rx_conn_send(c, &a);
}

void itg__rx_conn_refuse(itg__rx_conn *c, const itg__ctl_msg *m, int rc,
                         const char *msg) {
  itg_receiver *r = c->r;
  itg__ctl_msg a;
  itg_flow_event ev;
  itg__ctl_init(&a, ITG__CTL_FLOW_OPEN_ACK);
  a.status = rc;
  a.flow_id = m->flow_id;
  snprintf(a.text, sizeof a.text, "%s", msg);
  itg__rx_conn_send(c, &a);
  atomic_fetch_add(&r->n_refused, 1);
  memset(&ev, 0, sizeof ev);
  ev.kind = ITG_FLOW_REFUSED;
  ev.flow_id = m->flow_id;
  ev.proto = (itg_proto)m->proto;
  ev.meter = (itg_meter)m->meter;
  ev.port = m->port;
  snprintf(ev.peer, sizeof ev.peer, "%s", c->peer);
  ev.status = rc;
  snprintf(ev.message, sizeof ev.message, "%.*s",
           (int)sizeof ev.message - 1, msg);
  itg__rx_event(r, &ev);
}

void itg__rx_conn_flow_open(itg__rx_conn *c, const itg__ctl_msg *m) {
  itg__rx_flow *f = NULL;
  itg__ctl_msg a;
  int rc;
  itg__ctl_init(&a, ITG__CTL_FLOW_OPEN_ACK);
  rc = itg__rx_flow_open(c->r, c, m, &f, a.text, sizeof a.text);
  if (rc == ITG__RX_LOG_OPENING)
    return;
  if (rc < 0) {
    itg__rx_conn_refuse(c, m, rc, a.text);
    return;
  }
  c->flow = f;
  c->deadline = 0;
  a.flow_id = f->id;
  a.port = f->port;
  a.token = f->token;
  itg__rx_conn_send(c, &a);
}

/* Acts on one message; may close the connection. */
static void on_message(itg__rx_conn *c, const itg__ctl_msg *m) {
  if (!c->hello_done) {
    if (m->type == ITG__CTL_HELLO)
      on_hello(c, m);
    else
      protocol_error(c, ITG_EPROTO, "expected HELLO first");
    return;
  }
  switch (m->type) {
  case ITG__CTL_FLOW_OPEN:
    if (c->flow != NULL || c->opening != NULL)
      protocol_error(c, ITG_EPROTO, "one flow per signaling connection");
    else
      itg__rx_conn_flow_open(c, m);
    return;
  case ITG__CTL_FLOW_CLOSE:
    if (c->flow == NULL || c->flow->closing)
      protocol_error(c, ITG_EPROTO, "FLOW_CLOSE without an open flow");
    else
      itg__rx_flow_closing(c->flow, m->packets);
    return;
  case ITG__CTL_ERROR:
    itg__rx_conn_close(c, 1);
    return;
  default:
    protocol_error(c, ITG_EPROTO, "unexpected message");
    return;
  }
}

static void on_conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  itg__rx_conn *c = h->data;
  size_t room;
  uint8_t *p = itg__ctl_reader_space(&c->rd, &room);
  (void)suggested;
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

/* Bytes from a sender: every whole message is acted on; a malformed one
 * ends this connection (and its flow) only. */
static void on_conn_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  itg__rx_conn *c = s->data;
  itg_receiver *r = c->r;
  itg__ctl_msg m;
  int rc = 0;
  (void)buf;
  if (nread < 0) {
    itg__rx_conn_close(c, 0);
    itg__rx_run_pending(r);
    return;
  }
  c->active = uv_now(&r->loop);
  itg__ctl_reader_commit(&c->rd, (size_t)nread);
  while (!c->closing && (rc = itg__ctl_reader_next(&c->rd, &m)) == 1)
    on_message(c, &m);
  if (!c->closing && rc < 0)
    protocol_error(c, rc, rc == ITG_EVERSION
                              ? "unsupported signaling protocol version"
                              : "malformed signaling message");
  itg__rx_run_pending(r);
}

void itg__rx_conn_sweep(itg_receiver *r, uint64_t now) {
  itg__rx_conn *c, *next;
  for (c = r->conn_list; c != NULL; c = next) {
    next = c->next;
    if (c->flow != NULL && c->flow->packets != c->seen) {
      c->seen = c->flow->packets;
      c->active = now;
    }
    if (c->deadline != 0 && now >= c->deadline) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      protocol_error(c, ITG_ETIMEDOUT, "no flow opened in time");
    } else if (r->cfg.idle_ms != 0 && now - c->active >= r->cfg.idle_ms) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      protocol_error(c, ITG_ETIMEDOUT, "idle for too long");
    }
  }
}

/* A sender connects to the signaling port. It has handshake_ms to open
 * its flow; an address with max_peer_conns connections already is turned
 * away with a reason. */
static void on_connection(uv_stream_t *server, int status) {
  itg_receiver *r = server->data;
  itg__rx_conn *c;
  itg__addr peer;
  int len = (int)sizeof peer.ss;
  int over;
  if (status < 0 || r->stop_asked)
    return;
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return;
  c->r = r;
  uv_tcp_init(&r->loop, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 ||
      uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer.ss, &len) != 0) {
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
    return;
  }
  peer.len = (socklen_t)len;
  itg__net_ip_key((const struct sockaddr *)&peer.ss, c->ip);
  c->from = itg__rx_peer_hold(r, c->ip);
  /* One over its address's limit is told so only if a descriptor is
   * free: it never takes another sender's place. */
  over = c->from != NULL && c->from->conns >= r->cfg.max_peer_conns;
  if (c->from == NULL || !itg__rx_fd_admit(r, !over)) {
    itg__rx_peer_release(r, c->from);
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
    return;
  }
  c->from->conns++;
  itg__addr_format(&peer, c->peer, sizeof c->peer);
  uv_tcp_nodelay(&c->tcp, 1);
  c->active = uv_now(&r->loop);
  c->deadline = c->active + r->cfg.handshake_ms;
  c->prev = r->conn_tail;
  if (c->prev != NULL)
    c->prev->next = c;
  else
    r->conn_list = c;
  r->conn_tail = c;
  itg__rx_count(r, 1, 0);
  if (uv_read_start((uv_stream_t *)&c->tcp, on_conn_alloc, on_conn_read) != 0)
    itg__rx_conn_close(c, 0);
  else if (over) {
    atomic_fetch_add(&r->n_conns_refused, 1);
    protocol_error(c, ITG_ELIMIT,
                   "too many signaling connections from this address");
  }
}

int itg__rx_sig_listen(itg_receiver *r) {
  itg__addr a;
  int len = (int)sizeof a.ss;
  const char *host = r->cfg.bind_host[0] != '\0' ? r->cfg.bind_host : NULL;
  int rc = itg__addr_resolve(host, r->cfg.sig_port, 1, &a);
  if (rc < 0)
    return rc;
  r->server.data = r;
  rc = uv_tcp_bind(&r->server, (const struct sockaddr *)&a.ss, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&r->server, 128, on_connection);
  if (rc == 0)
    rc = uv_tcp_getsockname(&r->server, (struct sockaddr *)&a.ss, &len);
  if (rc != 0)
    return itg__uv_err(rc);
  a.len = (socklen_t)len;
  r->port = itg__addr_port(&a);
  return 0;
}
