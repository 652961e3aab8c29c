/* The sender's private state, shared by sender*.c.
 *
 * The files are layers, each calling only the ones below it:
 *   sender.c        the public API and the threads' lifecycle
 *   sender_ctl.c    the control thread: signaling and the flows' ends
 *                   with their receivers (sender_ctl.h)
 *   sender_send.c   the sending thread: the paced send loop
 *                   (sender_send.h)
 *   sender_setup.c  a flow's set-up with its receiver (sender_setup.h)
 *                   and sender_ctl.c speak libitg's signaling
 *                   (engine/control.h), or D-ITG's with a D-ITG receiver
 *                   (itg_flow_cfg.peer, engine/ditg_sig.h)
 *   sender_flow.c   a flow's shared record: its first error and its end
 *                   (declared here)
 * What goes up does so through a callback the upper layer sets: the
 * sending thread tells the control thread that flows have sent everything
 * through on_sent_all, which sender.c points at the control thread's wake.
 *
 * Threads: the creator's thread sets every flow up with its receiver
 * (sender_setup.c); then one sending thread paces all flows
 * (sender_send.c) and one control thread runs a libuv loop that reads
 * echoes, watches the signaling connections and closes each flow with its
 * receiver once it has sent everything (sender_ctl.c). A flow passes from
 * the sending thread to the control thread through `sent_all`. */
#ifndef ITG_ENGINE_SENDER_INTERNAL_H
#define ITG_ENGINE_SENDER_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "core/catchup.h"
#include "engine/control.h"
#include "engine/deframe.h"
#include "engine/ditg_sig.h"
#include "itg/log.h"
#include "itg/sender.h"
#include "platform/platform.h"

#define ITG__TX_BATCH 32                 /* due datagrams sent per call */
#define ITG__TX_STOP_NS 5000000          /* longest wait between stop checks */
/* A turn that takes longer than ITG__TX_STALL_NS, and ITG__TX_STALL_DGRAM_NS
 * a datagram it sent, was held up (sender_send.c). A turn of one datagram
 * takes 5 to 7 us on a virtual machine; its 250 Hz tick holds the thread
 * 40 to 100 us. A hold-up the threshold misses is the sender's own work:
 * each flow it delays leaves late and its next departure on time, two
 * gaps off by the hold-up where a counted one makes one. */
#define ITG__TX_STALL_NS 10000
#define ITG__TX_STALL_DGRAM_NS 10000
#define ITG__TX_GRACE_MAX_NS 1000000000LL /* lateness allowed past the end */
#define ITG__TX_WARM_STACK 32768         /* stack touched before the schedule */
#define ITG__TX_WARM_PAGE 4096           /* smallest page of the supported OSes */
#define ITG__TX_ECHO_BATCH 64            /* echoes read per call */
#define ITG__TX_ECHO_BUF 65536           /* room per echoed datagram */
#define ITG__TX_ECHO_GRACE_MS 500        /* wait for late echoes, see ctl */
#define ITG__TX_DITG_SETTLE_MS 250       /* D-ITG: data end to CLOSED_FLOW */

/* Where a flow stands on the control thread. */
typedef enum itg__tx_cstate {
  ITG__TX_C_RUN = 0,   /* sending (or never set up) */
  ITG__TX_C_DRAIN,     /* sent all; waiting for the last echoes */
  ITG__TX_C_SETTLE,    /* D-ITG: data ended, CLOSED_FLOW comes next */
  ITG__TX_C_WAIT_ACK,  /* FLOW_CLOSE (D-ITG: CLOSED_FLOW) sent */
  ITG__TX_C_WAIT_RELEASE, /* D-ITG: RELEASE sent */
  ITG__TX_C_DONE
} itg__tx_cstate;

/* Counters written by one thread and read by any (relaxed atomics). */
typedef struct itg__tx_ctr {
  _Atomic uint64_t packets, bytes, send_errors, echoes, late, skipped, shifted;
  _Atomic int64_t first_tx, last_tx, late_max, late_sum;
} itg__tx_ctr;

typedef struct itg__tx_flow {
  itg_sender *s;
  itg_flow_cfg cfg;
  uint32_t id;    /* the id in use: asked for, then as the receiver says */
  uint64_t token; /* the flow's token, from the receiver (itg/wire.h) */
  uint64_t seed;
  itg_dist *idt;
  itg_dist *size;
  itg_dist *on;   /* on/off flows: the periods' laws, else NULL */
  itg_dist *off;
  size_t hdr_len; /* the bytes before the payload (0 for payload type 2) */
  size_t min_len; /* the least size (itg_flow_hdr_len) */
  uint8_t *payload;   /* the -Fp file's bytes, NULL without one */
  size_t payload_len;
  itg__sock sig;
  itg__sock data;
  int ready;      /* set up with its receiver: the threads own it */
  uint16_t data_port; /* the receiver's, once set up */

  char receiver_note[160]; /* set up before the threads start */
  int64_t spread_ns; /* its first departure's offset from its start
                        (itg_sender_cfg.start), set before the threads
                        start */

  /* under s->lock */
  int status;
  char error[160];
  uint64_t received;
  int done;

  /* sending thread */
  itg__catchup cu; /* next departure, monotonic: its law instant and when
                      the catch-up policy lets it leave */
  int64_t end_ns;  /* no departure scheduled at or after this instant */
  int64_t stop_ns; /* a flow still behind its schedule stops here */
  int64_t on_end_ns; /* on/off flows: the end of the current on period */
  size_t order;      /* its place among the sender's flows */
  int64_t turn_ns;   /* its place in the sending thread's heap: its next
                        departure's instant, or when its last turn came
                        if that is later (see sender_send.c) */
  uint64_t seq;
  uint64_t bytes_planned;
  size_t payload_off; /* where the next packet's payload starts */
  _Atomic int sent_all; /* sending thread -> control thread */
  _Atomic int abort;    /* control thread -> sending thread */

  itg__tx_ctr ctr;

  /* control thread */
  itg__tx_cstate cstate;
  int sig_dead;         /* the signaling connection is gone */
  int data_polled;
  uint64_t echo_mark;   /* echoes when the grace timer was last set */
  uv_poll_t sig_poll;
  uv_poll_t data_poll;
  uv_timer_t timer;
  itg__ctl_reader rd;
  itg__ditg_reader drd; /* peer ITG_PEER_DITG: rd's part */
  itg__deframe *df;     /* TCP round trip: echoes come back as a stream */
} itg__tx_flow;

struct itg_sender {
  itg_sender_cfg cfg;
  itg__tx_flow **flows;
  size_t n;
  size_t cap;
  int started;
  int joined;
  _Atomic int stop;
  itg_logger *log;            /* NULL: no sender log */
  int log_own;                /* log is the sender's (else cfg.logger) */
  uint32_t lane_send;         /* log's lane of the sending thread */
  uint32_t lane_ctl;          /* and of the control thread */
  int log_closed;             /* log_final and log_spill hold the end */
  itg_logger_stats log_final;
  char log_spill[ITG_PATH_MAX];

  uv_mutex_t lock;
  uv_cond_t done_cond;
  /* cfg.hold: the sending thread waits on go_cond, under lock, until
   * released (or stopped); its schedules then begin at release_ns */
  uv_cond_t go_cond;
  int released;
  int64_t release_ns;
  size_t done;
  int wake_open; /* under lock: wake may be signalled */

  uv_loop_t loop;
  uv_async_t wake;
  uv_thread_t send_thread;
  uv_thread_t ctl_thread;
  int threads; /* how many of the two were started */

  /* sending thread */
  void (*on_sent_all)(itg_sender *s); /* flows have sent everything */
  uint8_t *pkt_bufs;
  /* bytes of each packet buffer that may hold what is not zero: another
   * flow's header or payload file; a flow without a file zeros those past
   * its own header, so no flow carries another's header or file */
  size_t pkt_dirty[ITG__TX_BATCH];
  itg__dgram dg[ITG__TX_BATCH];
  /* control thread: round-trip datagrams */
  uint8_t *echo_bufs;
  itg__dgram edg[ITG__TX_ECHO_BATCH];
  itg__addr epeers[ITG__TX_ECHO_BATCH];
};

/* ---- sender_flow.c ---- */

/* Records the first error of a flow (later ones are dropped). */
void itg__tx_fail(itg__tx_flow *f, int status, const char *msg);

/* Marks a flow finished, waking itg_sender_wait. */
void itg__tx_mark_done(itg__tx_flow *f);

/* Adds v to a counter only its one writer thread changes. */
static inline void itg__tx_add(_Atomic uint64_t *c, uint64_t v) {
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                        memory_order_relaxed);
}

#endif
