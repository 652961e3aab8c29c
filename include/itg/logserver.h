/* The log server: collects the per-packet logs that senders and receivers
 * ship to it (itg_logger with a remote sink, see itg/log.h) and writes each
 * client's session to a file of its own, in the ordinary log format.
 *
 * Clients connect over TCP (port 9001 by default), register (role, host,
 * flow ids, the log name they ask for, the shared token if the server has
 * one), ship batches of records and leave. Records travel over that TCP
 * connection, or, for a UDP client, as datagrams to the server's UDP port
 * (the same number as the TCP port unless that is 0), each carrying the
 * offset of its first record in the session: a gap in the offsets is
 * written into the session's file as an ITG_REC_GAP record (seq = records
 * missing, flow id = the first flow the client registered, else 0), and
 * counted. Datagrams that arrive after a later one are dropped (their
 * records were already counted missing).
 *
 * Files: DIR/NAME for the name the client asked for (refused if it is
 * empty of meaning or could leave DIR: '/', '\\', ':', "..", a leading
 * '.'), or DIR/HOST-ROLE-SESSION.itglog when it asked for none. A file that
 * exists is never overwritten: the session gets NAME.1, NAME.2, ... (the
 * client is told the name). Records are handed to the operating system
 * after each read of a TCP client (and acknowledged to it then, so a
 * client can keep what a server crash would lose), at least every
 * flush_ms, and on leave. A session that ends without its client leaving
 * (the client vanished, or the server was stopped first) keeps every
 * record received and its file is renamed NAME.incomplete.
 *
 * D-ITG's clients (ITGSend -L, ITGRecv asked by ITGSend -X) are served on
 * the same TCP port, told apart by their first bytes (a client silent for
 * a moment is greeted, as D-ITG's wait to be): each gets a data channel,
 * UDP or TCP as it asks, on a port the system picks, and its session is a
 * D-ITG binary log (itg/ditg.h) named by the last part of the name it
 * gives, under the rules above. Over UDP, a jump in a flow's sequence
 * numbers is counted missing (no gap record: the format has none); a
 * malformed record is dropped and counted (the CLOSED event's status is
 * then ITG_EBADMSG). Its events have host "D-ITG" and role 0; its TCP
 * data channel must be opened within handshake_ms.
 *
 * Access: a client's address must be inside an allowed network (loopback,
 * 127.0.0.0/8 and ::1, always; more with itg_logserver_cfg_allow), and
 * when cfg.token is set the client must present it; others are refused
 * before any file is created.
 *
 * Threading contract: the server runs its own thread (an event loop).
 * itg_logserver_stop may be called from any thread; callbacks run on the
 * server's thread and must not call back into the server.
 */
#ifndef ITG_LOGSERVER_H
#define ITG_LOGSERVER_H

#include "itg/flow.h"
#include "itg/log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_LOGSERVER_MAX_NETS 16
#define ITG_LOGSERVER_TOKEN_MAX 64

/* An allowed network: family 4 or 6, the address's first `prefix` bits. */
typedef struct itg_logserver itg_logserver;

typedef struct itg_logserver_net {
  uint8_t family;
  uint8_t prefix;
  uint8_t addr[16];
} itg_logserver_net;

typedef enum itg_log_session_kind {
  ITG_LOG_SESSION_OPENED = 1,  /* a client registered */
  ITG_LOG_SESSION_REFUSED = 2, /* a client was turned away (status) */
  ITG_LOG_SESSION_CLOSED = 3   /* a session ended */
} itg_log_session_kind;

typedef struct itg_log_session_event {
  itg_log_session_kind kind;
  uint32_t session;
  itg_log_transport transport;
  uint32_t role;             /* itg_log_role (0: a D-ITG client) */
  char peer[ITG_HOST_MAX];   /* "addr:port" of the client */
  char host[32];             /* the host name the client gave */
  char file[ITG_PATH_MAX];   /* the session's file (CLOSED: its final
                                name, with .incomplete when it is) */
  uint64_t records;          /* CLOSED: records written */
  uint64_t missing;          /* CLOSED: records lost on the way (UDP) */
  int complete;              /* CLOSED: 1 if the client left */
  int status;                /* REFUSED: the ITG_E* code; CLOSED: the
                                write error that ended the session
                                (ITG_ENOSPC: the disk is full), 0 if none */
  char message[160];         /* REFUSED, CLOSED with a status: why */
} itg_log_session_event;

typedef void (*itg_log_session_cb)(const itg_log_session_event *ev,
                                   void *user);

typedef struct itg_logserver_cfg {
  size_t struct_size; /* set by itg_logserver_cfg_init (itg/common.h) */
  char bind_host[ITG_HOST_MAX]; /* "" for every address, IPv4 and IPv6 */
  uint16_t port;                /* default 9001; 0 picks free ports */
  char dir[ITG_PATH_MAX];       /* where the files go ("" current dir) */
  char token[ITG_LOGSERVER_TOKEN_MAX + 1]; /* "" for none */
  itg_logserver_net allow[ITG_LOGSERVER_MAX_NETS]; /* besides loopback */
  uint32_t n_allow;
  uint32_t max_clients;         /* connected at once, default 1024 */
  uint32_t max_peer_clients;    /* connected at once from one address,
                                   default 256 */
  uint32_t handshake_ms;        /* a client that has not registered
                                   within this is closed, so idle
                                   connections cannot fill max_clients;
                                   default 10 000 */
  uint32_t flush_ms;            /* longest a record waits for the disk,
                                   default 1000 */
  itg_log_session_cb on_session; /* optional */
  void *user;
} itg_logserver_cfg;

typedef struct itg_logserver_stats {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint64_t sessions_open;
  uint64_t sessions_total;  /* registered since start */
  uint64_t incomplete;      /* sessions ended without their client leaving */
  uint64_t refused;         /* clients turned away */
  uint64_t records;         /* written */
  uint64_t missing;         /* counted lost (UDP) */
  uint64_t expired;         /* clients closed for not registering in
                               time (handshake_ms) */
} itg_logserver_stats;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_logserver_cfg_init(cfg) passes sizeof *cfg. Returns 0, or ITG_EINVAL
 * (NULL cfg, or a size this library does not know), cfg untouched. */
ITG_API int itg_logserver_cfg_init_size(itg_logserver_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_logserver_cfg_init(cfg)                                            \
  itg_logserver_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Parses a comma-separated list of networks, each "ADDR/PREFIX" or a bare
 * address (white space around each ignored; "" is the empty list), as
 * itg_receiver_cfg.log_servers holds them, into nets[0..max), setting *n.
 * Returns 0, ITG_EINVAL (a NULL argument, or an entry that is not a
 * network: its text, cut to fit, goes to bad[0..badlen)) or ITG_ELIMIT
 * (more than max entries). */
ITG_API int itg_logserver_net_list_parse(const char *list,
                                         itg_logserver_net *nets,
                                         uint32_t max, uint32_t *n,
                                         char *bad, size_t badlen);

/* Adds an allowed network written "ADDR/PREFIX" (or a bare address, a
 * network of one). Returns 0, ITG_EINVAL (NULL argument, not a network)
 * or ITG_ELIMIT (ITG_LOGSERVER_MAX_NETS already). */
ITG_API int itg_logserver_cfg_allow(itg_logserver_cfg *cfg, const char *cidr);

/* Creates a server. Returns 0, ITG_EINVAL or ITG_ENOMEM. */
ITG_API int itg_logserver_new(const itg_logserver_cfg *cfg,
                              itg_logserver **out);

/* Binds the TCP and UDP ports and starts the server's thread. Returns 0,
 * ITG_EADDRINUSE, ITG_EADDR, ITG_ESOCKET, ITG_ENOENT (no such directory),
 * ITG_ESTATE (started before) or ITG_ETHREAD. */
ITG_API int itg_logserver_start(itg_logserver *s);

/* Returns the TCP port in use (after start). */
ITG_API uint16_t itg_logserver_port(const itg_logserver *s);

/* Returns the UDP port in use (after start). */
ITG_API uint16_t itg_logserver_udp_port(const itg_logserver *s);

/* Copies the counters (safe from any thread). Returns 0, or ITG_EINVAL
 * (NULL argument, or a size this library does not know: the macro passes
 * sizeof *out). */
ITG_API int itg_logserver_get_stats_size(itg_logserver *s,
                                         itg_logserver_stats *out,
                                         size_t size);
#ifndef SWIG
#define itg_logserver_get_stats(s, out) \
  itg_logserver_get_stats_size((s), (out), sizeof *(out))
#endif

/* Closes every session (flushed; marked incomplete if its client had not
 * left) and stops the thread. Safe from any thread; idempotent. Returns 0
 * or ITG_EINVAL. */
ITG_API int itg_logserver_stop(itg_logserver *s);

/* Stops (if running) and frees; NULL is accepted. */
ITG_API void itg_logserver_free(itg_logserver *s);

#ifdef __cplusplus
}
#endif
#endif
