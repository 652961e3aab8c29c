/* The QoS report the programs print (itg-dec, itg-mpi). */
#ifndef ITG_PROGRAMS_REPORT_H
#define ITG_PROGRAMS_REPORT_H

#include "itg.h"

/* Prints the summary of s on stdout: a block per entry (flow and meter),
 * then one per meter's total. Returns 0 or the error of a total. */
int itg__cli_report_text(const itg_stats *s);

/* Returns the JSON report of s (itg_stats_json), malloc'd, or NULL with
 * *rc set to the error. */
char *itg__cli_stats_json(const itg_stats *s, int *rc);

/* Prints the JSON report of s and a newline on stdout. Returns 0 or an
 * error of itg_stats_json (ITG_ENOMEM). */
int itg__cli_report_json(const itg_stats *s);

#endif
