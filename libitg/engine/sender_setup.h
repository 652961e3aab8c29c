/* The sender's per-flow set-up (sender_setup.c), called by sender.c. */
#ifndef ITG_ENGINE_SENDER_SETUP_H
#define ITG_ENGINE_SENDER_SETUP_H

#include "engine/sender_internal.h"

/* Derives the seeds of a flow's two laws from the flow's seed, so the IDT
 * and size draws are independent and repeatable. */
void itg__flow_seeds(uint64_t seed, uint64_t *idt_seed, uint64_t *size_seed);

/* Derives the seed of a flow's law number k (itg/sender.h: 1 IDT, 2 size,
 * 3 on periods, 4 off periods) from the flow's seed. */
uint64_t itg__flow_law_seed(uint64_t seed, unsigned k);

/* Makes the flow's laws and sets it up with its receiver (signaling,
 * data socket). Returns 0 with f->ready set, or the error also recorded
 * in f. */
int itg__tx_setup(itg__tx_flow *f, size_t index);

#endif
