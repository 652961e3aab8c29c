/* A logger's remote sink: ships record batches to a log server over TCP or
 * UDP (protocol in log/proto.h), spilling to a local log file what the
 * server cannot take (see itg_logger_cfg in itg/log.h). Used by the
 * logger's writer thread only: nothing here is thread-safe. */
#ifndef ITG_LOG_SHIP_H
#define ITG_LOG_SHIP_H

#include "itg/log.h"

typedef struct itg__ship itg__ship;

typedef struct itg__ship_cfg {
  const char *host;
  uint16_t port;
  itg_log_transport transport;
  const char *token;      /* NULL for none */
  const char *name;       /* log name asked for; NULL for the server's */
  const char *spill_path; /* NULL for the default */
  const uint32_t *flows;
  uint32_t nflows;
  uint32_t batch;         /* D: sizes the window of unacknowledged records */
  itg_log_hdr hdr;        /* role and host for the server, header of the
                             spill file */
  int (*hurry)(void *arg); /* optional: nonzero when the records must not
                              wait for the server (the logger's producers
                              are about to find their lanes full) */
  void *hurry_arg;
} itg__ship_cfg;

typedef struct itg__ship_stats {
  uint64_t spilled;   /* in the spill file (or on their way to it) */
  uint64_t lost;      /* neither shipped nor spilled: the spill file failed */
  uint64_t reconnects;
  uint64_t missing;
  uint64_t unconfirmed; /* UDP sessions that ended without LEAVE_ACK after
                           datagrams were sent: the ones the server missed
                           are not in `missing` */
  int spill_error;    /* the spill file's first error, 0 if none */
  int connected; /* registered with the server now */
} itg__ship_stats;

/* Resolves the server and tries once to register. Returns 0 (registered or
 * spilling), ITG_EINVAL (bad configuration, a host that does not resolve)
 * or ITG_ENOMEM. */
int itg__ship_open(const itg__ship_cfg *cfg, itg__ship **out);

/* Ships (or spills) n records; over TCP small batches may wait for the
 * next itg__ship_flush. A server that does not read leaves no room: the
 * records wait for it only while cfg.hurry says no, and go to the spill
 * file when it says yes. Returns 0 or a spill-file error. */
int itg__ship_write(itg__ship *s, const itg_logrec *recs, size_t n);

/* Pushes what waits, takes acknowledgements, retries the server when due,
 * flushes the spill file. Returns 0 or a spill-file error. */
int itg__ship_flush(itg__ship *s);

/* Copies the counters. */
void itg__ship_get_stats(const itg__ship *s, itg__ship_stats *out);

/* Returns the spill file's path. */
const char *itg__ship_spill_path(const itg__ship *s);

/* Leaves the session (spilling what the server does not acknowledge),
 * copies the final counters into *st (if not NULL) and frees; NULL is
 * accepted. Returns 0 or a spill-file error. */
int itg__ship_close(itg__ship *s, itg__ship_stats *st);

#endif
