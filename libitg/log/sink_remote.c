/* The remote sink: records are shipped to a log server, and spilled to a
 * local file when it cannot take them (log/ship.c; see log/sink.h). */
#include <string.h>

#include "log/ship.h"
#include "log/sink.h"

static int remote_open(const itg_logger_cfg *cfg, void *arg,
                       const itg_log_hdr *hdr,
                       int (*hurry)(void *arg), void *hurry_arg,
                       void **state) {
  itg__ship_cfg sc;
  itg__ship *s;
  int rc;
  memset(&sc, 0, sizeof sc);
  sc.host = cfg->server_host;
  sc.port = cfg->server_port;
  sc.transport = cfg->transport;
  sc.token = cfg->token;
  sc.name = cfg->path != NULL && cfg->path[0] != '\0' ? cfg->path : NULL;
  sc.spill_path = cfg->spill_path;
  sc.flows = cfg->flow_ids;
  sc.nflows = cfg->n_flow_ids;
  sc.batch = cfg->batch;
  sc.hdr = *hdr;
  sc.hurry = hurry;
  sc.hurry_arg = hurry_arg;
  rc = itg__ship_open(&sc, &s);
  if (rc == 0)
    *state = s;
  return rc;
}

static int remote_write(void *state, const itg_logrec *recs, size_t n) {
  return itg__ship_write(state, recs, n);
}

static int remote_flush(void *state) { return itg__ship_flush(state); }

static void copy_stats(const itg__ship_stats *st, itg__log_sink_stats *out) {
  out->spilled = st->spilled;
  out->lost = st->lost;
  out->reconnects = st->reconnects;
  out->missing = st->missing;
  out->unconfirmed = st->unconfirmed;
  out->connected = st->connected;
}

static void remote_stats(void *state, itg__log_sink_stats *out) {
  itg__ship_stats st;
  itg__ship_get_stats(state, &st);
  copy_stats(&st, out);
}

static int remote_close(void *state, itg__log_sink_stats *final) {
  itg__ship_stats st;
  int rc = itg__ship_close(state, &st);
  copy_stats(&st, final);
  return rc;
}

static const char *remote_path(void *state) {
  return itg__ship_spill_path(state);
}

const itg__log_sink_ops itg__log_sink_remote = {
    .open = remote_open,
    .write = remote_write,
    .flush = remote_flush,
    .stats = remote_stats,
    .close = remote_close,
    .path = remote_path,
    .spills = 1,
    .flush_each_pass = 1,
};
