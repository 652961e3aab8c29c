/* The receiver's logs: files under log_dir, and sessions with log
 * servers, each shared by the flows that name it. Acquiring one reports
 * through the caller's callback: this file knows nothing of who asks. */
#ifndef ITG_ENGINE_RECEIVER_LOG_H
#define ITG_ENGINE_RECEIVER_LOG_H

#include "engine/receiver_internal.h"

/* A log server session being opened for a caller. */
typedef struct itg__rx_log_wait itg__rx_log_wait;

/* The end of itg__rx_log_acquire: lg, with a hold taken for the caller,
 * and rc 0; or lg NULL, an ITG_E* code and a sentence saying why. */
typedef void (*itg__rx_log_ready)(void *user, itg__rx_log *lg, int rc,
                                  const char *msg);

/* Called when a log has let a flow go, with its ENDED event. */
typedef void (*itg__rx_log_done)(itg_receiver *r, itg_flow_event *ev);

/* Sets lc up for a receiver log written to path (a file, or the name a
 * log server is asked for): kernel receive stamps, the receiver's -q. */
void itg__rx_log_cfg(const itg_receiver *r, const char *path,
                     itg_logger_cfg *lc);

/* Checks what FLOW_OPEN m from a sender at peer_ip asks of the logs (a
 * name by the shared rule of itg__lp_name_ok, a log server this receiver
 * ships to) and finds the open log it names, opening nothing: *out is
 * that log, or NULL with *fresh set when a new one is to be acquired by
 * itg__rx_log_acquire from path (ITG_PATH_MAX bytes, filled here), or
 * NULL for a flow not logged. Returns 0, or an ITG_E* code with a
 * sentence in msg. */
int itg__rx_log_lookup(itg_receiver *r, const uint8_t peer_ip[16],
                       const itg__ctl_msg *m, char *path, itg__rx_log **out,
                       int *fresh, char *msg, size_t msglen);

/* Acquires the log that itg__rx_log_lookup found missing for FLOW_OPEN m
 * from a sender at peer_ip, and calls done(user, ...) once with it: before
 * returning NULL for a file (created under log_dir) or for what fails at
 * once; from the loop for a session with a log server, opened on the
 * thread pool (the server's address is checked against the policy there),
 * then returning the wait, which itg__rx_log_cancel ends. A session that
 * another caller opened meanwhile is joined instead. */
itg__rx_log_wait *itg__rx_log_acquire(itg_receiver *r,
                                      const uint8_t peer_ip[16],
                                      const itg__ctl_msg *m, const char *path,
                                      itg__rx_log_ready done, void *user);

/* The caller of a wait is going: done is not called, and the session is
 * closed once it is open. */
void itg__rx_log_cancel(itg__rx_log_wait *w);

/* Takes a hold on lg (NULL: none). */
void itg__rx_log_hold(itg__rx_log *lg);

/* Returns 1, once, for a session that could not reach its server when it
 * was opened: its first flow tells so. */
int itg__rx_log_announce_unreachable(itg__rx_log *lg);

/* Drops a hold on lg (NULL: none), closing it with the last. If ev is not
 * NULL, done is then called with it, completed with the log's counts:
 * after the session's close, for the last hold on a session. */
void itg__rx_log_release(itg_receiver *r, itg__rx_log *lg,
                         const itg_flow_event *ev, itg__rx_log_done done);

#endif
