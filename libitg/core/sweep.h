/* How often a server looks for connections past their timeouts: the
 * receiver's and the log server's handshake and idle limits. */
#ifndef ITG_CORE_SWEEP_H
#define ITG_CORE_SWEEP_H

#include <stdint.h>

#define ITG__SWEEP_MIN_MS 5    /* the timeouts' check, at most this */
#define ITG__SWEEP_MAX_MS 1000 /* often, at least this often */

/* Returns the period of the check for a shortest timeout of shortest_ms:
 * a quarter of it, within [ITG__SWEEP_MIN_MS, ITG__SWEEP_MAX_MS]. */
uint64_t itg__sweep_every(uint64_t shortest_ms);

#endif
