/* The receiver: listens for senders on a signaling port, opens the data
 * sockets they ask for, and logs every packet with its arrival time (the
 * kernel's receive timestamp where the OS gives one).
 *
 * One bad flow never stops the others: a flow that cannot be set up is
 * refused to its sender; malformed datagrams are counted and dropped; a
 * sender that disappears ends its own flows, keeping what arrived.
 *
 * Threading contract: the receiver runs its own thread (an event loop for
 * signaling and data). itg_receiver_stop may be called from any thread;
 * callbacks run on the receiver's thread and must not call back into the
 * receiver.
 *
 * End of a flow: when the sender says it has finished (with the count it
 * sent), the receiver keeps taking that flow's packets until it has them
 * all, or the TCP data connection ends, or 300 ms pass without one of them
 * arriving; then it logs a FLOW_END record and answers with what it
 * received. A sender that vanishes without saying (killed, network gone)
 * has its flows kept until 300 ms pass without one of their packets, so
 * the datagrams still on their way are logged too; they end with what
 * arrived and no FLOW_END record.
 *
 * Peers: no sender can stop the receiver or lock others out. A write to
 * a peer that has reset its connection fails quietly (no SIGPIPE, with
 * no help from the embedding program); a connection that does not open
 * its flow in time, or goes idle, is closed; one address holds a bounded
 * number of connections and flows; descriptors are kept in reserve for
 * new senders; a round-trip sender that does not read its echoes over
 * TCP loses them (counted) rather than filling memory. See the
 * configuration's limits below and the stats' counters.
 *
 * D-ITG senders: a connection to the signaling port whose first message
 * is D-ITG 2.8.1's CONNECT (one byte, then nothing until it is answered,
 * judged after 100 ms of quiet; any other first bytes are libitg's
 * signaling) speaks D-ITG's signaling: ITGSend's UDP and TCP flows with
 * the standard payload (-p 0), one-way or round trip, a data port it
 * names or 0, a receiver log named with -x; each is a flow like any
 * other, under the same limits, with the id the sender gave (refused if
 * an open flow from that address uses it). ITGSend puts all the flows of
 * a script to one receiver on one connection: up to 64 of them are open
 * on one at once. D-ITG tells no packet count at the end of a flow: it
 * ends once no packet of it came for 300 ms.
 *
 * Flow ids: packets are told apart by sender address and flow id, and log
 * records by flow id. A flow whose id the sender chose (numbering its
 * flows 1, 2, ...) keeps it unless an open flow from that address or in
 * that log uses it, or the log file already holds it (senders that follow
 * one another into one log all start at 1): then it gets the next id after
 * the largest in the log, and the sender uses that one. A flow whose id the
 * user set keeps it, or is refused (ITG_EBUSY) if an open flow uses it.
 *
 * Logs: flows without a log name go to log_path (kept open from start to
 * stop); flows naming a log (-x) share one file per name under log_dir,
 * created when its first flow starts and closed when its last flow ends.
 * A sender chooses that name, so it never reaches an existing file: it is
 * a plain file name (no '/', '\\', ':', '..', control characters or
 * leading '.'; at most 200 bytes), its file is created anew without
 * following a symbolic link, and a name that exists (a file of an earlier
 * run, the receiver's own log_path, anything else) gives NAME.1, NAME.2,
 * ... instead, as itg-log does; the OPENED event (log_file) and the
 * sender are told. A flow that is refused creates no file. A flow asking
 * for a log server (-X) gets one session with that server per (server,
 * port, transport, name), shared the same way, whose records the server
 * cannot take go to a spill file of its own under log_dir,
 * "NAME.PID.N.spill" ("itg-recv" for NAME when the flow names no log).
 * A server that cannot be reached at FLOW_OPEN does not refuse the flow:
 * the session spills until the server is back, and the OPENED event says
 * so; the ENDED event tells how many records were spilled, and where.
 * The receiver ships logs only to servers on loopback, at the sender's
 * own address, or in cfg.log_servers: a flow naming another is refused,
 * so a peer cannot make it connect where it likes. Nor may a peer have it
 * bind a privileged data port (below 1024) unless
 * cfg.allow_privileged_ports says so.
 * Registering with the server (at most about 1.5 s when it does not
 * answer) and the session's last flush run on libuv's thread pool, so the
 * receiver's other flows are served meanwhile: the flow's FLOW_OPEN is
 * answered once the session is open, and its ENDED event comes once the
 * session is closed. itg_receiver_wait_idle waits for those closes too.
 */
#ifndef ITG_RECEIVER_H
#define ITG_RECEIVER_H

#include "itg/flow.h"
#include "itg/log.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct itg_receiver itg_receiver;

/* Called with each batch of records the receiver logs (on its thread). */
typedef void (*itg_records_cb)(const itg_logrec *recs, size_t n, void *user);

typedef enum itg_flow_event_kind {
  ITG_FLOW_OPENED = 1,  /* a flow was set up */
  ITG_FLOW_REFUSED = 2, /* a flow could not be set up (status, message) */
  ITG_FLOW_ENDED = 3,   /* a flow ended (packets, bytes, sent) */
  ITG_PEER_DROPPED = 4  /* a signaling connection was closed for its
                           peer's fault (peer, status, message): no flow
                           opened in handshake_ms (a client sending
                           nothing this receiver speaks), idle for
                           idle_ms, malformed signaling; flow_id 0 */
} itg_flow_event_kind;

/* A flow's life on the receiver, for reports. */
typedef struct itg_flow_event {
  itg_flow_event_kind kind;
  uint32_t flow_id;
  itg_proto proto;
  itg_meter meter;
  uint16_t port;          /* data port */
  char peer[ITG_HOST_MAX]; /* the sender, "host:port" of its signaling */
  uint64_t packets;       /* ENDED: packets received */
  uint64_t bytes;         /* ENDED: bytes received */
  uint64_t sent;          /* ENDED: packets the sender said it sent */
  int sent_known;         /* ENDED: 0 if the sender vanished before saying */
  int status;             /* REFUSED, DROPPED: the ITG_E* code */
  char message[160];      /* REFUSED, DROPPED: why; ENDED: "" or how the
                             flow ended when sent_known is 0 though its
                             sender closed it (a D-ITG sender tells no
                             count) */
  char log_spill[ITG_PATH_MAX]; /* OPENED, ENDED: the local spill file of
                                   the flow's log when a log server takes
                                   it (-X) and the records go, or went,
                                   there ("" otherwise) */
  uint64_t log_spilled;   /* ENDED: records of the flow's remote log in
                             the spill file so far (the log is shared by
                             the flows naming it; the count is final at
                             the end of the last of them) */
  uint64_t log_missing;   /* ENDED: over UDP, records the log server
                             counted lost (known at the end of the last
                             flow sharing the log) */
  int log_unreachable;    /* OPENED: the log server could not be reached;
                             the records go to log_spill until it can */
  uint64_t log_lost;      /* ENDED: records of the flow's log that no
                             file holds: the log file (or the spill file)
                             could not be written (the log's count so
                             far, as log_spilled) */
  char log_file[ITG_PATH_MAX]; /* OPENED, ENDED: the file of a log the
                                  flow named (-x): NAME under log_dir, or
                                  NAME.1, NAME.2, ... when NAME existed
                                  ("" for the default log and a log
                                  server) */
  uint64_t log_unconfirmed; /* ENDED: over UDP, sessions of the flow's
                               log that ended without the log server's
                               count, as itg_logger_stats.unconfirmed
                               (known at the end of the last flow sharing
                               the log) */
} itg_flow_event;

/* Called when a flow is set up, refused or ended (on the receiver's
 * thread). */
typedef void (*itg_flow_event_cb)(const itg_flow_event *ev, void *user);

typedef struct itg_receiver_cfg {
  size_t struct_size; /* set by itg_receiver_cfg_init (itg/common.h) */
  char bind_host[ITG_HOST_MAX]; /* "" for any address, IPv4 and IPv6 */
  uint16_t sig_port;            /* default 9000; 0 picks a free port */
  char log_path[ITG_PATH_MAX];  /* default log for all flows ("" none) */
  char log_dir[ITG_PATH_MAX];   /* where per-flow logs asked for with -x
                                   go ("" for the current directory);
                                   their names may not hold '/' or '..' */
  uint32_t log_batch;           /* D, default 64 */
  uint32_t max_flows;           /* active at once, default 1024 */
  int rcvbuf;                   /* socket receive buffer bytes, default
                                   32 MiB: at 250 000 pkt/s, 100 ms of
                                   stall (a busy CPU, a virtual machine's
                                   host) before a datagram is lost */
  int cpu;                      /* pin the receiving thread to a CPU;
                                   -1 (the default) none */
  int allow_privileged_ports;   /* 1: a sender may ask for a data port
                                   below 1024; 0 (the default): such a
                                   flow is refused (ITG_EPERM). Port 0,
                                   the system's pick, is always allowed */
  char log_servers[ITG_PATH_MAX]; /* the log servers a sender may ask
                                   this receiver to ship its flow's log to
                                   (-X), besides loopback and the
                                   sender's own address (always allowed):
                                   networks "ADDR[/PREFIX]", separated by
                                   commas, at most 16
                                   ("0.0.0.0/0,::/0" allows any server;
                                   "" the default, none more). A flow
                                   naming another is refused
                                   (ITG_EPERM) */
  /* What one peer may hold, so that no peer locks others out: */
  uint32_t handshake_ms;        /* a signaling connection has this long
                                   to open its flow (HELLO, FLOW_OPEN),
                                   a TCP data connection to send its first
                                   packet; default 10 000 */
  uint32_t idle_ms;             /* a signaling connection that carries no
                                   message and whose flow gets no packet
                                   for this long is closed, its flow
                                   ended (a sender's start delay counts:
                                   it opens its flows first); default
                                   600 000 (10 min), 0 never */
  uint32_t max_peer_conns;      /* signaling connections from one address
                                   at once, default 256 */
  uint32_t max_peer_flows;      /* flows from one address at once,
                                   default 256 */
  uint32_t fd_reserve;          /* descriptors kept from connections and
                                   data ports, for logs and the rest of
                                   the process, default 64: at the
                                   process's limit less these, a new
                                   connection closes the oldest one that
                                   has not opened its flow (or is refused
                                   if none), so a new sender is served */
  uint32_t echo_queue;          /* TCP round trip: echo bytes a flow may
                                   hold in memory (beyond the socket's
                                   buffer) while its sender does not read
                                   them, default 64 KiB; further echoes
                                   are dropped and counted */
  itg_records_cb on_records;    /* optional */
  itg_flow_event_cb on_flow;    /* optional */
  itg_log_error_cb on_log_error; /* optional: a log that cannot be
                                    written, told at once, on that log's
                                    writer thread (not the receiver's) */
  void *user;                   /* passed to the callbacks */
  char data_iface[ITG_IFACE_MAX]; /* "" (the default), or the network
                                   interface the data ports take packets
                                   from alone (SO_BINDTODEVICE, Linux
                                   only: elsewhere a flow is refused,
                                   ITG_ENOTSUP); D-ITG's -i */
  char sig_iface[ITG_IFACE_MAX];  /* the same for the signaling port
                                   (itg_receiver_start fails); -Si */
  int live_stats;               /* 1: keep each flow's live counts for
                                   itg_receiver_flows_live (a lock taken
                                   per packet, a delay histogram per flow
                                   emptied at each call); 0 (the
                                   default): none */
} itg_receiver_cfg;

typedef struct itg_receiver_stats {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint64_t packets;     /* logged */
  uint64_t bytes;
  uint64_t malformed;   /* datagrams dropped as not ours */
  uint64_t flows_served;
  uint64_t flows_active;
  uint64_t flows_refused;
  uint64_t echoes;      /* round-trip replies sent */
  uint64_t echoes_dropped; /* TCP round-trip replies dropped: their
                              sender did not read them (echo_queue) */
  uint64_t echo_backlog;   /* bytes of TCP echoes held in memory now */
  uint64_t conns_refused;  /* connections turned away: too many from one
                              address, or no descriptors to spare */
  uint64_t conns_expired;  /* connections closed for not opening their
                              flow in time, or for being idle */
} itg_receiver_stats;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_receiver_cfg_init(cfg) passes sizeof *cfg. Returns 0, or ITG_EINVAL
 * (NULL cfg, or a size this library does not know), cfg untouched. */
ITG_API int itg_receiver_cfg_init_size(itg_receiver_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_receiver_cfg_init(cfg)                                             \
  itg_receiver_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Creates a receiver. Returns 0, ITG_EINVAL (a field out of range, a
 * string not terminated, cfg.log_servers not a list of networks) or
 * ITG_ENOMEM. */
ITG_API int itg_receiver_new(const itg_receiver_cfg *cfg,
                             itg_receiver **out);

/* Binds the signaling port and starts the receiver's thread; returns once
 * it is listening. Returns 0, ITG_ENOENT (log_dir is not a directory),
 * ITG_EADDRINUSE, ITG_EADDR (also: no interface named sig_iface),
 * ITG_EPERM, ITG_ENOTSUP (sig_iface on a system without
 * SO_BINDTODEVICE), ITG_ESOCKET, an error opening the default log, or
 * ITG_ETHREAD. */
ITG_API int itg_receiver_start(itg_receiver *r);

/* Returns the signaling port in use (after start). */
ITG_API uint16_t itg_receiver_port(const itg_receiver *r);

/* Copies the counters (safe from any thread). Returns 0, or ITG_EINVAL
 * (NULL argument, or a size this library does not know: the macro passes
 * sizeof *out). */
ITG_API int itg_receiver_get_stats_size(itg_receiver *r,
                                        itg_receiver_stats *out, size_t size);
#ifndef SWIG
#define itg_receiver_get_stats(r, out) \
  itg_receiver_get_stats_size((r), (out), sizeof *(out))
#endif

/* One flow's live counts (itg_receiver_flows_live): totals since the flow
 * opened, and the interval since the previous call (int_*). Loss follows
 * the interval series of itg/stats.h: the sequence numbers a packet skips
 * over the highest one before it are lost in its interval, a late packet
 * gives none back, and the packets its sender says it sent after the
 * last arrival are lost in the interval the flow ends in. Delays are
 * rx - tx in ns; jitter is D-ITG's, the mean |D(i) - D(i-1)| over the
 * pairs whose later packet falls in the interval; p99 is the nearest
 * rank, within 0.05 % (itg/stats.h's histogram). */
typedef struct itg_receiver_flow_live {
  size_t struct_size;      /* set by the call filling it (itg/common.h) */
  uint32_t flow_id;
  itg_proto proto;
  uint16_t port;           /* data port */
  int ended;               /* 1: the flow ended since the previous call;
                              this is its last entry */
  char peer[ITG_HOST_MAX]; /* the sender, as in itg_flow_event */
  uint64_t packets;        /* since the flow opened */
  uint64_t bytes;
  uint64_t lost;
  int64_t int_ns;          /* the interval's length: since the previous
                              call that copied this flow, or since it
                              opened */
  uint64_t int_packets;    /* in the interval */
  uint64_t int_bytes;
  uint64_t int_lost;
  double int_delay_avg_ns; /* 0 without packets */
  int64_t int_delay_p99_ns;
  double int_jitter_avg_ns;
} itg_receiver_flow_live;

/* Copies the live counts of the flows open now, and of those ended since
 * the previous call (once each, with ended set), oldest first, into
 * out[0..n), each entry `size` bytes (the macro passes sizeof *out), and
 * starts a new interval for each flow copied; *count receives the number
 * of flows there are (more than n: those past n are not copied and keep
 * their interval). Safe from any thread; the data path waits for it only
 * while it copies. One caller owns the intervals: two callers would each
 * see part of them. At most max_flows ended flows wait for a call; the
 * final interval of one more is dropped. Returns 0, ITG_EINVAL (NULL r or
 * count, NULL out with n > 0, or a size this library does not know) or
 * ITG_ESTATE (cfg.live_stats is 0). */
ITG_API int itg_receiver_flows_live_size(itg_receiver *r,
                                         itg_receiver_flow_live *out,
                                         size_t n, size_t *count,
                                         size_t size);
#ifndef SWIG
#define itg_receiver_flows_live(r, out, n, count) \
  itg_receiver_flows_live_size((r), (out), (n), (count), sizeof *(out))
#endif

/* Waits until every flow that has started has ended and no sender is
 * connected, at most timeout_ns (< 0: no limit). Returns 0 or
 * ITG_ETIMEDOUT. */
ITG_API int itg_receiver_wait_idle(itg_receiver *r, int64_t timeout_ns);

/* Ends every flow, flushes every log and stops the thread. Safe from any
 * thread; idempotent. Returns 0 or the first log error. */
ITG_API int itg_receiver_stop(itg_receiver *r);

/* Stops (if running) and frees; NULL is accepted. */
ITG_API void itg_receiver_free(itg_receiver *r);

#ifdef __cplusplus
}
#endif
#endif
