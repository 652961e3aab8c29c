/* A logger's remote sink (see log/ship.h).
 *
 * TCP: the socket is non-blocking. Encoded frames wait in `out` (room for
 * two of the largest frames: one on the wire while the next is added);
 * small frames gather there until half of it is taken or the logger
 * flushes after a pass over its lanes, so that a small D does not cost a
 * send and a receive per batch. Every record
 * shipped stays in the `keep` ring until the server acknowledges it, so
 * when the connection fails the unacknowledged records go to the spill
 * file and nothing is lost. A full window or a full `out` waits for the
 * server's acknowledgements, which is what makes the socket readable, but
 * only while the logger's producers have room (cfg.hurry): a server that
 * does not read must not make the packet path wait. Once they are pressed
 * the batches go to the spill file, each without waiting, until the server
 * takes something again; shipping then goes on where it was. A server that
 * takes nothing for ITG__SHIP_STALL_NS while records wait for it is given
 * up and registered with again.
 * UDP: batches leave as datagrams on their own socket; the TCP connection
 * only registers, leaves and tells the sink that the server went away.
 * Batches smaller than ITG__SHIP_UDP_GATHER records gather into one
 * datagram of about a packet's size (1 296 bytes: no fragments on an
 * Ethernet path) that leaves when full or at the next flush. */
#include "log/ship.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "log/ditg_proto.h"
#include "log/proto.h"
#include "platform/platform.h"

#define ITG__SHIP_CONNECT_NS 500000000LL
#define ITG__SHIP_ACK_NS 1000000000LL   /* wait for REGISTER_ACK */
#define ITG__SHIP_STALL_NS 5000000000LL /* no progress: the server is gone */
#define ITG__SHIP_RETRY_NS 1000000000LL
#define ITG__SHIP_POLL_NS 1000000LL
#define ITG__SHIP_UDP_GATHER 40

struct itg__ship {
  itg__ship_cfg cfg;
  char name[ITG__LP_NAME_MAX + 1];
  char token[ITG__LP_TOKEN_MAX + 1];
  char spill_path[512];
  uint32_t flows[ITG__LP_MAX_FLOWS];
  itg__addr server;
  itg__sock sock; /* TCP, ITG__BAD_SOCK while spilling */
  itg__sock usock; /* UDP batches */
  uint32_t session, key;
  int64_t retry_at; /* monotonic: next registration attempt */
  int64_t stall_at; /* monotonic: the server is gone if it takes nothing
                       by then while records wait for it */
  int hurried;      /* the producers were pressed while the server took
                       nothing: batches spill without waiting */
  int registered_once;
  uint64_t shipped;  /* records shipped in this session (the next offset) */
  uint64_t acked;    /* records the server acknowledged in this session */
  itg_logrec *keep;  /* TCP: records shipped, not acknowledged (ring) */
  size_t keep_cap, keep_head, keep_n;
  uint8_t *out;      /* TCP: frames not yet sent */
  size_t out_cap, out_off, out_len;
  uint8_t *in;       /* frames from the server, ITG__LP_MAX_FRAME bytes */
  itg__frame_reader rd; /* over `in` */
  int left;          /* LEAVE_ACK received */
  size_t need_recs, need_bytes; /* room ship_tcp waits for */
  itg_logrec gather[ITG__SHIP_UDP_GATHER]; /* UDP: small batches, not sent */
  size_t gather_n;
  itg_logwriter *spill;
  uint64_t to_spill; /* records given to the spill file */
  int spill_err;     /* the spill file's first error: what it held is lost */
  itg__ship_stats st;
};

/* Keeps the spill file's first error. Returns rc. */
static int spill_failed(itg__ship *s, int rc) {
  if (rc != 0 && s->spill_err == 0)
    s->spill_err = rc;
  return rc;
}

/* Writes n records to the spill file, opened when first needed. Returns 0
 * or the spill file's error (the records are then lost: counted by
 * itg__ship_get_stats). */
static int spill_records(itg__ship *s, const itg_logrec *recs, size_t n) {
  int rc = s->spill_err;
  if (n == 0)
    return 0;
  s->to_spill += n;
  if (rc == 0 && s->spill == NULL)
    rc = itg_logwriter_open(s->spill_path, &s->cfg.hdr, &s->spill);
  if (rc == 0)
    rc = itg_logwriter_write(s->spill, recs, n);
  return spill_failed(s, rc);
}

/* The connection failed: its unacknowledged records go to the spill file.
 * Over UDP nothing is kept: a session that sent datagrams ends with their
 * count unconfirmed. */
static int fail_over(itg__ship *s) {
  int rc, rc2;
  size_t first = s->keep_n;
  if (s->cfg.transport == ITG_LOG_UDP && s->shipped > 0 && !s->left)
    s->st.unconfirmed++;
  if (first > s->keep_cap - s->keep_head)
    first = s->keep_cap - s->keep_head;
  rc = spill_records(s, s->keep + s->keep_head, first);
  rc2 = spill_records(s, s->keep, s->keep_n - first);
  if (rc == 0)
    rc = rc2;
  rc2 = spill_records(s, s->gather, s->gather_n);
  if (rc == 0)
    rc = rc2;
  s->keep_head = s->keep_n = 0;
  s->gather_n = 0;
  s->out_off = s->out_len = 0;
  itg__frame_reader_reset(&s->rd);
  itg__sock_close(s->sock);
  itg__sock_close(s->usock);
  s->sock = s->usock = ITG__BAD_SOCK;
  s->retry_at = (int64_t)uv_hrtime() + ITG__SHIP_RETRY_NS;
  return rc;
}

/* Drops the first n kept records: the server has them. */
static void keep_drop(itg__ship *s, uint64_t n) {
  if (n > s->keep_n)
    n = s->keep_n;
  s->keep_head = (s->keep_head + (size_t)n) % s->keep_cap;
  s->keep_n -= (size_t)n;
}

static void keep_add(itg__ship *s, const itg_logrec *recs, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    s->keep[(s->keep_head + s->keep_n + i) % s->keep_cap] = recs[i];
  s->keep_n += n;
}

/* Takes the frames the server sent. Returns 0, or < 0 if the connection is
 * unusable. */
static int take_input(itg__ship *s) {
  for (;;) {
    size_t room;
    uint8_t *p = itg__frame_reader_space(&s->rd, s->in, ITG__LP_MAX_FRAME,
                                         &room);
    int n = itg__stream_recv(s->sock, p, room);
    if (n < 0)
      return n;
    if (n == 0)
      return 0;
    itg__frame_reader_commit(&s->rd, (size_t)n);
    for (;;) {
      itg__lp_msg m;
      int rc = itg__lp_next(&s->rd, s->in, ITG__LP_MAX_FRAME, &m);
      if (rc == 0)
        break;
      if (rc < 0)
        return rc;
      if (m.type == ITG__LP_ACK && m.seq > s->acked && m.seq <= s->shipped) {
        keep_drop(s, m.seq - s->acked);
        s->acked = m.seq;
      } else if (m.type == ITG__LP_LEAVE_ACK) {
        keep_drop(s, s->keep_n);
        s->acked = s->shipped;
        s->st.missing += m.missing;
        s->left = 1;
      } else {
        return ITG_EBADMSG;
      }
    }
  }
}

/* Sends what waits in `out` without blocking. Returns bytes sent or < 0. */
static int push_output(itg__ship *s) {
  int n;
  if (s->out_off == s->out_len)
    return 0;
  n = itg__stream_send(s->sock, s->out + s->out_off, s->out_len - s->out_off);
  if (n > 0) {
    s->out_off += (size_t)n;
    if (s->out_off == s->out_len)
      s->out_off = s->out_len = 0;
  }
  return n;
}

static int all_acked(const itg__ship *s) {
  return s->out_off == s->out_len && s->keep_n == 0;
}

/* Whether the records must not wait for the server any more. */
static int must_hurry(itg__ship *s) {
  if (!s->hurried && s->cfg.hurry != NULL && s->cfg.hurry(s->cfg.hurry_arg))
    s->hurried = 1;
  return s->hurried;
}

/* Moves bytes both ways until done(s) holds (checked after each step),
 * waiting while the server makes progress (at most wait_ns if >= 0).
 * Returns 0; ITG_EBUSY if may_hurry and must_hurry say the records cannot
 * wait; or another < 0 after the connection was given up (the caller then
 * fails over). */
static int pump(itg__ship *s, int (*done)(const itg__ship *), int64_t wait_ns,
                int may_hurry) {
  int64_t end = (int64_t)uv_hrtime() + wait_ns;
  for (;;) {
    uint64_t acked = s->acked;
    int sent = push_output(s);
    int rc;
    if (sent < 0)
      return sent;
    rc = take_input(s);
    if (rc < 0)
      return rc;
    if (sent > 0 || s->acked != acked || all_acked(s)) {
      s->stall_at = (int64_t)uv_hrtime() + ITG__SHIP_STALL_NS;
      s->hurried = 0;
    }
    if (done(s))
      return 0;
    if ((int64_t)uv_hrtime() >= s->stall_at)
      return ITG_ETIMEDOUT;
    if (wait_ns >= 0 && (int64_t)uv_hrtime() >= end)
      return 0;
    if (may_hurry && must_hurry(s))
      return ITG_EBUSY;
    rc = itg__sock_wait_readable(s->sock, ITG__SHIP_POLL_NS);
    if (rc < 0)
      return rc;
  }
}

static int always(const itg__ship *s) {
  (void)s;
  return 1;
}

static int has_left(const itg__ship *s) { return s->left; }

static int has_room(const itg__ship *s) {
  return s->keep_n + s->need_recs <= s->keep_cap &&
         s->out_cap - (s->out_len - s->out_off) >= s->need_bytes;
}

/* Sends one frame on the still-blocking socket during registration. */
static int send_frame(itg__sock sock, const uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    int n = itg__stream_send(sock, buf + at, len - at);
    if (n <= 0)
      return n < 0 ? n : ITG_ESOCKET;
    at += (size_t)n;
  }
  return 0;
}

/* Connects and registers. Returns 0, or < 0 (the sink goes on spilling). */
static int register_session(itg__ship *s) {
  uint8_t buf[ITG__LP_HDR_LEN + 8 + ITG__LP_MAX_FLOWS * 4 + 3 * 2 +
              ITG__LP_TOKEN_MAX + 32 + ITG__LP_NAME_MAX];
  itg__lp_msg m;
  itg__sock sock;
  int64_t end;
  int rc, n;
  rc = itg__sock_open(&s->server, 0, &sock);
  if (rc < 0)
    return rc;
  rc = itg__sock_connect(sock, &s->server, ITG__SHIP_CONNECT_NS);
  if (rc < 0)
    goto out_close;
  itg__sock_set_nodelay(sock, 1);
  itg__lp_init(&m, ITG__LP_REGISTER);
  m.transport = s->cfg.transport == ITG_LOG_UDP ? ITG__LP_UDP : ITG__LP_TCP;
  m.role = (uint8_t)s->cfg.hdr.role;
  m.nflows = (uint16_t)s->cfg.nflows;
  memcpy(m.flows, s->flows, sizeof m.flows);
  memcpy(m.token, s->token, sizeof m.token);
  memcpy(m.host, s->cfg.hdr.host, sizeof m.host);
  memcpy(m.name, s->name, sizeof m.name);
  n = itg__lp_encode(&m, NULL, buf, sizeof buf);
  rc = n < 0 ? n : send_frame(sock, buf, (size_t)n);
  if (rc < 0)
    goto out_close;
  itg__frame_reader_reset(&s->rd);
  end = (int64_t)uv_hrtime() + ITG__SHIP_ACK_NS;
  for (;;) {
    int64_t left = end - (int64_t)uv_hrtime();
    size_t room;
    uint8_t *p;
    if (left <= 0) {
      rc = ITG_ETIMEDOUT;
      goto out_close;
    }
    /* A server slow to answer is tried again later rather than waited
     * for while the producers are pressed. */
    if (s->cfg.hurry != NULL && s->cfg.hurry(s->cfg.hurry_arg)) {
      rc = ITG_EBUSY;
      goto out_close;
    }
    rc = itg__sock_wait_readable(sock, left < ITG__SHIP_POLL_NS
                                           ? left : ITG__SHIP_POLL_NS);
    if (rc < 0)
      goto out_close;
    if (rc == 0)
      continue;
    p = itg__frame_reader_space(&s->rd, s->in, ITG__LP_MAX_FRAME, &room);
    n = itg__stream_recv(sock, p, room);
    if (n <= 0) {
      rc = n < 0 ? n : ITG_ESOCKET;
      goto out_close;
    }
    itg__frame_reader_commit(&s->rd, (size_t)n);
    /* A server that found this client slow to speak greeted it as it
     * greets D-ITG's clients (log/ditg_proto.h): no frame starts so. */
    if (s->rd.start == 0 && s->rd.len > 0 && s->in[0] == ITG__DLP_CONNECT)
      s->rd.start = 1;
    n = itg__lp_next(&s->rd, s->in, ITG__LP_MAX_FRAME, &m);
    if (n == 0)
      continue;
    rc = n < 0 ? n : m.type != ITG__LP_REGISTER_ACK ? ITG_EBADMSG : m.status;
    if (rc < 0)
      goto out_close;
    break;
  }
  if (s->cfg.transport == ITG_LOG_UDP) {
    itg__addr ua = s->server;
    itg__addr_set_port(&ua, m.udp_port);
    rc = itg__sock_open(&ua, 1, &s->usock);
    if (rc < 0)
      goto out_close;
    rc = itg__sock_connect(s->usock, &ua, ITG__SHIP_CONNECT_NS);
    if (rc < 0)
      goto out_close_udp;
    itg__sock_set_bufs(s->usock, 4 * 1024 * 1024, 0);
  }
  rc = itg__sock_set_nonblock(sock, 1);
  if (rc < 0)
    goto out_close_udp;
  s->sock = sock;
  s->session = m.session;
  s->key = m.key;
  s->shipped = s->acked = 0;
  s->left = 0;
  s->stall_at = (int64_t)uv_hrtime() + ITG__SHIP_STALL_NS;
  s->hurried = 0;
  if (s->registered_once)
    s->st.reconnects++;
  s->registered_once = 1;
  return 0;

out_close_udp:
  itg__sock_close(s->usock);
  s->usock = ITG__BAD_SOCK;
out_close:
  itg__sock_close(sock);
  s->retry_at = (int64_t)uv_hrtime() + ITG__SHIP_RETRY_NS;
  return rc;
}

/* Registers again once the retry time has come. Returns 1 if connected. */
static int connected(itg__ship *s) {
  if (s->sock != ITG__BAD_SOCK)
    return 1;
  if ((int64_t)uv_hrtime() < s->retry_at)
    return 0;
  return register_session(s) == 0;
}

int itg__ship_open(const itg__ship_cfg *cfg, itg__ship **out) {
  itg__ship *s;
  int rc;
  if (cfg == NULL || out == NULL || cfg->host == NULL || cfg->host[0] == '\0' ||
      cfg->nflows > ITG__LP_MAX_FLOWS || cfg->batch == 0 ||
      (cfg->token != NULL && strlen(cfg->token) > ITG__LP_TOKEN_MAX) ||
      (cfg->name != NULL && strlen(cfg->name) > ITG__LP_NAME_MAX))
    return ITG_EINVAL;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return ITG_ENOMEM;
  s->cfg = *cfg;
  s->sock = s->usock = ITG__BAD_SOCK;
  if (cfg->name != NULL)
    strcpy(s->name, cfg->name);
  if (cfg->token != NULL)
    strcpy(s->token, cfg->token);
  if (cfg->nflows > 0)
    memcpy(s->flows, cfg->flows, cfg->nflows * sizeof *cfg->flows);
  if (cfg->spill_path != NULL)
    snprintf(s->spill_path, sizeof s->spill_path, "%s", cfg->spill_path);
  else
    snprintf(s->spill_path, sizeof s->spill_path, "%s.%d" ITG__LP_SPILL_SUFFIX,
             s->name[0] != '\0' ? s->name : "itg", (int)uv_os_getpid());
  rc = itg__platform_init();
  if (rc == 0)
    rc = itg__addr_resolve(cfg->host, cfg->port, 0, &s->server) != 0
             ? ITG_EINVAL : 0;
  if (rc < 0)
    goto out_free;
  rc = ITG_ENOMEM;
  s->keep_cap = (size_t)cfg->batch * 16 < 16384 ? 16384 : (size_t)cfg->batch * 16;
  s->keep = malloc(s->keep_cap * sizeof *s->keep);
  s->out_cap = 2 * ITG__LP_MAX_FRAME;
  s->out = malloc(s->out_cap);
  s->in = malloc(ITG__LP_MAX_FRAME);
  if (s->keep == NULL || s->out == NULL || s->in == NULL)
    goto out_free;
  register_session(s);
  *out = s;
  return 0;

out_free:
  free(s->keep);
  free(s->out);
  free(s->in);
  free(s);
  return rc;
}

/* TCP: queues one frame of at most ITG__LP_MAX_RECS records. */
static int ship_tcp(itg__ship *s, const itg_logrec *recs, size_t n) {
  size_t frame = ITG__LP_HDR_LEN + 8 + n * ITG_LOG_RECORD_LEN;
  itg__lp_msg m;
  int rc;
  s->need_recs = n;
  s->need_bytes = frame;
  if (!has_room(s)) {
    rc = pump(s, has_room, -1, 1);
    if (rc < 0)
      return rc;
  }
  if (s->out_off > 0) {
    memmove(s->out, s->out + s->out_off, s->out_len - s->out_off);
    s->out_len -= s->out_off;
    s->out_off = 0;
  }
  itg__lp_init(&m, ITG__LP_BATCH);
  m.seq = s->shipped;
  m.nrecs = (uint32_t)n;
  rc = itg__lp_encode(&m, recs, s->out + s->out_len, s->out_cap - s->out_len);
  if (rc < 0)
    return rc;
  s->out_len += (size_t)rc;
  keep_add(s, recs, n);
  s->shipped += n;
  return s->out_len - s->out_off >= s->out_cap / 2 ? pump(s, always, 0, 0)
                                                   : 0;
}

/* UDP: sends n records (at most ITG__LP_MAX_UDP_RECS) as one datagram; a
 * datagram the network loses is the server's to count. */
static void send_dgram(itg__ship *s, const itg_logrec *recs, size_t n) {
  itg__dgram d;
  if (n == 0)
    return;
  memset(&d, 0, sizeof d);
  d.buf = s->out;
  d.len = itg__lp_dgram_encode(s->session, s->key, s->shipped, recs, n, s->out);
  itg__send_batch(s->usock, &d, 1);
  s->shipped += n;
}

static void send_gathered(itg__ship *s) {
  send_dgram(s, s->gather, s->gather_n);
  s->gather_n = 0;
}

/* UDP: ships a batch, or gathers it if it is small. Takes nothing if the
 * server has gone (returns < 0). */
static int ship_udp(itg__ship *s, const itg_logrec *recs, size_t n) {
  int rc = take_input(s);
  if (rc < 0)
    return rc;
  if (s->gather_n + n > ITG__SHIP_UDP_GATHER)
    send_gathered(s);
  if (n >= ITG__SHIP_UDP_GATHER) {
    send_dgram(s, recs, n);
  } else {
    memcpy(s->gather + s->gather_n, recs, n * sizeof *recs);
    s->gather_n += n;
  }
  return 0;
}

int itg__ship_write(itg__ship *s, const itg_logrec *recs, size_t n) {
  size_t max = s->cfg.transport == ITG_LOG_UDP ? ITG__LP_MAX_UDP_RECS
                                                : ITG__LP_MAX_RECS;
  while (n > 0) {
    size_t k = n < max ? n : max;
    uint64_t before = s->shipped;
    int rc;
    if (!connected(s))
      return spill_records(s, recs, n);
    rc = s->cfg.transport == ITG_LOG_UDP ? ship_udp(s, recs, k)
                                         : ship_tcp(s, recs, k);
    if (rc == ITG_EBUSY) {
      /* The server is not reading and the producers cannot wait. */
      rc = spill_records(s, recs, k);
      if (rc < 0)
        return rc;
    } else if (rc < 0) {
      rc = fail_over(s); /* spills the chunk too if it was taken */
      if (rc < 0)
        return rc;
      if (s->shipped == before)
        continue; /* not taken: spilled on the next round */
    }
    recs += k;
    n -= k;
  }
  return 0;
}

int itg__ship_flush(itg__ship *s) {
  if (s->sock != ITG__BAD_SOCK)
    send_gathered(s);
  if (connected(s) && pump(s, always, 0, 0) < 0) {
    int rc = fail_over(s);
    if (rc < 0)
      return rc;
  }
  return s->spill != NULL ? spill_failed(s, itg_logwriter_flush(s->spill))
                          : 0;
}

void itg__ship_get_stats(const itg__ship *s, itg__ship_stats *out) {
  *out = s->st;
  out->connected = s->sock != ITG__BAD_SOCK;
  /* A failed writer holds nothing more: what it did not write is lost. */
  out->lost = s->spill_err != 0
                  ? s->to_spill - itg_logwriter_written(s->spill) : 0;
  out->spilled = s->to_spill - out->lost;
  out->spill_error = s->spill_err;
}

const char *itg__ship_spill_path(const itg__ship *s) { return s->spill_path; }

/* Says LEAVE with the count shipped and waits for LEAVE_ACK. */
static int leave(itg__ship *s) {
  itg__lp_msg m;
  int rc;
  send_gathered(s);
  rc = pump(s, all_acked, ITG__SHIP_STALL_NS, 0);
  if (rc < 0)
    return rc;
  if (s->cfg.transport == ITG_LOG_TCP && !all_acked(s))
    return ITG_ETIMEDOUT;
  itg__lp_init(&m, ITG__LP_LEAVE);
  m.seq = s->shipped;
  rc = itg__lp_encode(&m, NULL, s->out + s->out_len, s->out_cap - s->out_len);
  if (rc < 0)
    return rc;
  s->out_len += (size_t)rc;
  rc = pump(s, has_left, ITG__SHIP_STALL_NS, 0);
  if (rc == 0 && !s->left)
    rc = ITG_ETIMEDOUT;
  return rc;
}

int itg__ship_close(itg__ship *s, itg__ship_stats *st) {
  int rc = 0, rc2;
  if (s == NULL)
    return 0;
  if (s->sock != ITG__BAD_SOCK && leave(s) < 0)
    rc = fail_over(s);
  itg__sock_close(s->sock);
  itg__sock_close(s->usock);
  s->sock = s->usock = ITG__BAD_SOCK;
  if (s->spill != NULL)
    spill_failed(s, itg_logwriter_flush(s->spill));
  if (st != NULL)
    itg__ship_get_stats(s, st);
  rc2 = spill_failed(s, itg_logwriter_close(s->spill));
  if (rc == 0)
    rc = rc2;
  free(s->keep);
  free(s->out);
  free(s->in);
  free(s);
  return rc;
}
