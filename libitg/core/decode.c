/* Decoding log files into statistics and series (see itg/stats.h). */
#include "itg/stats.h"

#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/idmap.h"

#define BATCH 256

/* The flows of one file that have records but no FLOW_END yet. Every
 * writer ends each flow it logs with a FLOW_END, so a file read to its
 * end with flows still open was cut short: its writer stopped (a full
 * disk, a crash) with records it never wrote. */
typedef struct open_flows {
  itg__idmap ended; /* flow id -> flag: 1 ended, 0 open */
  size_t open;
} open_flows;

static void open_flows_free(open_flows *o) {
  for (size_t i = 0; i < o->ended.cap; i++)
    free(o->ended.slots[i].value);
  itg__idmap_free(&o->ended);
}

/* Notes one record. Returns 0 or ITG_ENOMEM. */
static int open_flows_add(open_flows *o, const itg_logrec *r) {
  int end = (r->flags & ITG_REC_FLOW_END) != 0;
  int *ended;
  if (!end && (r->flags & ITG_REC_GAP))
    return 0;
  ended = itg__idmap_get(&o->ended, r->flow_id);
  if (ended == NULL) {
    ended = itg__idmap_put_new(&o->ended, r->flow_id, sizeof *ended);
    if (ended == NULL)
      return ITG_ENOMEM;
    if (!end)
      o->open++;
  } else if (end && !*ended) {
    o->open--;
  }
  if (end)
    *ended = 1;
  return 0;
}

/* Adds a batch to whichever consumers there are. */
static int feed(itg_stats *stats, itg_series *series, const itg_logrec *recs,
                size_t n) {
  int rc = 0;
  if (stats != NULL)
    rc = itg_stats_add(stats, recs, n);
  if (rc == 0 && series != NULL)
    rc = itg_series_add(series, recs, n);
  return rc;
}

/* Notes a damaged stretch the reader skipped. */
static void note_damage(itg_logreader *r, itg_decode_status *st) {
  itg_log_damage d;
  itg_logreader_damage(r, &d);
  if (st->damaged++ == 0)
    st->first_damage = d;
  st->skipped += d.records;
}

/* Reads one file to its end, past damaged blocks, or to damage that stops
 * it. Returns 0, the reader's error (kept in *st, the file is done), or a
 * consumer's error (fatal: *fatal set). */
static int decode_one(const char *path, const itg_decode_map *map,
                      size_t file, itg_stats *stats, itg_series *series,
                      itg_decode_status *st, int *fatal) {
  itg_logrec recs[BATCH];
  itg_logreader *r;
  open_flows flows;
  size_t n = 0;
  int rc = itg_logreader_open(path, &r);
  if (rc != 0) {
    st->error = rc;
    return rc;
  }
  st->opened = 1;
  itg_logreader_header(r, &st->hdr);
  memset(&flows, 0, sizeof flows);
  itg__idmap_init(&flows.ended);
  for (;;) {
    uint64_t damaged = st->damaged;
    int got = itg_logreader_next(r, &recs[n]);
    if (got == ITG_EBADMSG && itg_logreader_damage(r, NULL) > damaged) {
      note_damage(r, st);
      continue;
    }
    if (got == 1 && ++n < BATCH)
      continue;
    if (n > 0) {
      int frc;
      if (map != NULL)
        map->fn(recs, n, file, map->user);
      frc = feed(stats, series, recs, n);
      for (size_t i = 0; i < n && frc == 0; i++)
        frc = open_flows_add(&flows, &recs[i]);
      if (frc != 0) {
        *fatal = 1;
        rc = frc;
        goto out_close_reader;
      }
      st->records += n;
      n = 0;
    }
    if (got != 1) {
      rc = got < 0 ? got : st->damaged > 0 ? ITG_EBADMSG : 0;
      break;
    }
  }
  if (rc == 0 && flows.open > 0)
    rc = ITG_ETRUNC;
  st->error = rc;
  st->offset = itg_logreader_offset(r);

out_close_reader:
  open_flows_free(&flows);
  itg_logreader_close(r);
  return rc;
}

int itg_decode_files_size(const char *const *paths, size_t n,
                          itg_stats *stats, itg_series *series,
                          itg_decode_status *st, size_t size) {
  return itg_decode_files_map_size(paths, n, NULL, stats, series, st, size);
}

int itg_decode_files_map_size(const char *const *paths, size_t n,
                              const itg_decode_map *map, itg_stats *stats,
                              itg_series *series, itg_decode_status *st,
                              size_t size) {
  int first_err = 0;
  if (paths == NULL || n == 0 || (map != NULL && map->fn == NULL) ||
      (st != NULL && !itg__struct_size_ok(size, sizeof *st)))
    return ITG_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL)
      return ITG_EINVAL;
  if (st != NULL)
    memset(st, 0, n * size);
  for (size_t i = 0; i < n; i++) {
    itg_decode_status one;
    int fatal = 0;
    int rc;
    memset(&one, 0, sizeof one);
    rc = decode_one(paths[i], map, i, stats, series, &one, &fatal);
    if (st != NULL)
      itg__struct_out((char *)st + i * size, size, &one, sizeof one);
    if (fatal)
      return rc;
    if (rc != 0 && first_err == 0)
      first_err = rc;
  }
  return first_err;
}
