/* The sender's control thread: a libuv loop that reads round-trip echoes,
 * watches each flow's signaling connection, and ends each flow with its
 * receiver (FLOW_CLOSE, then FLOW_CLOSE_ACK) once it has sent everything.
 *
 * In round-trip mode a flow that has sent everything waits for its last
 * echoes until they are all back or ITG__TX_ECHO_GRACE_MS pass without
 * one arriving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sender_ctl.h"

static void say_close(itg__tx_flow *f);

static void close_if_open(uv_handle_t *h, uv_close_cb cb) {
  if (h->loop != NULL && !uv_is_closing(h))
    uv_close(h, cb);
}

static void log_rec(itg_sender *s, const itg_logrec *r) {
  if (s->log != NULL)
    itg_logger_push(s->log, s->lane_ctl, r);
}

static void on_sig_closed(uv_handle_t *h) {
  itg__tx_flow *f = h->data;
  itg__sock_close(f->sig);
  f->sig = ITG__BAD_SOCK;
}

/* The data socket's poll handle has closed: close the socket, and go on
 * with the flow's end if it was waiting for that. */
static void on_data_closed(uv_handle_t *h) {
  itg__tx_flow *f = h->data;
  itg__sock_close(f->data);
  f->data = ITG__BAD_SOCK;
  if (f->cstate == ITG__TX_C_DRAIN)
    say_close(f);
}

/* The flow is over for good: log its end, release its handles, and close
 * the loop after the last flow. */
static void flow_done(itg__tx_flow *f) {
  itg_sender *s = f->s;
  itg_logrec r;
  int all;
  if (f->cstate == ITG__TX_C_DONE)
    return;
  f->cstate = ITG__TX_C_DONE;
  memset(&r, 0, sizeof r);
  r.flow_id = f->id;
  r.flags = (uint16_t)(ITG_REC_FLOW_END |
                       (f->cfg.meter == ITG_METER_RTT ? ITG_REC_RTT
                                                      : ITG_REC_TX) |
                       (f->cfg.proto == ITG_PROTO_TCP ? ITG_REC_TCP : 0));
  r.seq = atomic_load(&f->ctr.packets);
  r.tx_ns = itg__real_ns();
  log_rec(s, &r);
  close_if_open((uv_handle_t *)&f->timer, NULL);
  close_if_open((uv_handle_t *)&f->sig_poll, on_sig_closed);
  if (f->data_polled) {
    close_if_open((uv_handle_t *)&f->data_poll, on_data_closed);
  } else {
    itg__sock_close(f->data);
    f->data = ITG__BAD_SOCK;
  }
  itg__tx_mark_done(f);
  uv_mutex_lock(&s->lock);
  all = s->done == s->n;
  if (all)
    s->wake_open = 0;
  uv_mutex_unlock(&s->lock);
  if (all)
    uv_close((uv_handle_t *)&s->wake, NULL);
}

/* The signaling connection failed or the receiver gave up: the flow stops
 * sending and ends without an acknowledgement. */
static void sig_lost(itg__tx_flow *f, int code, const char *msg) {
  itg__tx_fail(f, code, msg);
  f->sig_dead = 1;
  uv_poll_stop(&f->sig_poll);
  atomic_store(&f->abort, 1);
  if (f->cstate != ITG__TX_C_RUN)
    flow_done(f);
}

static void on_timer(uv_timer_t *t);

/* Tells the receiver how much was sent and waits for its count (a D-ITG
 * receiver is told only that the flow ended, and tells nothing back). */
static void say_close(itg__tx_flow *f) {
  itg_sender *s = f->s;
  itg__ctl_msg m;
  itg__ditg_msg d;
  int rc;
  if (f->sig_dead) {
    flow_done(f);
    return;
  }
  if (f->cfg.peer == ITG_PEER_DITG && f->cstate != ITG__TX_C_SETTLE) {
    /* ITGRecv writes a flow's log records when CLOSED_FLOW comes, and
     * drops what its data thread reads after; nothing tells when that
     * thread has read the last packet, so it gets this pause. */
    f->cstate = ITG__TX_C_SETTLE;
    uv_timer_start(&f->timer, on_timer, ITG__TX_DITG_SETTLE_MS, 0);
    return;
  }
  if (f->cfg.peer == ITG_PEER_DITG) {
    itg__ditg_init(&d, ITG__DITG_CLOSED_FLOW);
    d.flow_id = f->id;
    rc = itg__ditg_send(f->sig, &d, s->cfg.connect_timeout_ns);
  } else {
    itg__ctl_init(&m, ITG__CTL_FLOW_CLOSE);
    m.packets = atomic_load(&f->ctr.packets);
    m.bytes = atomic_load(&f->ctr.bytes);
    rc = itg__ctl_send(f->sig, &m, s->cfg.connect_timeout_ns);
  }
  if (rc < 0) {
    sig_lost(f, rc, "could not tell the receiver that the flow ended");
    return;
  }
  f->cstate = ITG__TX_C_WAIT_ACK;
  uv_timer_start(&f->timer, on_timer,
                 (uint64_t)(s->cfg.connect_timeout_ns / 1000000), 0);
}

/* Closes the data socket (which ends a TCP stream at the receiver), then
 * says FLOW_CLOSE; a polled socket is closed, and FLOW_CLOSE said, once
 * its poll handle has closed. */
static void end_data(itg__tx_flow *f) {
  uv_timer_stop(&f->timer);
  f->cstate = ITG__TX_C_DRAIN;
  if (f->data_polled) {
    close_if_open((uv_handle_t *)&f->data_poll, on_data_closed);
    return;
  }
  itg__sock_close(f->data);
  f->data = ITG__BAD_SOCK;
  say_close(f);
}

/* The echo grace period, D-ITG's pause before CLOSED_FLOW, or the wait
 * for an acknowledgement, ran out. */
static void on_timer(uv_timer_t *t) {
  itg__tx_flow *f = t->data;
  uint64_t echoes = atomic_load(&f->ctr.echoes);
  if (f->cstate == ITG__TX_C_DRAIN) {
    if (echoes != f->echo_mark) {
      f->echo_mark = echoes;
      uv_timer_start(&f->timer, on_timer, ITG__TX_ECHO_GRACE_MS, 0);
    } else {
      end_data(f);
    }
  } else if (f->cstate == ITG__TX_C_SETTLE) {
    say_close(f);
  } else if (f->cstate == ITG__TX_C_WAIT_ACK) {
    itg__tx_fail(f, ITG_ETIMEDOUT,
                 "the receiver did not acknowledge the end of the flow");
    flow_done(f);
  } else if (f->cstate == ITG__TX_C_WAIT_RELEASE) {
    itg__tx_fail(f, ITG_ETIMEDOUT,
                 "the D-ITG receiver did not acknowledge RELEASE");
    flow_done(f);
  }
}

/* The sending thread is done with f. */
static void begin_close(itg__tx_flow *f) {
  uint64_t sent = atomic_load(&f->ctr.packets);
  if (f->sig_dead) {
    flow_done(f);
    return;
  }
  if (f->cfg.meter == ITG_METER_RTT && !atomic_load(&f->s->stop) &&
      atomic_load(&f->ctr.echoes) < sent) {
    f->cstate = ITG__TX_C_DRAIN;
    f->echo_mark = atomic_load(&f->ctr.echoes);
    uv_timer_start(&f->timer, on_timer, ITG__TX_ECHO_GRACE_MS, 0);
    return;
  }
  end_data(f);
}

/* The sending thread finished flows, or the sender is stopping. */
static void on_wake(uv_async_t *a) {
  itg_sender *s = a->data;
  int stop = atomic_load(&s->stop);
  size_t i;
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    if (!f->ready)
      continue;
    if (f->cstate == ITG__TX_C_RUN && atomic_load(&f->sent_all))
      begin_close(f);
    else if (f->cstate == ITG__TX_C_DRAIN && stop)
      end_data(f);
  }
}

/* Sends a D-ITG message of type alone (no body) from the control
 * thread. Returns 0, or ends the flow and returns the error. */
static int ditg_say(itg__tx_flow *f, itg__ditg_type type) {
  itg__ditg_msg m;
  int rc;
  itg__ditg_init(&m, type);
  rc = itg__ditg_send(f->sig, &m, f->s->cfg.connect_timeout_ns);
  if (rc < 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "could not send %s to the D-ITG receiver",
             itg__ditg_type_name(type));
    sig_lost(f, rc, msg);
  }
  return rc;
}

/* Takes one message of a D-ITG receiver. Returns 1 while the flow goes
 * on, 0 once it has ended. ACK_CLOSED_FLOW is answered with RELEASE, whose
 * ACK_RELEASE ends the flow; DISCOVERY (ITGRecv's keep-alive) is
 * answered; anything else means the receiver gave up on the flow. */
static int ditg_take(itg__tx_flow *f, const itg__ditg_msg *m) {
  char msg[160];
  if (m->type == ITG__DITG_DISCOVERY)
    return ditg_say(f, ITG__DITG_ACK_DISCOVERY) == 0;
  if (m->type == ITG__DITG_ACK_CLOSED_FLOW && m->flow_id == f->id &&
      f->cstate == ITG__TX_C_WAIT_ACK) {
    if (ditg_say(f, ITG__DITG_RELEASE) < 0)
      return 0;
    f->cstate = ITG__TX_C_WAIT_RELEASE;
    uv_timer_start(&f->timer, on_timer,
                   (uint64_t)(f->s->cfg.connect_timeout_ns / 1000000), 0);
    return 1;
  }
  if (m->type == ITG__DITG_ACK_RELEASE &&
      f->cstate == ITG__TX_C_WAIT_RELEASE) {
    flow_done(f);
    return 0;
  }
  if (m->type == ITG__DITG_ERR_MSG_5)
    snprintf(msg, sizeof msg, "the D-ITG receiver says the flow's data "
             "socket failed (ERR_MSG_5)");
  else
    snprintf(msg, sizeof msg, "unexpected %s (flow id %u) from the D-ITG "
             "receiver", itg__ditg_type_name(m->type),
             (unsigned)m->flow_id);
  sig_lost(f, m->type == ITG__DITG_ERR_MSG_5 ? ITG_ESOCKET : ITG_EPROTO,
           msg);
  return 0;
}

/* A D-ITG receiver spoke. */
static void on_ditg_readable(itg__tx_flow *f, int status) {
  itg__ditg_msg m;
  int rc = status < 0 ? ITG_ESOCKET : itg__ditg_fill(f->sig, &f->drd);
  if (rc == 0)
    return;
  if (rc < 0) {
    sig_lost(f, rc, "the receiver closed the signaling connection");
    return;
  }
  while ((rc = itg__ditg_reader_next(&f->drd, &m)) == 1)
    if (!ditg_take(f, &m))
      return;
  if (rc < 0)
    sig_lost(f, ITG_EPROTO, "malformed signaling from the D-ITG receiver");
}

/* The receiver spoke: FLOW_CLOSE_ACK ends the flow; anything else (or
 * the connection's end) means it gave up on the flow. */
static void on_sig_readable(uv_poll_t *p, int status, int events) {
  itg__tx_flow *f = p->data;
  itg__ctl_msg m;
  char msg[160];
  int rc;
  (void)events;
  if (f->cfg.peer == ITG_PEER_DITG) {
    on_ditg_readable(f, status);
    return;
  }
  rc = status < 0 ? ITG_ESOCKET : itg__ctl_fill(f->sig, &f->rd);
  if (rc == 0)
    return;
  if (rc < 0) {
    sig_lost(f, rc, "the receiver closed the signaling connection");
    return;
  }
  itg__ctl_reader_commit(&f->rd, (size_t)rc);
  while ((rc = itg__ctl_reader_next(&f->rd, &m)) == 1) {
    if (m.type == ITG__CTL_FLOW_CLOSE_ACK &&
        f->cstate == ITG__TX_C_WAIT_ACK) {
      uv_mutex_lock(&f->s->lock);
      f->received = m.packets;
      uv_mutex_unlock(&f->s->lock);
      flow_done(f);
      return;
    }
    if (m.type == ITG__CTL_ERROR)
      snprintf(msg, sizeof msg, "the receiver says: %.120s", m.text);
    else
      snprintf(msg, sizeof msg, "unexpected %s from the receiver",
               itg__ctl_type_name(m.type));
    sig_lost(f, m.type == ITG__CTL_ERROR && m.status < 0 ? m.status
                                                          : ITG_EPROTO,
             msg);
    return;
  }
  if (rc < 0)
    sig_lost(f, ITG_EPROTO, "malformed signaling from the receiver");
}

/* Logs one echo of flow f. Returns 1 if it was the last one awaited. */
static int take_echo(itg__tx_flow *f, const itg_pkt_hdr *h, size_t len,
                     int64_t rx_ns, uint16_t flags) {
  itg_logrec r;
  uint64_t echoes;
  if (h->flow_id != f->id ||
      (f->cfg.wire == ITG_WIRE_NATIVE &&
       (!(h->flags & ITG_PKT_ECHO_REPLY) || h->token != f->token)))
    return 0;
  r.flow_id = f->id;
  r.size = (uint16_t)len;
  r.flags = (uint16_t)(ITG_REC_RX | ITG_REC_RTT | flags);
  r.seq = h->seq;
  r.tx_ns = f->cfg.wire == ITG_WIRE_DITG
                ? itg_wire_ditg_unwrap(h->tx_ns, rx_ns)
                : h->tx_ns;
  r.rx_ns = rx_ns;
  log_rec(f->s, &r);
  itg__tx_add(&f->ctr.echoes, 1);
  echoes = atomic_load(&f->ctr.echoes);
  return f->cstate == ITG__TX_C_DRAIN &&
         echoes >= atomic_load(&f->ctr.packets);
}

/* Reads the datagram echoes waiting. Returns 1 if the last one came. */
static int read_udp_echoes(itg__tx_flow *f) {
  itg_sender *s = f->s;
  int round, i, n, last = 0;
  for (round = 0; round < 16 && !last; round++) {
    int64_t now = 0;
    for (i = 0; i < ITG__TX_ECHO_BATCH; i++) {
      s->edg[i].buf = s->echo_bufs + (size_t)i * ITG__TX_ECHO_BUF;
      s->edg[i].cap = ITG__TX_ECHO_BUF;
      s->edg[i].len = 0;
      s->edg[i].peer = &s->epeers[i];
      s->edg[i].rx_ns = 0;
    }
    n = itg__recv_batch(f->data, s->edg, ITG__TX_ECHO_BATCH);
    if (n <= 0)
      break;
    for (i = 0; i < n; i++) {
      itg__dgram *d = &s->edg[i];
      itg_pkt_hdr h;
      if (itg_wire_decode(f->cfg.wire, 0, d->buf, d->len, &h) < 0)
        continue;
      if (d->rx_ns == 0 && now == 0)
        now = itg__real_ns();
      last |= take_echo(f, &h, d->len, d->rx_ns != 0 ? d->rx_ns : now,
                        d->rx_ns != 0 ? ITG_REC_KERNEL_TS : 0);
    }
    if (n < ITG__TX_ECHO_BATCH)
      break;
  }
  return last;
}

/* Reads the echoed TCP stream. Returns 1 if the last echo came, -1 if the
 * stream ended or broke. */
static int read_tcp_echoes(itg__tx_flow *f) {
  int last = 0;
  for (;;) {
    size_t room;
    uint8_t *p = itg__deframe_space(f->df, &room);
    int64_t now;
    itg_pkt_hdr h;
    uint8_t *pkt;
    int n = itg__stream_recv(f->data, p, room);
    if (n < 0)
      return -1;
    if (n == 0)
      return last;
    itg__deframe_commit(f->df, (size_t)n);
    now = itg__real_ns();
    while ((n = itg__deframe_next(f->df, &h, &pkt)) > 0)
      last |= take_echo(f, &h, (size_t)n, now, ITG_REC_TCP);
    if (n < 0)
      return -1;
  }
}

/* Echoes arrived; once the last awaited one is in, the flow ends. */
static void on_echo_readable(uv_poll_t *p, int status, int events) {
  itg__tx_flow *f = p->data;
  int rc;
  (void)events;
  if (status < 0)
    rc = -1;
  else if (f->cfg.proto == ITG_PROTO_TCP)
    rc = read_tcp_echoes(f);
  else
    rc = read_udp_echoes(f);
  if (rc < 0)
    uv_poll_stop(&f->data_poll);
  else if (rc > 0)
    end_data(f);
}

int itg__tx_ctl_init(itg_sender *s) {
  size_t i;
  int need_bufs = 0;
  for (i = 0; i < s->n; i++)
    need_bufs |= s->flows[i]->ready &&
                 s->flows[i]->cfg.meter == ITG_METER_RTT &&
                 s->flows[i]->cfg.proto == ITG_PROTO_UDP;
  if (need_bufs) {
    s->echo_bufs = malloc((size_t)ITG__TX_ECHO_BATCH * ITG__TX_ECHO_BUF);
    if (s->echo_bufs == NULL)
      return ITG_ENOMEM;
  }
  if (uv_loop_init(&s->loop) != 0)
    return ITG_ENOMEM;
  uv_async_init(&s->loop, &s->wake, on_wake);
  s->wake.data = s;
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    if (!f->ready)
      continue;
    uv_timer_init(&s->loop, &f->timer);
    f->timer.data = f;
    if (uv_poll_init_socket(&s->loop, &f->sig_poll, f->sig) != 0)
      goto out_undo;
    f->sig_poll.data = f;
    uv_poll_start(&f->sig_poll, UV_READABLE, on_sig_readable);
    if (f->cfg.meter != ITG_METER_RTT)
      continue;
    if (uv_poll_init_socket(&s->loop, &f->data_poll, f->data) != 0)
      goto out_undo;
    f->data_poll.data = f;
    f->data_polled = 1;
    uv_poll_start(&f->data_poll, UV_READABLE, on_echo_readable);
  }
  uv_mutex_lock(&s->lock);
  s->wake_open = 1;
  uv_mutex_unlock(&s->lock);
  return 0;

out_undo:
  itg__tx_ctl_undo(s);
  return ITG_ESOCKET;
}

void itg__tx_ctl_undo(itg_sender *s) {
  size_t i;
  uv_mutex_lock(&s->lock);
  s->wake_open = 0;
  uv_mutex_unlock(&s->lock);
  uv_close((uv_handle_t *)&s->wake, NULL);
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    close_if_open((uv_handle_t *)&f->timer, NULL);
    close_if_open((uv_handle_t *)&f->sig_poll, NULL);
    close_if_open((uv_handle_t *)&f->data_poll, NULL);
    f->data_polled = 0;
  }
  uv_run(&s->loop, UV_RUN_DEFAULT);
  uv_loop_close(&s->loop);
}

void itg__tx_ctl_wake(itg_sender *s) {
  uv_mutex_lock(&s->lock);
  if (s->wake_open)
    uv_async_send(&s->wake);
  uv_mutex_unlock(&s->lock);
}

void itg__tx_ctl_main(void *arg) {
  itg_sender *s = arg;
  itg__platform_init();
  itg__thread_block_sigpipe();
  uv_run(&s->loop, UV_RUN_DEFAULT);
}
