/* The receiver's data path: data ports, reading packets (batched UDP with
 * kernel timestamps, re-framed TCP), demultiplexing them to their flows,
 * logging, and echoing them in round-trip mode. */
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/icmp.h"
#include "engine/receiver_data.h"
#include "engine/receiver_guard.h"
#include "engine/receiver_live.h"

/* ---- demultiplexing ------------------------------------------------- */

static size_t bucket_of(const uint8_t ip[16], uint32_t id) {
  uint32_t h = id * 2654435761u;
  int i;
  for (i = 0; i < 16; i++)
    h = (h ^ ip[i]) * 16777619u;
  return h & (ITG__RX_BUCKETS - 1);
}

void itg__rx_demux_add(itg_receiver *r, itg__rx_flow *f) {
  size_t b = bucket_of(f->ip, f->id);
  f->hnext = r->buckets[b];
  r->buckets[b] = f;
}

void itg__rx_demux_remove(itg_receiver *r, itg__rx_flow *f) {
  itg__rx_flow **pp;
  if (f->end_pending) {
    for (pp = &r->pending; *pp != NULL; pp = &(*pp)->pnext)
      if (*pp == f) {
        *pp = f->pnext;
        break;
      }
    f->end_pending = 0;
  }
  for (pp = &r->buckets[bucket_of(f->ip, f->id)]; *pp != NULL;
       pp = &(*pp)->hnext)
    if (*pp == f) {
      *pp = f->hnext;
      break;
    }
  if (f->sock->last == f)
    f->sock->last = NULL;
}

itg__rx_flow *itg__rx_flow_find(itg_receiver *r, const itg__rx_sock *s,
                                const uint8_t ip[16], uint32_t id) {
  itg__rx_flow *f = s->last;
  if (f != NULL && f->id == id && memcmp(f->ip, ip, 16) == 0)
    return f;
  for (f = r->buckets[bucket_of(ip, id)]; f != NULL; f = f->hnext)
    if (f->id == id && f->sock == s && memcmp(f->ip, ip, 16) == 0)
      break;
  if (f != NULL && s->proto == ITG_PROTO_UDP)
    ((itg__rx_sock *)s)->last = f;
  return f;
}

void itg__rx_progress(itg__rx_flow *f) {
  itg_receiver *r = f->r;
  if (!f->closing || f->end_pending)
    return;
  if (f->packets >= f->sent ||
      (f->proto == ITG_PROTO_TCP && f->data_ended)) {
    f->end_pending = 1;
    f->pnext = r->pending;
    r->pending = f;
  }
}

/* ---- records -------------------------------------------------------- */

void itg__rx_record(itg_receiver *r, itg__rx_flow *f, const itg_logrec *rec) {
  if (f->log != NULL)
    itg_logger_push(f->log->logger, 0, rec);
  if (r->cfg.on_records != NULL) {
    r->cb_recs[r->cb_n++] = *rec;
    if (r->cb_n == ITG__RX_CB_RECS)
      itg__rx_flush_records(r);
  }
}

void itg__rx_flush_records(itg_receiver *r) {
  if (r->cb_n > 0 && r->cfg.on_records != NULL)
    r->cfg.on_records(r->cb_recs, r->cb_n, r->cfg.user);
  r->cb_n = 0;
}

/* Turns a request into its echo: the same bytes, flagged as a reply. */
static void make_echo(const itg__rx_flow *f, itg_pkt_hdr *h, uint8_t *pkt,
                      size_t hl) {
  if (f->wire != ITG_WIRE_NATIVE)
    return;
  h->flags = (uint8_t)((h->flags & ~ITG_PKT_ECHO_REQUEST) |
                       ITG_PKT_ECHO_REPLY);
  itg_wire_encode(f->wire, f->proto == ITG_PROTO_TCP, h, pkt, hl);
}

/* Whether a packet that bears f's id is f's: a NATIVE one carries the
 * flow's token (not a copy of its id and source address from someone
 * else) and is not an echo coming back. */
static int packet_of(const itg__rx_flow *f, const itg_pkt_hdr *h) {
  return f->wire != ITG_WIRE_NATIVE ||
         (h->token == f->token && !(h->flags & ITG_PKT_ECHO_REPLY));
}

/* Logs one packet of flow f and counts it. */
static void take_packet(itg__rx_flow *f, const itg_pkt_hdr *h, size_t len,
                        int64_t rx_ns, uint16_t flags) {
  itg_logrec rec;
  rec.flow_id = f->id;
  rec.size = (uint16_t)len;
  rec.flags = flags;
  rec.seq = h->seq;
  rec.tx_ns = f->wire == ITG_WIRE_DITG ? itg_wire_ditg_unwrap(h->tx_ns, rx_ns)
                                       : h->tx_ns;
  rec.rx_ns = rx_ns;
  itg__rx_record(f->r, f, &rec);
  itg__rx_live_add(f, &rec);
  f->packets++;
  f->bytes += len;
}

/* ---- UDP ------------------------------------------------------------ */

/* Demultiplexes and logs one datagram; returns 1 if it is to be echoed,
 * 0 if taken, -1 if dropped as malformed, -2 if ignored: an ICMP message
 * of no flow here (the raw socket reads every ICMP message of the host:
 * pings, the kernel's echo replies, other flows' messages). */
static int take_dgram(itg__rx_sock *s, itg__dgram *d, int64_t *now) {
  itg_receiver *r = s->r;
  itg__rx_flow *f;
  itg_pkt_hdr h;
  itg__icmp_msg im;
  int icmp = s->proto == ITG_PROTO_ICMP;
  uint8_t ip[16];
  int64_t rx;
  int hl;
  if (icmp) {
    /* from here on, the datagram is the message's body, as UDP's */
    if (itg__icmp_parse(d->buf, d->len, &im) < 0)
      return -2;
    d->buf += im.body_off;
    d->len -= im.body_off;
  }
  if (d->len < 4)
    return icmp ? -2 : -1;
  itg__net_ip_key((const struct sockaddr *)&d->peer->ss, ip);
  f = itg__rx_flow_find(r, s, ip, itg__get_be32(d->buf));
  if (f == NULL)
    return icmp ? -2 : -1;
  hl = itg_wire_decode(f->wire, 0, d->buf, d->len, &h);
  if (hl < 0 || !packet_of(f, &h))
    return icmp ? -2 : -1;
  if (icmp) {
    if (!itg__icmp_of_flow(&im, f->icmp_type, f->icmp_ident))
      return -2;
    f->icmp_type = im.type;
  }
  if (d->rx_ns == 0 && *now == 0)
    *now = itg__real_ns();
  rx = d->rx_ns != 0 ? d->rx_ns : *now;
  take_packet(f, &h, d->len, rx,
              (uint16_t)(ITG_REC_RX | (d->rx_ns != 0 ? ITG_REC_KERNEL_TS : 0)));
  itg__rx_progress(f);
  if (f->meter != ITG_METER_RTT)
    return 0;
  make_echo(f, &h, d->buf, (size_t)hl);
  return 1;
}

/* Sends the batch's echoes back to their sources in as few calls as it
 * can. */
static void send_echoes(itg__rx_sock *s, int n) {
  int done = 0;
  while (done < n) {
    int k = itg__send_batch(s->fd, s->r->echo + done, n - done);
    if (k <= 0)
      break; /* a full send buffer drops the rest, as the network would */
    done += k;
  }
  atomic_fetch_add(&s->r->n_echoes, (uint64_t)done);
}

int64_t itg__rx_udp_drain(itg__rx_sock *s) {
  itg_receiver *r = s->r;
  int64_t took = 0;
  int round, late_ok = 1, emptied = 0;
  for (round = 0; round < ITG__RX_DRAIN_ROUNDS; round++) {
    uint64_t packets = 0, bytes = 0, bad = 0;
    int64_t now = 0;
    int i, n, nech = 0;
    for (i = 0; i < ITG__RX_BATCH; i++) {
      r->dg[i].buf = r->bufs + (size_t)i * ITG__RX_BUF;
      r->dg[i].len = 0;
      r->dg[i].cap = ITG__RX_BUF;
      r->dg[i].peer = &r->peers[i];
      r->dg[i].rx_ns = 0;
    }
    n = itg__recv_batch(s->fd, r->dg, ITG__RX_BATCH);
    if (n <= 0) {
      emptied = n == 0;
      break;
    }
    for (i = 0; i < n; i++) {
      int rc = take_dgram(s, &r->dg[i], &now);
      late_ok &= r->dg[i].rx_ns != 0;
      took += (int64_t)r->dg[i].len + ITG__RX_DGRAM_COST;
      if (rc < 0) {
        bad += rc == -1;
        continue;
      }
      packets++;
      bytes += r->dg[i].len;
      if (rc == 1)
        r->echo[nech++] = r->dg[i];
    }
    if (nech > 0) {
      late_ok = 0;
      send_echoes(s, nech);
    }
    atomic_fetch_add(&r->n_packets, packets);
    atomic_fetch_add(&r->n_bytes, bytes);
    atomic_fetch_add(&r->n_malformed, bad);
    if (n < ITG__RX_BATCH) {
      emptied = 1;
      break;
    }
  }
  itg__rx_flush_records(r);
  return emptied && late_ok ? took : -1;
}

static void on_udp_readable(uv_poll_t *p, int status, int events);

/* Whether a read that took `took` buffer bytes lets the port be read at a
 * pace: something came, and no more than the pace's budget. */
static int may_pace(const itg__rx_sock *s, int64_t took) {
  return took > 0 && took <= s->pace_budget;
}

/* A busy port's paced read: while datagrams keep coming, within the
 * budget, it waits again; else the poll watches the port. */
static void on_pace(uv_timer_t *t) {
  itg__rx_sock *s = t->data;
  if (may_pace(s, itg__rx_udp_drain(s)))
    uv_timer_start(&s->pace, on_pace, ITG__RX_PACE_MS, 0);
  else
    uv_poll_start(&s->poll, UV_READABLE, on_udp_readable);
  s->r->run_pending(s->r);
}

/* A UDP data port (or the ICMP socket) is readable: drain it, then end
 * the flows it completed (only now, when no socket is being read). A port
 * that woke the loop twice within ITG__RX_PACE_MS is read once a pace
 * instead while its datagrams allow it (may_pace): every wake-up
 * of this thread costs the sender's system call that queued the datagram,
 * which on a shared host is the pacing of the traffic being measured. */
static void on_udp_readable(uv_poll_t *p, int status, int events) {
  itg__rx_sock *s = p->data;
  uint64_t now = uv_hrtime();
  int64_t took;
  (void)events;
  if (status < 0)
    return;
  took = itg__rx_udp_drain(s);
  if (may_pace(s, took) &&
      now - s->last_read_ns < ITG__RX_PACE_MS * 1000000u) {
    uv_poll_stop(&s->poll);
    uv_timer_start(&s->pace, on_pace, ITG__RX_PACE_MS, 0);
  }
  s->last_read_ns = now;
  s->r->run_pending(s->r);
}

/* ---- TCP ------------------------------------------------------------ */

static void on_tcp_freed(uv_handle_t *h) { free(h->data); }

void itg__rx_tcp_close(itg__rx_tcp *t) {
  itg_receiver *r = t->r;
  itg__rx_flow *f = t->flow;
  if (t->closing)
    return;
  t->closing = 1;
  if (f != NULL) {
    f->data = NULL;
    f->data_ended = 1;
    t->flow = NULL;
    itg__rx_progress(f);
  }
  if (t->prev != NULL)
    t->prev->next = t->next;
  else
    r->tcp_list = t->next;
  if (t->next != NULL)
    t->next->prev = t->prev;
  else
    r->tcp_tail = t->prev;
  r->fds--;
  uv_close((uv_handle_t *)&t->tcp, on_tcp_freed);
}

int itg__rx_tcp_evict(itg_receiver *r) {
  itg__rx_tcp *t;
  for (t = r->tcp_list; t != NULL; t = t->next)
    if (t->flow == NULL) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      itg__rx_tcp_close(t);
      return 1;
    }
  return 0;
}

void itg__rx_tcp_sweep(itg_receiver *r, uint64_t now) {
  itg__rx_tcp *t, *next;
  for (t = r->tcp_list; t != NULL; t = next) {
    next = t->next;
    if (t->flow == NULL && now >= t->deadline) {
      atomic_fetch_add(&r->n_conns_expired, 1);
      itg__rx_tcp_close(t);
    }
  }
}

/* An echo queued behind others; its memory counts against echo_queue. */
typedef struct echo_write {
  uv_write_t req;
  itg__rx_tcp *t;
  size_t held;
  uint8_t bytes[];
} echo_write;

/* Called for each queued echo before its connection's close completes. */
static void on_echo_written(uv_write_t *req, int status) {
  echo_write *w = req->data;
  (void)status;
  w->t->echo_held -= w->held;
  atomic_fetch_sub(&w->t->r->n_echo_backlog, (uint64_t)w->held);
  free(w);
}

/* Sends an echo on a TCP data connection, queueing what the socket does
 * not take at once so the stream stays in order. A sender that stops
 * reading loses whole echoes (counted) once their queue would hold more
 * than echo_queue bytes of memory; the rest of an echo the socket took in
 * part is always queued, or the stream would break. */
static void tcp_echo(itg__rx_tcp *t, const uint8_t *pkt, size_t len) {
  itg_receiver *r = t->r;
  uv_buf_t b = uv_buf_init((char *)pkt, (unsigned)len);
  echo_write *w;
  size_t held;
  int n = UV_EAGAIN;
  if (t->echo_held == 0)
    n = uv_try_write((uv_stream_t *)&t->tcp, &b, 1);
  if (n < 0 && n != UV_EAGAIN)
    return;
  if (n < 0) {
    if (t->echo_held + sizeof *w + len > r->cfg.echo_queue) {
      atomic_fetch_add(&r->n_echo_dropped, 1);
      return;
    }
    n = 0;
  }
  atomic_fetch_add(&r->n_echoes, 1);
  if ((size_t)n == len)
    return;
  held = sizeof *w + (len - (size_t)n);
  w = malloc(held);
  if (w == NULL)
    return;
  memcpy(w->bytes, pkt + n, len - (size_t)n);
  w->req.data = w;
  w->t = t;
  w->held = held;
  b = uv_buf_init((char *)w->bytes, (unsigned)(len - (size_t)n));
  if (uv_write(&w->req, (uv_stream_t *)&t->tcp, &b, 1, on_echo_written) != 0) {
    free(w);
    return;
  }
  t->echo_held += held;
  atomic_fetch_add(&r->n_echo_backlog, (uint64_t)held);
}

/* Binds a new data connection to its flow from the id of its first
 * packet, once that packet's header shows it is the flow's (so a forged
 * connection cannot take a flow's place). Returns 0, 1 if more bytes are
 * needed, or -1. */
static int tcp_bind_flow(itg__rx_tcp *t) {
  size_t avail;
  const uint8_t *p = itg__deframe_peek(&t->df, &avail);
  itg__rx_flow *f;
  itg_pkt_hdr h;
  int hl;
  if (avail < 4)
    return 1;
  f = itg__rx_flow_find(t->r, t->lsock, t->ip, itg__get_be32(p));
  if (f == NULL || f->proto != ITG_PROTO_TCP || f->data != NULL ||
      f->data_ended)
    return -1;
  hl = itg_wire_decode(f->wire, 1, p, avail, &h);
  if (hl == ITG_ETRUNC)
    return 1;
  if (hl < 0 || !packet_of(f, &h))
    return -1;
  t->flow = f;
  f->data = t;
  t->df.wire = f->wire;
  return 0;
}

/* Logs (and echoes) every whole packet buffered on a bound data
 * connection; a packet of another flow breaks the stream and ends it. */
static void tcp_take(itg__rx_tcp *t) {
  itg_receiver *r = t->r;
  itg__rx_flow *f = t->flow;
  uint64_t packets = 0, bytes = 0;
  int64_t now = itg__real_ns();
  itg_pkt_hdr h;
  uint8_t *pkt;
  int n;
  while ((n = itg__deframe_next(&t->df, &h, &pkt)) > 0) {
    if (h.flow_id != f->id || !packet_of(f, &h)) {
      n = ITG_EBADMSG;
      break;
    }
    take_packet(f, &h, (size_t)n, now, ITG_REC_RX | ITG_REC_TCP);
    packets++;
    bytes += (size_t)n;
    if (f->meter == ITG_METER_RTT) {
      make_echo(f, &h, pkt, itg_wire_hdr_len(f->wire, 1));
      tcp_echo(t, pkt, (size_t)n);
    }
  }
  atomic_fetch_add(&r->n_packets, packets);
  atomic_fetch_add(&r->n_bytes, bytes);
  itg__rx_progress(f);
  itg__rx_flush_records(r);
  if (n < 0) {
    atomic_fetch_add(&r->n_malformed, 1);
    itg__rx_tcp_close(t);
  }
}

static void on_tcp_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  itg__rx_tcp *t = h->data;
  size_t room;
  uint8_t *p = itg__deframe_space(&t->df, &room);
  (void)suggested;
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

/* Bytes (or the end) of a TCP data connection. */
static void on_tcp_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  itg__rx_tcp *t = s->data;
  itg_receiver *r = t->r;
  (void)buf;
  if (nread < 0) {
    itg__rx_tcp_close(t);
  } else if (nread > 0) {
    int rc = 0;
    itg__deframe_commit(&t->df, (size_t)nread);
    if (t->flow == NULL)
      rc = tcp_bind_flow(t);
    if (rc < 0) {
      atomic_fetch_add(&r->n_malformed, 1);
      itg__rx_tcp_close(t);
    } else if (rc == 0) {
      tcp_take(t);
    }
  }
  r->run_pending(r);
}

/* A sender connects its TCP data socket; which flow it carries is known
 * from its first packet. */
static void on_data_conn(uv_stream_t *server, int status) {
  itg__rx_sock *s = server->data;
  itg_receiver *r = s->r;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  itg__rx_tcp *t;
  if (status < 0)
    return;
  t = malloc(sizeof *t);
  if (t == NULL)
    return;
  memset(t, 0, offsetof(itg__rx_tcp, df));
  itg__deframe_init(&t->df, ITG_WIRE_NATIVE);
  t->r = r;
  t->lsock = s;
  uv_tcp_init(&r->loop, &t->tcp);
  t->tcp.data = t;
  if (uv_accept(server, (uv_stream_t *)&t->tcp) != 0 ||
      !itg__rx_fd_admit(r, 1)) {
    uv_close((uv_handle_t *)&t->tcp, on_tcp_freed);
    return;
  }
  t->deadline = uv_now(&r->loop) + r->cfg.handshake_ms;
  t->prev = r->tcp_tail;
  if (t->prev != NULL)
    t->prev->next = t;
  else
    r->tcp_list = t;
  r->tcp_tail = t;
  if (uv_tcp_getpeername(&t->tcp, (struct sockaddr *)&ss, &len) != 0 ||
      uv_read_start((uv_stream_t *)&t->tcp, on_tcp_alloc, on_tcp_read) != 0) {
    itg__rx_tcp_close(t);
    return;
  }
  itg__net_ip_key((const struct sockaddr *)&ss, t->ip);
}

/* ---- data ports ----------------------------------------------------- */

static void on_sock_freed(uv_handle_t *h) {
  itg__rx_sock *s = h->data;
  itg__sock_close(s->fd);
  free(s);
}

/* A UDP or ICMP port's pace timer is closed: close its poll, the last. */
static void on_pace_freed(uv_handle_t *h) {
  itg__rx_sock *s = h->data;
  uv_close((uv_handle_t *)&s->poll, on_sock_freed);
}

/* Has the loop watch a UDP port or the ICMP socket (its poll initialised),
 * with its pace timer and the budget of its receive buffer. */
static void watch_port(itg_receiver *r, itg__rx_sock *s) {
  s->poll.data = s;
  uv_timer_init(&r->loop, &s->pace);
  s->pace.data = s;
  s->pace_budget = itg__sock_rcvbuf(s->fd) / ITG__RX_PACE_SHARE;
  uv_poll_start(&s->poll, UV_READABLE, on_udp_readable);
}

/* Opens a UDP data port: non-blocking, a large receive buffer, kernel
 * timestamps, watched by the loop. Returns 0 or an ITG_E* code. */
static int open_udp(itg_receiver *r, itg__rx_sock *s, const itg__addr *a) {
  itg__addr local;
  int rc = itg__sock_open(a, 1, &s->fd);
  if (rc < 0)
    return rc;
  itg__sock_set_nonblock(s->fd, 1);
  if (r->cfg.rcvbuf > 0)
    itg__sock_set_bufs(s->fd, 0, r->cfg.rcvbuf);
  itg__sock_set_rx_timestamps(s->fd); /* without them, user-space times */
  rc = r->cfg.data_iface[0] != '\0'
           ? itg__sock_bind_device(s->fd, r->cfg.data_iface)
           : 0;
  if (rc == 0)
    rc = itg__sock_bind(s->fd, a);
  if (rc == 0)
    rc = itg__sock_local(s->fd, &local);
  if (rc == 0 && uv_poll_init_socket(&r->loop, &s->poll, s->fd) != 0)
    rc = ITG_ESOCKET;
  if (rc < 0) {
    itg__sock_close(s->fd);
    return rc;
  }
  s->port = itg__addr_port(&local);
  watch_port(r, s);
  return 0;
}

/* Opens the raw ICMP socket, on the receiver's IPv4 address (-a) if it
 * has one, watched as a UDP port is. Returns 0 or an ITG_E* code
 * (ITG_EPERM: not root, nor CAP_NET_RAW; ITG_EINVAL: -a is IPv6). */
static int open_icmp(itg_receiver *r, itg__rx_sock *s, const itg__addr *a) {
  int rc = itg__sock_open_icmp(a, &s->fd);
  if (rc < 0)
    return rc;
  itg__sock_set_nonblock(s->fd, 1);
  if (r->cfg.rcvbuf > 0)
    itg__sock_set_bufs(s->fd, 0, r->cfg.rcvbuf);
  itg__sock_set_rx_timestamps(s->fd);
  rc = r->cfg.data_iface[0] != '\0'
           ? itg__sock_bind_device(s->fd, r->cfg.data_iface)
           : 0;
  if (rc == 0 && r->cfg.bind_host[0] != '\0')
    rc = itg__sock_bind(s->fd, a);
  if (rc == 0 && uv_poll_init_socket(&r->loop, &s->poll, s->fd) != 0)
    rc = ITG_ESOCKET;
  if (rc < 0) {
    itg__sock_close(s->fd);
    return rc;
  }
  s->port = 0;
  watch_port(r, s);
  return 0;
}

/* Returns 0, or an error after which s is freed by libuv's close. */
static int open_tcp(itg_receiver *r, itg__rx_sock *s, const itg__addr *a) {
  itg__addr local;
  int len = (int)sizeof local.ss;
  int rc;
  if (uv_tcp_init(&r->loop, &s->listener) != 0) {
    free(s);
    return ITG_ESOCKET;
  }
  s->listener.data = s;
  rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&a->ss, 0);
  if (rc == 0 && r->cfg.data_iface[0] != '\0') {
    int brc = itg__uv_bind_device((uv_handle_t *)&s->listener,
                                  r->cfg.data_iface);
    if (brc < 0) {
      uv_close((uv_handle_t *)&s->listener, on_sock_freed);
      return brc;
    }
  }
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&s->listener, 64, on_data_conn);
  if (rc == 0)
    rc = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&local.ss, &len);
  if (rc != 0) {
    uv_close((uv_handle_t *)&s->listener, on_sock_freed);
    return itg__uv_err(rc);
  }
  local.len = (socklen_t)len;
  s->port = itg__addr_port(&local);
  return 0;
}

int itg__rx_sock_acquire(itg_receiver *r, itg_proto proto, uint16_t port,
                         itg__rx_sock **out) {
  const char *host = r->cfg.bind_host[0] != '\0' ? r->cfg.bind_host : NULL;
  itg__rx_sock *s;
  itg__addr a;
  int rc;
  for (s = r->socks; s != NULL; s = s->next)
    if (s->proto == proto &&
        (proto == ITG_PROTO_ICMP || (port != 0 && s->port == port)))
      goto out_hold;
  if (proto == ITG_PROTO_ICMP) {
    /* a raw socket has no port; ICMP's is IPv4 */
    port = 0;
    if (host == NULL)
      host = "0.0.0.0";
  }
  rc = itg__addr_resolve(host, port, 1, &a);
  if (rc < 0)
    return rc;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  s->r = r;
  s->proto = proto;
  s->fd = ITG__BAD_SOCK;
  if (proto == ITG_PROTO_UDP || proto == ITG_PROTO_ICMP) {
    rc = proto == ITG_PROTO_UDP ? open_udp(r, s, &a) : open_icmp(r, s, &a);
    if (rc < 0)
      free(s);
  } else {
    rc = open_tcp(r, s, &a);
  }
  if (rc < 0)
    return rc;
  r->fds++;
  s->next = r->socks;
  r->socks = s;
out_hold:
  s->refs++;
  *out = s;
  return 0;
}

void itg__rx_sock_release(itg__rx_sock *s) {
  itg_receiver *r = s->r;
  itg__rx_sock **pp;
  itg__rx_tcp *t, *tn;
  if (--s->refs > 0)
    return;
  for (pp = &r->socks; *pp != NULL; pp = &(*pp)->next)
    if (*pp == s) {
      *pp = s->next;
      break;
    }
  r->fds--;
  if (s->proto != ITG_PROTO_TCP) {
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->pace, on_pace_freed);
    return;
  }
  /* Connections still waiting for their first packet have no flow left. */
  for (t = r->tcp_list; t != NULL; t = tn) {
    tn = t->next;
    if (t->lsock == s && t->flow == NULL)
      itg__rx_tcp_close(t);
  }
  uv_close((uv_handle_t *)&s->listener, on_sock_freed);
}
