/* The log server's insides, shared by server.c (loop, ports, access)
 * and server_session.c (clients, sessions, files), which server.c calls
 * into and which calls nothing of server.c. Everything here runs on the
 * server's loop thread unless said otherwise. */
#ifndef ITG_LOG_SERVER_INTERNAL_H
#define ITG_LOG_SERVER_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "log/proto.h"
#include "itg/logserver.h"

/* A UDP session's leave waits this long for its last datagrams. */
#define ITG__LS_LINGER_MS 300
/* A session ended by a write error waits this long for its client to see
 * the last acknowledgement and close. */
#define ITG__LS_DRAIN_MS 10000
/* A client silent this long after connecting is greeted with D-ITG's
 * ITG__DLP_CONNECT, which D-ITG's clients wait for; libitg's speak first
 * (and pass over a greeting before their REGISTER_ACK). */
#define ITG__LS_GREET_MS 200

/* A D-ITG client's session (log/server_ditg.c). */
typedef struct itg__ls_ditg itg__ls_ditg;

typedef struct itg__ls_client {
  uv_tcp_t tcp;
  uv_timer_t linger; /* UDP: the wait for datagrams after LEAVE; after a
                        write error, the wait for the client to close */
  uv_shutdown_t shutdown;
  int handles;       /* handles still open; freed at 0 */
  itg_logserver *srv;
  struct itg__ls_client *next, *prev;
  int registered;    /* a session is open */
  int closing;
  uint32_t session, key;
  uint8_t transport, role;
  uint32_t gap_flow; /* flow id of gap records */
  itg_logwriter *w;
  char file[ITG_PATH_MAX]; /* name in the directory */
  char path[2 * ITG_PATH_MAX + 16];
  char peer[ITG_HOST_MAX];
  uint8_t ip[16];     /* the peer's address (itg__net_ip_key) */
  uint64_t deadline;  /* loop ms by which it must register */
  char host[32];
  uint64_t next_seq;  /* offset of the next record expected */
  uint64_t written;   /* records written (whole in the file once the
                         writer has handed them to the system) */
  uint64_t gaps;      /* gap records written */
  int write_error;    /* the error that ended the session's file */
  int draining;       /* after a write error: what comes is dropped */
  uint64_t missing;
  uint64_t acked;     /* TCP: last ACK sent */
  uint64_t leave_total;
  int leave_asked;
  int dirty;          /* written since the last flush */
  int spoke;          /* its first bytes were read */
  itg__ls_ditg *ditg; /* a D-ITG client's session, else NULL */
  itg__frame_reader rd; /* over rbuf */
  uint8_t rbuf[ITG__LP_MAX_FRAME];
} itg__ls_client;

struct itg_logserver {
  itg_logserver_cfg cfg;
  uv_loop_t loop;
  uv_tcp_t server;
  uv_udp_t udp;
  uv_timer_t flush;
  uv_timer_t sweep;   /* closes clients past handshake_ms */
  uv_async_t wake;
  uv_thread_t thread;
  int started, stopped, stop_asked;
  uint16_t port, udp_port;
  uv_mutex_t lock; /* started / stopped */
  itg__ls_client *clients;
  uint32_t nclients;
  uint32_t next_session;
  uint64_t key_state; /* splitmix64 state for session keys */
  uint8_t dgram[ITG__LP_MAX_DGRAM];
  itg_logrec recs[ITG__LP_MAX_RECS];
  uint8_t ditg_dgram[65536]; /* a D-ITG client's datagram (any size) */
  /* itg__ls_client_close, for server_ditg.c, which server_session.c
   * calls (a function pointer keeps the calls one way) */
  void (*close_client)(struct itg__ls_client *c);
  _Atomic uint64_t n_open, n_total, n_incomplete, n_refused, n_records,
      n_missing, n_expired;
};

/* Takes a new TCP connection (accepted already, allowed). */
void itg__ls_client_start(itg_logserver *s, itg__ls_client *c);

/* Handles one UDP batch datagram. */
void itg__ls_udp_batch(itg_logserver *s, const uint8_t *buf, size_t len);

/* Flushes every session written since the last flush (the timer). */
void itg__ls_flush_all(itg_logserver *s);

/* Closes a client: its open session is kept, marked incomplete. */
void itg__ls_client_close(itg__ls_client *c);

/* Reports an event to cfg.on_session. */
static inline void itg__ls_event(itg_logserver *s,
                                 const itg_log_session_event *ev) {
  if (s->cfg.on_session != NULL)
    s->cfg.on_session(ev, s->cfg.user);
}

/* Takes over a client whose first bytes buf[0..len) are D-ITG's: its
 * session is D-ITG's from then on (log/ditg_proto.h). */
void itg__ls_ditg_start(itg__ls_client *c, const uint8_t *buf, size_t len);

/* Ends a D-ITG client's session (incomplete) as the client is closed. */
void itg__ls_ditg_end(itg__ls_client *c);

/* Hands a D-ITG session's records to the operating system. */
void itg__ls_ditg_flush(itg__ls_client *c);

#endif
