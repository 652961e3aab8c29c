/* What the ranks of a run agree on before the common start: host names,
 * placement, flow ids, addresses and clock offsets. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/netlist.h"
#include "mpi/coll.h"
#include "mpi/run_internal.h"

int itg__run_fail(itg__run *r, int rc, const char *fmt, ...) {
  va_list ap;
  if (r->local_error != 0)
    return r->local_error;
  r->local_error = rc;
  va_start(ap, fmt);
  vsnprintf(r->local_msg, sizeof r->local_msg, fmt, ap);
  va_end(ap);
  return rc;
}

int itg__run_agree(itg__run *r) {
  int me = r->local_error != 0 ? r->rank : INT_MAX, who, code;
  char msg[sizeof r->local_msg];
  if (MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS)
    return ITG_EIO;
  if (who == INT_MAX)
    return 0;
  code = r->local_error;
  memcpy(msg, r->local_msg, sizeof msg);
  if (MPI_Bcast(&code, 1, MPI_INT, who, r->comm) != MPI_SUCCESS ||
      MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, who, r->comm) != MPI_SUCCESS)
    return ITG_EIO;
  if (r->errlen > 0)
    snprintf(r->err, r->errlen, "%s", msg);
  return code;
}

/* Every rank's text `mine` (ITG_HOST_MAX bytes, terminated), into the
 * char[ITG_HOST_MAX] field at `field` of each rank's info. */
static int share_text(itg__run *r, const char *mine, size_t field) {
  char *all = malloc((size_t)r->ranks * ITG_HOST_MAX);
  int rc = 0;
  if (all == NULL)
    return ITG_ENOMEM;
  if (MPI_Allgather(mine, ITG_HOST_MAX, MPI_CHAR, all, ITG_HOST_MAX, MPI_CHAR,
                    r->comm) != MPI_SUCCESS)
    rc = ITG_EIO;
  for (int i = 0; i < r->ranks && rc == 0; i++) {
    char *dst = (char *)&r->info[i] + field;
    memcpy(dst, all + (size_t)i * ITG_HOST_MAX, ITG_HOST_MAX);
    dst[ITG_HOST_MAX - 1] = '\0';
  }
  free(all);
  return rc;
}

/* Every rank's host name, into info[].host. */
static int hosts(itg__run *r) {
  char me[ITG_HOST_MAX] = "";
  size_t len = sizeof me;
  for (int i = 0; i < r->ranks; i++)
    r->info[i].rank = i;
  if (uv_os_gethostname(me, &len) != 0)
    snprintf(me, sizeof me, "unknown");
  return share_text(r, me, offsetof(itg_mpi_run_rank, host));
}

/* Places the flows on the job; flow i is flow id i + 1 everywhere (the
 * records of all ranks are decoded together, so ids must not repeat
 * across senders). The same on every rank, computed from the same file. */
static void place(itg__run *r) {
  const char **names = malloc((size_t)r->ranks * sizeof *names);
  itg_experiment_job job;
  char msg[sizeof r->local_msg];
  int rc;
  if (names == NULL) {
    itg__run_fail(r, ITG_ENOMEM, "out of memory");
    return;
  }
  for (int i = 0; i < r->ranks; i++)
    names[i] = r->info[i].host;
  itg_experiment_job_init(&job);
  job.nranks = r->ranks;
  job.hosts = names;
  rc = itg_experiment_place(r->e, &job, r->snd, r->rcv, r->n, msg, sizeof msg);
  free(names);
  if (rc != 0) {
    itg__run_fail(r, rc, "%s", msg);
    return;
  }
  for (size_t i = 0; i < r->n; i++) {
    itg_flow_cfg fc;
    itg_experiment_flow at;
    itg_experiment_flow_cfg(r->e, i, &fc);
    itg_experiment_flow_at(r->e, i, &at);
    r->ids[i] = (uint32_t)i + 1;
    r->flow[i].flow_id = r->ids[i];
    r->flow[i].line = at.line;
    r->flow[i].sender_rank = r->snd[i];
    r->flow[i].receiver_rank = r->rcv[i];
    r->flow[i].start_delay_ns = fc.start_delay_ns;
    snprintf(r->flow[i].receiver, sizeof r->flow[i].receiver, "%s",
             fc.dst_host);
    r->flow[i].port = fc.sig_port;
  }
}

/* This rank's address for its receiver: in cfg.net, else loopback when
 * the whole job runs on one host, else the host's first IPv4 address that
 * is not loopback. "" when none is found. */
static int my_address(itg__run *r, char *out, size_t len) {
  uv_interface_address_t *ifs;
  itg_logserver_net net;
  const char *want = r->cfg.net != NULL ? r->cfg.net : "";
  int count, one_host = 1;
  out[0] = '\0';
  for (int i = 1; i < r->ranks; i++)
    if (strcmp(r->info[i].host, r->info[0].host) != 0)
      one_host = 0;
  if (want[0] == '\0' && one_host) {
    snprintf(out, len, "127.0.0.1");
    return 0;
  }
  if (want[0] != '\0' && itg__net_parse(want, &net) != 0)
    return itg__run_fail(r, ITG_EINVAL, "'%s' is not a network (ADDR/PREFIX)",
                         want);
  if (uv_interface_addresses(&ifs, &count) != 0)
    return 0;
  for (int i = 0; i < count && out[0] == '\0'; i++) {
    const struct sockaddr *sa = (const struct sockaddr *)&ifs[i].address;
    if (want[0] != '\0' ? !itg__net_contains(&net, sa)
                        : ifs[i].is_internal || sa->sa_family != AF_INET)
      continue;
    if (sa->sa_family == AF_INET)
      uv_ip4_name(&ifs[i].address.address4, out, len);
    else
      uv_ip6_name(&ifs[i].address.address6, out, len);
  }
  uv_free_interface_addresses(ifs, count);
  return 0;
}

/* Every rank's address, into info[].addr; a rank that receives a flow and
 * has none fails the run. */
static int addresses(itg__run *r) {
  char me[ITG_HOST_MAX];
  unsigned receives = 0;
  if (my_address(r, me, sizeof me) != 0)
    me[0] = '\0';
  for (size_t i = 0; i < r->n; i++)
    receives += r->rcv[i] == r->rank;
  if (receives > 0 && me[0] == '\0' && r->local_error == 0)
    itg__run_fail(r, ITG_EADDR, "rank %d (%s): no address of this host %s%s",
                  r->rank, r->info[r->rank].host,
                  r->cfg.net != NULL && r->cfg.net[0] != '\0' ? "in "
                                                              : "but loopback",
                  r->cfg.net != NULL ? r->cfg.net : "");
  return share_text(r, me, offsetof(itg_mpi_run_rank, addr));
}

/* Ranks of one host read one clock: each takes the measurement of its
 * host's rank that has the least uncertainty, and the ranks of rank 0's
 * host take rank 0's own, offset 0 exactly (unless cfg.clock_per_rank). */
static void share_host_clocks(itg__run *r) {
  for (int i = 0; i < r->ranks; i++) {
    int best = i;
    for (int j = 0; j < r->ranks; j++)
      if (strcmp(r->info[j].host, r->info[i].host) == 0 &&
          (j == 0 || (best != 0 && r->info[j].uncertainty_ns <
                                       r->info[best].uncertainty_ns)))
        best = j;
    r->info[i].offset_ns = r->info[best].offset_ns;
    r->info[i].uncertainty_ns = r->info[best].uncertainty_ns;
  }
  r->clock.offset_ns = r->info[r->rank].offset_ns;
  r->clock.uncertainty_ns = r->info[r->rank].uncertainty_ns;
}

/* This rank's clock offset, then every rank's, into info[]. */
static int clocks(itg__run *r) {
  int64_t mine[2], *all = malloc((size_t)r->ranks * sizeof mine);
  int rc = itg_mpi_clock_sync(r->comm, r->cfg.clock_rounds, &r->clock);
  if (all == NULL)
    return ITG_ENOMEM;
  mine[0] = r->clock.offset_ns;
  mine[1] = r->clock.uncertainty_ns;
  if (rc == 0 && MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T,
                               r->comm) != MPI_SUCCESS)
    rc = ITG_EIO;
  for (int i = 0; i < r->ranks && rc == 0; i++) {
    r->info[i].offset_ns = all[2 * i];
    r->info[i].uncertainty_ns = all[2 * i + 1];
  }
  free(all);
  if (rc == 0 && !r->cfg.clock_per_rank)
    share_host_clocks(r);
  return rc;
}

int itg__run_setup(itg__run *r) {
  int rc;
  if ((rc = hosts(r)) != 0)
    return rc;
  place(r);
  if ((rc = itg__run_agree(r)) != 0)
    return rc;
  for (size_t i = 0; i < r->n; i++) {
    r->info[r->snd[i]].sends++;
    if (r->rcv[i] >= 0)
      r->info[r->rcv[i]].receives++;
  }
  if ((rc = addresses(r)) != 0 || (rc = itg__run_agree(r)) != 0)
    return rc;
  if ((rc = clocks(r)) != 0 && r->errlen > 0)
    snprintf(r->err, r->errlen, "measuring the clocks' offsets failed: %s",
             itg_strerror(rc));
  return rc;
}
