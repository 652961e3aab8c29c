/* The account of a run spread over several places (itg-mpi's ranks,
 * itg-ctl's agents): a table of the places, a table of the flows, what
 * failed named on stderr, and the JSON report. Each program fills one
 * itg__cli_run from its own result; the tables and the JSON keep one
 * shape, the places' word ("rank", "agent") aside. */
#ifndef ITG_PROGRAMS_RUN_REPORT_H
#define ITG_PROGRAMS_RUN_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "itg.h"

/* One place of a run. Texts are never NULL ("" for none). */
typedef struct itg__cli_run_place {
  const char *host;        /* the host name of a rank, the name of an agent */
  const char *addr;        /* where its receiver listened ("" none) */
  unsigned port;           /* its receiver's signaling port (0 none) */
  unsigned sends;          /* flows it sent */
  unsigned receives;       /* flows it received */
  int64_t offset_ns;       /* its clock's offset to the reference clock */
  int64_t uncertainty_ns;  /* and the offset's uncertainty */
  uint64_t records;        /* log records taken from it */
  uint64_t gaps;           /* messages of them missing */
  uint64_t spilled;        /* records it kept in a spill file */
  uint64_t lost;           /* records that no file holds */
  uint64_t malformed;      /* datagrams its receiver dropped */
  int reported;            /* it told how it ended */
  int silent;              /* it was given up: dead, cut off */
  const char *error;       /* a failure of its own ("" none) */
  const char *log_path;    /* its log, where the program keeps it */
  const char *spill_path;  /* its spill file, on its host */
} itg__cli_run_place;

/* One flow of a run. */
typedef struct itg__cli_run_flow {
  uint32_t flow_id;
  unsigned line;           /* of the experiment file */
  int sender;              /* the sender's place */
  int receiver;            /* the receiver's place; -1 outside the run */
  const char *receiver_addr; /* the address it was sent to */
  unsigned port;           /* the receiver's signaling port */
  unsigned data_port;      /* and the data port it opened (0 none) */
  int reported;            /* its sender told how it ended */
  int status;              /* 0, or the ITG_E* code that ended it */
  const char *error;       /* a sentence about status */
  uint64_t packets;        /* sent */
  uint64_t bytes;          /* sent */
  uint64_t received;       /* packets its receiver said it logged */
  int64_t first_tx_ns;     /* its first departure (0 none) */
  int64_t last_tx_ns;
} itg__cli_run_flow;

/* A run, as the program that ran it saw it. */
typedef struct itg__cli_run {
  const char *prog;        /* for the messages on stderr */
  const char *word;        /* what a place is: "rank", "agent" */
  int places;
  const itg__cli_run_place *place;
  size_t flows;
  const itg__cli_run_flow *flow;
  int64_t start_ns;        /* the common start */
  int64_t start_skew_ns;   /* the spread of the first departures */
  int64_t skew_uncertainty_ns;
  int correct;             /* delays corrected for the clocks' offsets */
} itg__cli_run;

/* Says on stderr, one line each, what failed: a place silent, without a
 * report, failed, or with a spill file; a flow not reported or failed,
 * naming its line, sender and receiver. */
void itg__cli_run_tell_failures(const itg__cli_run *run);

/* Prints on stdout the first line (places, flows, the start's spread),
 * the table of the places and the table of the flows. */
void itg__cli_run_print_text(const itg__cli_run *run);

/* Prints on stdout the JSON report of the run, one line: the places
 * (key: the word with an "s"), the flows, the start, and stats_json (the
 * QoS report, itg_stats_json's text) under "report". */
void itg__cli_run_print_json(const itg__cli_run *run, const char *stats_json);

/* Returns the places that failed (an error, silent or not reported). */
int itg__cli_run_failed_places(const itg__cli_run *run);

/* Returns the flows that failed (status != 0 or not reported). */
size_t itg__cli_run_failed_flows(const itg__cli_run *run);

#endif
