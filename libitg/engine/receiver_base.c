/* What every file of the receiver calls: idle accounting, flow events,
 * the first log error. */
#include "engine/receiver_internal.h"

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
