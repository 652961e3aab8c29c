/* The receiver's data path: data ports, packets, the flows they belong
 * to (demultiplexing), records. */
#ifndef ITG_ENGINE_RECEIVER_DATA_H
#define ITG_ENGINE_RECEIVER_DATA_H

#include "engine/receiver_internal.h"

/* Opens the data port a flow asks for (port 0: a free one), or shares an
 * open one; ICMP: the one raw socket of every ICMP flow, whatever the
 * port. Returns 0 with *out set, or an ITG_E* code. */
int itg__rx_sock_acquire(itg_receiver *r, itg_proto proto, uint16_t port,
                         itg__rx_sock **out);

/* Drops a flow's hold on its data port, closing it with the last. */
void itg__rx_sock_release(itg__rx_sock *s);

/* Makes flow f's packets found by itg__rx_flow_find. */
void itg__rx_demux_add(itg_receiver *r, itg__rx_flow *f);

/* Undoes itg__rx_demux_add, and takes f off the pending list. */
void itg__rx_demux_remove(itg_receiver *r, itg__rx_flow *f);

/* Finds the open flow with this id from this address on this port, or
 * NULL. */
itg__rx_flow *itg__rx_flow_find(itg_receiver *r, const itg__rx_sock *s,
                                const uint8_t ip[16], uint32_t id);

/* Reads everything waiting on a UDP data port (or the ICMP socket), up to
 * ITG__RX_DRAIN_ROUNDS batches. Returns the buffer bytes the datagrams
 * took (ITG__RX_DGRAM_COST each over their own) if it emptied the port and
 * each carried the kernel's receive time and asked no echo (reading them
 * later changes no measurement), else -1. */
int64_t itg__rx_udp_drain(itg__rx_sock *s);

/* Closes a TCP data connection. */
void itg__rx_tcp_close(itg__rx_tcp *t);

/* Closes the oldest data connection still to send its first packet (a
 * descriptor is wanted). Returns 0 if there is none. */
int itg__rx_tcp_evict(itg_receiver *r);

/* Closes the TCP data connections past handshake_ms without a packet. */
void itg__rx_tcp_sweep(itg_receiver *r, uint64_t now);

/* Logs a record of flow f (its log, and on_records). */
void itg__rx_record(itg_receiver *r, itg__rx_flow *f, const itg_logrec *rec);

/* Hands the buffered records to on_records. */
void itg__rx_flush_records(itg_receiver *r);

/* Notes that flow f received packets: a closing flow that has them all is
 * put on the pending list, ended by r->run_pending once no socket is
 * being read (after a data callback). */
void itg__rx_progress(itg__rx_flow *f);

#endif
