/* What keeps one peer from holding the receiver: counts per sender
 * address, the descriptor budget, the timer that enforces the timeouts. */
#ifndef ITG_ENGINE_RECEIVER_GUARD_H
#define ITG_ENGINE_RECEIVER_GUARD_H

#include "engine/receiver_internal.h"

/* Takes a hold on the counts of address ip (zero for a new one), or
 * returns NULL when out of memory. */
itg__rx_peer *itg__rx_peer_hold(itg_receiver *r, const uint8_t ip[16]);

/* Forgets p once neither a connection nor a flow counts in it. */
void itg__rx_peer_release(itg_receiver *r, itg__rx_peer *p);

/* A connection was accepted: returns 1 if it fits in the descriptors
 * (closing, if it must and may_evict, a connection that has not got going
 * by r->evict), counting it in r->fds, or 0 if it is to be refused
 * (counted). */
int itg__rx_fd_admit(itg_receiver *r, int may_evict);

/* Starts r->sweep, calling on_sweep often enough to enforce handshake_ms
 * and idle_ms (on the loop thread, before it runs; closed when the
 * receiver stops). */
void itg__rx_guard_start(itg_receiver *r, uv_timer_cb on_sweep);

#endif
