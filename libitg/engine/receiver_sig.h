/* The receiver's signaling: the listening port, one connection per flow
 * at a time, each a state machine (receiver_sig.c). */
#ifndef ITG_ENGINE_RECEIVER_SIG_H
#define ITG_ENGINE_RECEIVER_SIG_H

#include "engine/receiver_internal.h"

/* Starts listening for senders on cfg.bind_host:cfg.sig_port, and makes
 * r->evict close the connections that do not get going. Returns 0 or an
 * ITG_E* code. */
int itg__rx_sig_listen(itg_receiver *r);

/* Closes the signaling connections past handshake_ms without a flow or
 * idle for idle_ms, telling their senders why. */
void itg__rx_conn_sweep(itg_receiver *r, uint64_t now);

/* Closes every signaling connection, after its queued replies (stopping,
 * once every flow has ended). */
void itg__rx_sig_close_all(itg_receiver *r);

#endif
