/* The agent's commands (itg/remote.h): the flows a START gives, run by a
 * held sender released at the instant asked; the receiver's counters and
 * ended flows; the logs the agent wrote, read in chunks. Each command
 * writes its answer's frame into the agent's answer buffer; the I/O is
 * engine/agent.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agent_internal.h"
#include "platform/platform.h"

/* Writes an ERR answer. Returns its length. */
static int answer_err(struct itg_agent *a, int code, const char *fmt, ...) {
  itg__rm_msg m;
  va_list ap;
  itg__rm_init(&m, ITG__RM_ERR);
  m.code = code;
  va_start(ap, fmt);
  vsnprintf(m.text, sizeof m.text, fmt, ap);
  va_end(ap);
  return itg__rm_encode(&m, a->answer, ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER);
}

static int answer(struct itg_agent *a, const itg__rm_msg *m) {
  return itg__rm_encode(m, a->answer, ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER);
}

static int answer_ok(struct itg_agent *a) {
  itg__rm_msg m;
  itg__rm_init(&m, ITG__RM_OK);
  return answer(a, &m);
}

int itg__agent_path(char *dst, size_t len, const char *dir, const char *name) {
  size_t d = strlen(dir), sep = d > 0, n = strlen(name);
  if (d + sep + n >= len)
    return -1;
  memcpy(dst, dir, d);
  dst[d] = '/';
  memcpy(dst + d + sep, name, n + 1);
  return 0;
}

void itg__agent_log_add(struct itg_agent *a, const char *name) {
  uint32_t i;
  uv_mutex_lock(&a->lock);
  for (i = 0; i < a->nlogs; i++)
    if (strcmp(a->logs[i], name) == 0)
      break;
  if (i == a->nlogs) {
    snprintf(a->logs[a->logs_next], sizeof a->logs[0], "%s", name);
    a->logs_next = (a->logs_next + 1) % ITG__AGENT_LOGS;
    if (a->nlogs < ITG__AGENT_LOGS)
      a->nlogs++;
  }
  uv_mutex_unlock(&a->lock);
}

/* Returns the part of path after its last separator. */
static const char *base_name(const char *path) {
  const char *b = path;
  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' || *p == '\\')
      b = p + 1;
  return b;
}

void itg__agent_on_flow(const itg_flow_event *ev, void *user) {
  struct itg_agent *a = user;
  itg_remote_rx_flow *x;
  if (ev->kind == ITG_FLOW_OPENED && ev->log_file[0] != '\0')
    itg__agent_log_add(a, base_name(ev->log_file));
  if (ev->kind != ITG_FLOW_ENDED)
    return;
  uv_mutex_lock(&a->lock);
  x = &a->rx_flows[a->rx_next];
  memset(x, 0, sizeof *x);
  x->struct_size = sizeof *x;
  x->flow_id = ev->flow_id;
  x->proto = ev->proto;
  x->port = ev->port;
  memcpy(x->peer, ev->peer, sizeof x->peer);
  x->packets = ev->packets;
  x->bytes = ev->bytes;
  x->sent = ev->sent;
  x->sent_known = ev->sent_known;
  snprintf(x->log_file, sizeof x->log_file, "%s", base_name(ev->log_file));
  a->rx_next = (a->rx_next + 1) % ITG_REMOTE_MAX_FLOWS;
  if (a->rx_count < ITG_REMOTE_MAX_FLOWS)
    a->rx_count++;
  uv_mutex_unlock(&a->lock);
}

static itg_remote_state flows_state(struct itg_agent *a) {
  if (a->tx == NULL)
    return a->start_status < 0 ? ITG_REMOTE_ENDED : ITG_REMOTE_IDLE;
  if (itg_sender_wait(a->tx, 0) != ITG_ETIMEDOUT)
    return ITG_REMOTE_ENDED;
  return (int64_t)uv_hrtime() < a->release_mono_ns ? ITG_REMOTE_HELD
                                                   : ITG_REMOTE_RUNNING;
}

void itg__agent_flows_free(struct itg_agent *a) {
  itg_sender_free(a->tx);
  a->tx = NULL;
}

/* The STATUS_OK answer of the agent as it is now. */
static int answer_status(struct itg_agent *a) {
  itg_remote_status st;
  itg_receiver_stats rs;
  itg_flow_result *flows = NULL;
  itg_remote_rx_flow *rx = NULL;
  uint32_t nflows = 0, nrx, i;
  int len;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  st.state = flows_state(a);
  st.start_status = a->start_status;
  st.start_wall_ns = a->start_wall_ns;
  if (itg_receiver_get_stats(a->rx, &rs) == 0) {
    st.rx_packets = rs.packets;
    st.rx_bytes = rs.bytes;
    st.rx_malformed = rs.malformed;
    st.rx_flows_served = rs.flows_served;
    st.rx_flows_active = rs.flows_active;
    st.rx_flows_refused = rs.flows_refused;
  }
  if (a->tx != NULL)
    nflows = (uint32_t)itg_sender_flow_count(a->tx);
  rx = malloc(sizeof *rx * ITG_REMOTE_MAX_FLOWS);
  if (nflows > 0)
    flows = calloc(nflows, sizeof *flows);
  if (rx == NULL || (nflows > 0 && flows == NULL)) {
    free(rx);
    free(flows);
    return answer_err(a, ITG_ENOMEM, "out of memory");
  }
  for (i = 0; i < nflows; i++)
    itg_sender_flow_result(a->tx, i, &flows[i]);
  uv_mutex_lock(&a->lock);
  nrx = a->rx_count;
  /* Oldest first: the ring's next slot holds the oldest once it is full. */
  for (i = 0; i < nrx; i++)
    rx[i] = a->rx_flows[(a->rx_next + ITG_REMOTE_MAX_FLOWS - nrx + i) %
                        ITG_REMOTE_MAX_FLOWS];
  uv_mutex_unlock(&a->lock);
  len = itg__rm_status_put(a->answer, ITG__FRAME_HDR_LEN + ITG__RM_MAX_ANSWER,
                           &st, flows, nflows, rx, nrx);
  free(flows);
  free(rx);
  return len;
}

/* Makes the held sender of flows[0..n), to be started (its set-up with
 * the receivers may take seconds: engine/agent.c runs it on a worker) and
 * then released at the wall-clock instant a->start_at
 * (itg__agent_start_done). Returns 0, or the length of an ERR answer. */
static int start_prepare(struct itg_agent *a, const itg_flow_cfg *flows,
                         uint32_t n) {
  itg_sender_cfg cfg;
  char msg[ITG__RM_TEXT_MAX - 64];
  int rc;
  itg_sender_cfg_init(&cfg);
  cfg.hold = 1;
  /* The client's instant is every agent's: flows without a start delay
   * all leave at it, on every agent, as itg-ctl reports their skew. */
  cfg.start = ITG_START_TOGETHER;
  if (a->cfg.send_log[0] != '\0') {
    if (a->cfg.log_server[0] != '\0') {
      snprintf(cfg.log_path, sizeof cfg.log_path, "%s", a->cfg.send_log);
      snprintf(cfg.log_server, sizeof cfg.log_server, "%s",
               a->cfg.log_server);
      cfg.log_server_port = a->cfg.log_server_port;
      cfg.log_transport = a->cfg.log_transport;
    } else {
      itg__agent_path(cfg.log_path, sizeof cfg.log_path, a->cfg.log_dir,
                      a->cfg.send_log);
      itg__agent_log_add(a, a->cfg.send_log);
    }
  }
  rc = itg_sender_new(&cfg, &a->tx);
  if (rc < 0)
    return answer_err(a, rc, "cannot make the sender: %s", itg_strerror(rc));
  for (uint32_t i = 0; i < n; i++) {
    rc = itg_sender_add_flow(a->tx, &flows[i], msg, sizeof msg);
    if (rc < 0) {
      itg__agent_flows_free(a);
      return answer_err(a, rc, "line %u: %s", i + 1, msg);
    }
  }
  return 0;
}

int itg__agent_start_done(struct itg_agent *a, int rc) {
  int64_t now_wall, now_mono, at = a->start_at;
  if (rc < 0) {
    itg_flow_result r;
    a->start_status = rc;
    a->release_mono_ns = 0;
    if (itg_sender_flow_result(a->tx, 0, &r) == 0 && r.error[0] != '\0')
      return answer_err(a, rc, "no flow could be set up: flow 1: %s",
                        r.error);
    return answer_err(a, rc, "no flow could be set up: %s",
                      itg_strerror(rc));
  }
  /* The instant on the agent's wall clock, carried over to the monotonic
   * clock the sender paces on. */
  now_wall = itg__real_ns();
  now_mono = (int64_t)uv_hrtime();
  a->release_mono_ns = at > now_wall ? now_mono + (at - now_wall) : now_mono;
  a->start_wall_ns = at > now_wall ? at : now_wall;
  itg_sender_release(a->tx, a->release_mono_ns);
  return answer_ok(a);
}

static int cmd_start(struct itg_agent *a, const itg__rm_msg *m) {
  itg_flow_cfg *flows;
  const uint8_t *at = m->data;
  char line[ITG_REMOTE_LINE_MAX + 1];
  char msg[ITG__RM_TEXT_MAX - 64];
  itg_remote_state st = flows_state(a);
  uint32_t n = 0;
  int rc;
  if (st == ITG_REMOTE_HELD || st == ITG_REMOTE_RUNNING)
    return answer_err(a, ITG_ESTATE,
                      "the flows of the last START still run (STOP them)");
  flows = calloc(m->n, sizeof *flows);
  if (flows == NULL)
    return answer_err(a, ITG_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < m->n; i++) {
    itg__rm_line_next(&at, line);
    itg_flow_cfg_init(&flows[n]);
    rc = itg_flow_parse_line(&flows[n], line, msg, sizeof msg);
    if (rc < 0) {
      free(flows);
      return answer_err(a, rc, "line %u: %s", i + 1, msg);
    }
    n += rc > 0;
  }
  if (n == 0) {
    free(flows);
    return answer_err(a, ITG_EINVAL, "no flow: every line is blank");
  }
  itg__agent_flows_free(a);
  a->start_status = 0;
  a->start_wall_ns = 0;
  a->start_at = m->wall_ns;
  rc = start_prepare(a, flows, n);
  free(flows);
  return rc;
}

/* Returns 1 if name is one LOG may read: a plain name, of a file the
 * agent wrote. */
static int log_known(struct itg_agent *a, const char *name) {
  int known = 0;
  if (strchr(name, '/') != NULL || strchr(name, '\\') != NULL ||
      strstr(name, "..") != NULL)
    return 0;
  uv_mutex_lock(&a->lock);
  for (uint32_t i = 0; i < a->nlogs && !known; i++)
    known = strcmp(a->logs[i], name) == 0;
  uv_mutex_unlock(&a->lock);
  return known;
}

static int cmd_log(struct itg_agent *a, const itg__rm_msg *m) {
  uint8_t *chunk;
  char path[2 * ITG_PATH_MAX];
  uv_fs_t req;
  uv_buf_t b;
  itg__rm_msg out;
  uv_file fd;
  uint64_t size;
  ssize_t n;
  if (!log_known(a, m->text))
    return answer_err(a, ITG_ENOENT, "no log named '%s' was written here",
                      m->text);
  if (itg__agent_path(path, sizeof path, a->cfg.log_dir, m->text) != 0)
    return answer_err(a, ITG_EINVAL, "log '%s': the path is too long",
                      m->text);
  fd = uv_fs_open(NULL, &req, path, UV_FS_O_RDONLY, 0, NULL);
  uv_fs_req_cleanup(&req);
  if (fd < 0)
    return answer_err(a, ITG_ENOENT, "log '%s': %s", m->text,
                      uv_strerror(fd));
  n = uv_fs_fstat(NULL, &req, fd, NULL);
  size = req.statbuf.st_size;
  uv_fs_req_cleanup(&req);
  chunk = malloc(ITG_REMOTE_LOG_CHUNK);
  if (chunk == NULL) {
    n = UV_ENOMEM;
  } else if (n == 0 && m->offset <= size) {
    size_t want = size - m->offset < ITG_REMOTE_LOG_CHUNK
                      ? (size_t)(size - m->offset)
                      : ITG_REMOTE_LOG_CHUNK;
    b = uv_buf_init((char *)chunk, (unsigned)want);
    n = want > 0 ? uv_fs_read(NULL, &req, fd, &b, 1, (int64_t)m->offset, NULL)
                 : 0;
    if (want > 0)
      uv_fs_req_cleanup(&req);
  } else if (n == 0) {
    n = UV_EINVAL;
  }
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  if (n < 0) {
    free(chunk);
    return answer_err(a, ITG_EIO, "log '%s': %s", m->text,
                      n == UV_EINVAL ? "offset past its end"
                                     : uv_strerror((int)n));
  }
  itg__rm_init(&out, ITG__RM_LOG_DATA);
  out.offset = m->offset;
  out.size = size;
  out.n = (uint32_t)n;
  out.data = chunk;
  n = answer(a, &out);
  free(chunk);
  return (int)n;
}

/* Returns 1 while the agent's receiver still serves a flow: its log may
 * not be whole yet (a TCP flow acknowledges its sender's end before its
 * last bytes are read and its log closed). */
static int receiving(struct itg_agent *a) {
  itg_receiver_stats rs;
  return itg_receiver_get_stats(a->rx, &rs) == 0 && rs.flows_active > 0;
}

int itg__agent_results_poll(struct itg_agent *a) {
  if ((flows_state(a) != ITG_REMOTE_ENDED || receiving(a)) &&
      uv_hrtime() < a->wait_until)
    return 0;
  return answer_status(a);
}

int itg__agent_command(struct itg_agent *a, const itg__rm_msg *m) {
  itg__rm_msg out;
  /* A START's set-up runs on a worker with the sender: only what leaves
   * the sender alone (or stops it, which any thread may) is served until
   * it is done, for a client that came after its controller went. */
  if (a->setting_up && m->type != ITG__RM_CLOCK && m->type != ITG__RM_STOP &&
      m->type != ITG__RM_LOG && m->type != ITG__RM_BYE)
    return answer_err(a, ITG_EBUSY, "the flows of the last START are being "
                                    "set up");
  switch (m->type) {
  case ITG__RM_CLOCK:
    itg__rm_init(&out, ITG__RM_CLOCK_OK);
    out.mono_ns = (int64_t)uv_hrtime();
    out.wall_ns = itg__real_ns();
    return answer(a, &out);
  case ITG__RM_START:
    return cmd_start(a, m);
  case ITG__RM_STATUS:
    return answer_status(a);
  case ITG__RM_STOP:
    if (a->tx != NULL)
      itg_sender_stop(a->tx);
    return answer_ok(a);
  case ITG__RM_RESULTS:
    if (flows_state(a) == ITG_REMOTE_IDLE)
      return answer_err(a, ITG_ESTATE, "no flows were started");
    a->wait_until = uv_hrtime() + (uint64_t)m->wait_ns;
    return itg__agent_results_poll(a);
  case ITG__RM_LOG:
    return cmd_log(a, m);
  case ITG__RM_BYE:
    return answer_ok(a);
  default:
    return answer_err(a, ITG_EPROTO, "%s is not a command",
                      itg__rm_type_name(m->type));
  }
}
