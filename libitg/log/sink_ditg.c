/* The D-ITG sink: records shipped to D-ITG's log server, ITGLog, in its own
 * protocol (log/ditg_proto.h), as ITGSend -L ships them: the records of
 * the log's own kind (a sender's packets sent, a receiver's packets
 * received) as D-ITG records without addresses or ports (libitg's records
 * hold none: "0.0.0.0", port 0, as itg_ditg_writer writes them), at most
 * ITG__DLP_UDP_RECS in a datagram or a write. ITGLog acknowledges
 * nothing, so there is no spill file: what cannot be sent is lost and
 * counted (itg_logger_stats.lost), and the first error is the sink's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "core/ditg_rec.h"
#include "log/ditg_proto.h"
#include "log/sink.h"
#include "platform/platform.h"

#define CONNECT_NS 2000000000LL  /* connecting, and each answer awaited */
#define DATA_RETRY_NS 5000000LL  /* between tries of ITGLog's data port */
/* ITGLog stops at the stop message without reading what its data channel
 * still holds: the stop follows the last records after this long, the
 * time ITGLog's loop takes to read them. */
#define STOP_AFTER_MS 200

typedef struct ditg_sink {
  itg__sock sig, data;
  uint8_t transport;
  itg__rec_kind kind;
  uint8_t buf[ITG__DLP_UDP_RECS * ITG_DITG_RECORD_LEN];
  size_t n;       /* records in buf */
  uint64_t taken; /* records of the log's kind given to the sink */
  uint64_t sent;
  int error;
  char name[ITG__DLP_NAME_LEN];
} ditg_sink;

static int sink_failed(ditg_sink *d, int rc) {
  if (rc != 0 && d->error == 0)
    d->error = rc;
  return rc;
}

static int send_all(itg__sock s, const uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    int n = itg__stream_send(s, buf + at, len - at);
    if (n <= 0)
      return n < 0 ? n : ITG_ESOCKET;
    at += (size_t)n;
  }
  return 0;
}

/* Reads len bytes from the server, each wait at most CONNECT_NS. */
static int recv_all(itg__sock s, uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    int n = itg__sock_wait_readable(s, CONNECT_NS);
    if (n <= 0)
      return n < 0 ? n : ITG_ETIMEDOUT;
    n = itg__stream_recv(s, buf + at, len - at);
    if (n <= 0)
      return n < 0 ? n : ITG_ECLOSED;
    at += (size_t)n;
  }
  return 0;
}

/* Opens the data channel to the port the server named. ITGLog names its
 * TCP data port before it listens on it, so a connection refused there is
 * tried again, every DATA_RETRY_NS, until CONNECT_NS have passed. */
static int connect_data(ditg_sink *d, const itg__addr *at) {
  int64_t deadline = (int64_t)uv_hrtime() + CONNECT_NS;
  int rc;
  for (;;) {
    rc = itg__sock_open(at, d->transport == ITG__DLP_UDP, &d->data);
    if (rc == 0)
      rc = itg__sock_connect(d->data, at, CONNECT_NS);
    if (rc != ITG_ECONNREFUSED || d->transport == ITG__DLP_UDP ||
        (int64_t)uv_hrtime() + DATA_RETRY_NS > deadline)
      return rc;
    itg__sock_close(d->data);
    d->data = ITG__BAD_SOCK;
    itg__sleep_until((int64_t)uv_hrtime() + DATA_RETRY_NS);
  }
}

/* The handshake: greeting, request, the data port; then the data channel
 * to that port of the same server. */
static int handshake(ditg_sink *d, const itg__addr *server) {
  uint8_t buf[ITG__DLP_SIG_LEN];
  itg__dlp_sig req;
  itg__addr data_at = *server;
  uint16_t port;
  int rc = itg__sock_open(server, 0, &d->sig);
  if (rc == 0)
    rc = itg__sock_connect(d->sig, server, CONNECT_NS);
  if (rc == 0)
    rc = recv_all(d->sig, buf, 1);
  if (rc == 0 && buf[0] != ITG__DLP_CONNECT)
    rc = ITG_EBADMSG;
  if (rc != 0)
    return rc;
  memset(&req, 0, sizeof req);
  req.transport = d->transport;
  memcpy(req.name, d->name, sizeof req.name);
  itg__dlp_sig_encode(&req, buf);
  rc = send_all(d->sig, buf, sizeof buf);
  if (rc == 0)
    rc = recv_all(d->sig, buf, ITG__DLP_PORT_LEN);
  if (rc == 0)
    rc = itg__dlp_port_decode(buf, &port);
  if (rc != 0)
    return rc;
  itg__addr_set_port(&data_at, port);
  return connect_data(d, &data_at);
}

static int ditg_open(const itg_logger_cfg *cfg, void *arg,
                     const itg_log_hdr *hdr, int (*hurry)(void *arg),
                     void *hurry_arg, void **state) {
  ditg_sink *d;
  itg__addr server;
  int rc;
  (void)arg;
  (void)hurry;
  (void)hurry_arg;
  if (cfg->path == NULL || strlen(cfg->path) >= sizeof d->name)
    return ITG_EINVAL;
  d = calloc(1, sizeof *d);
  if (d == NULL)
    return ITG_ENOMEM;
  d->sig = d->data = ITG__BAD_SOCK;
  d->transport = cfg->transport == ITG_LOG_UDP ? ITG__DLP_UDP : ITG__DLP_TCP;
  d->kind = hdr->role == ITG_LOG_ROLE_RECEIVER ? ITG__REC_OWD : ITG__REC_SENT;
  snprintf(d->name, sizeof d->name, "%s", cfg->path);
  rc = itg__addr_resolve(cfg->server_host, cfg->server_port, 0, &server);
  if (rc == 0)
    rc = handshake(d, &server);
  if (rc != 0) {
    itg__sock_close(d->data);
    itg__sock_close(d->sig);
    free(d);
    return rc;
  }
  *state = d;
  return 0;
}

/* Sends what buf holds: one datagram, or one write. */
static int ditg_flush(void *state) {
  ditg_sink *d = state;
  size_t len = d->n * ITG_DITG_RECORD_LEN;
  int rc = 0;
  if (d->n == 0 || d->error != 0) {
    d->n = 0;
    return d->error;
  }
  if (d->transport == ITG__DLP_UDP) {
    itg__dgram g;
    memset(&g, 0, sizeof g);
    g.buf = d->buf;
    g.len = len;
    rc = itg__send_batch(d->data, &g, 1);
    rc = rc == 1 ? 0 : rc < 0 ? rc : ITG_ESOCKET;
  } else {
    rc = send_all(d->data, d->buf, len);
  }
  if (rc == 0)
    d->sent += d->n;
  d->n = 0;
  return sink_failed(d, rc);
}

static int ditg_write(void *state, const itg_logrec *recs, size_t n) {
  ditg_sink *d = state;
  size_t i;
  for (i = 0; i < n; i++) {
    itg__ditg_rec r;
    int rc = itg__ditg_rec_of(&recs[i], d->kind, &r);
    if (rc == 1)
      continue;
    d->taken++;
    if (rc != 0)
      return sink_failed(d, rc);
    strcpy(r.src_addr, ITG__DITG_UNKNOWN_ADDR);
    strcpy(r.dst_addr, ITG__DITG_UNKNOWN_ADDR);
    itg__ditg_rec_encode_wire(&r, d->buf + d->n * ITG_DITG_RECORD_LEN);
    if (++d->n == ITG__DLP_UDP_RECS && ditg_flush(d) != 0)
      return d->error;
  }
  return d->error;
}

static void ditg_stats(void *state, itg__log_sink_stats *out) {
  ditg_sink *d = state;
  memset(out, 0, sizeof *out);
  out->lost = d->taken - d->sent - d->n;
  out->connected = d->error == 0;
}

static int ditg_close(void *state, itg__log_sink_stats *final) {
  ditg_sink *d = state;
  uint8_t buf[ITG__DLP_SIG_LEN];
  itg__dlp_sig stop;
  int rc = ditg_flush(d);
  ditg_stats(d, final);
  final->connected = 0;
  uv_sleep(STOP_AFTER_MS);
  memset(&stop, 0, sizeof stop);
  stop.stop = 1;
  itg__dlp_sig_encode(&stop, buf);
  if (send_all(d->sig, buf, sizeof buf) != 0 && rc == 0)
    rc = ITG_ESOCKET;
  itg__sock_close(d->data);
  itg__sock_close(d->sig);
  free(d);
  return rc;
}

static const char *ditg_path(void *state) {
  return ((ditg_sink *)state)->name;
}

const itg__log_sink_ops itg__log_sink_ditg = {
    ditg_open, ditg_write, ditg_flush, ditg_stats, ditg_close, ditg_path, 0,
    1};
