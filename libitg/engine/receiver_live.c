/* The receiver's live per-flow counts (see receiver_live.h and
 * itg_receiver_flows_live in itg/receiver.h). */
#include "engine/receiver_live.h"

#include <stdlib.h>
#include <string.h>

#include "core/growable.h"

int itg__rx_live_open(itg__rx_flow *f) {
  itg_receiver *r = f->r;
  itg__rx_live *l, **tail;
  if (!r->cfg.live_stats)
    return 0;
  l = calloc(1, sizeof *l);
  if (l == NULL)
    return ITG_ENOMEM;
  l->who.flow_id = f->id;
  l->who.proto = f->proto;
  l->who.port = f->port;
  memcpy(l->who.peer, f->peer, sizeof l->who.peer);
  itg__live_init(&l->counts, (int64_t)uv_hrtime());
  uv_mutex_lock(&r->live_lock);
  for (tail = &r->lives; *tail != NULL; tail = &(*tail)->next)
    ;
  *tail = l;
  uv_mutex_unlock(&r->live_lock);
  f->live = l;
  return 0;
}

void itg__rx_live_add(itg__rx_flow *f, const itg_logrec *rec) {
  itg_receiver *r = f->r;
  if (f->live == NULL)
    return;
  uv_mutex_lock(&r->live_lock);
  /* Without memory for the histogram the packet still counts; its delay
   * only misses the interval's p99. */
  (void)itg__live_add(&f->live->counts, rec);
  uv_mutex_unlock(&r->live_lock);
}

void itg__rx_live_close(itg__rx_flow *f, uint64_t sent) {
  itg_receiver *r = f->r;
  itg__rx_live **pp;
  if (f->live == NULL)
    return;
  uv_mutex_lock(&r->live_lock);
  if (r->lives_ended < r->cfg.max_flows) {
    itg__live_end(&f->live->counts, sent);
    f->live->who.ended = 1;
    r->lives_ended++;
  } else {
    for (pp = &r->lives; *pp != f->live; pp = &(*pp)->next)
      ;
    *pp = f->live->next;
    itg__live_clear(&f->live->counts);
    free(f->live);
  }
  uv_mutex_unlock(&r->live_lock);
  f->live = NULL;
}

void itg__rx_live_free_all(itg_receiver *r) {
  while (r->lives != NULL) {
    itg__rx_live *l = r->lives;
    r->lives = l->next;
    itg__live_clear(&l->counts);
    free(l);
  }
  r->lives_ended = 0;
}

int itg_receiver_flows_live_size(itg_receiver *r, itg_receiver_flow_live *out,
                                 size_t n, size_t *count, size_t size) {
  itg_receiver_flow_live full;
  itg__rx_live **pp;
  size_t i = 0;
  int64_t now = (int64_t)uv_hrtime();
  if (r == NULL || count == NULL || (out == NULL && n > 0) ||
      !itg__struct_size_ok(size, sizeof full))
    return ITG_EINVAL;
  if (!r->cfg.live_stats)
    return ITG_ESTATE;
  uv_mutex_lock(&r->live_lock);
  for (pp = &r->lives; *pp != NULL; i++) {
    itg__rx_live *l = *pp;
    if (i >= n) {
      pp = &l->next;
      continue;
    }
    full = l->who;
    full.struct_size = sizeof full;
    itg__live_take(&l->counts, now, &full);
    itg__struct_out((char *)out + i * size, size, &full, sizeof full);
    if (l->who.ended) {
      *pp = l->next;
      r->lives_ended--;
      itg__live_clear(&l->counts);
      free(l);
    } else {
      pp = &l->next;
    }
  }
  uv_mutex_unlock(&r->live_lock);
  *count = i;
  return 0;
}
