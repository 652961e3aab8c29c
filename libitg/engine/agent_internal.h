/* The agent's state, shared by engine/agent.c (its loop, control
 * connections and handshake) and engine/agent_run.c (the commands: the
 * sender it makes, the receiver's flows, the logs it serves). */
#ifndef ITG_ENGINE_AGENT_INTERNAL_H
#define ITG_ENGINE_AGENT_INTERNAL_H

#include <uv.h>

#include "core/frame.h"
#include "core/remote_msg.h"
#include "itg/receiver.h"
#include "itg/remote.h"

/* Logs LOG may read: the names of the files the agent wrote (its sender
 * and receiver logs, the flows' -x logs), the newest kept. */
#define ITG__AGENT_LOGS 64u

/* One control connection. */
typedef struct itg__agent_conn {
  uv_tcp_t tcp; /* first: the handle's close callback frees the conn */
  struct itg_agent *agent;
  struct itg__agent_conn *next;
  char peer[ITG_HOST_MAX];
  int64_t deadline;        /* uv_hrtime ns: to authenticate by, while not */
  int authed;              /* proved it holds the token */
  int closing;             /* no more requests read */
  uint8_t nonce[ITG__RM_NONCE]; /* the challenge sent */
  itg__frame_reader fr;
  uint8_t *buf;            /* its frames: a small one until authenticated */
  size_t cap;
  uint32_t max_body;
} itg__agent_conn;

struct itg_agent {
  itg_agent_cfg cfg;
  uv_loop_t loop;
  uv_tcp_t server;
  uv_timer_t sweep;        /* unauthenticated connections past their time */
  uv_timer_t results;      /* a RESULTS waiting for the flows to end */
  uv_async_t wake;         /* stop */
  uv_thread_t thread;
  uv_mutex_t lock;         /* started, stopped; rx flows and logs below */
  int started, stopped;
  uint16_t port;
  itg__agent_conn *conns;
  uint32_t nconns;
  itg__agent_conn *controller; /* the authenticated client, or NULL */
  uint8_t *answer;         /* an answer's frame, ITG__RM_MAX_ANSWER */
  /* A RESULTS or a START waiting: the connection (the controller), the
   * RESULTS' deadline, the START's set-up on a worker */
  itg__agent_conn *waiting;
  uint64_t wait_until;     /* uv_hrtime ns */
  uv_work_t setup;
  int setting_up;          /* setup queued and not yet done */
  int setup_rc;            /* itg_sender_start's, from the worker */
  /* The flows: */
  itg_receiver *rx;
  itg_sender *tx;          /* the last START's, or NULL */
  int start_status;
  int64_t start_at;        /* the last START's instant, agent wall ns */
  int64_t start_wall_ns;
  int64_t release_mono_ns;
  /* The receiver's ended flows (its thread writes, under lock): a ring. */
  itg_remote_rx_flow rx_flows[ITG_REMOTE_MAX_FLOWS];
  uint32_t rx_count, rx_next;
  char logs[ITG__AGENT_LOGS][ITG_PATH_MAX]; /* names, under lock */
  uint32_t nlogs, logs_next;
};

/* The receiver's flow events: ended flows and the logs they named. */
void itg__agent_on_flow(const itg_flow_event *ev, void *user);

/* Writes dir/name (name alone when dir is "") into dst[0..len). Returns
 * 0, or -1 when it does not fit. */
int itg__agent_path(char *dst, size_t len, const char *dir, const char *name);

/* Adds name (a file's name in log_dir) to the logs LOG may read. */
void itg__agent_log_add(struct itg_agent *a, const char *name);

/* Runs one command of the controller, m, writing its answer's frame into
 * a->answer. Returns the frame's length, or 0 when the answer is to wait:
 * RESULTS while flows run (itg__agent_results_poll answers later), START
 * with its sender made (a->tx), to be started off the loop
 * (itg_sender_start), after which itg__agent_start_done answers. */
int itg__agent_command(struct itg_agent *a, const itg__rm_msg *m);

/* START's end: rc is itg_sender_start's. Releases the flows at their
 * instant and writes the answer. Returns its length. */
int itg__agent_start_done(struct itg_agent *a, int rc);

/* RESULTS waiting: writes the answer into a->answer and returns its length
 * once the flows have ended or the wait's deadline has passed, else 0. */
int itg__agent_results_poll(struct itg_agent *a);

/* Ends the sender's flows and frees it. */
void itg__agent_flows_free(struct itg_agent *a);

#endif
