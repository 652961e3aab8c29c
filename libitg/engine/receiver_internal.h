/* The receiver's private state, shared by receiver*.c. Everything here is
 * touched only by the receiver's loop thread, except the fields marked
 * "any thread". */
#ifndef ITG_ENGINE_RECEIVER_INTERNAL_H
#define ITG_ENGINE_RECEIVER_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "core/idmap.h"
#include "core/netlist.h"
#include "core/sweep.h"
#include "engine/control.h"
#include "engine/deframe.h"
#include "itg/logserver.h"
#include "itg/receiver.h"
#include "platform/platform.h"

#define ITG__RX_BATCH 64           /* datagrams per receive call */
#define ITG__RX_BUF 65536          /* room per datagram */
#define ITG__RX_DRAIN_ROUNDS 16    /* batches per wake-up, then others' turn */
#define ITG__RX_CB_RECS 256        /* records per on_records call */
#define ITG__RX_BUCKETS 1024       /* demultiplexing hash buckets */
#define ITG__RX_LINGER_MS 300      /* see receiver.h: end of a flow */
#define ITG__RX_FLOW_LOG_CAP 8192  /* ring records of a per-flow logger */
#define ITG__RX_FIRST_FREE_PORT 1024u /* below: privileged (root's) ports */

typedef struct itg__rx_flow itg__rx_flow;
typedef struct itg__rx_log_open itg__rx_log_open;

/* What one sender address holds: signaling connections and flows. */
typedef struct itg__rx_peer {
  struct itg__rx_peer *next;
  uint8_t ip[16];
  uint32_t conns, flows;
} itg__rx_peer;

/* A log (a file, or a session with a log server) and the flows writing to
 * it. */
typedef struct itg__rx_log {
  struct itg__rx_log *next;
  char path[ITG_PATH_MAX];   /* the file asked for (the key flows share
                                it by), or the name asked of the server */
  char file[ITG_PATH_MAX];   /* a file: the one made (path, or path.k when
                                path existed) */
  char server[ITG_HOST_MAX]; /* the log server, "" for a file */
  itg__addr server_addr;     /* remote: the server's address, resolved once */
  char server_ip[64];        /* remote: that address, numeric */
  uint16_t server_port;
  itg_log_transport transport;
  char spill[ITG_PATH_MAX]; /* remote: the spill file */
  itg_logger *logger;
  uint32_t refs;
  itg__idmap ids;  /* every flow id written to this file so far */
  uint32_t max_id; /* the largest of them */
  int announce_unreachable; /* a new session that could not reach its
                               server: told to the flow that takes it */
} itg__rx_log;

/* A data port: a UDP socket, or a TCP listener, shared by the flows that
 * ask for the same port and transport. */
typedef struct itg__rx_sock {
  struct itg__rx_sock *next;
  itg_receiver *r;
  itg_proto proto;
  uint16_t port;
  uint32_t refs;
  itg__sock fd;         /* UDP */
  uv_poll_t poll;       /* UDP */
  uv_tcp_t listener;    /* TCP */
  itg__rx_flow *last;   /* UDP: the flow of the last datagram (fast path) */
} itg__rx_sock;

/* A signaling connection (one flow at most). */
typedef struct itg__rx_conn {
  uv_tcp_t tcp;
  itg_receiver *r;
  struct itg__rx_conn *next, *prev;
  itg__rx_flow *flow;
  itg__rx_log_open *opening; /* the log session its FLOW_OPEN waits for */
  int hello_done;
  int closing;
  uint8_t ip[16];
  char peer[ITG_HOST_MAX];
  itg__rx_peer *from;
  uint64_t deadline; /* loop ms by which its flow must be open; 0 once
                        it is */
  uint64_t active;   /* loop ms of its last message or flow packet */
  uint64_t seen;     /* its flow's packets at the last sweep */
  itg__ctl_reader rd;
} itg__rx_conn;

/* A TCP data connection, bound to its flow by the first packet's id. */
typedef struct itg__rx_tcp {
  uv_tcp_t tcp;
  itg_receiver *r;
  struct itg__rx_tcp *next, *prev;
  itg__rx_sock *lsock;
  itg__rx_flow *flow;
  int closing;
  uint8_t ip[16];
  uint64_t deadline; /* loop ms by which its first packet must come */
  size_t echo_held;  /* memory of its queued echoes, bytes */
  itg__deframe df;
} itg__rx_tcp;

struct itg__rx_flow {
  itg_receiver *r;
  struct itg__rx_flow *next, *prev; /* every flow */
  struct itg__rx_flow *hnext;       /* its demultiplexing bucket */
  struct itg__rx_flow *pnext;       /* pending end (see itg__rx_progress) */
  uint32_t id;
  uint8_t ip[16];
  itg_proto proto;
  itg_meter meter;
  itg_wire_profile wire;
  uint64_t token; /* NATIVE packets carry it (itg/wire.h) */
  uint16_t port;
  itg__rx_conn *conn; /* NULL once the sender's signaling is gone */
  itg__rx_peer *from; /* its sender address's counts */
  char peer[ITG_HOST_MAX]; /* the sender, for events after that */
  itg__rx_sock *sock;
  itg__rx_tcp *data;
  int data_ended; /* TCP: the data connection has closed */
  itg__rx_log *log;
  uint64_t packets, bytes;
  int closing;       /* FLOW_CLOSE arrived: `sent` is known */
  int end_pending;   /* on the pending list */
  uint64_t sent;
  uint64_t linger_mark; /* packets when the linger timer was last set */
  uv_timer_t linger;
};

struct itg_receiver {
  itg_receiver_cfg cfg;
  itg_logserver_net log_nets[ITG_LOGSERVER_MAX_NETS]; /* cfg.log_servers */
  uint32_t n_log_nets;
  uv_loop_t loop;
  uv_tcp_t server;
  uv_async_t wake;
  uv_timer_t sweep;
  uv_thread_t thread;
  int started;     /* the thread runs (creator's thread only) */
  int stop_asked;  /* loop thread */
  uint16_t port;

  /* any thread: counters */
  _Atomic uint64_t n_packets, n_bytes, n_malformed, n_served, n_active,
      n_refused, n_echoes, n_echo_dropped, n_echo_backlog, n_conns_refused,
      n_conns_expired;

  /* any thread, under lock: idle accounting, stop */
  uv_mutex_t lock;
  uv_cond_t idle_cond;
  uint32_t conns;
  uint32_t flows;
  int stopped;
  int log_error;

  itg__rx_log *logs;
  itg__rx_log *default_log;
  uint32_t spills; /* remote logs opened: numbers their spill files */
  itg__rx_sock *socks;
  itg__rx_flow *flow_list;
  itg__rx_flow *buckets[ITG__RX_BUCKETS];
  itg__rx_flow *pending;
  itg__rx_conn *conn_list, *conn_tail; /* oldest first */
  itg__rx_tcp *tcp_list, *tcp_tail;    /* oldest first */
  itg__rx_peer *peer_buckets[ITG__RX_BUCKETS];
  uint32_t peer_seed;
  uint64_t fd_limit; /* the process's, at start; 0 none */
  uint64_t fds;      /* descriptors of connections and data ports */

  /* data path scratch (loop thread) */
  uint8_t *bufs;
  itg__dgram dg[ITG__RX_BATCH];
  itg__addr peers[ITG__RX_BATCH];
  itg__dgram echo[ITG__RX_BATCH];
  itg_logrec cb_recs[ITG__RX_CB_RECS];
  size_t cb_n;
};

/* ---- receiver.c ---- */

/* Adds delta to the counted signaling connections / flows and wakes
 * itg_receiver_wait_idle when both reach zero. */
void itg__rx_count(itg_receiver *r, int dconns, int dflows);

/* Keeps the first log error for itg_receiver_stop. */
void itg__rx_log_error(itg_receiver *r, int err);

/* Reports a flow event to cfg.on_flow. */
void itg__rx_event(itg_receiver *r, const itg_flow_event *ev);

/* ---- receiver_guard.c ---- */

/* Takes a hold on the counts of address ip (zero for a new one), or
 * returns NULL when out of memory. */
itg__rx_peer *itg__rx_peer_hold(itg_receiver *r, const uint8_t ip[16]);

/* Forgets p once neither a connection nor a flow counts in it. */
void itg__rx_peer_release(itg_receiver *r, itg__rx_peer *p);

/* A connection was accepted: returns 1 if it fits in the descriptors
 * (closing, if it must and may_evict, the oldest connection that has not
 * opened its flow or sent its first packet), counting it in r->fds, or 0
 * if it is to be refused (counted). */
int itg__rx_fd_admit(itg_receiver *r, int may_evict);

/* Starts the timer that enforces handshake_ms and idle_ms, r->sweep (on
 * the loop thread, before it runs; closed when the receiver stops). */
void itg__rx_guard_start(itg_receiver *r);

/* ---- receiver_sig.c ---- */

/* Starts listening for senders on cfg.bind_host:cfg.sig_port. Returns 0 or
 * an ITG_E* code. */
int itg__rx_sig_listen(itg_receiver *r);

/* Sends a message to a connection (dropped if it is closing). */
void itg__rx_conn_send(itg__rx_conn *c, const itg__ctl_msg *m);

/* Closes a signaling connection, after its queued replies if graceful,
 * ending its flow. */
void itg__rx_conn_close(itg__rx_conn *c, int graceful);

/* FLOW_OPEN: sets the flow up and answers, or refuses it with a reason;
 * either way the connection and every other flow go on. Waits without an
 * answer while the flow's log session opens (it is called again then). */
void itg__rx_conn_flow_open(itg__rx_conn *c, const itg__ctl_msg *m);

/* Refuses the flow that m asks for: answers with rc and msg, reports it. */
void itg__rx_conn_refuse(itg__rx_conn *c, const itg__ctl_msg *m, int rc,
                         const char *msg);

/* Closes the signaling connections past handshake_ms without a flow or
 * idle for idle_ms, telling their senders why. */
void itg__rx_conn_sweep(itg_receiver *r, uint64_t now);

/* ---- receiver_log.c ---- */

/* itg__rx_log_make: the log is a session with a server still to be
 * opened; the FLOW_OPEN is handled again once it is. */
#define ITG__RX_LOG_OPENING 1

/* Sets lc up for a receiver log written to path (a file, or the name a
 * log server is asked for): kernel receive stamps, the receiver's -q. */
void itg__rx_log_cfg(const itg_receiver *r, const char *path,
                     itg_logger_cfg *lc);

/* Called when a log has let a flow go, with its ENDED event. */
typedef void (*itg__rx_log_done)(itg_receiver *r, itg_flow_event *ev);

/* Checks what FLOW_OPEN m from c asks of the logs (a name by the shared
 * rule of itg__lp_name_ok, a log server this receiver ships to) and finds
 * the open log it names, opening nothing: *out is that log, or NULL with
 * *fresh set when a new one is to be made by itg__rx_log_make from path
 * (ITG_PATH_MAX bytes, filled here), or NULL for a flow not logged.
 * Returns 0, or an ITG_E* code with a sentence in msg. */
int itg__rx_log_lookup(itg_receiver *r, const itg__rx_conn *c,
                       const itg__ctl_msg *m, char *path, itg__rx_log **out,
                       int *fresh, char *msg, size_t msglen);

/* Makes the log that itg__rx_log_lookup found missing: creates the file
 * under log_dir (*out set), or starts opening the session with a log
 * server, whose FLOW_OPEN is handled again once it is open (the server's
 * address is checked then). Returns 0, ITG__RX_LOG_OPENING, or an ITG_E*
 * code with a sentence in msg. */
int itg__rx_log_make(itg_receiver *r, itg__rx_conn *c, const itg__ctl_msg *m,
                     const char *path, itg__rx_log **out, char *msg,
                     size_t msglen);

/* Takes a flow's hold on lg (NULL: none). Sets *unreachable for the first
 * flow of a session that could not reach its server. */
void itg__rx_log_hold(itg__rx_log *lg, int *unreachable);

/* Drops a hold on lg (NULL: none), closing it with the last. If ev is not
 * NULL, done is then called with it, completed with the log's counts:
 * after the session's close, for the last hold on a session. */
void itg__rx_log_release(itg_receiver *r, itg__rx_log *lg,
                         const itg_flow_event *ev, itg__rx_log_done done);

/* Connection c is going: a session opening for it is not waited for. */
void itg__rx_log_abandon(itg__rx_conn *c);

/* ---- receiver_flow.c ---- */

/* Sets up a flow asked for by FLOW_OPEN on connection c. Returns 0 with
 * *out set, ITG__RX_LOG_OPENING while the log session it asks for opens,
 * or an ITG_E* code with a sentence in msg. */
int itg__rx_flow_open(itg_receiver *r, itg__rx_conn *c,
                      const itg__ctl_msg *m, itg__rx_flow **out, char *msg,
                      size_t msglen);

/* FLOW_CLOSE: the sender sent `sent` packets; the flow ends when they are
 * all in, or its linger runs out. */
void itg__rx_flow_closing(itg__rx_flow *f, uint64_t sent);
/* The sender's signaling connection vanished without FLOW_CLOSE (sender
 * killed, network gone): detaches the flow from it and ends it after a
 * linger period without packets, keeping every packet that arrives till
 * then. */
void itg__rx_flow_orphan(itg__rx_flow *f);

/* Ends a flow now: logs FLOW_END if its count is known, answers
 * FLOW_CLOSE_ACK if the sender waits for it, releases its port and log. */
void itg__rx_flow_end(itg__rx_flow *f);

/* Finds the open flow with this id from this address on this port, or
 * NULL. */
itg__rx_flow *itg__rx_flow_find(itg_receiver *r, const itg__rx_sock *s,
                                const uint8_t ip[16], uint32_t id);

/* Ends every flow, then closes every connection and log (stopping). */
void itg__rx_close_all(itg_receiver *r);

/* ---- receiver_data.c ---- */

/* Opens the data port a flow asks for (port 0: a free one), or shares an
 * open one. Returns 0 with *out set, or an ITG_E* code. */
int itg__rx_sock_acquire(itg_receiver *r, itg_proto proto, uint16_t port,
                         itg__rx_sock **out);

/* Drops a flow's hold on its data port, closing it with the last. */
void itg__rx_sock_release(itg__rx_sock *s);

/* Reads everything waiting on a UDP data port. */
void itg__rx_udp_drain(itg__rx_sock *s);

/* Closes a TCP data connection. */
void itg__rx_tcp_close(itg__rx_tcp *t);

/* Closes the TCP data connections past handshake_ms without a packet. */
void itg__rx_tcp_sweep(itg_receiver *r, uint64_t now);

/* Logs a record of flow f (its log, and on_records). */
void itg__rx_record(itg_receiver *r, itg__rx_flow *f, const itg_logrec *rec);

/* Hands the buffered records to on_records. */
void itg__rx_flush_records(itg_receiver *r);

/* Notes that flow f received packets: a closing flow that has them all is
 * put on the pending list, ended by itg__rx_run_pending. */
void itg__rx_progress(itg__rx_flow *f);

/* Ends the flows on the pending list (after a data callback, when no
 * socket is being read any more). */
void itg__rx_run_pending(itg_receiver *r);

#endif
