/* What every file of the receiver calls (and the log server, which
 * guards its peers the same way): idle accounting, flow events, the first
 * log error, libuv errors, address keys, the sweep's period. The bottom of
 * the receiver's files (see receiver_internal.h). */
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

/* Maps a libuv error to an ITG_E* code. */
int itg__rx_uv_err(int uverr);

/* Reports a flow event to cfg.on_flow. */
void itg__rx_event(itg_receiver *r, const itg_flow_event *ev);

/* Normalises an address to 16 bytes (IPv4 as IPv4-mapped IPv6) so both
 * families compare alike. */
void itg__rx_ip_key(const struct sockaddr *sa, uint8_t key[16]);

/* How often to look for connections past a timeout of shortest_ms (the
 * log server's too). */
uint64_t itg__rx_sweep_every(uint64_t shortest_ms);

#endif
