/* The receiver's signaling: the listening port, one connection per flow
 * at a time, and the conversation of control.h on each, or D-ITG's
 * (ditg_sig.h), told apart by a connection's first bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ditg_sig.h"
#include "engine/receiver_data.h"
#include "engine/receiver_flow.h"
#include "engine/receiver_guard.h"
#include "engine/receiver_log.h"
#include "engine/receiver_sig.h"
#include "log/proto.h"

/* How long a lone first byte that may be D-ITG's CONNECT waits for more
 * before it is taken for one: libitg's HELLO comes in one write, so
 * nothing short of a broken network holds its second byte that long. */
#define DITG_QUIET_MS 100
/* Flows open at once on one D-ITG connection (ITGSend puts all the flows
 * of a script to one receiver on one); max_peer_flows bounds them too. */
#define DITG_FLOWS 64

/* Where a connection's conversation is. Every change of state goes
 * through enter(); these are all of them:
 *
 *   HELLO      HELLO of our version or newer ............ IDLE
 *   HELLO      D-ITG's CONNECT, then quiet .............. IDLE (D-ITG)
 *   IDLE       D-ITG: SEND_FLOW, its log open or none ... IDLE, the flow
 *              held in dflows
 *   IDLE       FLOW_OPEN refused (answered why) ......... IDLE
 *   IDLE       FLOW_OPEN, its log open or none .......... RUNNING
 *   IDLE       FLOW_OPEN, its log to acquire ............ AWAIT_LOG
 *   AWAIT_LOG  log acquired, flow started ............... RUNNING
 *   AWAIT_LOG  log failed, or flow refused then ......... IDLE
 *   RUNNING    FLOW_CLOSE ............................... ENDING
 *   RUNNING,   flow ended (FLOW_CLOSE_ACK from ENDING) .. IDLE
 *   ENDING
 *   any        older HELLO, ERROR, a message the state
 *              does not take, a read error, a timeout,
 *              eviction, stop ........................... CLOSED
 *
 * In AWAIT_LOG the flow holds its data port (and its id is chosen) but
 * receives nothing; only the log acquisition's callback moves it on, and
 * leaving for CLOSED lets go of exactly what the flow took.
 *
 * A D-ITG connection sets its flows up through the same states, SEND_FLOW
 * standing for FLOW_OPEN and the answer translated back (conn_send); but
 * D-ITG opens several flows on one connection, so each flow once open is
 * held in dflows, the connection back in IDLE for the next: CLOSED_FLOW
 * ends one of them (answered when it has ended), RELEASE is the sender's
 * goodbye (answered, then CLOSED). Its flows are ended or orphaned with it
 * as a libitg connection's flow is. */
typedef enum conn_state {
  CONN_HELLO,     /* connected, HELLO awaited */
  CONN_IDLE,      /* no flow: FLOW_OPEN awaited */
  CONN_AWAIT_LOG, /* FLOW_OPEN taken, its log being acquired */
  CONN_RUNNING,   /* its flow is open */
  CONN_ENDING,    /* FLOW_CLOSE taken, its flow finishing */
  CONN_CLOSED     /* going; freed once libuv has closed it */
} conn_state;

/* A signaling connection. */
struct itg__rx_conn {
  uv_tcp_t tcp;
  itg_receiver *r;
  struct itg__rx_conn *next, *prev;
  conn_state state;
  itg__rx_flow *flow;     /* AWAIT_LOG: prepared; RUNNING, ENDING: open */
  itg__rx_log_wait *wait; /* AWAIT_LOG: the log session being opened */
  itg__ctl_msg *asked;    /* AWAIT_LOG: the FLOW_OPEN, as it came */
  itg__rx_sender who;
  uint64_t deadline; /* loop ms by which its flow must be open; 0 once
                        it is */
  uint64_t active;   /* loop ms of its last message or flow packet */
  uint64_t seen;     /* its flow's packets at the last sweep */
  itg__ctl_reader rd;
  uv_timer_t quiet; /* HELLO: a lone byte that may be D-ITG's CONNECT */
  int handles;      /* of tcp and quiet, still open */
  int ditg;         /* speaks D-ITG's signaling */
  int ditg_asked;   /* D-ITG: a flow has been asked for */
  uint32_t dn;      /* D-ITG: flows open, in dflows[0..dn) */
  itg__rx_flow *dflows[DITG_FLOWS];
  char ditg_log[ITG__DITG_NAME_LEN + 1]; /* D-ITG: its -x log name */
  char ditg_log_host[64];   /* D-ITG: the log server of its -X, or "" */
  uint8_t ditg_log_transport; /* D-ITG: -X's, an itg_log_transport */
  itg__ditg_reader drd; /* D-ITG: rd's part */
};

/* The one place a connection changes state (the table above); a flow
 * running has met its handshake deadline. */
static void enter(itg__rx_conn *c, conn_state to) {
  if (to == CONN_RUNNING)
    c->deadline = 0;
  c->state = to;
}

/* A reply on its way, with its bytes. */
typedef struct conn_write {
  uv_write_t req;
  uint8_t frame[ITG__CTL_MAX_FRAME];
} conn_write;

static void on_write_done(uv_write_t *req, int status) {
  (void)status; /* a failed reply shows up as a read error on the conn */
  free(req->data);
}

/* D-ITG's message for libitg's answer m, or type 0 when D-ITG has none
 * (ERROR: the connection's close says it). */
static void ditg_answer(const itg__ctl_msg *m, itg__ditg_msg *d) {
  itg__ditg_init(d, 0);
  d->flow_id = m->flow_id;
  if (m->type == ITG__CTL_FLOW_OPEN_ACK && m->status == 0) {
    d->type = ITG__DITG_ACK_SEND_FLOW;
    d->port = m->port;
  } else if (m->type == ITG__CTL_FLOW_OPEN_ACK) {
    d->type = ITG__DITG_ERR_MSG_2;
  }
}

/* Queues the first len bytes of w's frame on c, or frees w when len < 0
 * (the message did not encode) or the write cannot be queued. */
static void write_out(itg__rx_conn *c, conn_write *w, int len) {
  uv_buf_t b;
  if (len < 0) {
    free(w);
    return;
  }
  w->req.data = w;
  b = uv_buf_init((char *)w->frame, (unsigned)len);
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write_done) != 0)
    free(w);
}

/* Sends a message to a connection (dropped if it is closing), in its
 * peer's protocol. */
static void conn_send(itg__rx_conn *c, const itg__ctl_msg *m) {
  conn_write *w;
  int len;
  if (c->state == CONN_CLOSED)
    return;
  w = malloc(sizeof *w);
  if (w == NULL)
    return;
  if (c->ditg) {
    itg__ditg_msg d;
    ditg_answer(m, &d);
    len = d.type != 0 ? itg__ditg_encode(&d, w->frame, sizeof w->frame)
                      : ITG_EINVAL;
  } else {
    len = itg__ctl_encode(m, w->frame, sizeof w->frame);
  }
  write_out(c, w, len);
}

/* D-ITG's own messages (its acks of CONNECT, CLOSED_FLOW, RELEASE, the
 * log name), with flow_id where the type has one. */
static void ditg_send(itg__rx_conn *c, itg__ditg_type type,
                      uint32_t flow_id) {
  conn_write *w;
  itg__ditg_msg d;
  if (c->state == CONN_CLOSED)
    return;
  w = malloc(sizeof *w);
  if (w == NULL)
    return;
  itg__ditg_init(&d, type);
  d.flow_id = flow_id;
  write_out(c, w, itg__ditg_encode(&d, w->frame, sizeof w->frame));
}

/* Each of a connection's handles closes through here; the last frees
 * it. */
static void on_conn_closed(uv_handle_t *h) {
  itg__rx_conn *c = h->data;
  if (--c->handles == 0)
    free(c);
}

/* Closes both handles of a connection that never got going. */
static void conn_discard(itg__rx_conn *c) {
  uv_close((uv_handle_t *)&c->quiet, on_conn_closed);
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* The replies queued before a graceful close have gone: close. */
static void on_conn_shutdown(uv_shutdown_t *req, int status) {
  itg__rx_conn *c = req->data;
  (void)status;
  free(req);
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* Closes a signaling connection, after its queued replies if graceful,
 * ending its flow (graceful) or leaving it to linger. */
static void conn_close(itg__rx_conn *c, int graceful) {
  itg_receiver *r = c->r;
  itg__rx_flow *f = c->flow;
  uv_shutdown_t *req;
  if (c->state == CONN_CLOSED)
    return;
  while (c->dn > 0) {
    itg__rx_flow *g = c->dflows[--c->dn];
    if (graceful)
      itg__rx_flow_end(g); /* unheld already: not answered */
    else
      itg__rx_flow_orphan(g);
  }
  switch (c->state) {
  case CONN_AWAIT_LOG:
    itg__rx_log_cancel(c->wait);
    c->wait = NULL;
    free(c->asked);
    c->asked = NULL;
    c->flow = NULL;
    itg__rx_flow_discard(f);
    break;
  case CONN_RUNNING:
  case CONN_ENDING:
    c->flow = NULL;
    if (graceful)
      itg__rx_flow_end(f); /* answers FLOW_CLOSE first (flow_ended) */
    else
      itg__rx_flow_orphan(f);
    break;
  default:
    break;
  }
  enter(c, CONN_CLOSED);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    r->conn_list = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  else
    r->conn_tail = c->prev;
  r->fds--;
  c->who.from->conns--;
  itg__rx_peer_release(r, c->who.from);
  itg__rx_count(r, -1, 0);
  uv_close((uv_handle_t *)&c->quiet, on_conn_closed);
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
  conn_send(c, &m);
  conn_close(c, 1);
}

/* Closes a connection for its peer's fault, telling the sender (in
 * libitg's protocol) and the receiver's user why. */
static void drop(itg__rx_conn *c, int code, const char *text) {
  itg_flow_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ITG_PEER_DROPPED;
  snprintf(ev.peer, sizeof ev.peer, "%s", c->who.peer);
  ev.status = code;
  snprintf(ev.message, sizeof ev.message, "%s", text);
  itg__rx_event(c->r, &ev);
  protocol_error(c, code, text);
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
    conn_send(c, &a);
    conn_close(c, 1);
    return;
  }
  enter(c, CONN_IDLE);
  conn_send(c, &a);
}

/* Refuses the flow that m asks for: answers with rc and msg, reports
 * it. */
static void refuse(itg__rx_conn *c, const itg__ctl_msg *m, int rc,
                   const char *msg) {
  itg_receiver *r = c->r;
  itg__ctl_msg a;
  itg_flow_event ev;
  itg__ctl_init(&a, ITG__CTL_FLOW_OPEN_ACK);
  a.status = rc;
  a.flow_id = m->flow_id;
  snprintf(a.text, sizeof a.text, "%s", msg);
  if (c->ditg && m->proto == ITG_PROTO_ICMP && rc == ITG_EPERM)
    ditg_send(c, ITG__DITG_ERR_MSG_3, m->flow_id); /* ITGSend says why */
  else
    conn_send(c, &a);
  atomic_fetch_add(&r->n_refused, 1);
  memset(&ev, 0, sizeof ev);
  ev.kind = ITG_FLOW_REFUSED;
  ev.flow_id = m->flow_id;
  ev.proto = (itg_proto)m->proto;
  ev.meter = (itg_meter)m->meter;
  ev.port = m->port;
  snprintf(ev.peer, sizeof ev.peer, "%s", c->who.peer);
  ev.status = rc;
  snprintf(ev.message, sizeof ev.message, "%.*s",
           (int)sizeof ev.message - 1, msg);
  itg__rx_event(r, &ev);
}

/* c's flow ended while c listened: FLOW_CLOSE is answered with what
 * arrived. */
static void flow_ended(void *owner, const itg__rx_flow *f) {
  itg__rx_conn *c = owner;
  uint32_t i;
  if (c->ditg) {
    /* One of its flows; answered if CLOSED_FLOW asked for its end. */
    for (i = 0; i < c->dn && c->dflows[i] != f; i++)
      ;
    if (i == c->dn)
      return;
    c->dflows[i] = c->dflows[--c->dn];
    if (f->finishing)
      ditg_send(c, ITG__DITG_ACK_CLOSED_FLOW, f->id);
    return;
  }
  if (c->state == CONN_ENDING) {
    itg__ctl_msg a;
    itg__ctl_init(&a, ITG__CTL_FLOW_CLOSE_ACK);
    a.packets = f->packets;
    a.bytes = f->bytes;
    conn_send(c, &a);
  }
  c->flow = NULL;
  enter(c, CONN_IDLE);
}

/* Opens c's prepared flow with lg (NULL: the log it found open, if any)
 * and answers FLOW_OPEN m, or refuses it. */
static void start_flow(itg__rx_conn *c, itg__rx_log *lg,
                       const itg__ctl_msg *m) {
  itg__rx_flow *f = c->flow;
  itg__ctl_msg a;
  int rc;
  itg__ctl_init(&a, ITG__CTL_FLOW_OPEN_ACK);
  rc = itg__rx_flow_start(f, lg, m, c, flow_ended, a.text, sizeof a.text);
  if (rc < 0) {
    c->flow = NULL;
    enter(c, CONN_IDLE);
    refuse(c, m, rc, a.text);
    return;
  }
  if (c->ditg) {
    /* Held apart, the connection free for the next (ditg_send_flow made
     * room); it met its handshake deadline as a running flow does. */
    c->dflows[c->dn++] = f;
    c->flow = NULL;
    c->deadline = 0;
    enter(c, CONN_IDLE);
  } else {
    enter(c, CONN_RUNNING);
  }
  a.flow_id = f->id;
  a.port = f->port;
  a.token = f->token;
  conn_send(c, &a);
}

/* The log that c's flow waits for is there (lg, held for the flow), or
 * could not be had (rc < 0, msg says why). */
static void log_ready(void *user, itg__rx_log *lg, int rc, const char *msg) {
  itg__rx_conn *c = user;
  itg__ctl_msg *m = c->asked;
  c->wait = NULL;
  c->asked = NULL;
  if (rc < 0) {
    itg__rx_flow_discard(c->flow);
    c->flow = NULL;
    enter(c, CONN_IDLE);
    refuse(c, m, rc, msg);
  } else {
    start_flow(c, lg, m);
  }
  free(m);
}

/* FLOW_OPEN: sets the flow up and answers, or refuses it with a reason;
 * either way the connection and every other flow go on. A log still to
 * acquire is waited for in AWAIT_LOG (at once for a file). */
static void flow_open(itg__rx_conn *c, const itg__ctl_msg *m) {
  char path[ITG_PATH_MAX], msg[ITG__CTL_TEXT_MAX];
  int fresh, rc;
  rc = itg__rx_flow_prepare(c->r, &c->who, m, &c->flow, path, &fresh, msg,
                            sizeof msg);
  if (rc < 0) {
    refuse(c, m, rc, msg);
    return;
  }
  if (!fresh) {
    start_flow(c, NULL, m);
    return;
  }
  c->asked = malloc(sizeof *c->asked);
  if (c->asked == NULL) {
    itg__rx_flow_discard(c->flow);
    c->flow = NULL;
    refuse(c, m, ITG_ENOMEM, "out of memory");
    return;
  }
  *c->asked = *m;
  enter(c, CONN_AWAIT_LOG);
  c->wait = itg__rx_log_acquire(c->r, c->who.ip, m, path, log_ready, c);
}

/* Acts on one message, as c's state takes it; may close the
 * connection. */
static void on_message(itg__rx_conn *c, const itg__ctl_msg *m) {
  if (c->state == CONN_HELLO) {
    if (m->type == ITG__CTL_HELLO)
      on_hello(c, m);
    else
      protocol_error(c, ITG_EPROTO, "expected HELLO first");
    return;
  }
  switch (m->type) {
  case ITG__CTL_FLOW_OPEN:
    if (c->state != CONN_IDLE)
      protocol_error(c, ITG_EPROTO, "one flow per signaling connection");
    else
      flow_open(c, m);
    return;
  case ITG__CTL_FLOW_CLOSE:
    if (c->state != CONN_RUNNING) {
      protocol_error(c, ITG_EPROTO, "FLOW_CLOSE without an open flow");
    } else {
      enter(c, CONN_ENDING);
      itg__rx_flow_closing(c->flow, m->packets);
    }
    return;
  case ITG__CTL_ERROR:
    conn_close(c, 1);
    return;
  default:
    protocol_error(c, ITG_EPROTO, "unexpected message");
    return;
  }
}

static void on_conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  itg__rx_conn *c = h->data;
  size_t room;
  uint8_t *p;
  (void)suggested;
  if (c->ditg)
    p = itg__ditg_reader_space(&c->drd, &room);
  else
    p = itg__ctl_reader_space(&c->rd, &room);
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

/* ---- D-ITG's conversation ---------------------------------------------- */

/* SEND_FLOW: a flow as a FLOW_OPEN would ask for it, or refused for what
 * this receiver does not take of D-ITG's. */
static void ditg_send_flow(itg__rx_conn *c, const itg__ditg_msg *d) {
  itg__ctl_msg m;
  const char *no = NULL;
  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN);
  m.flow_id = d->flow_id;
  m.id_auto = 0; /* ITGSend knows its flows by the ids it gave */
  m.proto = d->l4 == ITG__DITG_L4_TCP    ? ITG_PROTO_TCP
            : d->l4 == ITG__DITG_L4_ICMP ? ITG_PROTO_ICMP
                                         : ITG_PROTO_UDP;
  m.ditg = 1;
  m.meter = d->meter == ITG__DITG_METER_RTTM ? ITG_METER_RTT : ITG_METER_OWD;
  m.wire = ITG_WIRE_DITG;
  m.port = d->port;
  snprintf(m.text, sizeof m.text, "%s", c->ditg_log);
  if (c->ditg_log_host[0] != '\0') {
    /* ITGRecv too reaches the server on its log port, whatever -X said */
    snprintf(m.log_host, sizeof m.log_host, "%s", c->ditg_log_host);
    m.log_port = ITG_DEFAULT_LOG_PORT;
    m.log_transport = c->ditg_log_transport;
    m.log_kind = ITG_LOG_SERVER_DITG;
  }
  if (d->l4 != ITG__DITG_L4_TCP && d->l4 != ITG__DITG_L4_UDP &&
      d->l4 != ITG__DITG_L4_ICMP)
    no = "D-ITG flow: only UDP, TCP and ICMP are received (not SCTP, DCCP)";
  else if (d->meter != ITG__DITG_METER_OWDM &&
           d->meter != ITG__DITG_METER_RTTM)
    no = "D-ITG flow: unknown meter";
  else if (d->payload == ITG__DITG_PAYLOAD_SHORT)
    no = "D-ITG flow: -p 1 (flow id and sequence only) is refused: this "
         "receiver logs each packet's send time, which only -p 0 carries";
  else if (d->payload == ITG__DITG_PAYLOAD_NONE)
    no = "D-ITG flow: -p 2 (no header) is refused: this receiver tells "
         "flows by their id and logs each packet's send time, which only "
         "-p 0 carries";
  else if (d->payload != ITG__DITG_PAYLOAD_STANDARD)
    no = "D-ITG flow: unknown payload type";
  else if (d->flow_id == 0)
    no = "D-ITG flow: flow id 0";
  c->ditg_asked = 1;
  if (no != NULL) {
    refuse(c, &m, ITG_ENOTSUP, no);
  } else if (c->dn == DITG_FLOWS) {
    char msg[96];
    snprintf(msg, sizeof msg, "D-ITG flow: %u flows are open on its "
             "signaling connection already (the limit)", DITG_FLOWS);
    refuse(c, &m, ITG_ELIMIT, msg);
  } else {
    flow_open(c, &m);
  }
}

/* CLOSED_FLOW, CLOSED_ERR: the open flow they name, not yet closed; or
 * NULL, the connection dropped. */
static itg__rx_flow *ditg_own_flow(itg__rx_conn *c, const itg__ditg_msg *d) {
  uint32_t i;
  for (i = 0; i < c->dn; i++)
    if (c->dflows[i]->id == d->flow_id && !c->dflows[i]->finishing)
      return c->dflows[i];
  drop(c, ITG_EPROTO, "D-ITG signaling: closing a flow that is not open");
  return NULL;
}

/* Acts on one D-ITG message, as c's state takes it; may close the
 * connection. */
static void ditg_message(itg__rx_conn *c, const itg__ditg_msg *d) {
  itg__rx_flow *f;
  switch (d->type) {
  case ITG__DITG_SEND_NAME_LOG:
    /* Before the connection's first flow, as ITGSend sends it. */
    if (c->ditg_asked || !itg__lp_name_ok(d->name)) {
      ditg_send(c, ITG__DITG_ERR_MSG_4, 0);
      return;
    }
    snprintf(c->ditg_log, sizeof c->ditg_log, "%s", d->name);
    ditg_send(c, ITG__DITG_ACK_SEND_NAME_LOG, 0);
    return;
  case ITG__DITG_SEND_FLOW_LOG:
    /* The flows' log goes to that D-ITG log server (ITGLog, or itg-log),
     * in D-ITG's log protocol, under the rules of -X: a plain name, a
     * server the receiver may ship to (checked as the first flow opens
     * the session). Refused before the first flow, as ITGRecv takes it,
     * or with a name that is not plain. */
    if (c->ditg_asked || !itg__lp_name_ok(d->name) ||
        uv_inet_ntop(d->addr_len == 4 ? AF_INET : AF_INET6, d->addr,
                     c->ditg_log_host, sizeof c->ditg_log_host) != 0) {
      c->ditg_log_host[0] = '\0';
      ditg_send(c, ITG__DITG_ERR_MSG_4, 0);
      return;
    }
    snprintf(c->ditg_log, sizeof c->ditg_log, "%s", d->name);
    c->ditg_log_transport = d->log_transport == ITG__DITG_L4_UDP
                                ? ITG_LOG_UDP : ITG_LOG_TCP;
    ditg_send(c, ITG__DITG_ACK_SEND_FLOW_LOG, 0);
    return;
  case ITG__DITG_SEND_FLOW:
    ditg_send_flow(c, d);
    return;
  case ITG__DITG_CLOSED_FLOW:
    if ((f = ditg_own_flow(c, d)) != NULL)
      itg__rx_flow_finishing(f);
    return;
  case ITG__DITG_CLOSED_ERR:
    if ((f = ditg_own_flow(c, d)) != NULL)
      itg__rx_flow_end(f); /* the sender stopped sending it */
    return;
  case ITG__DITG_RELEASE:
    ditg_send(c, ITG__DITG_ACK_RELEASE, 0);
    conn_close(c, 1);
    return;
  case ITG__DITG_ACK_DISCOVERY:
    return;
  default:
    drop(c, ITG_EPROTO, "D-ITG signaling: unexpected message");
    return;
  }
}

/* Acts on every whole D-ITG message held. */
static void ditg_read(itg__rx_conn *c) {
  itg__ditg_msg d;
  int rc = 0;
  while (c->state != CONN_CLOSED &&
         (rc = itg__ditg_reader_next(&c->drd, &d)) == 1)
    ditg_message(c, &d);
  if (c->state != CONN_CLOSED && rc < 0)
    drop(c, ITG_EBADMSG, "malformed D-ITG signaling message");
}

/* A lone first byte, D-ITG's CONNECT, stayed alone: the peer is a D-ITG
 * sender waiting for its answer. */
static void on_quiet(uv_timer_t *t) {
  itg__rx_conn *c = t->data;
  if (c->state != CONN_HELLO ||
      itg__ditg_sniff(c->rd.buf + c->rd.fr.start,
                      c->rd.fr.len - c->rd.fr.start) != ITG__DITG_MAYBE)
    return;
  c->ditg = 1;
  itg__frame_reader_reset(&c->rd.fr);
  enter(c, CONN_IDLE);
  ditg_send(c, ITG__DITG_ACK_CONNECT, 0);
}

/* In HELLO, judges the first bytes: libitg's go on to its reader now; a
 * lone CONNECT waits DITG_QUIET_MS for more (on_quiet). Returns 1 when
 * the bytes are left for later. */
static int sniff(itg__rx_conn *c) {
  itg__ditg_guess g = itg__ditg_sniff(c->rd.buf + c->rd.fr.start,
                                      c->rd.fr.len - c->rd.fr.start);
  if (g == ITG__DITG_MAYBE) {
    if (!uv_is_active((uv_handle_t *)&c->quiet))
      uv_timer_start(&c->quiet, on_quiet, DITG_QUIET_MS, 0);
    return 1;
  }
  uv_timer_stop(&c->quiet);
  return g == ITG__DITG_NONE;
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
    conn_close(c, 0);
    itg__rx_run_pending(r);
    return;
  }
  c->active = uv_now(&r->loop);
  if (c->ditg) {
    itg__ditg_reader_commit(&c->drd, (size_t)nread);
    ditg_read(c);
    itg__rx_run_pending(r);
    return;
  }
  itg__ctl_reader_commit(&c->rd, (size_t)nread);
  if (c->state == CONN_HELLO && sniff(c))
    return;
  while (c->state != CONN_CLOSED &&
         (rc = itg__ctl_reader_next(&c->rd, &m)) == 1)
    on_message(c, &m);
  if (c->state != CONN_CLOSED && rc < 0)
    drop(c, rc, rc == ITG_EVERSION ? "unsupported signaling protocol version"
                                   : "malformed signaling message");
  itg__rx_run_pending(r);
}

void itg__rx_conn_sweep(itg_receiver *r, uint64_t now) {
  itg__rx_conn *c, *next;
  for (c = r->conn_list; c != NULL; c = next) {
    uint64_t packets = 0;
    uint32_t i;
    next = c->next;
    if (c->state == CONN_RUNNING || c->state == CONN_ENDING)
      packets = c->flow->packets;
    for (i = 0; i < c->dn; i++)
      packets += c->dflows[i]->packets;
    if (packets != c->seen) {
      c->seen = packets;
      c->active = now;
    }
    if (c->deadline != 0 && now >= c->deadline) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      drop(c, ITG_ETIMEDOUT, "no flow opened in time");
    } else if (r->cfg.idle_ms != 0 && now - c->active >= r->cfg.idle_ms) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      drop(c, ITG_ETIMEDOUT, "idle for too long");
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
  uv_timer_init(&r->loop, &c->quiet);
  c->quiet.data = c;
  c->handles = 2;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 ||
      uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer.ss, &len) != 0) {
    conn_discard(c);
    return;
  }
  peer.len = (socklen_t)len;
  itg__net_ip_key((const struct sockaddr *)&peer.ss, c->who.ip);
  c->who.from = itg__rx_peer_hold(r, c->who.ip);
  /* One over its address's limit is told so only if a descriptor is
   * free: it never takes another sender's place. */
  over = c->who.from != NULL &&
         c->who.from->conns >= r->cfg.max_peer_conns;
  if (c->who.from == NULL || !itg__rx_fd_admit(r, !over)) {
    itg__rx_peer_release(r, c->who.from);
    conn_discard(c);
    return;
  }
  c->who.from->conns++;
  itg__addr_format(&peer, c->who.peer, sizeof c->who.peer);
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
    conn_close(c, 0);
  else if (over) {
    atomic_fetch_add(&r->n_conns_refused, 1);
    protocol_error(c, ITG_ELIMIT,
                   "too many signaling connections from this address");
  }
}

/* r->evict: closes the oldest connection still to open its flow, or else
 * the oldest data connection still to send a packet. Returns 0 if there
 * is none. */
static int evict_one(itg_receiver *r) {
  itg__rx_conn *c;
  for (c = r->conn_list; c != NULL; c = c->next)
    if (c->deadline != 0) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      conn_close(c, 0);
      return 1;
    }
  return itg__rx_tcp_evict(r);
}

void itg__rx_sig_close_all(itg_receiver *r) {
  while (r->conn_list != NULL)
    conn_close(r->conn_list, 1);
}

int itg__rx_sig_listen(itg_receiver *r) {
  itg__addr a;
  int len = (int)sizeof a.ss;
  const char *host = r->cfg.bind_host[0] != '\0' ? r->cfg.bind_host : NULL;
  int rc = itg__addr_resolve(host, r->cfg.sig_port, 1, &a);
  if (rc < 0)
    return rc;
  r->server.data = r;
  r->evict = evict_one;
  rc = uv_tcp_bind(&r->server, (const struct sockaddr *)&a.ss, 0);
  if (rc == 0 && r->cfg.sig_iface[0] != '\0') {
    int brc = itg__uv_bind_device((uv_handle_t *)&r->server, r->cfg.sig_iface);
    if (brc < 0)
      return brc;
  }
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
