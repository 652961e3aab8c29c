/* The remote control protocol's messages (itg/remote.h), with no I/O:
 * each is a frame (core/frame.h) of version ITG_REMOTE_VERSION, fields big
 * endian, text a u16 length then its bytes (no NUL inside).
 *
 * Bodies:
 *   CHALLENGE   32 bytes agent nonce
 *   AUTH        32 bytes client nonce, 32 bytes client proof
 *   AUTH_OK     32 bytes agent proof, text software, u16 receiver port
 *   ERR         i32 code (an ITG_E* code), text message
 *   OK          (empty): STOP and BYE done
 *   CLOCK       (empty)
 *   CLOCK_OK    i64 agent wall clock ns, i64 agent monotonic ns
 *   START       i64 start instant (agent wall ns, 0: at once), u16 n
 *               (1..ITG_REMOTE_MAX_FLOWS), n x text flow line (at most
 *               ITG_REMOTE_LINE_MAX bytes)
 *   STATUS      (empty)
 *   STATUS_OK   the status (itg__rm_status_put)
 *   STOP        (empty)
 *   RESULTS     i64 wait ns (0..ITG__RM_WAIT_MAX)
 *   LOG         text name (1..ITG_PATH_MAX - 1 bytes), u64 offset
 *   LOG_DATA    u64 offset, u64 file size, u32 n (<= ITG_REMOTE_LOG_CHUNK),
 *               n bytes
 *   BYE         (empty)
 * The proofs: HMAC-SHA256(token, label || first nonce || second nonce),
 * itg__rm_proof. */
#ifndef ITG_CORE_REMOTE_MSG_H
#define ITG_CORE_REMOTE_MSG_H

#include "core/cursor.h"
#include "core/frame.h"
#include "itg/remote.h"

#define ITG__RM_NONCE 32u
#define ITG__RM_MAC 32u
#define ITG__RM_TEXT_MAX ITG_PATH_MAX /* ERR message, software, LOG name */
#define ITG__RM_WAIT_MAX (3600ll * 1000000000ll)
/* A frame before authentication: CHALLENGE, AUTH, AUTH_OK or ERR with a
 * short text; a longer header is refused before its body comes. */
#define ITG__RM_MAX_AUTH_BODY (ITG__RM_MAC + 2u + ITG__RM_TEXT_MAX + 2u)
/* The largest request: a START of every line at its longest. */
#define ITG__RM_MAX_REQUEST                                                    \
  (10u + ITG_REMOTE_MAX_FLOWS * (2u + ITG_REMOTE_LINE_MAX))
/* The largest answer: a STATUS_OK of every flow with texts at their
 * longest (itg__rm_status_put), or a LOG_DATA of a whole chunk. */
#define ITG__RM_FLOW_MAX 440u
#define ITG__RM_RX_MAX (42u + ITG_HOST_MAX + ITG_PATH_MAX)
#define ITG__RM_MAX_ANSWER                                                     \
  (80u + ITG_REMOTE_MAX_FLOWS * (ITG__RM_FLOW_MAX + ITG__RM_RX_MAX))

typedef enum itg__rm_type {
  ITG__RM_CHALLENGE = 1,
  ITG__RM_AUTH = 2,
  ITG__RM_AUTH_OK = 3,
  ITG__RM_ERR = 4,
  ITG__RM_OK = 5,
  ITG__RM_CLOCK = 6,
  ITG__RM_CLOCK_OK = 7,
  ITG__RM_START = 8,
  ITG__RM_STATUS = 9,
  ITG__RM_STATUS_OK = 10,
  ITG__RM_STOP = 11,
  ITG__RM_RESULTS = 12,
  ITG__RM_LOG = 13,
  ITG__RM_LOG_DATA = 14,
  ITG__RM_BYE = 15
} itg__rm_type;

/* A decoded message; each type uses the fields its body names. Pointers
 * point into the frame decoded (valid while it is). */
typedef struct itg__rm_msg {
  itg__rm_type type;
  uint8_t nonce[ITG__RM_NONCE]; /* CHALLENGE, AUTH */
  uint8_t mac[ITG__RM_MAC];     /* AUTH, AUTH_OK */
  int32_t code;                 /* ERR */
  char text[ITG__RM_TEXT_MAX];  /* ERR, AUTH_OK, LOG */
  uint16_t port;                /* AUTH_OK */
  int64_t wall_ns;              /* CLOCK_OK; START: the instant */
  int64_t mono_ns;              /* CLOCK_OK */
  int64_t wait_ns;              /* RESULTS */
  uint64_t offset;              /* LOG, LOG_DATA */
  uint64_t size;                /* LOG_DATA: the whole file's */
  uint32_t n;                   /* START: lines; LOG_DATA: bytes */
  const char *const *lines;     /* START, to encode */
  const uint8_t *data;          /* START decoded: the lines' fields
                                   (itg__rm_line_next); LOG_DATA: the
                                   bytes; STATUS_OK: the body */
  size_t data_len;
} itg__rm_msg;

/* Clears m and sets its type. */
void itg__rm_init(itg__rm_msg *m, itg__rm_type type);

/* Returns the type's name ("START"), or "?". */
const char *itg__rm_type_name(int type);

/* Writes m as one frame into buf[0..cap) (not STATUS_OK: see
 * itg__rm_status_put). Returns the frame's length, ITG_ETRUNC (it does
 * not fit) or ITG_EINVAL (an unknown type, a text or line too long, a
 * count out of range). */
int itg__rm_encode(const itg__rm_msg *m, uint8_t *buf, size_t cap);

/* Reads the frame at the start of buf[0..len), of a body of at most
 * max_body bytes. Returns the frame's length with *out filled, ITG_ETRUNC
 * (only part of a frame), ITG_EVERSION, or ITG_EBADMSG (an unknown type,
 * a field out of range, a text with a NUL, trailing bytes). */
int itg__rm_decode(const uint8_t *buf, size_t len, uint32_t max_body,
                   itg__rm_msg *out);

/* The frame reader's measure (core/frame.h) for frames of at most
 * *(const uint32_t *)arg body bytes. */
int itg__rm_measure(const uint8_t *buf, size_t avail, void *arg);

/* Takes the next line of a decoded START (its fields at *at, advanced):
 * copies it, terminated, into line (ITG_REMOTE_LINE_MAX + 1 bytes). */
void itg__rm_line_next(const uint8_t **at, char *line);

/* The proof of the side named by label ("itg-remote-1 client" or
 * "itg-remote-1 agent"): HMAC-SHA256(token, label || first || second). */
#define ITG__RM_LABEL_CLIENT "itg-remote-1 client"
#define ITG__RM_LABEL_AGENT "itg-remote-1 agent"
void itg__rm_proof(const void *token, size_t token_len, const char *label,
                   const uint8_t first[ITG__RM_NONCE],
                   const uint8_t second[ITG__RM_NONCE],
                   uint8_t out[ITG__RM_MAC]);

/* Writes a STATUS_OK frame into buf[0..cap): st's fields, then u32 count
 * and each flow of flows[0..nflows), u32 count and each of rx[0..nrx).
 * Returns the frame's length or ITG_ETRUNC. */
int itg__rm_status_put(uint8_t *buf, size_t cap, const itg_remote_status *st,
                       const itg_flow_result *flows, uint32_t nflows,
                       const itg_remote_rx_flow *rx, uint32_t nrx);

/* Reads a STATUS_OK body (data, data_len of the decoded message) into *st
 * (library layout) and the arrays, which it allocates (*flows and *rx
 * NULL when their count is 0; the caller frees them). Returns 0,
 * ITG_EBADMSG or ITG_ENOMEM (nothing allocated then). */
int itg__rm_status_get(const uint8_t *body, size_t len, itg_remote_status *st,
                       itg_flow_result **flows, itg_remote_rx_flow **rx);

#endif
