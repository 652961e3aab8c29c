/* The receiver's live per-flow counts (cfg.live_stats): the list the
 * public getter walks, fed by the data path. */
#ifndef ITG_ENGINE_RECEIVER_LIVE_H
#define ITG_ENGINE_RECEIVER_LIVE_H

#include "engine/receiver_internal.h"

/* Puts a just opened flow f on the live list (when cfg.live_stats is
 * set). Returns 0 or ITG_ENOMEM. */
int itg__rx_live_open(itg__rx_flow *f);

/* Counts one arrival of flow f. */
void itg__rx_live_add(itg__rx_flow *f, const itg_logrec *rec);

/* Flow f ends, having sent `sent` packets (0: not known): its counts
 * stay on the list, marked ended, until the getter has reported them
 * (dropped if max_flows ended flows wait already). */
void itg__rx_live_close(itg__rx_flow *f, uint64_t sent);

/* Frees the whole list (the receiver is freed). */
void itg__rx_live_free_all(itg_receiver *r);

#endif
