/* One rank's part of a run: its logger, its receiver, its sender. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/run_internal.h"
#include "platform/platform.h"

/* The flows this rank receives keep its receiver open; this many at least
 * may come from one peer, whatever their number. */
#define PEER_FLOWS_MIN 256

int itg__run_log_open(itg__run *r) {
  itg_logger_cfg lc;
  char path[ITG_PATH_MAX];
  const itg_mpi_run_rank *me = &r->info[r->rank];
  int rc;
  itg_logger_cfg_init(&lc);
  lc.role = me->receives > 0 ? ITG_LOG_ROLE_RECEIVER : ITG_LOG_ROLE_SENDER;
  lc.clock = me->receives > 0 ? ITG_LOG_CLOCK_KERNEL : ITG_LOG_CLOCK_REALTIME;
  lc.lanes = ITG__RUN_LANES;
  lc.batch = r->cfg.log_batch;
  if (r->rank == r->root) {
    if (snprintf(path, sizeof path, "%s/rank-%d.itglog", r->cfg.log_dir,
                 r->rank) >= (int)sizeof path)
      return itg__run_fail(r, ITG_ERANGE, "rank %d (%s): %s: name too long",
                           r->rank, me->host, r->cfg.log_dir);
    lc.path = path;
    rc = itg_logger_new(&lc, &r->log);
    if (rc == 0)
      snprintf(r->info[r->rank].log_path, ITG_PATH_MAX, "%s", path);
    else
      itg__run_fail(r, rc, "rank %d (%s): %s: %s", r->rank, me->host, path,
                    itg_strerror(rc));
    return rc;
  }
  if (snprintf(path, sizeof path, "%s%sitg-mpi-rank-%d.%d.spill",
               r->cfg.spill_dir != NULL ? r->cfg.spill_dir : "",
               r->cfg.spill_dir != NULL && r->cfg.spill_dir[0] != '\0' ? "/"
                                                                      : "",
               r->rank, (int)uv_os_getpid()) >= (int)sizeof path)
    return itg__run_fail(r, ITG_ERANGE, "rank %d (%s): %s: name too long",
                         r->rank, me->host, r->cfg.spill_dir);
  rc = itg_mpi_logger_new(r->comm, r->root, &lc, path, &r->log);
  if (rc != 0)
    itg__run_fail(r, rc, "rank %d (%s): the MPI logger: %s", r->rank,
                  me->host, itg_strerror(rc));
  return rc;
}

/* The receiver's records go to the rank's logger, from its one thread. */
static void on_records(const itg_logrec *recs, size_t n, void *user) {
  itg__run *r = user;
  for (size_t i = 0; i < n; i++)
    itg_logger_push(r->log, ITG__RUN_LANE_RX, &recs[i]);
}

/* Counts the ends of the flows this rank expects. */
static void on_flow(const itg_flow_event *ev, void *user) {
  itg__run *r = user;
  int ours = 0;
  if (ev->kind == ITG_FLOW_OPENED)
    return;
  for (size_t i = 0; i < r->n && !ours; i++)
    ours = r->rcv[i] == r->rank && r->ids[i] == ev->flow_id;
  if (!ours)
    return;
  uv_mutex_lock(&r->lock);
  r->rx_done++;
  uv_cond_signal(&r->rx_cond);
  uv_mutex_unlock(&r->lock);
}

int itg__run_rx_start(itg__run *r) {
  itg_mpi_run_rank *me = &r->info[r->rank];
  itg_receiver_cfg rc_cfg;
  uint32_t peer_flows;
  int rc;
  r->rx_expect = me->receives;
  if (me->receives == 0)
    return 0;
  peer_flows = me->receives > PEER_FLOWS_MIN ? me->receives : PEER_FLOWS_MIN;
  itg_receiver_cfg_init(&rc_cfg);
  snprintf(rc_cfg.bind_host, sizeof rc_cfg.bind_host, "%s", me->addr);
  rc_cfg.sig_port = 0;
  rc_cfg.log_batch = r->cfg.log_batch;
  if (rc_cfg.max_flows < peer_flows)
    rc_cfg.max_flows = peer_flows;
  rc_cfg.max_peer_flows = peer_flows;
  rc_cfg.max_peer_conns = peer_flows;
  rc_cfg.on_records = on_records;
  rc_cfg.on_flow = on_flow;
  rc_cfg.user = r;
  rc = itg_receiver_new(&rc_cfg, &r->rx);
  if (rc == 0 && (rc = itg_receiver_start(r->rx)) == 0) {
    me->port = itg_receiver_port(r->rx);
    return 0;
  }
  return itg__run_fail(r, rc, "rank %d (%s): the receiver on %s: %s", r->rank,
                       me->host, me->addr, itg_strerror(rc));
}

int itg__run_tx_setup(itg__run *r) {
  const itg_mpi_run_rank *me = &r->info[r->rank];
  itg_sender_cfg sc;
  char msg[256];
  int rc;
  if (me->sends == 0)
    return 0;
  r->tx_flow = malloc(me->sends * sizeof *r->tx_flow);
  if (r->tx_flow == NULL)
    return itg__run_fail(r, ITG_ENOMEM, "rank %d (%s): out of memory",
                         r->rank, me->host);
  itg_sender_cfg_init(&sc);
  sc.hold = 1;
  /* Every flow without a start delay leaves at the common start, on every
   * rank: the run's start skew measures that instant (itg/mpi.h). */
  sc.start = ITG_START_TOGETHER;
  sc.cpu = r->cfg.pin_cpu;
  sc.log_batch = r->cfg.log_batch;
  if (r->cfg.sender_log) {
    sc.logger = r->log;
    sc.logger_lane = ITG__RUN_LANE_TX;
  }
  if ((rc = itg_sender_new(&sc, &r->tx)) != 0)
    return itg__run_fail(r, rc, "rank %d (%s): the sender: %s", r->rank,
                         me->host, itg_strerror(rc));
  for (size_t i = 0; i < r->n; i++) {
    itg_flow_cfg fc;
    if (r->snd[i] != r->rank)
      continue;
    itg_experiment_flow_cfg(r->e, i, &fc);
    fc.flow_id = r->ids[i];
    if (r->rcv[i] >= 0) {
      snprintf(fc.dst_host, sizeof fc.dst_host, "%s", r->info[r->rcv[i]].addr);
      fc.sig_port = r->info[r->rcv[i]].port;
      /* Several flows may reach one rank: D-ITG's default data port would
       * serve one of them, so the receiver picks one for each. */
      if (fc.dst_port == ITG_DEFAULT_DATA_PORT)
        fc.dst_port = 0;
      snprintf(r->flow[i].receiver, sizeof r->flow[i].receiver, "%s",
               fc.dst_host);
      r->flow[i].port = fc.sig_port;
    }
    if ((rc = itg_sender_add_flow(r->tx, &fc, msg, sizeof msg)) != 0)
      return itg__run_fail(r, rc, "rank %d (%s): line %u: %s", r->rank,
                           me->host, r->flow[i].line, msg);
    r->tx_flow[r->tx_n++] = i;
  }
  /* A flow its receiver refuses ends here with its status, which the
   * report gives; the others go on. */
  itg_sender_start(r->tx);
  return 0;
}

/* The monotonic instant by which the flows this rank sends (sending) or
 * receives have all passed their planned end plus the grace; -1 when one
 * of them has no duration. */
static int64_t deadline(const itg__run *r, int sending) {
  int64_t end = 0;
  for (size_t i = 0; i < r->n; i++) {
    itg_flow_cfg fc;
    if ((sending ? r->snd[i] : r->rcv[i]) != r->rank)
      continue;
    itg_experiment_flow_cfg(r->e, i, &fc);
    if (fc.duration_ns <= 0)
      return -1;
    if (fc.start_delay_ns + fc.duration_ns > end)
      end = fc.start_delay_ns + fc.duration_ns;
  }
  return r->start.mono_ns + end + r->cfg.grace_ns;
}

static int64_t left(int64_t until) {
  int64_t now = (int64_t)uv_hrtime();
  return until < 0 ? -1 : until > now ? until - now : 0;
}

/* Runs this rank's flows to their end and takes their results; a flow
 * still going at its planned end plus the grace is stopped and says so. */
static void send_flows(itg__run *r) {
  if (r->tx == NULL)
    return;
  itg_sender_release(r->tx, r->start.mono_ns);
  if (itg_sender_wait(r->tx, left(deadline(r, 1))) == ITG_ETIMEDOUT) {
    for (size_t k = 0; k < r->tx_n; k++) {
      itg_flow_result res;
      itg_mpi_run_flow *f = &r->flow[r->tx_flow[k]];
      if (itg_sender_flow_result(r->tx, k, &res) == 0 && !res.ended) {
        f->status = ITG_ETIMEDOUT;
        snprintf(f->error, sizeof f->error,
                 "still sending %.3f s past its planned end: stopped",
                 (double)r->cfg.grace_ns / 1e9);
      }
    }
    itg_sender_stop(r->tx);
    itg_sender_wait(r->tx, -1);
  }
  for (size_t k = 0; k < r->tx_n; k++) {
    itg_mpi_run_flow *f = &r->flow[r->tx_flow[k]];
    itg_flow_result res;
    if (itg_sender_flow_result(r->tx, k, &res) != 0)
      continue;
    f->reported = 1;
    if (f->status == 0) {
      f->status = res.status;
      snprintf(f->error, sizeof f->error, "%s", res.error);
    }
    f->packets = res.packets;
    f->bytes = res.bytes;
    f->received = res.received;
    f->data_port = res.data_port;
    f->first_tx_ns =
        res.packets > 0 ? itg_mpi_clock_to_root(&r->clock, res.first_tx_ns) : 0;
    f->last_tx_ns =
        res.packets > 0 ? itg_mpi_clock_to_root(&r->clock, res.last_tx_ns) : 0;
  }
}

/* How much longer than the senders a receiving rank waits for a flow that
 * has not ended by its planned end plus the grace: the senders stop such
 * flows then and tell their receivers, which must still be there to hear
 * it (a receiver that stopped at the same instant made its sender's flow
 * fail with "the receiver closed the signaling connection" instead of
 * saying it was stopped past its end). */
#define RX_MARGIN_NS INT64_C(1000000000)

/* Waits for the flows this rank receives to end, then stops the
 * receiver. */
static void receive_flows(itg__run *r) {
  itg_receiver_stats st;
  int64_t until;
  if (r->rx == NULL)
    return;
  until = deadline(r, 0);
  if (until >= 0)
    until += RX_MARGIN_NS;
  uv_mutex_lock(&r->lock);
  while (r->rx_done < r->rx_expect) {
    int64_t wait = left(until);
    if (wait < 0)
      uv_cond_wait(&r->rx_cond, &r->lock);
    else if (wait == 0 || uv_cond_timedwait(&r->rx_cond, &r->lock,
                                            (uint64_t)wait) == UV_ETIMEDOUT)
      break;
  }
  uv_mutex_unlock(&r->lock);
  itg_receiver_stop(r->rx);
  if (itg_receiver_get_stats(r->rx, &st) == 0)
    r->rx_malformed = st.malformed;
}

void itg__run_local(itg__run *r) {
  int rc;
  send_flows(r);
  receive_flows(r);
  if (itg_logger_spill_path(r->log, r->spill, sizeof r->spill) != 0)
    r->spill[0] = '\0';
  rc = itg_logger_close_stats(r->log, &r->log_final);
  r->log = NULL;
  if (rc != 0)
    itg__run_fail(r, rc, "closing the log: %s", itg_strerror(rc));
}

void itg__run_local_free(itg__run *r) {
  itg_sender_free(r->tx);
  itg_receiver_free(r->rx);
  itg_logger_close(r->log);
  free(r->tx_flow);
  r->tx = NULL;
  r->rx = NULL;
  r->log = NULL;
  r->tx_flow = NULL;
}
