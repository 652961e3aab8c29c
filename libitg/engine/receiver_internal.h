/* The receiver's private state, shared by receiver*.c. Everything here is
 * touched only by the receiver's loop thread, except the fields marked
 * "any thread".
 *
 * The receiver's files call one another in one direction only, each into
 * those below it (a file includes the headers of the files it calls):
 *
 *   receiver.c        public API, the loop thread, the sweep, stopping
 *   receiver_sig.c    signaling connections, each a state machine
 *   receiver_flow.c   flows: set-up, end, linger
 *   receiver_data.c   data ports, packets, demultiplexing; and beside it,
 *   receiver_log.c    log files, log server sessions (neither calls the
 *                     other)
 *   receiver_live.c   live per-flow counts and their public getter
 *   receiver_guard.c  per-address counts, the descriptor budget
 *   receiver_base.c   idle counts, events, errors, shared by all of them
 *
 * What goes up does so through a callback the upper file sets: a log
 * acquired (itg__rx_log_acquire's done), a log's last hold let go
 * (itg__rx_log_release's done), a flow ended (itg__rx_flow.ended), flows
 * completed by packets (itg_receiver.run_pending), a descriptor wanted
 * (itg_receiver.evict). */
#ifndef ITG_ENGINE_RECEIVER_INTERNAL_H
#define ITG_ENGINE_RECEIVER_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "core/idmap.h"
#include "core/live.h"
#include "core/netlist.h"
#include "core/sweep.h"
#include "engine/control.h"
#include "engine/deframe.h"
#include "engine/receiver_base.h"
#include "itg/logserver.h"
#include "itg/receiver.h"
#include "platform/platform.h"

#define ITG__RX_BATCH 64           /* datagrams per receive call */
#define ITG__RX_BUF 65536          /* room per datagram */
#define ITG__RX_DRAIN_ROUNDS 16    /* batches per wake-up, then others' turn */
#define ITG__RX_PACE_MS 1          /* a busy data port's wait between reads */
#define ITG__RX_PACE_SHARE 8       /* a pace's datagrams fill at most this
                                      share of the buffer, else each is read
                                      as it comes again */
#define ITG__RX_DGRAM_COST 1024    /* a datagram's buffer bookkeeping, over
                                      its bytes (Linux: 700 to 900) */
#define ITG__RX_CB_RECS 256        /* records per on_records call */
#define ITG__RX_BUCKETS 1024       /* demultiplexing hash buckets */
#define ITG__RX_LINGER_MS 300      /* see receiver.h: end of a flow */
#define ITG__RX_FLOW_LOG_CAP 8192  /* ring records of a per-flow logger */
#define ITG__RX_FIRST_FREE_PORT 1024u /* below: privileged (root's) ports */

typedef struct itg__rx_flow itg__rx_flow;
typedef struct itg__rx_conn itg__rx_conn; /* receiver_sig.c's own */

/* Called when flow f ends while its owner (the signaling connection that
 * opened it) still listens. */
typedef void (*itg__rx_flow_ended)(void *owner, const itg__rx_flow *f);

/* What one sender address holds: signaling connections and flows. */
typedef struct itg__rx_peer {
  struct itg__rx_peer *next;
  uint8_t ip[16];
  uint32_t conns, flows;
} itg__rx_peer;

/* Who asks for a flow: a sender's address, its counts, its name. */
typedef struct itg__rx_sender {
  uint8_t ip[16];
  itg__rx_peer *from;
  char peer[ITG_HOST_MAX];
} itg__rx_sender;

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
  itg_log_server_kind kind; /* remote: the server's protocol */
  char spill[ITG_PATH_MAX]; /* remote: the spill file */
  itg_logger *logger;
  uint32_t refs;
  itg__idmap ids;  /* every flow id written to this file so far */
  uint32_t max_id; /* the largest of them */
  int announce_unreachable; /* a new session that could not reach its
                               server: told to the flow that takes it */
} itg__rx_log;

/* A data port: a UDP socket, or a TCP listener, shared by the flows that
 * ask for the same port and transport; or the raw ICMP socket, one shared
 * by every ICMP flow (port 0). */
typedef struct itg__rx_sock {
  struct itg__rx_sock *next;
  itg_receiver *r;
  itg_proto proto;
  uint16_t port;
  uint32_t refs;
  itg__sock fd;         /* UDP, ICMP */
  uv_poll_t poll;       /* UDP, ICMP */
  uv_timer_t pace;      /* UDP, ICMP: a busy port's next read */
  uint64_t last_read_ns; /* UDP, ICMP: when the poll last woke for it */
  int64_t pace_budget;  /* UDP, ICMP: buffer bytes a pace may fill */
  uv_tcp_t listener;    /* TCP */
  itg__rx_flow *last;   /* UDP: the flow of the last datagram (fast path) */
} itg__rx_sock;

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

/* A flow's live counts (cfg.live_stats), on the list the public getter
 * walks; touched under itg_receiver.live_lock only. Outlives its flow
 * until the getter has reported its end. */
typedef struct itg__rx_live {
  struct itg__rx_live *next;
  itg_receiver_flow_live who; /* flow_id, proto, port, peer, ended */
  itg__live counts;
} itg__rx_live;

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
  void *owner;              /* NULL once the sender's signaling is gone */
  itg__rx_flow_ended ended; /* tells the owner of the flow's end */
  itg__rx_peer *from; /* its sender address's counts */
  char peer[ITG_HOST_MAX]; /* the sender, for events after that */
  itg__rx_sock *sock;
  itg__rx_tcp *data;
  int data_ended; /* TCP: the data connection has closed */
  itg__rx_log *log;
  uint64_t packets, bytes;
  int closing;       /* FLOW_CLOSE arrived: `sent` is known */
  int finishing;     /* its D-ITG sender closed it, telling no count */
  int end_pending;   /* on the pending list */
  uint64_t sent;
  uint64_t linger_mark; /* packets when the linger timer was last set */
  uv_timer_t linger;
  itg__rx_live *live; /* cfg.live_stats: its counts; NULL otherwise */
  int icmp_type;  /* ICMP: the type of its first message, which its others
                     share; -1 before it */
  int icmp_ident; /* ICMP: the identifier its messages carry (the flow
                     id's low 16 bits), -1 when its sender leaves it unset */
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

  /* any thread, under live_lock: live counts (cfg.live_stats) */
  uv_mutex_t live_lock;
  itg__rx_live *lives;  /* oldest first */
  uint32_t lives_ended; /* of them, ended and not reported yet */

  /* set by the upper files (see the top of this file) */
  int (*evict)(itg_receiver *r); /* closes a connection still to get
                                    going; 0 if there is none */
  void (*run_pending)(itg_receiver *r); /* ends the flows on `pending` */

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

#endif
