/* The offsets that spread the first departures of flows starting at one
 * instant over their period (itg/sender.h, ITG_START_SPREAD).
 *
 * Flows of one start delay form a group. The k-th of a group of m flows
 * (counted in the order they were given) starts k/m of its period after
 * the group's instant, its period being its mean IDT, at most
 * ITG__SPREAD_MAX_NS. A flow with no finite mean (a Cauchy or heavy-tailed
 * Pareto law) has no period and starts at the instant; so does a flow
 * alone in its group. */
#ifndef ITG_SPREAD_H
#define ITG_SPREAD_H

#include <stddef.h>
#include <stdint.h>

/* A slower flow's phase matters little to the others: the departures of
 * flows whose periods exceed it are already far apart. Capping it keeps a
 * slow flow (one packet a minute) from waiting minutes to start. */
#define ITG__SPREAD_MAX_NS 100000000LL

/* Sets offset_ns[i] for the n flows whose start delays are delay_ns[i]
 * and mean IDTs period_ns[i] (in ns; NaN or infinite where the law has
 * none). Returns 0 or ITG_ENOMEM (offsets then untouched). */
int itg__spread(const int64_t *delay_ns, const double *period_ns, size_t n,
                int64_t *offset_ns);

#endif
