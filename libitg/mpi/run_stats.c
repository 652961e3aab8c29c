/* The statistics of a run from its gathered logs, with the stamps of
 * every rank moved into rank 0's time base. */
#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "itg/mpi.h"

/* A flow id and the offset of its sender's clock. */
typedef struct sender_offset {
  uint32_t id;
  int64_t offset_ns;
} sender_offset;

typedef struct shift {
  const itg_mpi_run_result *res;
  const int *file_rank;  /* the rank of each file decoded */
  sender_offset *by_id;  /* sorted by id */
  size_t n;
} shift;

static int by_id(const void *a, const void *b) {
  uint32_t x = ((const sender_offset *)a)->id;
  uint32_t y = ((const sender_offset *)b)->id;
  return x < y ? -1 : x > y;
}

/* A receiver's record carries its sender's send time: that clock's
 * offset; every other stamp was made on the file's rank. A flow this run
 * does not know (none, in a log of this run) is left as it is. */
static void to_root(itg_logrec *recs, size_t n, size_t file, void *user) {
  const shift *sh = user;
  int64_t own = sh->res->rank[sh->file_rank[file]].offset_ns;
  for (size_t i = 0; i < n; i++) {
    itg_logrec *rec = &recs[i];
    int packet_rx = (rec->flags & ITG_REC_RX) &&
                    !(rec->flags & (ITG_REC_FLOW_END | ITG_REC_GAP));
    if (packet_rx) {
      sender_offset key = {rec->flow_id, 0};
      const sender_offset *s =
          bsearch(&key, sh->by_id, sh->n, sizeof key, by_id);
      if (s == NULL)
        continue;
      rec->tx_ns += s->offset_ns;
      rec->rx_ns += own;
    } else {
      rec->tx_ns += rec->tx_ns != 0 ? own : 0;
      rec->rx_ns += rec->rx_ns != 0 ? own : 0;
    }
  }
}

int itg_mpi_run_stats_size(const itg_mpi_run_result *res, int correct,
                           itg_stats *stats, itg_decode_status *st,
                           size_t size) {
  const char **paths;
  int *file_rank;
  size_t files = 0;
  shift sh;
  itg_decode_map map = {to_root, &sh};
  int rc;

  if (res == NULL || stats == NULL || res->struct_size < sizeof *res ||
      res->rank == NULL || (st != NULL && !itg__struct_size_ok(size, sizeof *st)))
    return ITG_EINVAL;
  paths = malloc((size_t)res->ranks * sizeof *paths);
  file_rank = malloc((size_t)res->ranks * sizeof *file_rank);
  sh.by_id = malloc((res->flows + 1) * sizeof *sh.by_id);
  rc = ITG_ENOMEM;
  if (paths == NULL || file_rank == NULL || sh.by_id == NULL)
    goto out;
  for (int i = 0; i < res->ranks; i++) {
    if (st != NULL) {
      itg_decode_status none;
      memset(&none, 0, sizeof none);
      none.struct_size = sizeof none;
      none.error = ITG_ENOENT;
      itg__struct_out((char *)st + (size_t)i * size, size, &none, sizeof none);
    }
    if (res->rank[i].log_path[0] != '\0') {
      paths[files] = res->rank[i].log_path;
      file_rank[files++] = i;
    }
  }
  sh.res = res;
  sh.file_rank = file_rank;
  sh.n = res->flows;
  for (size_t i = 0; i < res->flows; i++) {
    sh.by_id[i].id = res->flow[i].flow_id;
    sh.by_id[i].offset_ns = res->rank[res->flow[i].sender_rank].offset_ns;
  }
  qsort(sh.by_id, sh.n, sizeof *sh.by_id, by_id);
  rc = ITG_ENOENT;
  if (files > 0) {
    itg_decode_status *got = st != NULL ? calloc(files, sizeof *got) : NULL;
    rc = ITG_ENOMEM;
    if (st == NULL || got != NULL)
      rc = itg_decode_files_map_size(paths, files, correct ? &map : NULL,
                                     stats, NULL, got,
                                     got != NULL ? sizeof *got : 0);
    for (size_t k = 0; got != NULL && k < files; k++)
      itg__struct_out((char *)st + (size_t)file_rank[k] * size, size, &got[k],
                      sizeof got[k]);
    free(got);
  }
out:
  free(paths);
  free(file_rank);
  free(sh.by_id);
  return rc;
}
