/* Decoding log files into statistics and series (see itg/stats.h). */
#include "itg/stats.h"

#include <stdlib.h>
#include <string.h>

#include "core/growable.h"
#include "core/idmap.h"

#define BATCH 256

/* Every writer ends each flow it logs with a FLOW_END, so a flow with
 * records and no FLOW_END in any of the files given was cut short: its
 * writer stopped (a full disk, a crash) with records it never wrote. The
 * FLOW_END may be in another file than some of the records (a sender's
 * log shipped to a log server or over MPI, part of it spilled to a local
 * file), but it must be its own writer's: a receiver's end does not end
 * the sender's records of the flow, nor the other way round. */
enum { SIDE_RX = 1u, SIDE_TX = 2u };

/* The writer of a record: a receiver (RX records and its RX FLOW_END) or a
 * sender (TX records, the echoes RX|RTT, and its TX or RTT FLOW_END). A
 * FLOW_END of neither ends the flow for both. */
static unsigned side_of(const itg_logrec *r) {
  if (r->flags & (ITG_REC_TX | ITG_REC_RTT))
    return SIDE_TX;
  if (r->flags & ITG_REC_RX)
    return SIDE_RX;
  return r->flags & ITG_REC_FLOW_END ? SIDE_RX | SIDE_TX : SIDE_TX;
}

/* Per flow id: the sides with records and those with their FLOW_END. */
typedef struct flow_sides {
  unsigned logged;
  unsigned ended;
} flow_sides;

static void sides_free(itg__idmap *m) {
  for (size_t i = 0; i < m->cap; i++)
    free(m->slots[i].value);
  itg__idmap_free(m);
}

/* Notes one record. Returns 0 or ITG_ENOMEM. */
static int sides_add(itg__idmap *m, const itg_logrec *r) {
  int end = (r->flags & ITG_REC_FLOW_END) != 0;
  flow_sides *f;
  if (!end && (r->flags & ITG_REC_GAP))
    return 0;
  f = itg__idmap_get(m, r->flow_id);
  if (f == NULL && (f = itg__idmap_put_new(m, r->flow_id, sizeof *f)) == NULL)
    return ITG_ENOMEM;
  if (end)
    f->ended |= side_of(r);
  else
    f->logged |= side_of(r);
  return 0;
}

/* A flow of file `file` whose records of `sides` have no FLOW_END there. */
typedef struct open_flow {
  size_t file;
  uint32_t flow_id;
  unsigned sides;
} open_flow;

/* What decoding has found of the flows' ends so far: the sides ended in
 * any file, and the flows each file left open. */
typedef struct flow_ends {
  itg__idmap ended; /* flow id -> flow_sides (only `ended` used) */
  open_flow *open;
  size_t n_open, cap_open;
} flow_ends;

static void flow_ends_free(flow_ends *e) {
  sides_free(&e->ended);
  free(e->open);
}

/* Takes the flows of one file (`file`) into e. Returns 0 or ITG_ENOMEM. */
static int flow_ends_take(flow_ends *e, size_t file, const itg__idmap *m) {
  for (size_t i = 0; i < m->cap; i++) {
    const flow_sides *f = m->slots[i].value;
    uint32_t id = m->slots[i].id;
    flow_sides *all;
    if (f == NULL)
      continue;
    if (f->ended != 0) {
      all = itg__idmap_get(&e->ended, id);
      if (all == NULL &&
          (all = itg__idmap_put_new(&e->ended, id, sizeof *all)) == NULL)
        return ITG_ENOMEM;
      all->ended |= f->ended;
    }
    if ((f->logged & ~f->ended) == 0)
      continue;
    if (e->n_open == e->cap_open) {
      size_t cap = e->cap_open ? 2 * e->cap_open : 16;
      open_flow *grown = realloc(e->open, cap * sizeof *grown);
      if (grown == NULL)
        return ITG_ENOMEM;
      e->open = grown;
      e->cap_open = cap;
    }
    e->open[e->n_open++] =
        (open_flow){.file = file, .flow_id = id, .sides = f->logged & ~f->ended};
  }
  return 0;
}

/* Finds the files, of those read cleanly (error 0), holding a flow whose
 * end no file held: they were cut short. */
static void flow_ends_check(const flow_ends *e, itg_decode_status *st) {
  for (size_t i = 0; i < e->n_open; i++) {
    const open_flow *o = &e->open[i];
    const flow_sides *all = itg__idmap_get(&e->ended, o->flow_id);
    if ((o->sides & ~(all != NULL ? all->ended : 0u)) != 0 &&
        st[o->file].error == 0)
      st[o->file].error = ITG_ETRUNC;
  }
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

/* Reads file `file` to its end, past damaged blocks, or to damage that
 * stops it, passes each batch through map (if any) and takes its flows
 * into ends. Returns 0, the reader's error (kept in *st, the file is
 * done), or an error of a consumer or of ends (fatal: *fatal set). */
static int decode_one(const char *path, const itg_decode_map *map,
                      size_t file, itg_stats *stats, itg_series *series,
                      flow_ends *ends,
                      itg_decode_status *st, int *fatal) {
  itg_logrec recs[BATCH];
  itg_logreader *r;
  itg__idmap flows;
  size_t n = 0;
  int rc = itg_logreader_open(path, &r), frc;
  if (rc != 0) {
    st->error = rc;
    return rc;
  }
  st->opened = 1;
  itg_logreader_header(r, &st->hdr);
  itg__idmap_init(&flows);
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
      if (map != NULL)
        map->fn(recs, n, file, map->user);
      frc = feed(stats, series, recs, n);
      for (size_t i = 0; i < n && frc == 0; i++)
        frc = sides_add(&flows, &recs[i]);
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
  st->error = rc;
  st->offset = itg_logreader_offset(r);
  if ((frc = flow_ends_take(ends, file, &flows)) != 0) {
    *fatal = 1;
    rc = frc;
  }

out_close_reader:
  sides_free(&flows);
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
  itg_decode_status *all;
  flow_ends ends;
  size_t done = 0;
  int rc = 0;
  if (paths == NULL || n == 0 || (map != NULL && map->fn == NULL) ||
      (st != NULL && !itg__struct_size_ok(size, sizeof *st)))
    return ITG_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL)
      return ITG_EINVAL;
  /* A file's status is known only once every file has been read: the end
   * of its flows may be in a later one. */
  all = calloc(n, sizeof *all);
  if (all == NULL)
    return ITG_ENOMEM;
  memset(&ends, 0, sizeof ends);
  itg__idmap_init(&ends.ended);
  while (done < n) {
    int fatal = 0;
    int frc = decode_one(paths[done], map, done, stats, series, &ends,
                         &all[done], &fatal);
    done++;
    if (fatal) {
      rc = frc;
      break;
    }
  }
  /* Decoding stopped early: the ends of the flows may be in what was not
   * read. */
  if (rc == 0)
    flow_ends_check(&ends, all);
  if (st != NULL) {
    memset(st, 0, n * size);
    for (size_t i = 0; i < done; i++)
      itg__struct_out((char *)st + i * size, size, &all[i], sizeof all[i]);
  }
  for (size_t i = 0; i < done && rc == 0; i++)
    rc = all[i].error;
  flow_ends_free(&ends);
  free(all);
  return rc;
}
