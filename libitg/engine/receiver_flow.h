/* The receiver's flows: setting them up (checks, id, data port, log),
 * ending them. */
#ifndef ITG_ENGINE_RECEIVER_FLOW_H
#define ITG_ENGINE_RECEIVER_FLOW_H

#include "engine/receiver_internal.h"

/* The first half of a flow's set-up, for FLOW_OPEN m from sender s:
 * checks everything it may be refused for, draws its token and takes its
 * data port, and a hold on the open log it names. Returns 0 with *out a
 * flow not yet open (see itg__rx_flow_start) and *fresh set when its log
 * is still to be acquired (itg__rx_log_acquire, from path: ITG_PATH_MAX
 * bytes, filled here); or an ITG_E* code with a sentence in msg, having
 * taken nothing. */
int itg__rx_flow_prepare(itg_receiver *r, const itg__rx_sender *s,
                         const itg__ctl_msg *m, itg__rx_flow **out,
                         char *path, int *fresh, char *msg, size_t msglen);

/* Opens prepared flow f, taking on lg (held by the caller for it: a log
 * just acquired; NULL for the one prepared) and reporting its start:
 * ended(owner, f) is called if it ends while the owner still listens.
 * Checks again the limits and its id, which other flows may have changed
 * while its log was acquired. Returns 0, or an ITG_E* code with a
 * sentence in msg, after which f is discarded (itg__rx_flow_discard).
 * msg may tell the sender something on success too ("" if not). */
int itg__rx_flow_start(itg__rx_flow *f, itg__rx_log *lg,
                       const itg__ctl_msg *m, void *owner,
                       itg__rx_flow_ended ended, char *msg, size_t msglen);

/* Gives up a prepared flow: lets go of what itg__rx_flow_prepare took. */
void itg__rx_flow_discard(itg__rx_flow *f);

/* FLOW_CLOSE: the sender sent `sent` packets; the flow ends when they are
 * all in, or its linger runs out. */
void itg__rx_flow_closing(itg__rx_flow *f, uint64_t sent);

/* A D-ITG sender has finished the flow, telling no count: it ends after
 * a linger period without packets, as an orphan does, telling its owner,
 * its ENDED event saying so. */
void itg__rx_flow_finishing(itg__rx_flow *f);

/* The sender's signaling connection vanished without FLOW_CLOSE (sender
 * killed, network gone): detaches the flow from its owner and ends it
 * after a linger period without packets, keeping every packet that
 * arrives till then. */
void itg__rx_flow_orphan(itg__rx_flow *f);

/* Ends a flow now, after reading what waits on its UDP port: logs
 * FLOW_END if its count is known, tells its owner, releases its port and
 * log. */
void itg__rx_flow_end(itg__rx_flow *f);

/* Ends the flows that their packets completed (itg__rx_progress). */
void itg__rx_run_pending(itg_receiver *r);

/* Ends every flow (stopping). */
void itg__rx_flow_end_all(itg_receiver *r);

#endif
