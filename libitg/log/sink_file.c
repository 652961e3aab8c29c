/* The file sink: records go to a log file through an itg_logwriter (see
 * log/sink.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/logfile.h"
#include "itg/flow.h"
#include "log/sink.h"

typedef struct file_sink {
  itg_logwriter *w;
  uint64_t taken; /* records given to the writer */
  int error;      /* the writer's first error */
  char path[ITG_PATH_MAX]; /* the file made */
} file_sink;

static int file_failed(file_sink *f, int rc) {
  if (rc != 0 && f->error == 0)
    f->error = rc;
  return rc;
}

static int file_open(const itg_logger_cfg *cfg, void *arg,
                     const itg_log_hdr *hdr,
                     int (*hurry)(void *arg), void *hurry_arg, void **state) {
  file_sink *f = calloc(1, sizeof *f);
  int rc;
  (void)hurry;
  (void)hurry_arg;
  if (f == NULL)
    return ITG_ENOMEM;
  if (cfg->create_new) {
    rc = itg__logwriter_create(cfg->path, hdr, f->path, sizeof f->path, &f->w);
  } else {
    snprintf(f->path, sizeof f->path, "%s", cfg->path);
    rc = itg_logwriter_open(cfg->path, hdr, &f->w);
  }
  if (rc != 0) {
    free(f);
    return rc;
  }
  *state = f;
  return 0;
}

static int file_write(void *state, const itg_logrec *recs, size_t n) {
  file_sink *f = state;
  f->taken += n;
  return file_failed(f, itg_logwriter_write(f->w, recs, n));
}

static int file_flush(void *state) {
  file_sink *f = state;
  return file_failed(f, itg_logwriter_flush(f->w));
}

/* A failed writer holds nothing more: what it was given and did not write
 * is lost, and so is all that follows. */
static void file_stats(void *state, itg__log_sink_stats *out) {
  file_sink *f = state;
  memset(out, 0, sizeof *out);
  if (f->error != 0)
    out->lost = f->taken - itg_logwriter_written(f->w);
}

static int file_close(void *state, itg__log_sink_stats *final) {
  file_sink *f = state;
  /* Flushed first, so that what it wrote is counted before it goes. */
  int rc = file_flush(f), rc_close;
  file_stats(f, final);
  rc_close = itg_logwriter_close(f->w);
  free(f);
  return rc != 0 ? rc : rc_close;
}

static const char *file_path(void *state) {
  return ((file_sink *)state)->path;
}

const itg__log_sink_ops itg__log_sink_file = {
    .open = file_open,
    .write = file_write,
    .flush = file_flush,
    .stats = file_stats,
    .close = file_close,
    .path = file_path,
    .spills = 0,
    .flush_each_pass = 0,
};
