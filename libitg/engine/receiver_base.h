/* What every file of the receiver calls: idle accounting, flow events, the
 * first log error. The bottom of the receiver's files (see
 * receiver_internal.h). */
#ifndef ITG_ENGINE_RECEIVER_BASE_H
#define ITG_ENGINE_RECEIVER_BASE_H

#include <stdint.h>

#include "itg/receiver.h"
#include "platform/platform.h"

/* Adds delta to the counted signaling connections / flows and wakes
 * itg_receiver_wait_idle when both reach zero. */
void itg__rx_count(itg_receiver *r, int dconns, int dflows);

/* Keeps the first log error for itg_receiver_stop. */
void itg__rx_log_error(itg_receiver *r, int err);

/* Reports a flow event to cfg.on_flow. */
void itg__rx_event(itg_receiver *r, const itg_flow_event *ev);

#endif
