/* The sender: runs one or more flows towards receivers.
 *
 * For each flow the sender opens a signaling connection to the receiver
 * (TCP, flow->sig_port), asks it to open the data port, then paces the
 * flow's packets on one sending thread shared by all flows (an absolute
 * schedule per flow; the earliest departure goes first). In round-trip mode
 * the receiver echoes every packet and the sender logs the round trip.
 *
 * Draws: a flow's IDT law and size law have seeds of their own, derived
 * from the flow's seed s as splitmix64's output function applied to
 * s + k * 0x9E3779B97F4A7C15 (k = 1 for the IDT law, 2 for the size law,
 * 3 for the on periods' law and 4 for the off periods' of an on/off flow),
 * so a seed gives the same departures and sizes everywhere. The first
 * packet leaves at the flow's start (after its start delay, and the
 * offset cfg.start gives it among flows of the same delay), each next one
 * an IDT after the previous instant; an on/off flow starts an on period
 * with its first packet, and a departure that falls at or after the on
 * period's end is dropped: the off period follows that end and the next on
 * period starts, with a packet, when it is over (itg/flow.h, -B). The
 * schedule is absolute: what a departure that leaves late does to the
 * ones it delayed is the flow's catch-up policy (itg_flow_cfg.catchup).
 *
 * End of a flow (duration, packets or bytes reached, or itg_sender_stop;
 * no packet is scheduled at or after start + duration, and a byte bound
 * is met by the packet that reaches it, which may pass it). A departure
 * the machine delays may leave up to a tenth of the duration (1 s at most)
 * after the end; a flow still behind its schedule then (asked for more
 * than the machine can send) stops without sending what it owes. In
 * round-trip mode the flow first waits for the echoes still on their
 * way, until all are back or 500 ms pass without one; then it closes its
 * data socket, tells the receiver how many packets it sent and waits (at
 * most connect_timeout_ns) for the count the receiver logged. A flow whose
 * receiver goes away ends with ITG_ECLOSED.
 *
 * Threading contract: configure and start from one thread; the sending
 * thread and the control thread (echoes, signaling) are the sender's own. itg_sender_stop may be called from any
 * thread (and from a signal handler's deferred path); everything else from
 * the thread that created the sender.
 */
#ifndef ITG_SENDER_H
#define ITG_SENDER_H

#include "itg/flow.h"
#include "itg/log.h"
#include "itg/pacer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct itg_sender itg_sender;

/* When the first departures of flows that start at one instant (the same
 * start delay) are due. */
typedef enum itg_start_mode {
  /* Spread over the flows' period: the k-th of n such flows (in the order
   * they were added) starts k/n of its mean IDT (at most 100 ms) after
   * the instant, as independent sources would be out of phase. Flows of
   * one rate then take turns at even intervals, instead of queueing
   * behind each other at every instant. */
  ITG_START_SPREAD = 0,
  /* All at the instant, leaving in the order they were added. */
  ITG_START_TOGETHER = 1
} itg_start_mode;

typedef struct itg_sender_cfg {
  size_t struct_size; /* set by itg_sender_cfg_init (itg/common.h) */
  itg_wait_mode wait;         /* default ITG_WAIT_HYBRID */
  char log_path[ITG_PATH_MAX]; /* sender log ("" for none) */
  uint32_t log_batch;         /* D, records per write (default 64) */
  char log_server[ITG_HOST_MAX]; /* ship the sender log to this log
                                  server instead ("" for none; then
                                  log_path is the name asked of it) */
  uint16_t log_server_port;   /* default 9001 */
  itg_log_transport log_transport; /* default ITG_LOG_TCP */
  int64_t connect_timeout_ns; /* signaling set-up, default 5 s */
  int cpu;                    /* pin the sending thread to a CPU; -1 none */
  itg_log_error_cb on_log_error; /* optional: the sender log cannot be
                                    written, told at once (on the log's
                                    writer thread) */
  void *log_error_user;       /* passed to on_log_error */
  itg_logger *logger;         /* the sender log goes to this logger of the
                                 caller's instead of a log of its own
                                 (log_path, log_server and on_log_error
                                 are then unused): the sending thread
                                 pushes to lane logger_lane, the control
                                 thread to logger_lane + 1, which must
                                 exist and have no other producer. The
                                 caller closes it once the sender has
                                 ended. NULL (default): none */
  uint32_t logger_lane;       /* see logger; default 0 */
  int hold;                   /* 1: itg_sender_start sets the flows up
                                 with their receivers, but no packet
                                 leaves before itg_sender_release (so
                                 that several senders, on several hosts,
                                 can start together): release it within
                                 the receivers' handshake time (10 s by
                                 default), which a TCP flow's first
                                 packet must meet. Default 0 */
  itg_log_server_kind log_server_kind; /* log_server's protocol: D-ITG's
                                          ITGLog needs log_path, the file
                                          it writes (itg/log.h); default
                                          ITG_LOG_SERVER_LIBITG */
  itg_start_mode start;       /* default ITG_START_SPREAD */
} itg_sender_cfg;

/* What happened to one flow. */
typedef struct itg_flow_result {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint32_t flow_id;
  int status;             /* 0, or the ITG_E* code that ended the flow */
  char error[160];        /* a sentence about status, "" if 0 */
  char receiver_note[160]; /* what the receiver said on accepting the flow,
                              "" mostly: e.g. that the log server it was
                              to ship the receiver log to (-X) cannot be
                              reached, so it spills to a file */
  uint64_t seed;          /* the seed the laws used */
  uint64_t packets;       /* sent */
  uint64_t bytes;         /* sent */
  uint64_t send_errors;   /* datagrams the OS refused */
  uint64_t echoes;        /* round-trip mode: echoes received */
  uint64_t received;      /* packets the receiver said it logged, at the
                             end of the flow (0 if it did not say; a D-ITG
                             receiver, peer ITG_PEER_DITG, never says) */
  int64_t first_tx_ns;    /* wall clock */
  int64_t last_tx_ns;
  uint64_t late;          /* departures more than 1 us late (after the
                             instant the catch-up policy gave them) */
  int64_t late_max_ns;
  int64_t late_sum_ns;
  uint16_t data_port;     /* the receiver's data port the packets went to
                             (0 if the flow was never set up) */
  int ended;              /* 1 once the flow has ended (a result taken
                             during the run: 0 while it goes on) */
  uint64_t skipped;       /* departures owed after a hold-up that the
                             catch-up policy SKIP dropped (itg/flow.h) */
  uint64_t shifted;       /* departures the catch-up policy LAW moved
                             later than their instant, to pay a debt at
                             its bounded pace */
} itg_flow_result;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_sender_cfg_init(cfg) passes sizeof *cfg. Returns 0, or ITG_EINVAL
 * (NULL cfg, or a size this library does not know), cfg untouched. */
ITG_API int itg_sender_cfg_init_size(itg_sender_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_sender_cfg_init(cfg) itg_sender_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Creates a sender. Returns 0, ITG_EINVAL or ITG_ENOMEM. */
ITG_API int itg_sender_new(const itg_sender_cfg *cfg, itg_sender **out);

/* Adds a flow (copied) before the sender starts. On failure nothing is
 * added and err (if not NULL) receives a message saying why, as
 * itg_flow_validate words it for a flow it refuses, e.g. "flow id 7 is
 * already used by flow 2" for a duplicate id. Returns 0, ITG_EINVAL (a NULL
 * sender or flow, or itg_flow_validate fails), another error of
 * itg_flow_validate (ITG_ENOENT for a missing trace file, ITG_EIO),
 * ITG_EEXIST (another flow of the sender has the same nonzero flow id),
 * ITG_ENOTSUP or ITG_EPERM (an SCTP, DCCP or ICMP flow: the system has no
 * such protocol, a raw socket needs a privilege, or libitg does not send
 * it, ICMP being sent one-way only; the message says
 * which), an error reading the payload file (-Fp),
 * ITG_ESTATE (already started) or ITG_ENOMEM. */
ITG_API int itg_sender_add_flow(itg_sender *s, const itg_flow_cfg *flow,
                                char *err, size_t errlen);

/* Sets up every flow with its receiver and starts sending; returns once
 * the packets are on their way. A flow the receiver refuses ends with its
 * status set and the others go on; if no flow could be set up, returns the
 * first flow's error. Returns 0, ITG_ESTATE, ITG_ETHREAD, or a flow error. */
ITG_API int itg_sender_start(itg_sender *s);

/* Releases a sender started with cfg.hold: the flows' schedules begin at
 * at_mono_ns, an instant of the monotonic clock (itg_clock_mono_ns), or
 * at once if it has passed; each flow's start delay counts from it. Safe
 * from any thread. Returns 0, ITG_EINVAL (NULL sender) or ITG_ESTATE (not
 * started, not held, or already released). */
ITG_API int itg_sender_release(itg_sender *s, int64_t at_mono_ns);

/* Waits for every flow to end, at most timeout_ns (< 0: no limit).
 * Returns 0 when all have ended, ITG_ETIMEDOUT if not yet, ITG_ESTATE if
 * never started. */
ITG_API int itg_sender_wait(itg_sender *s, int64_t timeout_ns);

/* Asks every flow to end now (the receiver is told, logs are flushed).
 * Safe from any thread. Returns 0. */
ITG_API int itg_sender_stop(itg_sender *s);

/* Start and wait: the whole run. Returns 0 if every flow succeeded, else
 * the first flow's error. */
ITG_API int itg_sender_run(itg_sender *s);

/* Returns the number of flows added. */
ITG_API size_t itg_sender_flow_count(const itg_sender *s);

/* Copies flow i's result (valid once the sender has ended; during the run
 * the counters are a snapshot). Returns 0 or ITG_EINVAL (i out of range,
 * or a size this library does not know: the macro passes sizeof *out). */
ITG_API int itg_sender_flow_result_size(const itg_sender *s, size_t i,
                                        itg_flow_result *out, size_t size);
#ifndef SWIG
#define itg_sender_flow_result(s, i, out) \
  itg_sender_flow_result_size((s), (i), (out), sizeof *(out))
#endif

/* Copies the sender log's final counters into *out (spilled, missing: see
 * itg_logger_stats) and, for a log shipped to a log server (log_server),
 * the path of its spill file into spill (if not NULL; always terminated
 * when len > 0; "" for a file log). Valid once itg_sender_wait has seen
 * every flow end. Returns 0, ITG_EINVAL (NULL sender or out, or the
 * sender keeps no log of its own: none, or the caller's cfg.logger) or
 * ITG_ESTATE (the log is not closed yet: the
 * sender has not ended, or never started); the macro passes sizeof *out,
 * and a size this library does not know gives ITG_EINVAL too. */
ITG_API int itg_sender_log_stats_size(const itg_sender *s,
                                      itg_logger_stats *out, size_t size,
                                      char *spill, size_t len);
#ifndef SWIG
#define itg_sender_log_stats(s, out, spill, len)                               \
  itg_sender_log_stats_size((s), (out), sizeof *(out), (spill), (len))
#endif

/* Stops (if running), waits, and frees; NULL is accepted. */
ITG_API void itg_sender_free(itg_sender *s);

#ifdef __cplusplus
}
#endif
#endif
