/* Remote control: an agent that runs flows on command, and the client
 * that drives it.
 *
 * The agent (itg-agent, itg-send --daemon) is both ends of a host's
 * traffic: it runs a receiver, and on command a sender with the flows a
 * client gives it. It listens on a TCP control port and serves only a
 * client that comes from an allowed network and proves, within
 * auth_timeout_ms, that it holds the agent's token; no one else can make
 * it send a packet.
 *
 * The protocol (version ITG_REMOTE_VERSION), framed as libitg's other
 * protocols (8-byte header: type, version, reserved, body length):
 *   1. the agent sends a fresh 32-byte nonce Na from the OS's random
 *      source;
 *   2. the client answers its own nonce Nc and
 *      HMAC-SHA256(token, "itg-remote-1 client" || Na || Nc);
 *   3. the agent checks it (in constant time) and answers
 *      HMAC-SHA256(token, "itg-remote-1 agent" || Nc || Na), its version,
 *      software name and receiver port; the client checks it in turn, so
 *      each side has proven it holds the token, which never crosses the
 *      wire. A recorded handshake replayed later fails: Na is new each
 *      time.
 * Then the client sends commands, each answered with OK (and the
 * command's data) or ERR (an ITG_E* code and a sentence): CLOCK, START,
 * STATUS, STOP, RESULTS, LOG, BYE. A malformed message is answered with
 * ERR and closes the connection; a command the agent refuses (a bad
 * flow line, the wrong state) is answered with ERR and the connection
 * goes on; either way the agent's state is left as it was. One client
 * controls the agent at a time: a second one, once authenticated, is told
 * ITG_EBUSY and closed. While a START's flows are being set up (each
 * flow's signaling with its receiver, up to 5 s a flow), a client that
 * connected after the controller left is told ITG_EBUSY for any command
 * but CLOCK, STOP, LOG and BYE.
 * The agent keeps its flows and results between clients, so a manager
 * that lost its connection may come back for the results.
 *
 * Threading: an itg_remote is used from one thread at a time; every call
 * blocks until the agent has answered, or the connection's timeout
 * (itg_remote_connect's timeout_ns, for each exchange) has passed, after
 * which the connection is unusable (ITG_ETIMEDOUT, then ITG_ECLOSED). The
 * agent runs on threads of its own; itg_agent_stop may be called from any
 * thread.
 */
#ifndef ITG_REMOTE_H
#define ITG_REMOTE_H

#include "itg/logserver.h"
#include "itg/sender.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_REMOTE_VERSION 2u
#define ITG_REMOTE_DEFAULT_PORT 9003
/* A token: 1..ITG_REMOTE_TOKEN_MAX bytes, any bytes (a file's content,
 * trailing white space removed by the programs reading it). At least 16
 * random bytes are advised. */
#define ITG_REMOTE_TOKEN_MAX 256u
/* Flows one START may carry, and bytes of one of its lines (NUL
 * excluded). */
#define ITG_REMOTE_MAX_FLOWS 256u
#define ITG_REMOTE_LINE_MAX 1024u
/* Bytes one LOG answer carries at most. */
#define ITG_REMOTE_LOG_CHUNK 65536u

/* ---- the client --------------------------------------------------- */

typedef struct itg_remote itg_remote;

/* What the agent is doing. */
typedef enum itg_remote_state {
  ITG_REMOTE_IDLE = 0,    /* no flows given since the agent started */
  ITG_REMOTE_HELD = 1,    /* flows set up, waiting for their instant */
  ITG_REMOTE_RUNNING = 2, /* flows sending */
  ITG_REMOTE_ENDED = 3    /* every flow has ended: results are final */
} itg_remote_state;

/* Returns the state's name ("idle", "held", "running", "ended"), or "?". */
ITG_API const char *itg_remote_state_name(int state);

/* The agent's state and counters, as one STATUS or RESULTS answer gave
 * them. The per-flow results of that answer are read with
 * itg_remote_flow_result and itg_remote_rx_flow. */
typedef struct itg_remote_status {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  itg_remote_state state;
  int start_status;     /* 0, or the error of the last START's set-up when
                           no flow could be set up */
  int64_t start_wall_ns; /* the instant the flows were released at, on
                            the agent's wall clock (0 before a START) */
  uint32_t flows;       /* sender flows: itg_remote_flow_result's i <
                           flows */
  uint32_t rx_flows;    /* flows the agent's receiver has ended (kept: the
                           last ITG_REMOTE_MAX_FLOWS): itg_remote_rx_flow's
                           i < rx_flows */
  /* The agent's receiver, all flows together (itg_receiver_stats): */
  uint64_t rx_packets;
  uint64_t rx_bytes;
  uint64_t rx_malformed;
  uint64_t rx_flows_served;
  uint64_t rx_flows_active;
  uint64_t rx_flows_refused;
} itg_remote_status;

/* A flow the agent's receiver took and has ended (itg_flow_event ENDED). */
typedef struct itg_remote_rx_flow {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint32_t flow_id;
  itg_proto proto;
  uint16_t port;            /* data port */
  char peer[ITG_HOST_MAX];  /* the sender, "host:port" */
  uint64_t packets;         /* received */
  uint64_t bytes;
  uint64_t sent;            /* the sender's count */
  int sent_known;           /* 0 if the sender never told it */
  char log_file[ITG_PATH_MAX]; /* the receiver log the flow was written
                                  to, as itg_remote_fetch_log takes it:
                                  the name its sender gave (-x), or
                                  NAME.1, NAME.2, ... when NAME already
                                  existed at the agent ("" if it named
                                  none) */
} itg_remote_rx_flow;

/* Connects to the agent at host:port, runs the handshake with the token
 * token[0..token_len) and returns the connection in *out. timeout_ns
 * bounds the connection and every exchange on it afterwards (> 0).
 * Returns 0, ITG_EINVAL (a NULL argument, a token of 0 or more than
 * ITG_REMOTE_TOKEN_MAX bytes, timeout_ns <= 0), ITG_EADDR,
 * ITG_ECONNREFUSED, ITG_ETIMEDOUT, ITG_ECLOSED (the agent closed: e.g. an
 * address it does not allow), ITG_EPERM (the agent refused the token, or
 * its own proof is wrong: it holds another token), ITG_EBUSY (another
 * client controls it), ITG_EVERSION, ITG_EPROTO or ITG_ENOMEM; err (if
 * not NULL) receives a sentence naming host:port and the reason. */
ITG_API int itg_remote_connect(const char *host, uint16_t port,
                               const void *token, size_t token_len,
                               int64_t timeout_ns, itg_remote **out,
                               char *err, size_t errlen);

/* Returns the agent's software name and version ("libitg 0.9.0"), as the
 * handshake gave it. */
ITG_API const char *itg_remote_agent_software(const itg_remote *r);

/* Returns the agent's receiver signaling port (what a flow towards this
 * agent gives as its -Sdp / sig_port). */
ITG_API uint16_t itg_remote_receiver_port(const itg_remote *r);

/* Measures the agent's wall clock against this host's: `rounds` CLOCK
 * exchanges (1..1000), and from the one of least round trip,
 * *offset_ns = agent wall - local wall at the middle of the exchange and
 * *rtt_ns its round trip (the offset's error is at most rtt / 2). Either
 * output may be NULL. Returns 0, ITG_EINVAL or a connection error. */
ITG_API int itg_remote_clock(itg_remote *r, int rounds, int64_t *offset_ns,
                             int64_t *rtt_ns);

/* Gives the agent flows to send, lines[0..n) in itg-send's script syntax
 * (itg_flow_parse_line; n in 1..ITG_REMOTE_MAX_FLOWS), and the instant
 * at_wall_ns, on the agent's wall clock (itg_remote_clock's offset added
 * to a local instant), when the first packets leave; 0 or a passed
 * instant: at once. The agent sets every flow up with its receiver, holds
 * it, and releases all together at that instant; it answers once the
 * flows are set up (or refused). Returns 0 (at least one flow set up; a
 * refused flow ends with its status in its result), ITG_EINVAL (a bad
 * argument, or a line the agent cannot parse), another error of
 * itg_flow_parse_line or itg_sender_add_flow for a flow the agent refuses
 * (err names the line and says why, and no flow is started), ITG_ESTATE
 * (flows of an earlier START still run), the set-up's error when no flow
 * could be set up, or a connection error; err (if not NULL) receives the
 * agent's sentence. */
ITG_API int itg_remote_start(itg_remote *r, const char *const *lines,
                             size_t n, int64_t at_wall_ns, char *err,
                             size_t errlen);

/* Asks the agent for its state and live counters into *st (the sender
 * flows' results with ended = 0 while they run). The flows' results are
 * then read with itg_remote_flow_result and itg_remote_rx_flow. Returns 0,
 * ITG_EINVAL (the macro passes sizeof *st; a size this library does not
 * know), ITG_EBUSY (a START is being set up, see above) or a connection
 * error. */
ITG_API int itg_remote_status_size(itg_remote *r, itg_remote_status *st,
                                   size_t size);
#ifndef SWIG
#define itg_remote_status(r, st) itg_remote_status_size((r), (st), sizeof *(st))
#endif

/* Asks the agent to end its flows now (itg_sender_stop). Returns 0 (also
 * when nothing runs) or a connection error. */
ITG_API int itg_remote_stop(itg_remote *r);

/* Waits, at most wait_ns on the agent's side (0..3 600 s; the
 * connection's own timeout is stretched by it), for the flows to end (the
 * agent's sender's, and those its receiver serves, whose logs are then
 * whole) and fills *st with the final state and results, as
 * itg_remote_status.
 * Returns 0, ITG_ETIMEDOUT (flows still run: *st holds the live counters),
 * ITG_ESTATE (no START yet), ITG_EINVAL or a connection error. */
ITG_API int itg_remote_results_size(itg_remote *r, int64_t wait_ns,
                                    itg_remote_status *st, size_t size);
#ifndef SWIG
#define itg_remote_results(r, wait_ns, st)                                     \
  itg_remote_results_size((r), (wait_ns), (st), sizeof *(st))
#endif

/* Copies sender flow i (i < st.flows) of the last STATUS or RESULTS
 * answer. Returns 0 or ITG_EINVAL (i out of range, or a size this
 * library does not know: the macro passes sizeof *out). */
ITG_API int itg_remote_flow_result_size(const itg_remote *r, size_t i,
                                        itg_flow_result *out, size_t size);
#ifndef SWIG
#define itg_remote_flow_result(r, i, out)                                      \
  itg_remote_flow_result_size((r), (i), (out), sizeof *(out))
#endif

/* Copies receiver flow i (i < st.rx_flows) of the last STATUS or RESULTS
 * answer. Returns 0 or ITG_EINVAL, as itg_remote_flow_result. */
ITG_API int itg_remote_rx_flow_size(const itg_remote *r, size_t i,
                                    itg_remote_rx_flow *out, size_t size);
#ifndef SWIG
#define itg_remote_rx_flow(r, i, out)                                          \
  itg_remote_rx_flow_size((r), (i), (out), sizeof *(out))
#endif

/* Receives the bytes of a log file the agent wrote (its sender log or
 * its receiver log, named as the agent's configuration or a START line's
 * -l / -x named it, or as a receiver flow's log_file tells, which differs
 * when that name was taken; a name with '/' or ".." is refused), in
 * chunks of at most ITG_REMOTE_LOG_CHUNK, each handed to sink(data, len,
 * user) in order; a sink returning nonzero stops the transfer with that
 * value.
 * Returns 0 once the whole file has come, ITG_ENOENT (the agent wrote no
 * such log), ITG_EPERM (a name it refuses), the sink's value, or a
 * connection error. */
typedef int (*itg_remote_sink)(const void *data, size_t len, void *user);
ITG_API int itg_remote_fetch_log(itg_remote *r, const char *name,
                                 itg_remote_sink sink, void *user);

/* Says BYE (the agent keeps its flows and results), closes and frees;
 * NULL is accepted. */
ITG_API void itg_remote_close(itg_remote *r);

/* ---- the agent ---------------------------------------------------- */

typedef struct itg_agent itg_agent;

#define ITG_AGENT_MAX_NETS ITG_LOGSERVER_MAX_NETS

typedef struct itg_agent_cfg {
  size_t struct_size;           /* set by itg_agent_cfg_init */
  char listen_host[ITG_HOST_MAX]; /* control port's address; "" for any
                                   (IPv4 and IPv6). Default "127.0.0.1" */
  uint16_t listen_port;         /* default ITG_REMOTE_DEFAULT_PORT; 0
                                   picks a free port */
  uint8_t token[ITG_REMOTE_TOKEN_MAX]; /* the shared token (required) */
  size_t token_len;             /* 1..ITG_REMOTE_TOKEN_MAX */
  itg_logserver_net allow[ITG_AGENT_MAX_NETS]; /* the networks clients
                                   may come from, as
                                   itg_logserver_net_list_parse reads
                                   them; none (the default): loopback
                                   only. Given, they replace loopback:
                                   name it to keep it */
  uint32_t allow_count;
  uint32_t auth_timeout_ms;     /* a client has this long, from its
                                   connection, to prove it holds the
                                   token; default 5 000 */
  uint32_t max_conns;           /* control connections at once (one
                                   controls, the others are being
                                   refused); default 8 */
  /* The agent's receiver: */
  char recv_host[ITG_HOST_MAX]; /* "" (default): any address */
  uint16_t recv_port;           /* signaling port; default
                                   ITG_DEFAULT_SIG_PORT, 0 picks one */
  char recv_log[ITG_PATH_MAX];  /* the receiver's default log ("" none) */
  char log_dir[ITG_PATH_MAX];   /* where the logs go and where LOG reads
                                   them: the sender log, the receiver
                                   log and the flows' -x logs ("" the
                                   current directory) */
  /* The sender a START makes: */
  char send_log[ITG_PATH_MAX];  /* the sender log's name in log_dir ("",
                                   the default: none) */
  char log_server[ITG_HOST_MAX]; /* ship the sender log to this log
                                   server instead ("" none) */
  uint16_t log_server_port;     /* default ITG_DEFAULT_LOG_PORT */
  itg_log_transport log_transport; /* default ITG_LOG_TCP */
} itg_agent_cfg;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_agent_cfg_init(cfg) passes sizeof *cfg. Returns 0 or ITG_EINVAL. */
ITG_API int itg_agent_cfg_init_size(itg_agent_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_agent_cfg_init(cfg) itg_agent_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Creates an agent. Returns 0, ITG_EINVAL (no token, a field out of
 * range; err, if not NULL, says which) or ITG_ENOMEM. */
ITG_API int itg_agent_new(const itg_agent_cfg *cfg, itg_agent **out,
                          char *err, size_t errlen);

/* Starts the receiver, binds the control port and starts serving;
 * returns once both listen. Returns 0, ITG_EADDRINUSE, ITG_EADDR,
 * ITG_ESOCKET, ITG_ETHREAD or the receiver's start error (err says
 * which). */
ITG_API int itg_agent_start(itg_agent *a, char *err, size_t errlen);

/* Returns the control port in use (after start). */
ITG_API uint16_t itg_agent_port(const itg_agent *a);

/* Returns the receiver's signaling port in use (after start). */
ITG_API uint16_t itg_agent_receiver_port(const itg_agent *a);

/* Stops serving, ends the flows, stops the receiver. Safe from any
 * thread; idempotent. Returns 0. */
ITG_API int itg_agent_stop(itg_agent *a);

/* Stops (if running) and frees; NULL is accepted. */
ITG_API void itg_agent_free(itg_agent *a);

#ifdef __cplusplus
}
#endif
#endif
