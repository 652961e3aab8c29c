/* What keeps one peer from holding the receiver: counts per sender
 * address, the descriptor budget, and the timer that closes connections
 * that do not get going or go quiet (what it closes is up to the files
 * above, which hand it their sweep). */
#include <stdlib.h>
#include <string.h>

#include "engine/receiver_guard.h"

/* Seeded, so that a peer cannot choose addresses that share a bucket. */
static size_t peer_bucket(const itg_receiver *r, const uint8_t ip[16]) {
  uint32_t h = r->peer_seed;
  int i;
  for (i = 0; i < 16; i++)
    h = (h ^ ip[i]) * 16777619u;
  h ^= h >> 15;
  return (h * 2654435761u) & (ITG__RX_BUCKETS - 1);
}

itg__rx_peer *itg__rx_peer_hold(itg_receiver *r, const uint8_t ip[16]) {
  size_t b = peer_bucket(r, ip);
  itg__rx_peer *p;
  for (p = r->peer_buckets[b]; p != NULL; p = p->next)
    if (memcmp(p->ip, ip, 16) == 0)
      return p;
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  memcpy(p->ip, ip, 16);
  p->next = r->peer_buckets[b];
  r->peer_buckets[b] = p;
  return p;
}

void itg__rx_peer_release(itg_receiver *r, itg__rx_peer *p) {
  itg__rx_peer **pp;
  if (p == NULL || p->conns > 0 || p->flows > 0)
    return;
  for (pp = &r->peer_buckets[peer_bucket(r, p->ip)]; *pp != NULL; pp = &(*pp)->next)
    if (*pp == p) {
      *pp = p->next;
      break;
    }
  free(p);
}

int itg__rx_fd_admit(itg_receiver *r, int may_evict) {
  uint64_t reserve = r->cfg.fd_reserve;
  if (r->fd_limit != 0 && r->fds + 1 + reserve > r->fd_limit &&
      (!may_evict || r->evict == NULL || !r->evict(r))) {
    atomic_fetch_add(&r->n_conns_refused, 1);
    return 0;
  }
  r->fds++;
  return 1;
}

void itg__rx_guard_start(itg_receiver *r, uv_timer_cb on_sweep) {
  uint64_t every = r->cfg.handshake_ms;
  if (r->cfg.idle_ms != 0 && r->cfg.idle_ms < every)
    every = r->cfg.idle_ms;
  every = itg__sweep_every(every);
  r->fd_limit = itg__fd_limit();
  r->peer_seed = (uint32_t)uv_hrtime() | 1u;
  uv_timer_init(&r->loop, &r->sweep);
  r->sweep.data = r;
  uv_timer_start(&r->sweep, on_sweep, every, every);
}
