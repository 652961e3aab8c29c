/* A flow's defaults: what itg_flow_cfg_init gives, and what fields an older
 * caller's shorter itg_flow_cfg lacks take. Below the other flow files,
 * which all start from it. */
#include <string.h>

#include "core/growable.h"
#include "itg/flow.h"

int itg_flow_cfg_init_size(itg_flow_cfg *out, size_t size) {
  itg_flow_cfg defaults, *cfg = &defaults;

  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  strcpy(cfg->dst_host, "127.0.0.1");
  cfg->dst_port = ITG_DEFAULT_DATA_PORT;
  cfg->sig_port = ITG_DEFAULT_SIG_PORT;
  cfg->proto = ITG_PROTO_UDP;
  cfg->meter = ITG_METER_OWD;
  cfg->wire = ITG_WIRE_NATIVE;
  cfg->idt.kind = ITG_DIST_CONSTANT;
  cfg->idt.p[0] = 1.0 / 1000;
  cfg->idt.scale = 1.0;
  cfg->size.kind = ITG_DIST_CONSTANT;
  cfg->size.p[0] = 512;
  cfg->size.scale = 1.0;
  cfg->duration_ns = 10000LL * 1000000;
  cfg->tos = -1;
  cfg->ttl = -1;
  cfg->recv_log_port = ITG_DEFAULT_LOG_PORT;
  cfg->recv_log_transport = ITG_LOG_TCP;
  cfg->icmp_type = 8;
  return itg__struct_out(out, size, cfg, sizeof *cfg);
}

size_t itg_flow_hdr_len(const itg_flow_cfg *caller) {
  itg_flow_cfg cfg;
  int tcp;
  if (caller == NULL || ITG__CFG_IN(&cfg, caller, itg_flow_cfg, NULL, 0) != 0)
    return 0;
  tcp = cfg.proto == ITG_PROTO_TCP;
  switch (cfg.payload_type) {
  case ITG_PAYLOAD_FULL:
    return itg_wire_hdr_len(cfg.wire, tcp);
  case ITG_PAYLOAD_SEQ:
    return tcp ? 12 : 8;
  case ITG_PAYLOAD_NONE:
    return ITG_FLOW_NONE_MIN_SIZE;
  }
  return 0;
}
