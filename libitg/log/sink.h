/* Where a logger's writer thread puts the records it drains: a sink. Each
 * kind of sink is one table of operations (a log file, a log server), so
 * the logger holds no code of any of them and a new kind is one more
 * table. Every operation runs on the writer thread only, except open and
 * close, which run on the thread making and closing the logger. */
#ifndef ITG_LOG_SINK_H
#define ITG_LOG_SINK_H

#include "itg/log.h"

/* A sink's counters, published through itg_logger_get_stats. */
typedef struct itg__log_sink_stats {
  uint64_t spilled;    /* kept in a local spill file instead */
  uint64_t lost;       /* given to the sink and written nowhere */
  uint64_t reconnects;
  uint64_t missing;    /* counted lost by a log server */
  uint64_t unconfirmed; /* sessions whose losses no log server counted */
  int connected;       /* reaching a log server now */
} itg__log_sink_stats;

typedef struct itg__log_sink_ops {
  /* Opens the sink cfg asks for; arg is what the caller of
   * itg__logger_new_sink gave for this sink (NULL for the file and remote
   * sinks), hdr the log file header to write (role, clock, host, time). hurry(hurry_arg) says, when nonzero, that
   * the producers are about to find their lanes full: a sink that waits
   * for a peer must stop waiting then. Returns 0 with *state set, or an
   * ITG_E* code. */
  int (*open)(const itg_logger_cfg *cfg, void *arg, const itg_log_hdr *hdr,
              int (*hurry)(void *arg), void *hurry_arg, void **state);
  /* Takes n records (n >= 1). Returns 0 or an ITG_E* code. */
  int (*write)(void *state, const itg_logrec *recs, size_t n);
  /* Hands on what the sink holds. Returns 0 or an ITG_E* code. */
  int (*flush)(void *state);
  /* Copies the counters. */
  void (*stats)(void *state, itg__log_sink_stats *out);
  /* Flushes, copies the final counters into *final and frees the sink.
   * Returns 0 or the first error of the flush or the close. */
  int (*close)(void *state, itg__log_sink_stats *final);
  /* The local file the records go to (the log file, or the file a remote
   * sink spills to): named in itg_log_error. */
  const char *(*path)(void *state);
  /* The local file is a spill file (itg_logger_spill_path), not the log
   * (itg_logger_path). */
  int spills;
  /* Flushed after each pass over the lanes, not only every flush_ms: a
   * sink that gathers small batches for a peer sends them at once. */
  int flush_each_pass;
} itg__log_sink_ops;

/* The log file itg_logger_cfg.path (log/sink_file.c). */
extern const itg__log_sink_ops itg__log_sink_file;

/* Shipping to the log server itg_logger_cfg.server_host, spilling what it
 * cannot take (log/sink_remote.c, log/ship.c). */
extern const itg__log_sink_ops itg__log_sink_remote;

/* Shipping to D-ITG's ITGLog in its protocol (log/sink_ditg.c). */
extern const itg__log_sink_ops itg__log_sink_ditg;

#endif
