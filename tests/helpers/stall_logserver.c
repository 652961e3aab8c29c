/* A log server that stalls after registration (see stall_logserver.h). */
#include "stall_logserver.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "log/ditg_proto.h"
#include "log/proto.h"

typedef struct client {
  uv_tcp_t tcp;
  struct stall_logserver *srv;
  struct client *next;
  uint8_t buf[2 * ITG__LP_MAX_FRAME];
  itg__frame_reader rd; /* over buf */
  uint64_t taken; /* records of its session taken */
  int registered;
} client;

typedef struct reply {
  uv_write_t req;
  uint8_t buf[ITG__LP_HDR_LEN + 32 + ITG__LP_NAME_MAX];
} reply;

struct stall_logserver {
  uv_loop_t loop;
  uv_tcp_t listener;
  uv_async_t wake;
  uv_thread_t thread;
  uv_mutex_t mu;
  uv_cond_t took;   /* signalled when records are taken */
  int reading;      /* under mu */
  int greet;        /* under mu */
  int stopping;     /* under mu */
  unsigned registered; /* under mu */
  uint64_t top;     /* under mu: 1 + the highest seq taken, 0 if none */
  client *clients;
  itg_logrec *recs;
  size_t n, cap;
};

static void on_replied(uv_write_t *req, int status) {
  (void)status;
  free(req->data);
}

static void reply_msg(client *c, const itg__lp_msg *m) {
  reply *r = malloc(sizeof *r);
  int n;
  uv_buf_t b;
  if (r == NULL)
    return;
  n = itg__lp_encode(m, NULL, r->buf, sizeof r->buf);
  r->req.data = r;
  b = uv_buf_init((char *)r->buf, n > 0 ? (unsigned)n : 0);
  if (n <= 0 || uv_write(&r->req, (uv_stream_t *)&c->tcp, &b, 1, on_replied))
    free(r);
}

static int reading(stall_logserver *s) {
  int on;
  uv_mutex_lock(&s->mu);
  on = s->reading;
  uv_mutex_unlock(&s->mu);
  return on;
}

static void keep(stall_logserver *s, const uint8_t *p, uint32_t n) {
  uint32_t i;
  if (s->n + n > s->cap) {
    size_t cap = (s->n + n) * 2;
    itg_logrec *v = realloc(s->recs, cap * sizeof *v);
    if (v == NULL)
      abort();
    s->recs = v;
    s->cap = cap;
  }
  uv_mutex_lock(&s->mu);
  for (i = 0; i < n; i++) {
    itg_logrec *r = &s->recs[s->n++];
    itg_logrec_decode(p + (size_t)i * ITG_LOG_RECORD_LEN, r);
    if (r->seq >= s->top)
      s->top = r->seq + 1;
  }
  uv_cond_broadcast(&s->took);
  uv_mutex_unlock(&s->mu);
}

/* Handles the frames waiting in c->buf; after a registration, only while
 * the server reads. */
static void take_frames(client *c) {
  stall_logserver *s = c->srv;
  for (;;) {
    itg__lp_msg m, a;
    if (c->registered && !reading(s))
      break;
    if (itg__lp_next(&c->rd, c->buf, sizeof c->buf, &m) <= 0)
      break;
    if (m.type == ITG__LP_REGISTER) {
      itg__lp_init(&a, ITG__LP_REGISTER_ACK);
      uv_mutex_lock(&s->mu);
      a.session = ++s->registered;
      uv_mutex_unlock(&s->mu);
      a.key = 1;
      strcpy(a.name, "stalled.log");
      c->registered = 1;
      reply_msg(c, &a);
    } else if (m.type == ITG__LP_BATCH) {
      keep(s, m.recs, m.nrecs);
      c->taken += m.nrecs;
      itg__lp_init(&a, ITG__LP_ACK);
      a.seq = c->taken;
      reply_msg(c, &a);
    } else if (m.type == ITG__LP_LEAVE) {
      itg__lp_init(&a, ITG__LP_LEAVE_ACK);
      a.seq = c->taken;
      reply_msg(c, &a);
    }
  }
  if (c->registered && !reading(s))
    uv_read_stop((uv_stream_t *)&c->tcp);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  client *c = h->data;
  size_t room;
  uint8_t *p = itg__frame_reader_space(&c->rd, c->buf, sizeof c->buf, &room);
  (void)hint;
  *buf = uv_buf_init((char *)p, (unsigned)room);
}

static void on_read(uv_stream_t *h, ssize_t n, const uv_buf_t *buf) {
  client *c = h->data;
  (void)buf;
  if (n < 0) {
    uv_read_stop(h);
    return;
  }
  itg__frame_reader_commit(&c->rd, (size_t)n);
  take_frames(c);
}

static void on_connection(uv_stream_t *l, int status) {
  stall_logserver *s = l->data;
  client *c;
  int greet;
  if (status < 0 || (c = calloc(1, sizeof *c)) == NULL)
    return;
  c->srv = s;
  c->tcp.data = c;
  uv_tcp_init(&s->loop, &c->tcp);
  c->next = s->clients;
  s->clients = c;
  if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0)
    return;
  uv_mutex_lock(&s->mu);
  greet = s->greet;
  uv_mutex_unlock(&s->mu);
  if (greet) {
    static const char hello = (char)ITG__DLP_CONNECT;
    uv_buf_t b = uv_buf_init((char *)&hello, 1);
    if (uv_try_write((uv_stream_t *)&c->tcp, &b, 1) != 1)
      abort();
  }
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_client_closed(uv_handle_t *h) { free(h->data); }

static void on_wake(uv_async_t *a) {
  stall_logserver *s = a->data;
  client *c;
  int stop;
  uv_mutex_lock(&s->mu);
  stop = s->stopping;
  uv_mutex_unlock(&s->mu);
  for (c = s->clients; c != NULL; c = c->next) {
    if (stop) {
      uv_close((uv_handle_t *)&c->tcp, on_client_closed);
      continue;
    }
    take_frames(c);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
  }
  if (stop) {
    s->clients = NULL;
    uv_close((uv_handle_t *)&s->listener, NULL);
    uv_close((uv_handle_t *)&s->wake, NULL);
  }
}

static void server_main(void *arg) {
  stall_logserver *s = arg;
  uv_run(&s->loop, UV_RUN_DEFAULT);
}

stall_logserver *stall_logserver_start(uint16_t *port) {
  stall_logserver *s = calloc(1, sizeof *s);
  struct sockaddr_in sa;
  struct sockaddr_storage name;
  int len = (int)sizeof name, rc;
  if (s == NULL)
    abort();
  rc = uv_loop_init(&s->loop);
  if (rc == 0)
    rc = uv_mutex_init(&s->mu);
  if (rc == 0)
    rc = uv_cond_init(&s->took);
  if (rc == 0)
    rc = uv_tcp_init(&s->loop, &s->listener);
  if (rc == 0)
    rc = uv_async_init(&s->loop, &s->wake, on_wake);
  s->listener.data = s;
  s->wake.data = s;
  if (rc == 0)
    rc = uv_ip4_addr("127.0.0.1", 0, &sa);
  if (rc == 0)
    rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&sa, 0);
  if (rc == 0) {
    /* A small window, taken by every connection accepted: what the kernels
     * hold for a stalled server stays small on every OS, so a client's
     * logger spills after a few thousand records, not after megabytes
     * of buffers that grow with the machine. */
    int small = 4096;
    rc = uv_recv_buffer_size((uv_handle_t *)&s->listener, &small);
  }
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&s->listener, 64, on_connection);
  if (rc == 0)
    rc = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&name, &len);
  if (rc == 0)
    rc = uv_thread_create(&s->thread, server_main, s);
  if (rc != 0)
    abort();
  *port = ntohs(((struct sockaddr_in *)&name)->sin_port);
  return s;
}

void stall_logserver_greet(stall_logserver *s) {
  uv_mutex_lock(&s->mu);
  s->greet = 1;
  uv_mutex_unlock(&s->mu);
}

void stall_logserver_resume(stall_logserver *s) {
  uv_mutex_lock(&s->mu);
  s->reading = 1;
  uv_mutex_unlock(&s->mu);
  uv_async_send(&s->wake);
}

int stall_logserver_wait_seq(stall_logserver *s, uint64_t seq,
                             uint64_t timeout_ns) {
  uint64_t end = uv_hrtime() + timeout_ns, now;
  int got;
  uv_mutex_lock(&s->mu);
  while (s->top <= seq && (now = uv_hrtime()) < end)
    (void)uv_cond_timedwait(&s->took, &s->mu, end - now);
  got = s->top > seq;
  uv_mutex_unlock(&s->mu);
  return got;
}

unsigned stall_logserver_registered(stall_logserver *s) {
  unsigned n;
  uv_mutex_lock(&s->mu);
  n = s->registered;
  uv_mutex_unlock(&s->mu);
  return n;
}

itg_logrec *stall_logserver_stop(stall_logserver *s, size_t *n) {
  itg_logrec *recs;
  uv_mutex_lock(&s->mu);
  s->stopping = 1;
  uv_mutex_unlock(&s->mu);
  uv_async_send(&s->wake);
  uv_thread_join(&s->thread);
  uv_loop_close(&s->loop);
  uv_cond_destroy(&s->took);
  uv_mutex_destroy(&s->mu);
  recs = s->recs;
  *n = s->n;
  free(s);
  return recs;
}
