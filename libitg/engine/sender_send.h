/* The sender's sending thread (sender_send.c), started by sender.c. */
#ifndef ITG_ENGINE_SENDER_SEND_H
#define ITG_ENGINE_SENDER_SEND_H

#include "engine/sender_internal.h"

/* The sending thread's body; arg is the sender. It calls s->on_sent_all
 * (set before the thread starts) each time flows have sent everything. */
void itg__tx_send_main(void *arg);

#endif
