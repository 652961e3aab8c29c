/* What every file of the receiver calls: idle accounting, flow events,
 * the first log error, libuv errors, address keys, the sweep's period. */
#include <string.h>

#include "engine/receiver_internal.h"

int itg__rx_uv_err(int uverr) {
  switch (uverr) {
  case UV_EADDRINUSE:
    return ITG_EADDRINUSE;
  case UV_EADDRNOTAVAIL:
  case UV_EAFNOSUPPORT:
    return ITG_EADDR;
  case UV_EACCES:
  case UV_EPERM:
    return ITG_EPERM;
  case UV_ENOMEM:
    return ITG_ENOMEM;
  case UV_ETIMEDOUT:
    return ITG_ETIMEDOUT;
  case UV_EOF:
  case UV_ECONNRESET:
    return ITG_ECLOSED;
  default:
    return ITG_ESOCKET;
  }
}

void itg__rx_count(itg_receiver *r, int dconns, int dflows) {
  uv_mutex_lock(&r->lock);
  r->conns = (uint32_t)((int)r->conns + dconns);
  r->flows = (uint32_t)((int)r->flows + dflows);
  if (r->conns == 0 && r->flows == 0)
    uv_cond_broadcast(&r->idle_cond);
  uv_mutex_unlock(&r->lock);
}

void itg__rx_log_error(itg_receiver *r, int err) {
  uv_mutex_lock(&r->lock);
  if (r->log_error == 0 && err < 0)
    r->log_error = err;
  uv_mutex_unlock(&r->lock);
}

void itg__rx_event(itg_receiver *r, const itg_flow_event *ev) {
  if (r->cfg.on_flow != NULL)
    r->cfg.on_flow(ev, r->cfg.user);
}

void itg__rx_ip_key(const struct sockaddr *sa, uint8_t key[16]) {
  memset(key, 0, 16);
  if (sa->sa_family == AF_INET) {
    key[10] = 0xff;
    key[11] = 0xff;
    memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
  } else if (sa->sa_family == AF_INET6) {
    memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
  }
}

uint64_t itg__rx_sweep_every(uint64_t shortest_ms) {
  /* A quarter of it: a connection goes at most 25 % late. */
  uint64_t every = shortest_ms / 4;
  if (every < ITG__RX_SWEEP_MIN_MS)
    return ITG__RX_SWEEP_MIN_MS;
  return every > ITG__RX_SWEEP_MAX_MS ? ITG__RX_SWEEP_MAX_MS : every;
}
