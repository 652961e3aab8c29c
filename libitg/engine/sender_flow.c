/* A flow's record shared by the sender's threads: its first error and its
 * end, both under the sender's lock. The bottom layer of the sender: every
 * other sender file calls it, it calls none of them. */
#include <stdio.h>

#include "engine/sender_internal.h"

void itg__tx_fail(itg__tx_flow *f, int status, const char *msg) {
  uv_mutex_lock(&f->s->lock);
  if (f->status == 0) {
    f->status = status;
    snprintf(f->error, sizeof f->error, "%s", msg);
  }
  uv_mutex_unlock(&f->s->lock);
}

void itg__tx_mark_done(itg__tx_flow *f) {
  itg_sender *s = f->s;
  uv_mutex_lock(&s->lock);
  if (!f->done) {
    f->done = 1;
    s->done++;
    uv_cond_broadcast(&s->done_cond);
  }
  uv_mutex_unlock(&s->lock);
}
