/* Setting a flow up before it sends: its laws and seeds, the signaling
 * conversation with its receiver, and its data socket. Runs on the
 * creator's thread, one flow after the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mix.h"
#include "engine/sender_setup.h"

uint64_t itg__flow_law_seed(uint64_t seed, unsigned k) {
  return itg__mix64(seed + k * ITG__GOLDEN);
}

void itg__flow_seeds(uint64_t seed, uint64_t *idt_seed, uint64_t *size_seed) {
  *idt_seed = itg__flow_law_seed(seed, 1);
  *size_seed = itg__flow_law_seed(seed, 2);
}

static uint64_t auto_seed(size_t index) {
  return itg__mix64((uint64_t)itg__real_ns() ^ (uv_hrtime() << 17) ^
                    ((uint64_t)index + 1) * ITG__GOLDEN);
}

/* Sends req and waits for a reply of type want. Returns 0, or an error
 * with a sentence in msg (an ERROR from the receiver gives its code). */
static int exchange(itg__tx_flow *f, const itg__ctl_msg *req,
                    itg__ctl_type want, itg__ctl_msg *reply, char *msg,
                    size_t len) {
  int64_t tmo = f->s->cfg.connect_timeout_ns;
  int rc = itg__ctl_send(f->sig, req, tmo);
  if (rc == 0)
    rc = itg__ctl_recv(f->sig, &f->rd, reply, tmo);
  if (rc == ITG_ETIMEDOUT) {
    snprintf(msg, len, "the receiver did not answer %s in time",
             itg__ctl_type_name(req->type));
    return rc;
  }
  if (rc < 0) {
    snprintf(msg, len, "signaling with the receiver failed: %s",
             itg_strerror(rc));
    return rc;
  }
  if (reply->type == ITG__CTL_ERROR) {
    snprintf(msg, len, "the receiver says: %.120s", reply->text);
    return reply->status < 0 ? reply->status : ITG_EPROTO;
  }
  if (reply->type != want) {
    snprintf(msg, len, "the receiver answered %s with %s",
             itg__ctl_type_name(req->type), itg__ctl_type_name(reply->type));
    return ITG_EPROTO;
  }
  return 0;
}

/* D-ITG: sends a message of type alone (no body) within timeout_ns. */
static int ditg_say(itg__tx_flow *f, itg__ditg_type type,
                    int64_t timeout_ns) {
  itg__ditg_msg m;
  itg__ditg_init(&m, type);
  return itg__ditg_send(f->sig, &m, timeout_ns);
}

/* D-ITG: sends req and waits for a reply of type want, answering a
 * DISCOVERY on the way. Returns 0, or an error with a sentence in msg. */
static int ditg_exchange(itg__tx_flow *f, const itg__ditg_msg *req,
                         itg__ditg_type want, itg__ditg_msg *reply,
                         char *msg, size_t len) {
  int64_t deadline = (int64_t)uv_hrtime() + f->s->cfg.connect_timeout_ns;
  const char *name = itg__ditg_type_name(req->type);
  int rc = itg__ditg_send(f->sig, req, f->s->cfg.connect_timeout_ns);
  while (rc == 0) {
    int64_t left = deadline - (int64_t)uv_hrtime();
    rc = left <= 0 ? ITG_ETIMEDOUT
                   : itg__ditg_recv(f->sig, &f->drd, reply, left);
    if (rc < 0 || reply->type != ITG__DITG_DISCOVERY)
      break;
    rc = ditg_say(f, ITG__DITG_ACK_DISCOVERY, left);
  }
  if (rc == ITG_ETIMEDOUT) {
    snprintf(msg, len, "the D-ITG receiver did not answer %s in time", name);
    return rc;
  }
  if (rc == ITG_EBADMSG) {
    snprintf(msg, len, "the D-ITG receiver answered %s with a message "
             "D-ITG does not have", name);
    return ITG_EPROTO;
  }
  if (rc < 0) {
    snprintf(msg, len, "signaling with the D-ITG receiver failed at %s: %s",
             name, itg_strerror(rc));
    return rc;
  }
  if (reply->type == ITG__DITG_ERR_MSG_2 ||
      reply->type == ITG__DITG_ERR_MSG_3) {
    snprintf(msg, len, "refused by the D-ITG receiver (%s): %s",
             itg__ditg_type_name(reply->type),
             reply->type == ITG__DITG_ERR_MSG_2
                 ? "it cannot open the data port"
                 : "it needs root for this flow");
    return ITG_EREFUSED;
  }
  if (reply->type != want) {
    snprintf(msg, len, "the D-ITG receiver answered %s with %s", name,
             itg__ditg_type_name(reply->type));
    return ITG_EPROTO;
  }
  return 0;
}

/* D-ITG: CONNECT, answered by ACK_CONNECT. */
static int ditg_connect(itg__tx_flow *f, char *msg, size_t len) {
  itg__ditg_msg m, a;
  itg__ditg_init(&m, ITG__DITG_CONNECT);
  return ditg_exchange(f, &m, ITG__DITG_ACK_CONNECT, &a, msg, len);
}

/* D-ITG: the receiver log the flow asks for, before its data, as ITGSend
 * asks: SEND_FLOW_LOG for -X (ITGRecv ships its log to that D-ITG log
 * server, ITGLog or itg-log, under the -x name or ITGSend's default, and
 * reaches it on its own log port: the port sent is the one asked), else
 * SEND_NAME_LOG for -x (ITGRecv's own file); each answered by its ACK or
 * ERR_MSG_4. */
static int ditg_ask_log(itg__tx_flow *f, char *msg, size_t len) {
  const itg_flow_cfg *c = &f->cfg;
  const char *name = c->recv_log[0] != '\0' ? c->recv_log : ITG__DITG_RECV_LOG;
  itg__ditg_msg m, a;
  itg__addr at;
  if (c->recv_log_server[0] == '\0' && c->recv_log[0] == '\0')
    return 0;
  if (c->recv_log_server[0] == '\0') {
    itg__ditg_init(&m, ITG__DITG_SEND_NAME_LOG);
    memcpy(m.name, name, strnlen(name, sizeof m.name - 1));
    return ditg_exchange(f, &m, ITG__DITG_ACK_SEND_NAME_LOG, &a, msg, len);
  }
  if (itg__addr_resolve(c->recv_log_server, c->recv_log_port, 0, &at) != 0) {
    snprintf(msg, len, "cannot resolve the receiver's log server %.100s",
             c->recv_log_server);
    return ITG_EADDR;
  }
  itg__ditg_init(&m, ITG__DITG_SEND_FLOW_LOG);
  if (at.ss.ss_family == AF_INET) {
    m.family = ITG__DITG_FAMILY_INET;
    m.addr_len = 4;
    memcpy(m.addr, &((const struct sockaddr_in *)&at.ss)->sin_addr, 4);
  } else {
    m.family = ITG__DITG_FAMILY_INET6;
    m.addr_len = 16;
    memcpy(m.addr, &((const struct sockaddr_in6 *)&at.ss)->sin6_addr, 16);
  }
  m.port = c->recv_log_port;
  m.log_transport = c->recv_log_transport == ITG_LOG_UDP ? ITG__DITG_L4_UDP
                                                         : ITG__DITG_L4_TCP;
  /* itg_flow_validate keeps -x within D-ITG's name field */
  memcpy(m.name, name, strnlen(name, sizeof m.name - 1));
  return ditg_exchange(f, &m, ITG__DITG_ACK_SEND_FLOW_LOG, &a, msg, len);
}

/* D-ITG: SEND_FLOW, asking ITGRecv to open the data port on the address
 * the sender reaches it at; ACK_SEND_FLOW gives the port. */
static int ditg_ask_flow(itg__tx_flow *f, const itg__addr *to,
                         uint16_t *data_port, char *msg, size_t len) {
  const itg_flow_cfg *c = &f->cfg;
  itg__ditg_msg m, a;
  int rc;
  itg__ditg_init(&m, ITG__DITG_SEND_FLOW);
  m.l4 = c->proto == ITG_PROTO_TCP    ? ITG__DITG_L4_TCP
         : c->proto == ITG_PROTO_ICMP ? ITG__DITG_L4_ICMP
                                      : ITG__DITG_L4_UDP;
  m.meter = c->meter == ITG_METER_RTT ? ITG__DITG_METER_RTTM
                                      : ITG__DITG_METER_OWDM;
  m.ds = c->tos > 0 ? (uint8_t)c->tos : 0;
  m.flow_id = f->id;
  m.payload = c->payload_type == ITG_PAYLOAD_SEQ    ? ITG__DITG_PAYLOAD_SHORT
              : c->payload_type == ITG_PAYLOAD_NONE ? ITG__DITG_PAYLOAD_NONE
                                                    : ITG__DITG_PAYLOAD_STANDARD;
  snprintf(m.serial, sizeof m.serial, "noSerial"); /* as ITGSend says */
  m.port = c->dst_port;
  if (to->ss.ss_family == AF_INET) {
    m.l3 = ITG__DITG_L3_IPV4;
    memcpy(m.addr, &((const struct sockaddr_in *)&to->ss)->sin_addr, 4);
  } else {
    m.l3 = ITG__DITG_L3_IPV6;
    memcpy(m.addr, &((const struct sockaddr_in6 *)&to->ss)->sin6_addr, 16);
  }
  rc = ditg_exchange(f, &m, ITG__DITG_ACK_SEND_FLOW, &a, msg, len);
  if (rc < 0)
    return rc;
  /* ICMP has no port: ITGRecv answers what it holds, 0 or not */
  if ((a.port == 0 && c->proto != ITG_PROTO_ICMP) || a.flow_id != f->id) {
    snprintf(msg, len, "the D-ITG receiver answered SEND_FLOW with flow id "
             "%u on port %u", (unsigned)a.flow_id, (unsigned)a.port);
    return ITG_EPROTO;
  }
  *data_port = a.port;
  /* What came with the answer is past the control thread's poll, which
   * sees only what arrives later: DISCOVERY is answered here, and nothing
   * else has a place before the data. */
  while ((rc = itg__ditg_reader_next(&f->drd, &a)) == 1 &&
         a.type == ITG__DITG_DISCOVERY) {
    rc = ditg_say(f, ITG__DITG_ACK_DISCOVERY, f->s->cfg.connect_timeout_ns);
    if (rc < 0) {
      snprintf(msg, len, "could not answer the D-ITG receiver's DISCOVERY: "
               "%s", itg_strerror(rc));
      return rc;
    }
  }
  if (rc != 0) {
    snprintf(msg, len, "the D-ITG receiver sent %s right after "
             "ACK_SEND_FLOW", rc < 0 ? "a message D-ITG does not have"
                                     : itg__ditg_type_name(a.type));
    return ITG_EPROTO;
  }
  return 0;
}

/* Connects the signaling socket (from the flow's source address, so that
 * data and signaling come from the same place) and greets the receiver:
 * HELLO, or D-ITG's CONNECT. */
static int open_sig(itg__tx_flow *f, const itg__addr *to, char *msg,
                    size_t len) {
  char where[ITG_HOST_MAX + 16];
  itg__ctl_msg m, a;
  itg__addr from;
  int rc;
  itg__addr_format(to, where, sizeof where);
  rc = itg__sock_open(to, 0, &f->sig);
  if (rc < 0) {
    snprintf(msg, len, "cannot open a socket: %s", itg_strerror(rc));
    return rc;
  }
  if (f->cfg.src_host[0] != '\0') {
    rc = itg__addr_resolve(f->cfg.src_host, 0, 1, &from);
    if (rc == 0)
      rc = itg__sock_bind(f->sig, &from);
    if (rc < 0) {
      snprintf(msg, len, "cannot bind to '%.100s': %s", f->cfg.src_host,
               itg_strerror(rc));
      return rc;
    }
  }
  rc = itg__sock_connect(f->sig, to, f->s->cfg.connect_timeout_ns);
  if (rc < 0) {
    snprintf(msg, len, "cannot reach the receiver at %.100s: %s", where,
             itg_strerror(rc));
    return rc;
  }
  itg__sock_set_nodelay(f->sig, 1);
  if (f->cfg.peer == ITG_PEER_DITG) {
    rc = ditg_connect(f, msg, len);
    return rc < 0 ? rc : ditg_ask_log(f, msg, len);
  }
  itg__ctl_init(&m, ITG__CTL_HELLO);
  m.version = ITG__CTL_VERSION;
  snprintf(m.text, sizeof m.text, "libitg %s", itg_version_string());
  rc = exchange(f, &m, ITG__CTL_HELLO_ACK, &a, msg, len);
  if (rc == 0 && a.status != 0) {
    snprintf(msg, len, "the receiver (%.100s) does not speak signaling "
             "version %u", a.text, ITG__CTL_VERSION);
    rc = ITG_EVERSION;
  }
  return rc;
}

/* Creates and binds the data socket; its port goes into FLOW_OPEN. */
static int open_data(itg__tx_flow *f, const itg__addr *to, uint16_t *port,
                     char *msg, size_t len) {
  const itg_flow_cfg *c = &f->cfg;
  const char *host = c->src_host[0] != '\0' ? c->src_host
                     : to->ss.ss_family == AF_INET ? "0.0.0.0"
                                                   : "::";
  int udp = c->proto == ITG_PROTO_UDP;
  int icmp = c->proto == ITG_PROTO_ICMP;
  itg__addr from;
  int rc = itg__addr_resolve(host, c->src_port, 1, &from);
  if (rc == 0)
    rc = icmp ? itg__sock_open_icmp(to, &f->data)
              : itg__sock_open(to, udp, &f->data);
  if (rc == ITG_EINVAL && icmp) {
    /* ITGSend refuses ICMP over IPv6 too */
    snprintf(msg, len, "-T ICMP: libitg sends ICMP over IPv4 only");
    return ITG_ENOTSUP;
  }
  if (rc < 0) {
    snprintf(msg, len, "cannot open the data socket: %s", itg_strerror(rc));
    return rc;
  }
  if (c->tos >= 0 && (rc = itg__sock_set_tos(f->data, c->tos)) < 0) {
    snprintf(msg, len, "cannot set the DS byte %d: %s", c->tos,
             itg_strerror(rc));
    return rc;
  }
  if (c->ttl >= 0 && (rc = itg__sock_set_ttl(f->data, c->ttl)) < 0) {
    snprintf(msg, len, "cannot set the TTL %d: %s", c->ttl, itg_strerror(rc));
    return rc;
  }
  if (!udp && c->nodelay)
    itg__sock_set_nodelay(f->data, 1);
  if (udp || icmp)
    itg__sock_set_bufs(f->data, 4 * 1024 * 1024, 0);
  if (icmp) {
    /* a raw socket has no port: bound only to a source address asked */
    *port = 0;
    rc = c->src_host[0] != '\0' ? itg__sock_bind(f->data, &from) : 0;
    if (rc < 0)
      snprintf(msg, len, "cannot bind the data socket to %.100s: %s", host,
               itg_strerror(rc));
    return rc;
  }
  if (udp && c->meter == ITG_METER_RTT)
    itg__sock_set_rx_timestamps(f->data); /* else user-space times */
  rc = itg__sock_bind(f->data, &from);
  if (rc == 0)
    rc = itg__sock_local(f->data, &from);
  if (rc < 0) {
    snprintf(msg, len, "cannot bind the data socket to %.100s port %u: %s",
             host, (unsigned)c->src_port, itg_strerror(rc));
    return rc;
  }
  *port = itg__addr_port(&from);
  return 0;
}

/* FLOW_OPEN: the receiver opens the data port and may renumber the flow. */
static int ask_flow(itg__tx_flow *f, uint16_t src_port, uint16_t *data_port,
                    char *msg, size_t len) {
  const itg_flow_cfg *c = &f->cfg;
  itg__ctl_msg m, a;
  int rc;
  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN);
  m.flow_id = f->id;
  m.id_auto = c->flow_id == 0;
  m.proto = (uint8_t)c->proto;
  m.meter = (uint8_t)c->meter;
  m.wire = (uint8_t)c->wire;
  m.port = c->dst_port;
  m.src_port = src_port;
  m.tos = (int16_t)c->tos;
  m.ttl = (int16_t)c->ttl;
  memcpy(m.text, c->recv_log, sizeof c->recv_log);
  memcpy(m.log_host, c->recv_log_server, sizeof c->recv_log_server);
  m.log_port = c->recv_log_port;
  m.log_transport = (uint8_t)c->recv_log_transport;
  rc = exchange(f, &m, ITG__CTL_FLOW_OPEN_ACK, &a, msg, len);
  if (rc < 0)
    return rc;
  if (a.status != 0) {
    snprintf(msg, len, "refused by the receiver: %.120s", a.text);
    return a.status;
  }
  /* ICMP has no port: the receiver answers 0, as ITGRecv does */
  if ((a.port == 0 && c->proto != ITG_PROTO_ICMP) || a.flow_id == 0 ||
      (!m.id_auto && a.flow_id != f->id)) {
    snprintf(msg, len, "the receiver answered FLOW_OPEN with flow id %u "
             "on port %u", (unsigned)a.flow_id, (unsigned)a.port);
    return ITG_EPROTO;
  }
  f->id = a.flow_id;
  f->token = a.token;
  *data_port = a.port;
  snprintf(f->receiver_note, sizeof f->receiver_note, "%.159s", a.text);
  return 0;
}

/* Picks the flow's seed (or one from the clock) and makes its laws. */
static int make_laws(itg__tx_flow *f, size_t index, char *msg, size_t len) {
  uint64_t idt_seed, size_seed;
  int rc;
  f->seed = f->cfg.has_seed ? f->cfg.seed : auto_seed(index);
  itg__flow_seeds(f->seed, &idt_seed, &size_seed);
  rc = itg_dist_spec_make(&f->cfg.idt, idt_seed, &f->idt);
  if (rc < 0) {
    snprintf(msg, len, "cannot make the IDT law: %s", itg_strerror(rc));
    return rc;
  }
  rc = itg_dist_spec_make(&f->cfg.size, size_seed, &f->size);
  if (rc < 0) {
    snprintf(msg, len, "cannot make the size law: %s", itg_strerror(rc));
    return rc;
  }
  if (f->cfg.onoff) {
    rc = itg_dist_spec_make(&f->cfg.on, itg__flow_law_seed(f->seed, 3),
                            &f->on);
    if (rc == 0)
      rc = itg_dist_spec_make(&f->cfg.off, itg__flow_law_seed(f->seed, 4),
                              &f->off);
    if (rc < 0)
      snprintf(msg, len, "cannot make the on/off laws: %s", itg_strerror(rc));
  }
  return rc;
}

int itg__tx_setup(itg__tx_flow *f, size_t index) {
  const itg_flow_cfg *c = &f->cfg;
  int tcp = c->proto == ITG_PROTO_TCP;
  uint16_t src_port = 0, data_port = 0;
  char msg[160];
  itg__addr to;
  int rc;
  f->min_len = itg_flow_hdr_len(c);
  f->hdr_len = c->payload_type == ITG_PAYLOAD_NONE ? 0 : f->min_len;
  rc = make_laws(f, index, msg, sizeof msg);
  if (rc < 0)
    goto out_fail;
  rc = itg__addr_resolve(c->dst_host, c->sig_port, 0, &to);
  if (rc < 0) {
    snprintf(msg, sizeof msg, "cannot resolve '%.100s'", c->dst_host);
    goto out_fail;
  }
  rc = open_sig(f, &to, msg, sizeof msg);
  if (rc == 0)
    rc = open_data(f, &to, &src_port, msg, sizeof msg);
  if (rc == 0)
    rc = c->peer == ITG_PEER_DITG
             ? ditg_ask_flow(f, &to, &data_port, msg, sizeof msg)
             : ask_flow(f, src_port, &data_port, msg, sizeof msg);
  if (rc < 0)
    goto out_close;
  itg__addr_set_port(&to, data_port);
  f->data_port = data_port;
  rc = itg__sock_connect(f->data, &to, f->s->cfg.connect_timeout_ns);
  if (rc < 0) {
    snprintf(msg, sizeof msg, "cannot connect to the data port %u: %s",
             (unsigned)data_port, itg_strerror(rc));
    goto out_close;
  }
  if (tcp && c->meter == ITG_METER_RTT) {
    f->df = malloc(sizeof *f->df);
    if (f->df == NULL) {
      rc = ITG_ENOMEM;
      snprintf(msg, sizeof msg, "out of memory");
      goto out_close;
    }
    itg__deframe_init(f->df, c->wire);
  }
  itg__sock_set_nonblock(f->data, 1);
  itg__sock_set_nonblock(f->sig, 1);
  f->ready = 1;
  return 0;

out_close:
  itg__sock_close(f->data);
  itg__sock_close(f->sig);
  f->data = f->sig = ITG__BAD_SOCK;
out_fail:
  itg__tx_fail(f, rc, msg);
  return rc;
}
