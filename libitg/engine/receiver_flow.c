/* The receiver's flows: setting them up (checks, id, data port, then
 * their log) and ending them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "engine/receiver_data.h"
#include "engine/receiver_flow.h"
#include "engine/receiver_guard.h"
#include "engine/receiver_live.h"
#include "engine/receiver_log.h"

/* ---- ids ------------------------------------------------------------ */

/* An id is taken if an open flow uses it in the same log file, or from
 * the same sender address (packets are told apart by address and id). */
static int id_taken(itg_receiver *r, const itg__rx_log *lg,
                    const uint8_t ip[16], uint32_t id) {
  itg__rx_flow *f;
  for (f = r->flow_list; f != NULL; f = f->next)
    if (f->id == id &&
        ((lg != NULL && f->log == lg) || memcmp(f->ip, ip, 16) == 0))
      return 1;
  return 0;
}

/* Whether the log file already holds records of this id. */
static int id_in_log(const itg__rx_log *lg, uint32_t id) {
  return lg != NULL && itg__idmap_get(&lg->ids, id) != NULL;
}

/* Chooses the id of a flow. A sender-numbered id is kept unless it is
 * taken or already in the log file (senders that follow one another all
 * start at 1; their flows must stay apart in a shared log): then the next
 * id after the largest in the file is given. A user-set id is kept unless
 * it is taken. Returns the id, or 0 if a user-set id is taken. */
static uint32_t choose_id(itg_receiver *r, const itg__rx_log *lg,
                          const uint8_t ip[16], uint32_t id, int id_auto) {
  if (id != 0 && !id_taken(r, lg, ip, id) && (!id_auto || !id_in_log(lg, id)))
    return id;
  if (id != 0 && !id_auto)
    return 0;
  id = lg != NULL ? lg->max_id + 1 : 1;
  while (id == 0 || id_taken(r, lg, ip, id) || id_in_log(lg, id))
    id++;
  return id;
}

/* Notes that a flow writes `id` into its log file. */
static int note_id(itg__rx_log *lg, uint32_t id) {
  if (lg == NULL || id_in_log(lg, id))
    return 0;
  if (id > lg->max_id)
    lg->max_id = id;
  return itg__idmap_put(&lg->ids, id, lg);
}

/* ---- set-up --------------------------------------------------------- */

static void fill_event(const itg__rx_flow *f, itg_flow_event_kind kind,
                       itg_flow_event *ev) {
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->flow_id = f->id;
  ev->proto = f->proto;
  ev->meter = f->meter;
  ev->port = f->port;
  snprintf(ev->peer, sizeof ev->peer, "%s", f->peer);
  ev->packets = f->packets;
  ev->bytes = f->bytes;
  ev->sent = f->sent;
  ev->sent_known = f->closing;
  if (f->log != NULL)
    snprintf(ev->log_file, sizeof ev->log_file, "%s", f->log->file);
  if (kind == ITG_FLOW_ENDED && f->finishing)
    snprintf(ev->message, sizeof ev->message,
             "closed by its sender, which tells no count (D-ITG)");
}

/* Draws a flow's token: unguessable, so that only its sender can put
 * packets into it, and never 0, which version 1 packets carry. */
static int new_token(uint64_t *out) {
  uint8_t b[8];
  do {
    int rc = itg__random_bytes(b, sizeof b);
    if (rc < 0)
      return rc;
    *out = itg__get_be64(b);
  } while (*out == 0);
  return 0;
}

/* The first 12 bytes of an IPv4 sender's address key (itg__net_ip_key). */
static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* Refuses what a peer may not ask of this receiver, before anything is
 * opened: another flow past the receiver's limit or its address's, a
 * privileged data port. */
static int flow_allowed(itg_receiver *r, const itg__rx_peer *from,
                        const itg__ctl_msg *m, char *msg, size_t msglen) {
  /* D-ITG's receiver exits when it cannot make a flow's socket; this one
   * refuses that flow alone and serves the others. */
  if (m->proto != ITG_PROTO_UDP && m->proto != ITG_PROTO_TCP &&
      m->proto != ITG_PROTO_ICMP) {
    snprintf(msg, msglen, "%s flows are not received here: UDP, TCP and "
             "ICMP only", itg_proto_name((itg_proto)m->proto));
    return ITG_ENOTSUP;
  }
  if (m->proto == ITG_PROTO_ICMP && m->meter == ITG_METER_RTT) {
    snprintf(msg, msglen, "ICMP flows are one-way here (-m owdm), as "
             "D-ITG's are");
    return ITG_ENOTSUP;
  }
  if (m->proto == ITG_PROTO_ICMP && memcmp(from->ip, v4mapped, 12) != 0) {
    snprintf(msg, msglen, "ICMP flows are received over IPv4 only, as "
             "D-ITG's are");
    return ITG_ENOTSUP;
  }
  if (atomic_load(&r->n_active) >= r->cfg.max_flows) {
    snprintf(msg, msglen, "the receiver serves %u flows already (its limit)",
             (unsigned)r->cfg.max_flows);
    return ITG_ELIMIT;
  }
  if (from->flows >= r->cfg.max_peer_flows) {
    snprintf(msg, msglen, "this address has %u flows open already (the "
             "limit per address)", (unsigned)r->cfg.max_peer_flows);
    return ITG_ELIMIT;
  }
  if (m->proto != ITG_PROTO_ICMP && m->port != 0 &&
      m->port < ITG__RX_FIRST_FREE_PORT &&
      !r->cfg.allow_privileged_ports) {
    snprintf(msg, msglen, "data port %u is below %u: this receiver opens "
             "no privileged port for a sender (see --allow-privileged-ports)",
             (unsigned)m->port, ITG__RX_FIRST_FREE_PORT);
    return ITG_EPERM;
  }
  return 0;
}

/* Everything a flow may be refused for is checked before its data port is
 * opened, and the port before its log is acquired: a refused flow leaves
 * no file behind. */
int itg__rx_flow_prepare(itg_receiver *r, const itg__rx_sender *s,
                         const itg__ctl_msg *m, itg__rx_flow **out,
                         char *path, int *fresh, char *msg, size_t msglen) {
  itg__rx_log *lg = NULL;
  itg__rx_flow *f;
  uint32_t id;
  int rc;
  rc = flow_allowed(r, s->from, m, msg, msglen);
  if (rc == 0)
    rc = itg__rx_log_lookup(r, s->ip, m, path, &lg, fresh, msg, msglen);
  if (rc != 0)
    return rc;
  /* A log not acquired yet holds no id and no flow uses it. */
  id = choose_id(r, lg, s->ip, m->flow_id, m->id_auto);
  if (id == 0) {
    snprintf(msg, msglen, "flow id %u is already in use",
             (unsigned)m->flow_id);
    return ITG_EBUSY;
  }
  f = calloc(1, sizeof *f);
  if (f == NULL) {
    snprintf(msg, msglen, "out of memory");
    return ITG_ENOMEM;
  }
  if (new_token(&f->token) < 0) {
    snprintf(msg, msglen, "the system's random source failed");
    rc = ITG_EIO;
    goto out_free_flow; /* nothing is held yet: no port, no log */
  }
  rc = itg__rx_sock_acquire(r, (itg_proto)m->proto, m->port, &f->sock);
  if (rc < 0 && m->proto == ITG_PROTO_ICMP) {
    snprintf(msg, msglen, "cannot open the raw ICMP socket%s: %s",
             rc == ITG_EPERM ? " (it needs root, or CAP_NET_RAW)"
             : rc == ITG_EINVAL ? " (ICMP is received over IPv4 only)"
                                : "",
             itg_strerror(rc));
    goto out_free_flow;
  }
  if (rc < 0) {
    snprintf(msg, msglen, "cannot open data port %u/%s%s%s: %s",
             (unsigned)m->port, m->proto == ITG_PROTO_TCP ? "TCP" : "UDP",
             r->cfg.data_iface[0] != '\0' ? " on interface " : "",
             r->cfg.data_iface, itg_strerror(rc));
    goto out_free_flow;
  }
  itg__rx_log_hold(lg);
  f->r = r;
  f->id = id;
  memcpy(f->ip, s->ip, 16);
  f->proto = (itg_proto)m->proto;
  f->meter = (itg_meter)m->meter;
  f->wire = (itg_wire_profile)m->wire;
  f->port = f->sock->port;
  f->icmp_type = -1;
  f->from = s->from;
  snprintf(f->peer, sizeof f->peer, "%s", s->peer);
  f->log = lg;
  *out = f;
  return 0;

out_free_flow:
  free(f);
  return rc;
}

void itg__rx_flow_discard(itg__rx_flow *f) {
  itg__rx_log_release(f->r, f->log, NULL, NULL);
  itg__rx_sock_release(f->sock);
  free(f);
}

int itg__rx_flow_start(itg__rx_flow *f, itg__rx_log *lg,
                       const itg__ctl_msg *m, void *owner,
                       itg__rx_flow_ended ended, char *msg, size_t msglen) {
  itg_receiver *r = f->r;
  itg_flow_event ev;
  int rc;
  if (lg != NULL)
    f->log = lg;
  lg = f->log;
  msg[0] = '\0';
  rc = flow_allowed(r, f->from, m, msg, msglen);
  if (rc == 0) {
    f->id = choose_id(r, lg, f->ip, m->flow_id, m->id_auto);
    if (f->id == 0) {
      snprintf(msg, msglen, "flow id %u is already in use",
               (unsigned)m->flow_id);
      rc = ITG_EBUSY;
    }
  }
  if (rc == 0 && (note_id(lg, f->id) < 0 || itg__rx_live_open(f) < 0)) {
    snprintf(msg, msglen, "out of memory");
    rc = ITG_ENOMEM;
  }
  if (rc < 0) {
    itg__rx_flow_discard(f);
    return rc;
  }
  /* libitg's sender sets the identifier of the id it is answered */
  f->icmp_ident = m->ditg ? -1 : (int)(f->id & 0xffff);
  f->owner = owner;
  f->ended = ended;
  f->from->flows++;
  uv_timer_init(&r->loop, &f->linger);
  f->linger.data = f;
  f->next = r->flow_list;
  if (f->next != NULL)
    f->next->prev = f;
  r->flow_list = f;
  itg__rx_demux_add(r, f);
  atomic_fetch_add(&r->n_served, 1);
  atomic_fetch_add(&r->n_active, 1);
  itg__rx_count(r, 0, 1);
  fill_event(f, ITG_FLOW_OPENED, &ev);
  if (itg__rx_log_announce_unreachable(lg)) {
    ev.log_unreachable = 1;
    snprintf(ev.log_spill, sizeof ev.log_spill, "%s", lg->spill);
    /* Told to the sender too, whose user asked for that log server. */
    snprintf(msg, msglen, "its log server %.100s port %u cannot be reached; "
             "the receiver log goes to the spill file %.200s until it can",
             m->log_host, (unsigned)m->log_port, lg->spill);
  } else if (lg != NULL && lg->file[0] != '\0' &&
             strcmp(lg->file, lg->path) != 0) {
    /* The sender's user looks for the log under the name it gave. */
    snprintf(msg, msglen, "receiver log %.200s exists: this flow's goes "
             "to %.200s%s", m->text, m->text, lg->file + strlen(lg->path));
  }
  itg__rx_event(r, &ev);
  return 0;
}

/* ---- end ------------------------------------------------------------ */

static void end_flow(itg__rx_flow *f);

void itg__rx_run_pending(itg_receiver *r) {
  while (r->pending != NULL)
    end_flow(r->pending);
}

/* Ends a closing flow once no packet of it arrived for a linger period.
 * Silence is judged on the socket, not on what the loop has read: a loop
 * held up past the linger (a busy machine) runs its timers before it
 * polls, so datagrams that arrived meanwhile still wait there. */
static void on_linger(uv_timer_t *t) {
  itg__rx_flow *f = t->data;
  if (f->proto == ITG_PROTO_UDP) {
    int complete;
    itg__rx_udp_drain(f->sock);
    complete = f->end_pending;
    itg__rx_run_pending(f->r); /* f among them if it now has every packet */
    if (complete)
      return;
  }
  if (f->packets != f->linger_mark) {
    f->linger_mark = f->packets;
    uv_timer_start(&f->linger, on_linger, ITG__RX_LINGER_MS, 0);
    return;
  }
  end_flow(f);
}

void itg__rx_flow_closing(itg__rx_flow *f, uint64_t sent) {
  f->closing = 1;
  f->sent = sent;
  if (f->proto == ITG_PROTO_UDP)
    itg__rx_udp_drain(f->sock);
  itg__rx_progress(f);
  if (!f->end_pending) {
    f->linger_mark = f->packets;
    uv_timer_start(&f->linger, on_linger, ITG__RX_LINGER_MS, 0);
  }
}

/* Ends f after a linger period without its packets. */
static void linger_out(itg__rx_flow *f) {
  if (f->proto == ITG_PROTO_UDP)
    itg__rx_udp_drain(f->sock);
  f->linger_mark = f->packets;
  uv_timer_start(&f->linger, on_linger, ITG__RX_LINGER_MS, 0);
}

void itg__rx_flow_finishing(itg__rx_flow *f) {
  f->finishing = 1;
  linger_out(f);
}

void itg__rx_flow_orphan(itg__rx_flow *f) {
  /* Its last datagrams may still be on their way: over loopback the kernel
   * can queue them on another CPU than the connection's close, so the
   * close is seen first. */
  f->owner = NULL;
  linger_out(f);
}

static void on_flow_freed(uv_handle_t *h) { free(h->data); }

/* Takes f out of the pending list, its bucket and the flow list. */
static void unlink_flow(itg_receiver *r, itg__rx_flow *f) {
  itg__rx_demux_remove(r, f);
  if (f->prev != NULL)
    f->prev->next = f->next;
  else
    r->flow_list = f->next;
  if (f->next != NULL)
    f->next->prev = f->prev;
}

/* The last of a flow's end, once its log has let it go: the receiver is
 * idle only when the logs of its ended flows are closed. */
static void flow_gone(itg_receiver *r, itg_flow_event *ev) {
  atomic_fetch_sub(&r->n_active, 1);
  itg__rx_event(r, ev);
  itg__rx_count(r, 0, -1);
}

/* Ends f with what has been read of it. */
static void end_flow(itg__rx_flow *f) {
  itg_receiver *r = f->r;
  itg_flow_event ev;
  uv_timer_stop(&f->linger);
  /* Every flow logged ends with its end record, so a decoder tells a log
   * cut short from a finished one. A sender that never closed its flow
   * told no count: 0 says so; a flow that neither closed nor logged a
   * packet leaves nothing to end. */
  if (f->closing || f->packets > 0) {
    itg_logrec rec;
    memset(&rec, 0, sizeof rec);
    rec.flow_id = f->id;
    rec.flags = (uint16_t)(ITG_REC_FLOW_END | ITG_REC_RX |
                           (f->proto == ITG_PROTO_TCP ? ITG_REC_TCP : 0));
    rec.seq = f->closing ? f->sent : 0;
    rec.tx_ns = itg__real_ns();
    itg__rx_record(r, f, &rec);
  }
  itg__rx_flush_records(r);
  itg__rx_live_close(f, f->closing ? f->sent : 0);
  fill_event(f, ITG_FLOW_ENDED, &ev);
  if (f->owner != NULL) {
    void *owner = f->owner;
    f->owner = NULL;
    f->ended(owner, f);
  }
  if (f->data != NULL) {
    itg__rx_tcp *t = f->data;
    f->data = NULL;
    t->flow = NULL;
    itg__rx_tcp_close(t);
  }
  unlink_flow(r, f);
  f->from->flows--;
  itg__rx_peer_release(r, f->from);
  itg__rx_sock_release(f->sock);
  itg__rx_log_release(r, f->log, &ev, flow_gone);
  uv_close((uv_handle_t *)&f->linger, on_flow_freed);
}

void itg__rx_flow_end(itg__rx_flow *f) {
  if (f->proto == ITG_PROTO_UDP)
    itg__rx_udp_drain(f->sock);
  end_flow(f);
}

void itg__rx_flow_end_all(itg_receiver *r) {
  while (r->flow_list != NULL)
    itg__rx_flow_end(r->flow_list);
}
