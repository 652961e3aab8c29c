/* Writing D-ITG binary logs from libitg records (see itg/ditg.h). */
#include "itg/ditg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ditg_rec.h"
#include "core/record_kind.h"
#include "platform/platform.h"


struct itg_ditg_writer {
  FILE *f;
  itg__rec_kind kind; /* the records written */
  uint64_t count;
  int failed;
};

int itg_ditg_writer_open(const char *path, itg_stats_meter meter,
                         itg_ditg_writer **out) {
  itg_ditg_writer *w;
  if (path == NULL || out == NULL ||
      (meter != ITG_STATS_OWD && meter != ITG_STATS_RTT &&
       meter != ITG_STATS_SENT))
    return ITG_EINVAL;
  w = calloc(1, sizeof *w);
  if (w == NULL)
    return ITG_ENOMEM;
  w->kind = meter == ITG_STATS_OWD   ? ITG__REC_OWD
            : meter == ITG_STATS_RTT ? ITG__REC_RTT
                                     : ITG__REC_SENT;
  w->f = fopen(path, "wb");
  if (w->f == NULL) {
    int rc = itg__file_errno(errno);
    free(w);
    return rc;
  }
  *out = w;
  return 0;
}

/* The time of the UTC day of t, ns since the epoch. */
static int64_t tod_of(int64_t t) {
  int64_t tod = t % ITG__DAY_NS;
  return tod < 0 ? tod + ITG__DAY_NS : tod;
}

int itg__ditg_rec_of(const itg_logrec *rec, itg__rec_kind kind,
                     itg__ditg_rec *r) {
  if (itg__logrec_kind(rec) != kind)
    return 1;
  if (rec->seq > UINT32_MAX)
    return ITG_ERANGE;
  r->flow_id = rec->flow_id;
  r->seq = (uint32_t)rec->seq;
  r->size = rec->size;
  r->tx_tod_ns = tod_of(rec->tx_ns);
  r->rx_tod_ns = kind == ITG__REC_SENT ? r->tx_tod_ns : tod_of(rec->rx_ns);
  return 0;
}

int itg_ditg_writer_write(itg_ditg_writer *w, const itg_logrec *recs,
                          size_t n) {
  return itg_ditg_writer_write_flow(w, recs, n, NULL);
}

/* Returns 0 if s is a NUL-terminated text that fits a D-ITG address. */
static int addr_fits(const char *s) {
  return memchr(s, '\0', ITG_DITG_ADDR_LEN) != NULL ? 0 : ITG_EINVAL;
}

int itg_ditg_writer_write_flow(itg_ditg_writer *w, const itg_logrec *recs,
                               size_t n, const itg_ditg_flow *flow) {
  uint8_t buf[ITG_DITG_RECORD_LEN];
  itg__ditg_rec r;
  if (w == NULL || (recs == NULL && n > 0))
    return ITG_EINVAL;
  if (w->failed)
    return w->failed;
  if (itg__logrec_check(recs, n) != 0 ||
      (flow != NULL &&
       (addr_fits(flow->src_addr) != 0 || addr_fits(flow->dst_addr) != 0)))
    return ITG_EINVAL;
  memset(&r, 0, sizeof r);
  strcpy(r.src_addr, flow != NULL ? flow->src_addr : ITG__DITG_UNKNOWN_ADDR);
  strcpy(r.dst_addr, flow != NULL ? flow->dst_addr : ITG__DITG_UNKNOWN_ADDR);
  if (flow != NULL) {
    r.src_port = flow->src_port;
    r.dst_port = flow->dst_port;
  }
  for (size_t i = 0; i < n; i++) {
    int rc = itg__ditg_rec_of(&recs[i], w->kind, &r);
    if (rc == 1)
      continue;
    if (rc != 0) {
      w->failed = rc;
      return w->failed;
    }
    itg__ditg_rec_encode(&r, buf);
    if (fwrite(buf, 1, sizeof buf, w->f) != sizeof buf) {
      w->failed = itg__file_errno(errno);
      return w->failed;
    }
    w->count++;
  }
  return 0;
}

uint64_t itg_ditg_writer_count(const itg_ditg_writer *w) {
  return w != NULL ? w->count : 0;
}

int itg_ditg_writer_close(itg_ditg_writer *w) {
  int rc;
  if (w == NULL)
    return 0;
  rc = w->failed;
  if (fclose(w->f) != 0 && rc == 0)
    rc = itg__file_errno(errno);
  free(w);
  return rc;
}
