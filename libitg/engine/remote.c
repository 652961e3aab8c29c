/* The remote control's client (itg/remote.h): a blocking connection to an
 * agent, the handshake's two proofs, and one request and its answer at a
 * time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errbuf.h"
#include "core/growable.h"
#include "core/hmac.h"
#include "core/remote_msg.h"
#include "engine/control.h"
#include "platform/platform.h"

struct itg_remote {
  itg__sock s;
  int64_t timeout_ns;
  int broken;              /* an exchange failed: the stream is unusable */
  char where[ITG_HOST_MAX + 8];
  char software[ITG__RM_TEXT_MAX];
  uint16_t rx_port;
  itg__frame_reader fr;
  uint8_t *buf;            /* answers, ITG__RM_MAX_ANSWER */
  uint32_t max_body;
  /* The last STATUS or RESULTS answer: */
  itg_remote_status st;
  itg_flow_result *flows;
  itg_remote_rx_flow *rx;
  char last_err[ITG__RM_TEXT_MAX]; /* the last ERR's sentence */
};

const char *itg_remote_state_name(int state) {
  switch (state) {
  case ITG_REMOTE_IDLE:
    return "idle";
  case ITG_REMOTE_HELD:
    return "held";
  case ITG_REMOTE_RUNNING:
    return "running";
  case ITG_REMOTE_ENDED:
    return "ended";
  default:
    return "?";
  }
}

static int rm_next(void *reader, void *out) {
  itg_remote *r = reader;
  uint8_t *frame;
  int len = itg__frame_reader_next(&r->fr, r->buf,
                                   ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER,
                                   itg__rm_measure, &r->max_body, &frame);
  if (len <= 0)
    return len;
  len = itg__rm_decode(frame, (size_t)len, r->max_body, out);
  return len < 0 ? len : 1;
}

static int rm_fill(itg__sock s, void *reader) {
  itg_remote *r = reader;
  size_t room;
  uint8_t *p = itg__frame_reader_space(
      &r->fr, r->buf, ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER, &room);
  int n = room > 0 ? itg__stream_recv(s, p, room) : 0;
  if (n > 0)
    itg__frame_reader_commit(&r->fr, (size_t)n);
  return n;
}

/* Receives the next message within timeout_ns. An ERR becomes its code,
 * its sentence kept in last_err. Returns 0 or an error (the connection
 * then broken, except after an ERR the agent answered with). */
static int recv_msg(itg_remote *r, itg__rm_msg *m, int64_t timeout_ns) {
  static const itg__msg_source src = {rm_next, rm_fill};
  int rc;
  if (r->broken)
    return ITG_ECLOSED;
  rc = itg__recv_msg(r->s, &src, r, m, timeout_ns);
  if (rc < 0) {
    r->broken = 1;
    snprintf(r->last_err, sizeof r->last_err, "%s", itg_strerror(rc));
    return rc == ITG_EBADMSG || rc == ITG_EVERSION ? ITG_EPROTO : rc;
  }
  if (m->type == ITG__RM_ERR) {
    snprintf(r->last_err, sizeof r->last_err, "%s", m->text);
    return m->code;
  }
  r->last_err[0] = '\0';
  return 0;
}

static int send_msg(itg_remote *r, const itg__rm_msg *m) {
  uint8_t small[ITG__FRAME_HDR_LEN + ITG__RM_MAX_AUTH_BODY];
  uint8_t *buf = small;
  size_t cap = sizeof small;
  int len, rc;
  if (r->broken)
    return ITG_ECLOSED;
  if (m->type == ITG__RM_START) {
    cap = ITG__FRAME_HDR_LEN + ITG__RM_MAX_REQUEST;
    buf = malloc(cap);
    if (buf == NULL)
      return ITG_ENOMEM;
  }
  len = itg__rm_encode(m, buf, cap);
  rc = len < 0 ? len
               : itg__ctl_send_bytes(r->s, buf, (size_t)len, r->timeout_ns);
  if (buf != small)
    free(buf);
  if (len >= 0 && rc < 0)
    r->broken = 1;
  return rc;
}

/* Sends m and waits for its answer of type `want` into *ans, at most
 * wait_ns longer than the connection's timeout. Returns 0, the agent's
 * ERR code, or a connection error (ITG_EPROTO for another answer). */
static int exchange(itg_remote *r, const itg__rm_msg *m, itg__rm_type want,
                    itg__rm_msg *ans, int64_t wait_ns) {
  int rc = send_msg(r, m);
  if (rc == 0)
    rc = recv_msg(r, ans, r->timeout_ns + wait_ns);
  if (rc == 0 && ans->type != want) {
    r->broken = 1;
    snprintf(r->last_err, sizeof r->last_err, "%s answered with %s",
             itg__rm_type_name(m->type), itg__rm_type_name(ans->type));
    rc = ITG_EPROTO;
  }
  return rc;
}

static void remote_free(itg_remote *r) {
  if (r->s != ITG__BAD_SOCK)
    itg__sock_close(r->s);
  free(r->buf);
  free(r->flows);
  free(r->rx);
  free(r);
}

/* The handshake: CHALLENGE, AUTH, AUTH_OK with the agent's proof. */
static int handshake(itg_remote *r, const void *token, size_t token_len,
                     char *err, size_t errlen) {
  uint8_t agent_nonce[ITG__RM_NONCE], want[ITG__RM_MAC];
  itg__rm_msg m, ans;
  int rc = recv_msg(r, &m, r->timeout_ns);
  if (rc == 0 && m.type != ITG__RM_CHALLENGE)
    rc = ITG_EPROTO;
  if (rc < 0) {
    itg__err_set(err, errlen, "%s: no challenge: %s", r->where,
                 r->last_err[0] != '\0' ? r->last_err : itg_strerror(rc));
    return rc;
  }
  memcpy(agent_nonce, m.nonce, sizeof agent_nonce);
  itg__rm_init(&m, ITG__RM_AUTH);
  rc = itg__random_bytes(m.nonce, sizeof m.nonce);
  if (rc < 0) {
    itg__err_set(err, errlen, "no random bytes for a nonce: %s",
                 itg_strerror(rc));
    return rc;
  }
  itg__rm_proof(token, token_len, ITG__RM_LABEL_CLIENT, agent_nonce, m.nonce,
                m.mac);
  rc = exchange(r, &m, ITG__RM_AUTH_OK, &ans, 0);
  if (rc < 0) {
    itg__err_set(err, errlen, "%s refused: %s", r->where,
                 r->last_err[0] != '\0' ? r->last_err : itg_strerror(rc));
    return rc;
  }
  itg__rm_proof(token, token_len, ITG__RM_LABEL_AGENT, m.nonce, agent_nonce,
                want);
  if (!itg__mem_equal_ct(want, ans.mac, sizeof want)) {
    itg__err_set(err, errlen,
                 "%s did not prove it holds the token: another token?",
                 r->where);
    return ITG_EPERM;
  }
  memcpy(r->software, ans.text, sizeof r->software);
  r->rx_port = ans.port;
  r->max_body = ITG__RM_MAX_ANSWER;
  return 0;
}

int itg_remote_connect(const char *host, uint16_t port, const void *token,
                       size_t token_len, int64_t timeout_ns, itg_remote **out,
                       char *err, size_t errlen) {
  itg_remote *r;
  itg__addr to;
  int rc;
  itg__err_begin(err, errlen);
  if (host == NULL || token == NULL || out == NULL || token_len == 0 ||
      token_len > ITG_REMOTE_TOKEN_MAX || timeout_ns <= 0 || port == 0) {
    itg__err_set(err, errlen, "itg_remote_connect: a bad argument");
    return ITG_EINVAL;
  }
  rc = itg__platform_init();
  if (rc < 0)
    return rc;
  r = calloc(1, sizeof *r);
  if (r == NULL)
    return ITG_ENOMEM;
  r->s = ITG__BAD_SOCK;
  r->timeout_ns = timeout_ns;
  r->max_body = ITG__RM_MAX_AUTH_BODY;
  snprintf(r->where, sizeof r->where, "%.*s:%u", ITG_HOST_MAX - 1, host,
           (unsigned)port);
  r->buf = malloc(ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER);
  if (r->buf == NULL) {
    remote_free(r);
    return ITG_ENOMEM;
  }
  rc = itg__addr_resolve(host, port, 0, &to);
  if (rc < 0) {
    itg__err_set(err, errlen, "%s: cannot resolve the address", r->where);
    goto out_free;
  }
  rc = itg__sock_open(&to, 0, &r->s);
  if (rc == 0)
    rc = itg__sock_connect(r->s, &to, timeout_ns);
  if (rc < 0) {
    itg__err_set(err, errlen, "%s: cannot connect: %s", r->where,
                 itg_strerror(rc));
    goto out_free;
  }
  itg__sock_set_nodelay(r->s, 1);
  rc = handshake(r, token, token_len, err, errlen);
  if (rc < 0)
    goto out_free;
  *out = r;
  return 0;

out_free:
  remote_free(r);
  return rc;
}

const char *itg_remote_agent_software(const itg_remote *r) {
  return r != NULL ? r->software : "";
}

uint16_t itg_remote_receiver_port(const itg_remote *r) {
  return r != NULL ? r->rx_port : 0;
}

int itg_remote_clock(itg_remote *r, int rounds, int64_t *offset_ns,
                     int64_t *rtt_ns) {
  int64_t best_rtt = INT64_MAX, best_off = 0;
  itg__rm_msg m, ans;
  if (r == NULL || rounds < 1 || rounds > 1000)
    return ITG_EINVAL;
  itg__rm_init(&m, ITG__RM_CLOCK);
  for (int i = 0; i < rounds; i++) {
    int64_t t0 = itg__real_ns(), t1;
    int rc = exchange(r, &m, ITG__RM_CLOCK_OK, &ans, 0);
    if (rc < 0)
      return rc;
    t1 = itg__real_ns();
    /* The agent read its clock between t0 and t1: at the middle, the
     * error is at most half the round trip, least on the shortest. */
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      best_off = ans.wall_ns - (t0 + (t1 - t0) / 2);
    }
  }
  if (offset_ns != NULL)
    *offset_ns = best_off;
  if (rtt_ns != NULL)
    *rtt_ns = best_rtt;
  return 0;
}

int itg_remote_start(itg_remote *r, const char *const *lines, size_t n,
                     int64_t at_wall_ns, char *err, size_t errlen) {
  itg__rm_msg m, ans;
  int rc;
  itg__err_begin(err, errlen);
  if (r == NULL || lines == NULL || n == 0 || n > ITG_REMOTE_MAX_FLOWS ||
      at_wall_ns < 0) {
    itg__err_set(err, errlen, "itg_remote_start: 1 to %u lines",
                 ITG_REMOTE_MAX_FLOWS);
    return ITG_EINVAL;
  }
  for (size_t i = 0; i < n; i++)
    if (lines[i] == NULL ||
        strnlen(lines[i], ITG_REMOTE_LINE_MAX + 1) > ITG_REMOTE_LINE_MAX) {
      itg__err_set(err, errlen, "line %zu: longer than %u bytes", i + 1,
                   ITG_REMOTE_LINE_MAX);
      return ITG_EINVAL;
    }
  itg__rm_init(&m, ITG__RM_START);
  m.lines = lines;
  m.n = (uint32_t)n;
  m.wall_ns = at_wall_ns;
  /* The agent sets each flow up with its receiver before it answers. */
  rc = exchange(r, &m, ITG__RM_OK, &ans,
                (int64_t)n * 5000000000ll);
  if (rc < 0)
    itg__err_set(err, errlen, "%s: %s", r->where,
                 r->last_err[0] != '\0' ? r->last_err : itg_strerror(rc));
  return rc;
}

/* Keeps a STATUS_OK answer and copies its summary into the caller's st. */
static int take_status(itg_remote *r, const itg__rm_msg *ans,
                       itg_remote_status *st, size_t size) {
  itg_flow_result *flows = NULL;
  itg_remote_rx_flow *rx = NULL;
  itg_remote_status full;
  int rc = itg__rm_status_get(ans->data, ans->data_len, &full, &flows, &rx);
  if (rc < 0) {
    r->broken = rc == ITG_EBADMSG;
    return rc == ITG_EBADMSG ? ITG_EPROTO : rc;
  }
  free(r->flows);
  free(r->rx);
  r->flows = flows;
  r->rx = rx;
  r->st = full;
  return itg__struct_out(st, size, &full, sizeof full);
}

int itg_remote_status_size(itg_remote *r, itg_remote_status *st,
                           size_t size) {
  itg__rm_msg m, ans;
  int rc;
  if (r == NULL || st == NULL ||
      !itg__struct_size_ok(size, sizeof(itg_remote_status)))
    return ITG_EINVAL;
  itg__rm_init(&m, ITG__RM_STATUS);
  rc = exchange(r, &m, ITG__RM_STATUS_OK, &ans, 0);
  return rc < 0 ? rc : take_status(r, &ans, st, size);
}

int itg_remote_stop(itg_remote *r) {
  itg__rm_msg m, ans;
  if (r == NULL)
    return ITG_EINVAL;
  itg__rm_init(&m, ITG__RM_STOP);
  return exchange(r, &m, ITG__RM_OK, &ans, 0);
}

int itg_remote_results_size(itg_remote *r, int64_t wait_ns,
                            itg_remote_status *st, size_t size) {
  itg__rm_msg m, ans;
  int rc;
  if (r == NULL || st == NULL || wait_ns < 0 || wait_ns > ITG__RM_WAIT_MAX ||
      !itg__struct_size_ok(size, sizeof(itg_remote_status)))
    return ITG_EINVAL;
  itg__rm_init(&m, ITG__RM_RESULTS);
  m.wait_ns = wait_ns;
  rc = exchange(r, &m, ITG__RM_STATUS_OK, &ans, wait_ns);
  if (rc == 0)
    rc = take_status(r, &ans, st, size);
  if (rc == 0 && r->st.state != ITG_REMOTE_ENDED)
    rc = ITG_ETIMEDOUT;
  return rc;
}

int itg_remote_flow_result_size(const itg_remote *r, size_t i,
                                itg_flow_result *out, size_t size) {
  if (r == NULL || i >= r->st.flows)
    return ITG_EINVAL;
  return itg__struct_out(out, size, &r->flows[i], sizeof r->flows[i]);
}

int itg_remote_rx_flow_size(const itg_remote *r, size_t i,
                            itg_remote_rx_flow *out, size_t size) {
  if (r == NULL || i >= r->st.rx_flows)
    return ITG_EINVAL;
  return itg__struct_out(out, size, &r->rx[i], sizeof r->rx[i]);
}

int itg_remote_fetch_log(itg_remote *r, const char *name,
                         itg_remote_sink sink, void *user) {
  itg__rm_msg m, ans;
  uint64_t offset = 0;
  if (r == NULL || name == NULL || sink == NULL || name[0] == '\0' ||
      strnlen(name, ITG__RM_TEXT_MAX) == ITG__RM_TEXT_MAX)
    return ITG_EINVAL;
  for (;;) {
    int rc;
    itg__rm_init(&m, ITG__RM_LOG);
    snprintf(m.text, sizeof m.text, "%s", name);
    m.offset = offset;
    rc = exchange(r, &m, ITG__RM_LOG_DATA, &ans, 0);
    if (rc < 0)
      return rc;
    if (ans.offset != offset) {
      r->broken = 1;
      return ITG_EPROTO;
    }
    if (ans.n > 0) {
      rc = sink(ans.data, ans.n, user);
      if (rc != 0)
        return rc;
    }
    offset += ans.n;
    /* A file that grows while it is read is taken up to the size of the
     * first answer's end; one that is still written ends where it is. */
    if (offset >= ans.size || ans.n == 0)
      return 0;
  }
}

void itg_remote_close(itg_remote *r) {
  itg__rm_msg m, ans;
  if (r == NULL)
    return;
  itg__rm_init(&m, ITG__RM_BYE);
  if (!r->broken)
    exchange(r, &m, ITG__RM_OK, &ans, 0);
  remote_free(r);
}
