/* A log server that registers its clients and then stops reading, until
 * told to read again: what a stalled or overloaded itg-log looks like to
 * a logger. It runs its own libuv loop on a thread of its own, on
 * 127.0.0.1 at a port the system picks, keeps every record it takes (in
 * arrival order) and acknowledges each batch once it has taken it. */
#ifndef ITG_TEST_STALL_LOGSERVER_H
#define ITG_TEST_STALL_LOGSERVER_H

#include <stddef.h>
#include <stdint.h>

#include "itg/log.h"

typedef struct stall_logserver stall_logserver;

/* Starts the server, stalled, and writes its port to *port; aborts if it
 * cannot (the test could not go on). */
stall_logserver *stall_logserver_start(uint16_t *port);

/* Makes the server greet each client it accepts from now on with D-ITG's
 * LOG_CONNECT byte before reading it, as itg-log greets a client slow to
 * speak (log/ditg_proto.h) (from any thread). */
void stall_logserver_greet(stall_logserver *s);

/* Makes the server read its clients again (from any thread). */
void stall_logserver_resume(stall_logserver *s);

/* Waits at most timeout_ns until the server has taken a record whose seq
 * is seq or more (from any thread). Returns 1 if it has, 0 if not. */
int stall_logserver_wait_seq(stall_logserver *s, uint64_t seq,
                             uint64_t timeout_ns);

/* Returns how many clients have registered so far (from any thread). */
unsigned stall_logserver_registered(stall_logserver *s);

/* Stops the server and frees it. Returns the records it took (malloc'd,
 * *n of them; NULL when none). */
itg_logrec *stall_logserver_stop(stall_logserver *s, size_t *n);

#endif
