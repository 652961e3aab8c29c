/* The log server's D-ITG clients (ITGSend -L, ITGRecv asked by ITGSend
 * -X): D-ITG's log protocol (log/ditg_proto.h) on a client's connection,
 * the data channel it asks for on a port the system picks, and its
 * records written as a D-ITG binary log (itg/ditg.h), which itg-dec reads
 * as it reads ITGLog's. server_session.c hands a client over once its
 * first bytes are D-ITG's; this file closes it through
 * itg_logserver.close_client. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ditg_rec.h"
#include "core/logfile.h"
#include "core/netlist.h"
#include "log/ditg_proto.h"
#include "log/server_internal.h"
#include "platform/platform.h"

/* Records read from the TCP data channel at once. */
#define IN_RECS 64u
/* Flows whose sequence numbers a UDP session follows to see gaps. */
#define SEQ_FLOWS 256u

typedef struct flow_seq {
  uint32_t flow;
  uint32_t last; /* the highest sequence number seen */
} flow_seq;

struct itg__ls_ditg {
  itg__ls_client *c; /* NULL once the session ended */
  itg_logserver *s;
  uv_timer_t timer;  /* the data connection's deadline, the last wait */
  uv_udp_t udp;
  uv_tcp_t listener, data;
  int handles;       /* open; freed at 0 */
  int has_udp, has_listener, has_data;
  int data_eof;
  int stopped;       /* the client said stop */
  uint8_t transport; /* 0 until the request came */
  FILE *f;
  char path[2 * ITG_PATH_MAX + 16];
  char file[ITG_PATH_MAX];
  uint8_t sig[ITG__DLP_SIG_LEN];
  size_t sig_len;
  uint8_t in[IN_RECS * ITG_DITG_RECORD_LEN];
  size_t in_len;
  uint64_t written, missing, malformed;
  int dirty;
  uint32_t nflows;
  flow_seq flows[SEQ_FLOWS];
};

static void on_closed(uv_handle_t *h) {
  itg__ls_ditg *d = h->data;
  if (--d->handles == 0)
    free(d);
}

static void close_handle(itg__ls_ditg *d, uv_handle_t *h, int *open) {
  if (!*open)
    return;
  *open = 0;
  h->data = d;
  uv_close(h, on_closed);
}

static void event_init(const itg__ls_ditg *d, itg_log_session_kind kind,
                       itg_log_session_event *ev) {
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->session = d->c->session;
  ev->transport = d->transport == ITG__DLP_UDP ? ITG_LOG_UDP : ITG_LOG_TCP;
  memcpy(ev->peer, d->c->peer, sizeof ev->peer);
  snprintf(ev->host, sizeof ev->host, "D-ITG");
  memcpy(ev->file, d->file, sizeof ev->file);
}

/* Ends the session: the file closed (renamed NAME.incomplete unless the
 * client said stop), the counters and the CLOSED event, the data channel
 * closed. status and why: the error that ended it, if one did. */
static void end(itg__ls_ditg *d, int complete, int status, const char *why) {
  itg_logserver *s = d->s;
  itg_log_session_event ev;
  int timer_open = 1, rc;
  if (d->c == NULL)
    return;
  rc = fclose(d->f) != 0 ? itg__file_errno(errno) : 0;
  d->f = NULL;
  if (rc != 0 && status == 0) {
    status = rc;
    why = "cannot write the file";
    complete = 0;
  }
  if (!complete) {
    itg__log_mark_incomplete(d->path, d->file, sizeof d->file);
    atomic_fetch_add(&s->n_incomplete, 1);
  }
  atomic_fetch_sub(&s->n_open, 1);
  event_init(d, ITG_LOG_SESSION_CLOSED, &ev);
  ev.records = d->written;
  ev.missing = d->missing;
  ev.complete = complete;
  ev.status = status != 0 ? status : d->malformed > 0 ? ITG_EBADMSG : 0;
  if (status != 0)
    snprintf(ev.message, sizeof ev.message, "%s: %s", why,
             itg_strerror(status));
  else if (d->malformed > 0)
    snprintf(ev.message, sizeof ev.message,
             "%llu malformed records dropped",
             (unsigned long long)d->malformed);
  itg__ls_event(s, &ev);
  d->c->ditg = NULL;
  d->c = NULL;
  close_handle(d, (uv_handle_t *)&d->udp, &d->has_udp);
  close_handle(d, (uv_handle_t *)&d->listener, &d->has_listener);
  close_handle(d, (uv_handle_t *)&d->data, &d->has_data);
  close_handle(d, (uv_handle_t *)&d->timer, &timer_open);
}

/* Turns the client away before its session opened (why) or ends its
 * session with an error, and closes it. */
static void fail(itg__ls_ditg *d, int status, const char *why) {
  itg__ls_client *c = d->c;
  if (c == NULL)
    return;
  if (d->f != NULL) {
    end(d, 0, status, why);
  } else {
    itg_log_session_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ITG_LOG_SESSION_REFUSED;
    ev.status = status;
    memcpy(ev.peer, c->peer, sizeof ev.peer);
    snprintf(ev.host, sizeof ev.host, "D-ITG");
    snprintf(ev.message, sizeof ev.message, "D-ITG client: %s", why);
    atomic_fetch_add(&d->s->n_refused, 1);
    itg__ls_event(d->s, &ev);
    d->c->ditg = NULL;
    d->c = NULL;
    {
      int timer_open = 1;
      close_handle(d, (uv_handle_t *)&d->timer, &timer_open);
    }
  }
  d->s->close_client(c);
}

/* The client said stop and everything it sent is in: the session ends
 * complete. */
static void finish(itg__ls_ditg *d) {
  itg__ls_client *c = d->c;
  if (c == NULL)
    return;
  end(d, 1, 0, NULL);
  d->s->close_client(c);
}

static void on_finish_timer(uv_timer_t *t) { finish(t->data); }

static void on_data_deadline(uv_timer_t *t) {
  fail(t->data, ITG_ETIMEDOUT, "no data connection in time");
}

/* A flow's sequence number: a jump past the next one is records lost on
 * the way (UDP), counted. */
static void follow_seq(itg__ls_ditg *d, const itg__ditg_rec *r) {
  uint32_t i;
  for (i = 0; i < d->nflows; i++)
    if (d->flows[i].flow == r->flow_id)
      break;
  if (i == d->nflows) {
    if (d->nflows == SEQ_FLOWS)
      return;
    d->flows[d->nflows].flow = r->flow_id;
    d->flows[d->nflows++].last = r->seq;
    return;
  }
  if (r->seq > d->flows[i].last) {
    uint64_t gap = r->seq - d->flows[i].last - 1u;
    d->missing += gap;
    atomic_fetch_add(&d->s->n_missing, gap);
    d->flows[i].last = r->seq;
  }
}

/* Writes the whole records at p[0..n * ITG_DITG_RECORD_LEN). Returns 0,
 * or -1 once the session ended on a write error. */
static int take_records(itg__ls_ditg *d, const uint8_t *p, size_t n) {
  uint8_t buf[ITG_DITG_RECORD_LEN];
  size_t i;
  for (i = 0; i < n; i++) {
    itg__ditg_rec r;
    if (itg__ditg_rec_decode_wire(p + i * ITG_DITG_RECORD_LEN, &r) != 0) {
      d->malformed++;
      continue;
    }
    if (d->transport == ITG__DLP_UDP)
      follow_seq(d, &r);
    itg__ditg_rec_encode(&r, buf);
    if (fwrite(buf, 1, sizeof buf, d->f) != sizeof buf) {
      fail(d, itg__file_errno(errno), "cannot write the file");
      return -1;
    }
    d->written++;
    d->dirty = 1;
    atomic_fetch_add(&d->s->n_records, 1);
  }
  return 0;
}

static void on_data_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg__ls_ditg *d = h->data;
  (void)hint;
  *buf = uv_buf_init((char *)d->in + d->in_len,
                     (unsigned)(sizeof d->in - d->in_len));
}

static void on_data_read(uv_stream_t *h, ssize_t n, const uv_buf_t *buf) {
  itg__ls_ditg *d = h->data;
  size_t whole;
  (void)buf;
  if (n == 0 || d->c == NULL)
    return;
  if (n < 0) {
    /* A record cut short by the close is counted, not written. */
    d->malformed += d->in_len > 0;
    d->in_len = 0;
    d->data_eof = 1;
    uv_read_stop(h);
    if (d->stopped)
      finish(d);
    return;
  }
  d->in_len += (size_t)n;
  whole = d->in_len / ITG_DITG_RECORD_LEN;
  if (take_records(d, d->in, whole) < 0)
    return;
  d->in_len -= whole * ITG_DITG_RECORD_LEN;
  memmove(d->in, d->in + whole * ITG_DITG_RECORD_LEN, d->in_len);
}

static void on_data_conn(uv_stream_t *server, int status) {
  itg__ls_ditg *d = server->data;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss, rc;
  uint8_t ip[16];
  if (status < 0 || d->c == NULL || d->has_data)
    return;
  if (uv_tcp_init(&d->s->loop, &d->data) != 0)
    return;
  d->has_data = 1;
  d->handles++;
  d->data.data = d;
  rc = uv_accept(server, (uv_stream_t *)&d->data);
  /* One data connection a session. */
  close_handle(d, (uv_handle_t *)&d->listener, &d->has_listener);
  if (rc != 0 ||
      uv_tcp_getpeername(&d->data, (struct sockaddr *)&ss, &len) != 0) {
    fail(d, ITG_ESOCKET, "the data connection failed as it was accepted");
    return;
  }
  itg__net_ip_key((struct sockaddr *)&ss, ip);
  if (memcmp(ip, d->c->ip, sizeof ip) != 0) {
    fail(d, ITG_EPERM, "a data connection from another address");
    return;
  }
  if (d->stopped)
    /* its stop came first: what it sent is read up to its close */
    uv_timer_start(&d->timer, on_finish_timer, ITG__LS_DRAIN_MS, 0);
  else
    uv_timer_stop(&d->timer);
  if (uv_read_start((uv_stream_t *)&d->data, on_data_alloc, on_data_read) != 0)
    fail(d, ITG_ESOCKET, "cannot read the data connection");
}

static void on_udp_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg__ls_ditg *d = h->data;
  (void)hint;
  *buf = uv_buf_init((char *)d->s->ditg_dgram, sizeof d->s->ditg_dgram);
}

static void on_udp(uv_udp_t *h, ssize_t n, const uv_buf_t *buf,
                   const struct sockaddr *from, unsigned flags) {
  itg__ls_ditg *d = h->data;
  uint8_t ip[16];
  (void)buf;
  if (n <= 0 || from == NULL || d->c == NULL)
    return;
  itg__net_ip_key(from, ip);
  if (memcmp(ip, d->c->ip, sizeof ip) != 0)
    return; /* not the client's: nothing of its session */
  /* A datagram cut short or with a piece of a record: the piece counted. */
  d->malformed += (flags & UV_UDP_PARTIAL) || n % ITG_DITG_RECORD_LEN != 0;
  take_records(d, d->s->ditg_dgram, (size_t)n / ITG_DITG_RECORD_LEN);
}

/* Opens the data channel the request asks for on a port the system picks,
 * on the server's address. Returns the port, or an ITG_E* code. */
static int open_channel(itg__ls_ditg *d) {
  itg_logserver *s = d->s;
  struct sockaddr_storage ss;
  int len = (int)sizeof ss, rc;
  itg__addr a;
  if (itg__addr_resolve(s->cfg.bind_host, 0, 1, &a) != 0)
    return ITG_EADDR;
  if (d->transport == ITG__DLP_UDP) {
    if (uv_udp_init(&s->loop, &d->udp) != 0)
      return ITG_ESOCKET;
    d->has_udp = 1;
    d->handles++;
    d->udp.data = d;
    rc = uv_udp_bind(&d->udp, (const struct sockaddr *)&a.ss, 0);
    if (rc == 0)
      rc = uv_udp_getsockname(&d->udp, (struct sockaddr *)&ss, &len);
    if (rc == 0) {
      int size = 4 * 1024 * 1024;
      uv_recv_buffer_size((uv_handle_t *)&d->udp, &size);
      rc = uv_udp_recv_start(&d->udp, on_udp_alloc, on_udp);
    }
  } else {
    if (uv_tcp_init(&s->loop, &d->listener) != 0)
      return ITG_ESOCKET;
    d->has_listener = 1;
    d->handles++;
    d->listener.data = d;
    rc = uv_tcp_bind(&d->listener, (const struct sockaddr *)&a.ss, 0);
    if (rc == 0)
      rc = uv_listen((uv_stream_t *)&d->listener, 1, on_data_conn);
    if (rc == 0)
      rc = uv_tcp_getsockname(&d->listener, (struct sockaddr *)&ss, &len);
    if (rc == 0)
      uv_timer_start(&d->timer, on_data_deadline, s->cfg.handshake_ms, 0);
  }
  if (rc != 0)
    return itg__uv_err(rc);
  memcpy(&a.ss, &ss, sizeof ss);
  return itg__addr_port(&a);
}

/* Creates the file the request names, under the server's rules. */
static int open_file(itg__ls_ditg *d, const char *name) {
  const char *dir = d->s->cfg.dir[0] != '\0' ? d->s->cfg.dir : ".";
  char base[sizeof d->path];
  int n = snprintf(base, sizeof base, "%s/%s", dir, name), rc;
  if (n < 0 || (size_t)n >= sizeof base)
    return ITG_ERANGE;
  rc = itg__file_create_new(base, d->path, sizeof d->path, &d->f);
  if (rc == 0)
    snprintf(d->file, sizeof d->file, "%s%s", name, d->path + n);
  return rc;
}

/* A request: the file, the data channel, the port told. */
static void on_request(itg__ls_ditg *d, const itg__dlp_sig *req) {
  itg_logserver *s = d->s;
  itg__ls_client *c = d->c;
  itg_log_session_event ev;
  char name[ITG__LP_NAME_MAX + 1], why[96];
  uint8_t port[ITG__DLP_PORT_LEN];
  uv_buf_t b;
  int rc;
  if (itg__dlp_file_name(req->name, name, sizeof name) != 0) {
    fail(d, ITG_EINVAL, "log name refused (it could leave the directory)");
    return;
  }
  d->transport = req->transport;
  rc = open_file(d, name);
  if (rc < 0) {
    snprintf(why, sizeof why, "cannot create the log file: %s",
             itg_strerror(rc));
    fail(d, rc, why);
    return;
  }
  c->session = s->next_session++;
  atomic_fetch_add(&s->n_open, 1);
  atomic_fetch_add(&s->n_total, 1);
  event_init(d, ITG_LOG_SESSION_OPENED, &ev);
  itg__ls_event(s, &ev);
  rc = open_channel(d);
  if (rc < 0) {
    fail(d, rc, "cannot open the data channel");
    return;
  }
  itg__dlp_port_encode((uint16_t)rc, port);
  b = uv_buf_init((char *)port, sizeof port);
  /* Four bytes on a connection that has sent nothing else since the
   * greeting: the socket takes them at once. */
  if (uv_try_write((uv_stream_t *)&c->tcp, &b, 1) != (int)sizeof port)
    fail(d, ITG_ESOCKET, "cannot send the data port");
}

static void on_stop(itg__ls_ditg *d) {
  d->stopped = 1;
  uv_timer_stop(&d->timer);
  if (d->transport == ITG__DLP_UDP)
    /* Datagrams the client sent before its stop may still be queued. */
    uv_timer_start(&d->timer, on_finish_timer, ITG__LS_LINGER_MS, 0);
  else if (d->has_data && !d->data_eof)
    /* The client closes the data channel after its stop: what it sent is
     * read up to that end. */
    uv_timer_start(&d->timer, on_finish_timer, ITG__LS_DRAIN_MS, 0);
  else if (!d->has_data)
    /* A data connection made before the stop may wait in the listener's
     * queue still: taken at the loop's next turn. */
    uv_timer_start(&d->timer, on_finish_timer, ITG__LS_LINGER_MS, 0);
  else
    finish(d);
}

/* Takes a whole request or stop off the signaling bytes. */
static void take_sig(itg__ls_ditg *d) {
  itg__dlp_sig m;
  int rc = itg__dlp_sig_decode(d->sig, d->sig_len, &m);
  if (rc == ITG_ETRUNC)
    return;
  d->sig_len = 0;
  if (rc < 0 || (d->transport == 0) != (m.stop == 0) || d->stopped) {
    fail(d, ITG_EBADMSG, d->transport == 0 ? "malformed request"
                                           : "malformed stop");
    return;
  }
  if (m.stop)
    on_stop(d);
  else
    on_request(d, &m);
}

static void on_sig_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  itg__ls_client *c = h->data;
  itg__ls_ditg *d = c->ditg;
  (void)hint;
  *buf = uv_buf_init((char *)d->sig + d->sig_len,
                     (unsigned)(sizeof d->sig - d->sig_len));
}

static void on_sig_read(uv_stream_t *h, ssize_t n, const uv_buf_t *buf) {
  itg__ls_client *c = h->data;
  itg__ls_ditg *d = c->ditg;
  (void)buf;
  if (n == 0 || d == NULL)
    return;
  if (n < 0) {
    if (d->stopped) {
      uv_read_stop(h); /* the close that follows the stop */
      return;
    }
    if (d->f == NULL) {
      fail(d, ITG_ECLOSED, "closed before its request");
      return;
    }
    end(d, 0, 0, NULL);
    c->srv->close_client(c);
    return;
  }
  d->sig_len += (size_t)n;
  take_sig(d);
}

void itg__ls_ditg_start(itg__ls_client *c, const uint8_t *buf, size_t len) {
  itg__ls_ditg *d = calloc(1, sizeof *d);
  if (d == NULL) {
    c->srv->close_client(c);
    return;
  }
  d->c = c;
  d->s = c->srv;
  c->ditg = d;
  uv_timer_init(&d->s->loop, &d->timer);
  d->timer.data = d;
  d->handles = 1;
  if (len > sizeof d->sig) {
    /* More than a request before any answer: not a D-ITG client. */
    fail(d, ITG_EBADMSG, "malformed request");
    return;
  }
  memcpy(d->sig, buf, len);
  d->sig_len = len;
  uv_read_stop((uv_stream_t *)&c->tcp);
  if (uv_read_start((uv_stream_t *)&c->tcp, on_sig_alloc, on_sig_read) != 0) {
    fail(d, ITG_ESOCKET, "cannot read its connection");
    return;
  }
  take_sig(d);
}

void itg__ls_ditg_end(itg__ls_client *c) {
  itg__ls_ditg *d = c->ditg;
  if (d == NULL)
    return;
  if (d->f != NULL) {
    end(d, 0, 0, NULL);
  } else {
    int timer_open = 1;
    c->ditg = NULL;
    d->c = NULL;
    close_handle(d, (uv_handle_t *)&d->timer, &timer_open);
  }
}

void itg__ls_ditg_flush(itg__ls_client *c) {
  itg__ls_ditg *d = c->ditg;
  if (d == NULL || !d->dirty)
    return;
  d->dirty = 0;
  if (fflush(d->f) != 0)
    fail(d, itg__file_errno(errno), "cannot write the file");
}
