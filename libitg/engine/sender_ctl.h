/* The sender's control thread (sender_ctl.c), started by sender.c. */
#ifndef ITG_ENGINE_SENDER_CTL_H
#define ITG_ENGINE_SENDER_CTL_H

#include "engine/sender_internal.h"

/* Prepares the control loop and its handles (before its thread starts).
 * Returns 0, or ITG_ENOMEM / ITG_ESOCKET with nothing left open. */
int itg__tx_ctl_init(itg_sender *s);

/* Closes what itg__tx_ctl_init opened, when its thread could not start. */
void itg__tx_ctl_undo(itg_sender *s);

/* The control thread's body. */
void itg__tx_ctl_main(void *arg);

/* Wakes the control thread (if it still listens) to look at the flows
 * that have sent everything and at a stop. Safe from any thread. */
void itg__tx_ctl_wake(itg_sender *s);

#endif
