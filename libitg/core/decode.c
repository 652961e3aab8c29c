/* Decoding log files into statistics and series (see itg/stats.h). */
#include "itg/stats.h"

#include <string.h>

#define BATCH 256

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
static int decode_one(const char *path, itg_stats *stats, itg_series *series,
                      itg_decode_status *st, int *fatal) {
  itg_logrec recs[BATCH];
  itg_logreader *r;
  size_t n = 0;
  int rc = itg_logreader_open(path, &r);
  if (rc != 0) {
    st->error = rc;
    return rc;
  }
  st->opened = 1;
  itg_logreader_header(r, &st->hdr);
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
      int frc = feed(stats, series, recs, n);
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

out_close_reader:
  itg_logreader_close(r);
  return rc;
}

int itg_decode_files(const char *const *paths, size_t n, itg_stats *stats,
                     itg_series *series, itg_decode_status *st) {
  int first_err = 0;
  if (paths == NULL || n == 0)
    return ITG_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL)
      return ITG_EINVAL;
  if (st != NULL)
    memset(st, 0, n * sizeof *st);
  for (size_t i = 0; i < n; i++) {
    itg_decode_status one;
    int fatal = 0;
    int rc;
    memset(&one, 0, sizeof one);
    rc = decode_one(paths[i], stats, series, &one, &fatal);
    if (st != NULL)
      st[i] = one;
    if (fatal)
      return rc;
    if (rc != 0 && first_err == 0)
      first_err = rc;
  }
  return first_err;
}
