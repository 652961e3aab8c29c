/* What each rank tells root at the end of a run, and root's account.
 *
 * The report, one message on ITG__RUN_REPORT_TAG, in the cursors' byte
 * order (core/cursor.h) so that ranks of different machines agree:
 *   u32 magic "ITGR", u32 error (ITG_E* as unsigned), text message,
 *   u64 spilled, u64 lost, u64 malformed, text spill path, u32 flows,
 *   then for each flow this rank sent:
 *   u32 flow index, u32 status, text error, u16 data port, u64 packets,
 *   u64 bytes, u64 received, u64 first departure, u64 last departure (rank 0's time
 *   base). */
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "mpi/run_internal.h"
#include "platform/platform.h"

#define REPORT_MAGIC 0x52475449u /* "ITGR" */
/* Room a report takes: the fixed fields, texts at their longest. */
#define HEAD_MAX (4 + 4 + 2 + 512 + 8 * 3 + 2 + ITG_PATH_MAX + 4)
#define FLOW_MAX (4 + 4 + 2 + 160 + 2 + 8 * 5)
/* The pause between two looks for a report while none comes. */
#define POLL_NS 1000000LL

void itg__run_report_send(itg__run *r) {
  size_t cap = HEAD_MAX + r->tx_n * FLOW_MAX;
  uint8_t *buf = malloc(cap);
  itg__wcur w = {buf, cap, 0, buf == NULL};
  if (buf == NULL)
    return; /* root finds the report missing and says so */
  itg__wcur_u32(&w, REPORT_MAGIC);
  itg__wcur_u32(&w, (uint32_t)r->local_error);
  itg__wcur_text(&w, r->local_msg);
  itg__wcur_u64(&w, r->log_final.spilled);
  itg__wcur_u64(&w, r->log_final.lost);
  itg__wcur_u64(&w, r->rx_malformed);
  itg__wcur_text(&w, r->log_final.spilled > 0 ? r->spill : "");
  itg__wcur_u32(&w, (uint32_t)r->tx_n);
  for (size_t k = 0; k < r->tx_n; k++) {
    const itg_mpi_run_flow *f = &r->flow[r->tx_flow[k]];
    itg__wcur_u32(&w, (uint32_t)r->tx_flow[k]);
    itg__wcur_u32(&w, (uint32_t)f->status);
    itg__wcur_text(&w, f->error);
    itg__wcur_u16(&w, f->data_port);
    itg__wcur_u64(&w, f->packets);
    itg__wcur_u64(&w, f->bytes);
    itg__wcur_u64(&w, f->received);
    itg__wcur_u64(&w, (uint64_t)f->first_tx_ns);
    itg__wcur_u64(&w, (uint64_t)f->last_tx_ns);
  }
  if (!w.bad)
    MPI_Send(buf, (int)w.at, MPI_BYTE, r->root, ITG__RUN_REPORT_TAG, r->comm);
  free(buf);
}

/* Takes rank src's report; one that does not read as a report leaves the
 * rank unreported. */
static void take(itg__run *r, int src, const uint8_t *msg, size_t len) {
  itg__rcur c = {msg, len, 0, 0};
  itg_mpi_run_rank *rk = &r->info[src];
  uint32_t n;
  if (itg__rcur_u32(&c) != REPORT_MAGIC)
    return;
  rk->error = (int)itg__rcur_u32(&c);
  itg__rcur_text(&c, rk->message, sizeof rk->message);
  rk->spilled = itg__rcur_u64(&c);
  rk->lost = itg__rcur_u64(&c);
  rk->malformed = itg__rcur_u64(&c);
  itg__rcur_text(&c, rk->spill_path, sizeof rk->spill_path);
  n = itg__rcur_u32(&c);
  for (uint32_t k = 0; k < n && !c.bad; k++) {
    uint32_t i = itg__rcur_u32(&c);
    itg_mpi_run_flow f;
    memset(&f, 0, sizeof f);
    f.status = (int)itg__rcur_u32(&c);
    itg__rcur_text(&c, f.error, sizeof f.error);
    f.data_port = itg__rcur_u16(&c);
    f.packets = itg__rcur_u64(&c);
    f.bytes = itg__rcur_u64(&c);
    f.received = itg__rcur_u64(&c);
    f.first_tx_ns = (int64_t)itg__rcur_u64(&c);
    f.last_tx_ns = (int64_t)itg__rcur_u64(&c);
    if (c.bad || i >= r->n || r->snd[i] != src)
      break;
    r->flow[i].reported = 1;
    r->flow[i].status = f.status;
    memcpy(r->flow[i].error, f.error, sizeof f.error);
    r->flow[i].data_port = f.data_port;
    r->flow[i].packets = f.packets;
    r->flow[i].bytes = f.bytes;
    r->flow[i].received = f.received;
    r->flow[i].first_tx_ns = f.first_tx_ns;
    r->flow[i].last_tx_ns = f.last_tx_ns;
  }
  rk->reported = !c.bad;
}

/* Receives the reports of the ranks that ended their logs, each within
 * silence_ns of the last one. */
static int receive(itg__run *r) {
  int64_t last = (int64_t)uv_hrtime();
  int want = 0;
  for (int i = 0; i < r->ranks; i++)
    want += i != r->root && r->gathered.rank != NULL &&
            r->gathered.rank[i].ended;
  while (want > 0) {
    MPI_Status st;
    int flag = 0, len = 0;
    uint8_t *msg;
    if (MPI_Iprobe(MPI_ANY_SOURCE, ITG__RUN_REPORT_TAG, r->comm, &flag, &st) !=
        MPI_SUCCESS)
      return ITG_EIO;
    if (!flag) {
      int64_t now = (int64_t)uv_hrtime();
      if (now - last >= r->cfg.silence_ns)
        return 0;
      itg__sleep_until(now + POLL_NS);
      continue;
    }
    if (MPI_Get_count(&st, MPI_BYTE, &len) != MPI_SUCCESS || len < 0 ||
        (msg = malloc((size_t)len + 1)) == NULL)
      return ITG_EIO;
    if (MPI_Recv(msg, len, MPI_BYTE, st.MPI_SOURCE, ITG__RUN_REPORT_TAG,
                 r->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      free(msg);
      return ITG_EIO;
    }
    if (!r->info[st.MPI_SOURCE].reported && st.MPI_SOURCE != r->root) {
      take(r, st.MPI_SOURCE, msg, (size_t)len);
      want--;
    }
    free(msg);
    last = (int64_t)uv_hrtime();
  }
  return 0;
}

/* The spread of the first departures of the flows that start at once. */
static void skew(const itg__run *r, itg_mpi_run_result *out) {
  int64_t lo = 0, hi = 0, unc = 0;
  int any = 0;
  for (size_t i = 0; i < r->n; i++) {
    const itg_mpi_run_flow *f = &r->flow[i];
    int64_t u = r->info[f->sender_rank].uncertainty_ns;
    if (!f->reported || f->first_tx_ns == 0 || f->start_delay_ns != 0)
      continue;
    if (!any || f->first_tx_ns < lo)
      lo = f->first_tx_ns;
    if (!any || f->first_tx_ns > hi)
      hi = f->first_tx_ns;
    if (u > unc)
      unc = u;
    any = 1;
  }
  out->start_skew_ns = hi - lo;
  out->skew_uncertainty_ns = unc;
}

int itg__run_report_collect(itg__run *r, itg_mpi_run_result *out) {
  int rc = receive(r);
  itg_mpi_run_rank *me = &r->info[r->root];
  me->reported = 1;
  me->error = r->local_error;
  snprintf(me->message, sizeof me->message, "%s", r->local_msg);
  me->records = r->log_final.records;
  me->lost = r->log_final.lost;
  me->malformed = r->rx_malformed;
  for (int i = 0; i < r->ranks; i++) {
    itg_mpi_run_rank *rk = &r->info[i];
    if (i != r->root && r->gathered.rank != NULL) {
      const itg_mpi_gather_rank *g = &r->gathered.rank[i];
      rk->records = g->records;
      rk->gaps = g->gaps;
      rk->silent = !g->ended;
      if (g->spilled > rk->spilled)
        rk->spilled = g->spilled;
      snprintf(rk->log_path, sizeof rk->log_path, "%s", g->path);
    }
    out->failed_ranks += rk->error != 0 || rk->silent || !rk->reported;
  }
  for (size_t i = 0; i < r->n; i++)
    out->failed_flows += !r->flow[i].reported || r->flow[i].status != 0;
  out->start_ns = r->start.start_ns;
  skew(r, out);
  return rc;
}
