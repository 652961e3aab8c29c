/* What the platform contract test (tests/test_platform.c) needs to look at
 * through the operating system itself, past the layer it tests: a socket's
 * blocking mode and inheritance, a thread's CPU and priority, the native
 * socket error codes, and what each OS offers at all. The test runs the
 * same on every OS; only this helper tells the OSes apart. */
#ifndef ITG_TEST_OSPROBE_H
#define ITG_TEST_OSPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "platform/platform.h"

/* ---- what the OS offers ---- */

/* Whether the OS stamps datagrams on arrival (itg__sock_set_rx_timestamps
 * succeeds): Linux does, Windows does not. */
int osprobe_has_rx_timestamps(void);

/* Whether a DS byte set on a socket reads back: Windows applies it only
 * where system policy allows, so there only the call is checked. */
int osprobe_keeps_tos(void);

/* Whether an IPv6 socket takes the IPv4 options (IP_TOS, IP_TTL) for its
 * dual-stack IPv4 traffic. */
int osprobe_v4_options_on_v6(void);

/* ---- sockets ---- */

/* Whether the option (int or BOOL) level/name is set: its value. */
int osprobe_int_opt(itg__sock s, int level, int name);

/* Whether kernel receive timestamps are on for s. */
int osprobe_rx_timestamps_on(itg__sock s);

/* 1 when a receive on s waits for data, 0 when it returns at once, -1
 * when the probe fails. s is a connected stream with nothing to read;
 * on Windows, which has no way to read the mode, a blocking s is probed
 * by a receive that times out, after which s is fit only for closing. */
int osprobe_blocks(itg__sock s);

/* Whether a child process would inherit s. */
int osprobe_sock_inherited(itg__sock s);

/* Whether a child process would inherit f's descriptor. */
int osprobe_file_inherited(FILE *f);

/* One native socket error and the code itg__sock_last_error must map it
 * to. */
typedef struct osprobe_sock_error {
  int native, code;
} osprobe_sock_error;

/* The native errors the contract maps (*n of them). */
const osprobe_sock_error *osprobe_sock_errors(size_t *n);

/* Sets the calling thread's last socket error to native. */
void osprobe_set_sock_error(int native);

/* ---- threads ---- */

/* Whether the calling thread may run on cpu alone. */
int osprobe_pinned_to(int cpu);

/* The first CPU number itg__thread_pin can never take (past its mask's
 * size). */
int osprobe_cpu_limit(void);

/* A CPU number below osprobe_cpu_limit that this process cannot run on,
 * or -1 if it can run on them all. */
int osprobe_cpu_refused(void);

/* Whether the calling thread runs at the priority itg__thread_boost
 * gives. */
int osprobe_boosted(void);

/* Runs fn(arg) in a thread of its own and waits for it at most
 * timeout_ns. Returns 0 once it has returned, -1 if it has not by then
 * (the thread is left running; the caller fails its test). */
int osprobe_run_bounded(void (*fn)(void *), void *arg, int64_t timeout_ns);

#endif
