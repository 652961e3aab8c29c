/* The sending thread: every flow's next departure in a min-heap, the
 * earliest waited for with the pacer, packets built, stamped and sent. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/checksum.h"
#include "core/pacer.h"
#include "core/payload.h"
#include "engine/sender_send.h"

/* A packet decided but not yet sent. */
typedef struct planned {
  uint64_t seq;
  size_t size;
  int64_t due_ns;
  size_t payload_off; /* in the flow's payload file, if it has one */
} planned;

/* The sending thread's last wake-up from a wait: when, and how long
 * after the instant it waited for. */
typedef struct wakeup {
  int64_t at_ns;
  int64_t late_ns;
} wakeup;

/* ---- the heap of next departures ------------------------------------ */

typedef struct heap {
  itg__tx_flow **v;
  size_t n;
} heap;

/* Whether f's departure at `at` comes before g's turn. Flows due at the
 * same instant (flows started together, at their first departure) go in
 * the order they were given: a script's flows start in its order, and
 * each flow's schedule, anchored at its first packet, keeps that order. */
static int first(const itg__tx_flow *f, int64_t at, const itg__tx_flow *g) {
  return at < g->turn_ns || (at == g->turn_ns && f->order < g->order);
}

/* Whether a's turn comes before b's: the earlier next departure, except
 * that a flow that filled a batch and still owes departures waits for the
 * flows that were due by then (requeue), so that a flow asking more than
 * the machine can send shares the thread with the others instead of
 * taking it. */
static int before(const itg__tx_flow *a, const itg__tx_flow *b) {
  return first(a, a->turn_ns, b);
}

/* Sets f's place in the heap after its turn, which came at now and sent
 * `full` departures if it filled a batch. */
static void requeue(itg__tx_flow *f, int64_t now, int full) {
  f->turn_ns = full && f->cu.due_ns < now ? now : f->cu.due_ns;
}

static void heap_up(heap *h, size_t i) {
  itg__tx_flow *f = h->v[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(f, h->v[p]))
      break;
    h->v[i] = h->v[p];
    i = p;
  }
  h->v[i] = f;
}

static void heap_down(heap *h, size_t i) {
  itg__tx_flow *f = h->v[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && before(h->v[c + 1], h->v[c]))
      c++;
    if (!before(h->v[c], f))
      break;
    h->v[i] = h->v[c];
    i = c;
  }
  h->v[i] = f;
}

/* The flow whose turn comes after the first's, or NULL. */
static const itg__tx_flow *heap_second(const heap *h) {
  if (h->n < 2)
    return NULL;
  return h->n > 2 && before(h->v[2], h->v[1]) ? h->v[2] : h->v[1];
}

static void heap_pop(heap *h) {
  if (--h->n > 0) {
    h->v[0] = h->v[h->n];
    heap_down(h, 0);
  }
}

/* ---- the flow's schedule -------------------------------------------- */

/* Whether the flow has nothing left to send at its next departure, or
 * its time is up at `now`: a flow still behind its schedule (asked for
 * more than the machine can send) a while after its duration stops then,
 * without sending what it owes. */
static int flow_over(const itg__tx_flow *f, int64_t now) {
  const itg_flow_cfg *c = &f->cfg;
  return (c->max_packets != 0 && f->seq >= c->max_packets) ||
         (c->max_bytes != 0 && f->bytes_planned >= c->max_bytes) ||
         f->cu.law_ns >= f->end_ns || now >= f->stop_ns;
}

/* An ICMP message's header: type, code, checksum, identifier, sequence. */
#define ICMP_HDR 8u

/* The next IDT in ns, and the next size in bytes (see flow.h for the
 * bounds and the rounding). */
static int64_t draw_idt_ns(itg__tx_flow *f) {
  double sec = itg_dist_spec_draw(&f->cfg.idt, f->idt, 0, ITG_FLOW_IDT_MAX);
  return (int64_t)llround(sec * 1e9);
}

/* The length in ns of the next on (or off) period. */
static int64_t draw_period_ns(const itg_dist_spec *spec, itg_dist *d) {
  return (int64_t)llround(itg_dist_spec_draw(spec, d, 0, ITG_FLOW_IDT_MAX) *
                          1e9);
}

/* Returns the law instant of an on/off flow's next departure `law`, moved
 * to the start of the next on period if its on period has ended: the off
 * period runs from the end of the on period. An on period always starts
 * with a departure, however short (D-ITG's too). */
static int64_t next_on(itg__tx_flow *f, int64_t law) {
  if (f->on == NULL || law < f->on_end_ns)
    return law;
  law = f->on_end_ns + draw_period_ns(&f->cfg.off, f->off);
  f->on_end_ns = law + draw_period_ns(&f->cfg.on, f->on);
  return law;
}

static size_t draw_size(itg__tx_flow *f) {
  size_t b = itg_flow_size_draw(&f->cfg.size, f->size, f->cfg.small,
                                f->min_len);
  /* An ICMP message holds the packet after its own 8-byte header, in the
   * same largest datagram. */
  if (f->cfg.proto == ITG_PROTO_ICMP && b > ITG_WIRE_MAX_PACKET - ICMP_HDR)
    b = ITG_WIRE_MAX_PACKET - ICMP_HDR;
  return b;
}

/* Decides the packets due by `now` (at least the first), at most max,
 * under the flow's catch-up policy (core/catchup.h), counting the
 * departures it moves or drops; `woke` is the sending thread's last
 * wake-up from a wait. A departure due after the turn of `rival`, the
 * flow whose turn comes next (NULL if none), waits for it: a flow that
 * owes several departures after a hold-up sends them in one batch only
 * while no other flow's falls due among them, so departures keep the
 * order of their instants. */
static int plan(itg__tx_flow *f, int64_t now, const wakeup *woke,
                const itg__tx_flow *rival, planned *p, int max) {
  uint64_t skipped = 0, shifted = 0;
  int k = 0;
  itg__catchup_woke(&f->cu, woke->at_ns, woke->late_ns);
  while (k < max && !flow_over(f, now) &&
         (k == 0 || (f->cu.due_ns <= now &&
                     (rival == NULL || first(f, f->cu.due_ns, rival))))) {
    int64_t due = f->cu.due_ns;
    size_t size = draw_size(f);
    int64_t idt = draw_idt_ns(f);
    int64_t next = next_on(f, f->cu.law_ns + idt);
    /* A flow's first departure starts its schedule (anchor), and the last
     * before its end has no later one to stand for it. */
    int may_skip = f->seq > 0 && next < f->end_ns;
    itg__catchup_fate fate = itg__catchup_take(&f->cu, now, next, idt,
                                               may_skip, f->end_ns);
    if (fate == ITG__CATCHUP_SKIPPED) {
      skipped++;
      continue;
    }
    shifted += fate == ITG__CATCHUP_SHIFTED;
    p[k].seq = ++f->seq;
    p[k].size = size;
    p[k].due_ns = due;
    p[k].payload_off = f->payload_off;
    if (f->payload != NULL)
      itg__payload_advance(f->payload_len, &f->payload_off,
                           p[k].size - f->hdr_len);
    f->bytes_planned += p[k].size;
    /* A flow's first departure anchors its schedule when it leaves
     * (anchor): none after it is owed yet, however late it is. */
    if (p[k++].seq == 1)
      break;
  }
  itg__tx_add(&f->ctr.skipped, skipped);
  itg__tx_add(&f->ctr.shifted, shifted);
  return k;
}

/* ---- sending -------------------------------------------------------- */

/* Writes a packet into buf, whose bytes [0, *dirty) may hold another
 * packet's header or payload (a flow of a longer header, or of another
 * payload type, shares the buffer). The payload is laid at plan time's
 * offset, so a datagram encoded again after a partial batch carries the
 * same bytes. */
static void encode(const itg__tx_flow *f, const planned *p, int64_t tx_ns,
                   uint8_t *buf, size_t *dirty) {
  itg_pkt_hdr h;
  if (f->payload != NULL) {
    size_t off = p->payload_off;
    itg__payload_fill(f->payload, f->payload_len, &off, buf + f->hdr_len,
                      p->size - f->hdr_len);
    if (p->size > *dirty)
      *dirty = p->size;
  } else {
    if (*dirty > f->hdr_len)
      memset(buf + f->hdr_len, 0, *dirty - f->hdr_len);
    *dirty = f->hdr_len;
  }
  if (f->cfg.payload_type == ITG_PAYLOAD_SEQ) {
    /* D-ITG's short header: the sequence number's low 32 bits, as the
     * full header keeps them, and the size over TCP. */
    itg__put_be32(buf, f->id);
    itg__put_be32(buf + 4, (uint32_t)p->seq);
    if (f->cfg.proto == ITG_PROTO_TCP)
      itg__put_be32(buf + 8, (uint32_t)p->size);
    return;
  }
  if (f->cfg.payload_type == ITG_PAYLOAD_NONE)
    return;
  memset(&h, 0, sizeof h);
  h.flags = f->cfg.meter == ITG_METER_RTT ? ITG_PKT_ECHO_REQUEST : 0;
  h.flow_id = f->id;
  h.seq = p->seq;
  h.tx_ns = tx_ns;
  h.length = (uint32_t)p->size;
  h.token = f->token;
  itg_wire_encode(f->cfg.wire, f->cfg.proto == ITG_PROTO_TCP, &h, buf,
                  p->size);
}

/* Writes an ICMP flow's message into buf (as encode does, dirty counted
 * from buf): the 8-byte header, then the packet encode lays. The
 * identifier and sequence number are the low 16 bits of the flow id and
 * of the packet's (ITGSend leaves them unset). */
static void encode_icmp(const itg__tx_flow *f, const planned *p,
                        int64_t tx_ns, uint8_t *buf, size_t *dirty) {
  size_t past = *dirty > ICMP_HDR ? *dirty - ICMP_HDR : 0;
  encode(f, p, tx_ns, buf + ICMP_HDR, &past);
  *dirty = past + ICMP_HDR;
  buf[0] = (uint8_t)f->cfg.icmp_type;
  buf[1] = 0;
  itg__put_be16(buf + 2, 0);
  itg__put_be16(buf + 4, (uint16_t)f->id);
  itg__put_be16(buf + 6, (uint16_t)p->seq);
  itg__put_be16(buf + 2, itg__inet_checksum(buf, p->size + ICMP_HDR));
}

/* Starts f's schedule at `mono`, the stamp of its first packet. A flow's
 * first packet pays for first-use costs (cold caches, the socket's first
 * route and wake-ups) that can reach a hundred microseconds; catching that
 * up would send the next packets in a burst, and measured from the first
 * packet the whole flow would look early by as much. */
static void anchor(itg__tx_flow *f, planned *first, int64_t mono) {
  int64_t shift = mono - first->due_ns;
  if (shift <= 0)
    return;
  first->due_ns = mono;
  itg__catchup_delay(&f->cu, shift);
  f->on_end_ns += shift;
  if (f->end_ns != INT64_MAX)
    f->end_ns += shift;
  if (f->stop_ns != INT64_MAX)
    f->stop_ns += shift;
}

/* Counts sent packets, their lateness, and logs them; a flow's first
 * packet starts its schedule (anchor). */
static void account(itg__tx_flow *f, planned *p, int n, int64_t tx_ns,
                    int64_t mono) {
  itg_sender *s = f->s;
  itg__tx_ctr *c = &f->ctr;
  uint64_t bytes = 0, late = 0;
  int64_t late_sum = 0;
  int64_t late_max = atomic_load_explicit(&c->late_max, memory_order_relaxed);
  int i;
  if (p[0].seq == 1)
    anchor(f, &p[0], mono);
  for (i = 0; i < n; i++) {
    int64_t l = mono - p[i].due_ns;
    bytes += p[i].size;
    if (l > 1000) {
      late++;
      late_sum += l;
      if (l > late_max)
        late_max = l;
    }
    if (s->log != NULL) {
      itg_logrec r;
      r.flow_id = f->id;
      r.size = (uint16_t)p[i].size;
      r.flags = (uint16_t)(ITG_REC_TX | (f->cfg.proto == ITG_PROTO_TCP
                                             ? ITG_REC_TCP
                                             : 0));
      r.seq = p[i].seq;
      r.tx_ns = tx_ns;
      r.rx_ns = 0;
      itg_logger_push(s->log, s->lane_send, &r);
    }
  }
  if (n > 0) {
    if (atomic_load_explicit(&c->first_tx, memory_order_relaxed) == 0)
      atomic_store_explicit(&c->first_tx, tx_ns, memory_order_relaxed);
    atomic_store_explicit(&c->last_tx, tx_ns, memory_order_relaxed);
  }
  itg__tx_add(&c->packets, (uint64_t)n);
  itg__tx_add(&c->bytes, bytes);
  itg__tx_add(&c->late, late);
  atomic_store_explicit(&c->late_max, late_max, memory_order_relaxed);
  atomic_store_explicit(&c->late_sum,
                        atomic_load_explicit(&c->late_sum,
                                             memory_order_relaxed) +
                            late_sum,
                        memory_order_relaxed);
}

/* Sends k datagrams in as few calls as the OS allows. A datagram the OS
 * refuses is counted and skipped; a full socket buffer is waited out. */
static void send_udp(itg__tx_flow *f, planned *p, int k) {
  itg_sender *s = f->s;
  int icmp = f->cfg.proto == ITG_PROTO_ICMP;
  int64_t tx_ns, mono;
  int i, done = 0;
  while (done < k) {
    int n;
    for (i = done; i < k; i++) {
      s->dg[i].buf = s->pkt_bufs + (size_t)i * ITG_WIRE_MAX_PACKET;
      s->dg[i].len = p[i].size + (icmp ? ICMP_HDR : 0);
      s->dg[i].peer = NULL;
    }
    mono = (int64_t)uv_hrtime();
    tx_ns = itg__real_ns();
    for (i = done; i < k; i++)
      if (icmp)
        encode_icmp(f, &p[i], tx_ns, s->dg[i].buf, &s->pkt_dirty[i]);
      else
        encode(f, &p[i], tx_ns, s->dg[i].buf, &s->pkt_dirty[i]);
    n = itg__send_batch(f->data, s->dg + done, k - done);
    if (n > 0) {
      account(f, p + done, n, tx_ns, mono);
      done += n;
    } else if (n == 0 && !atomic_load(&s->stop)) {
      itg__yield();
    } else {
      itg__tx_add(&f->ctr.send_errors, 1);
      done++;
    }
  }
}

/* Writes k packets on the flow's TCP stream, each stamped just before its
 * first byte goes. Returns 0, or an error that ends the flow. */
static int send_tcp(itg__tx_flow *f, planned *p, int k) {
  itg_sender *s = f->s;
  uint8_t *buf = s->pkt_bufs;
  int i;
  for (i = 0; i < k; i++) {
    int64_t mono = (int64_t)uv_hrtime();
    int64_t tx_ns = itg__real_ns();
    size_t off = 0;
    encode(f, &p[i], tx_ns, buf, &s->pkt_dirty[0]);
    while (off < p[i].size) {
      int n = itg__stream_send(f->data, buf + off, p[i].size - off);
      if (n < 0)
        return n;
      if (n == 0) {
        if (atomic_load(&s->stop))
          return ITG_ECANCELED;
        itg__sleep_until((int64_t)uv_hrtime() + 50000);
      }
      off += (size_t)n;
    }
    account(f, &p[i], 1, tx_ns, mono);
  }
  return 0;
}

/* Hands a flow that has sent everything over to the control thread. */
static void finish(itg__tx_flow *f) {
  atomic_store(&f->sent_all, 1);
  f->s->on_sent_all(f->s);
}

/* Sends the departures of f that are due by `now` and before rival's
 * turn (plan), `woke` being the sending thread's last wake-up, and sets
 * *sent to how many it planned. Returns 1 if f is over; otherwise f's
 * next turn is set. */
static int depart(itg__tx_flow *f, int64_t now, const wakeup *woke,
                  const itg__tx_flow *rival, int *sent) {
  planned p[ITG__TX_BATCH];
  int k = plan(f, now, woke, rival, p, ITG__TX_BATCH);
  *sent = k;
  if (k > 0 && f->cfg.proto != ITG_PROTO_TCP) {
    send_udp(f, p, k);
  } else if (k > 0) {
    int rc = send_tcp(f, p, k);
    if (rc < 0) {
      if (rc != ITG_ECANCELED)
        itg__tx_fail(f, rc, "the TCP data connection failed");
      return 1;
    }
  }
  if (flow_over(f, now))
    return 1;
  requeue(f, now, k == ITG__TX_BATCH);
  return 0;
}

/* Waits towards deadline, at most ITG__TX_STOP_NS at a time so a stop is
 * seen quickly. */
static void wait_for(itg_sender *s, itg_pacer *pacer, int64_t deadline) {
  int64_t chunk = (int64_t)uv_hrtime() + ITG__TX_STOP_NS;
  if (deadline <= chunk)
    itg_pacer_wait_until(pacer, deadline);
  else if (s->cfg.wait == ITG_WAIT_SPIN)
    itg_pacer_wait_until(pacer, chunk);
  else
    itg__sleep_until(chunk);
}

/* Touches the memory the first departures write: the thread's stack
 * below this frame and the first page of every packet buffer. In a
 * virtual machine the first touch of a page can cost tens of
 * microseconds, which would otherwise make the first packets late. */
static void warm_up(itg_sender *s) {
  volatile uint8_t stack[ITG__TX_WARM_STACK];
  size_t i;
  for (i = 0; i < sizeof stack; i += ITG__TX_WARM_PAGE)
    stack[i] = 0;
  for (i = 0; i < ITG__TX_BATCH; i++)
    memset(s->pkt_bufs + i * ITG_WIRE_MAX_PACKET, 0, ITG__TX_WARM_PAGE);
}

void itg__tx_send_main(void *arg) {
  itg_sender *s = arg;
  itg_pacer pacer;
  heap h;
  size_t i;
  int64_t t0, waited_for;
  /* The flows due at one wake-up are sent one after another; the time
   * that takes is the sender's own work, so the catch-up counts each flow
   * late by the wake-up's lateness, not by how long its turn took. */
  wakeup woke = {0, 0};
  int waited = 1, sent = 0;
  int64_t last_ns; /* the loop's last clock reading */
  itg__platform_init();
  if (s->cfg.cpu >= 0)
    itg__thread_pin(s->cfg.cpu);
  itg__thread_boost();
  /* The pacer calibrates itself on first use and the thread has just
   * started: the schedules begin after both, so no packet is born late and
   * sent in a catch-up burst. */
  itg__pacer_init(&pacer, s->cfg.wait, 0);
  h.v = malloc(s->n * sizeof *h.v);
  h.n = 0;
  if (h.v == NULL) {
    for (i = 0; i < s->n; i++)
      if (s->flows[i]->ready) {
        itg__tx_fail(s->flows[i], ITG_ENOMEM, "out of memory");
        finish(s->flows[i]);
      }
    return;
  }
  warm_up(s);
  t0 = (int64_t)uv_hrtime();
  if (s->cfg.hold) {
    uv_mutex_lock(&s->lock);
    while (!s->released && !atomic_load(&s->stop))
      uv_cond_wait(&s->go_cond, &s->lock);
    t0 = s->release_ns;
    uv_mutex_unlock(&s->lock);
    if (t0 < (int64_t)uv_hrtime())
      t0 = (int64_t)uv_hrtime();
  }
  for (i = 0; i < s->n; i++) {
    itg__tx_flow *f = s->flows[i];
    if (!f->ready)
      continue;
    f->order = i;
    itg__catchup_init(&f->cu, f->cfg.catchup,
                      t0 + f->cfg.start_delay_ns + f->spread_ns);
    if (f->on != NULL)
      f->on_end_ns = f->cu.law_ns + draw_period_ns(&f->cfg.on, f->on);
    f->end_ns = f->cfg.duration_ns > 0 ? f->cu.law_ns + f->cfg.duration_ns
                                       : INT64_MAX;
    /* A departure due before the end may leave late by up to a tenth of
     * the duration (1 s at most): a last packet that a busy machine
     * delays is still sent, a flow that cannot keep up does not run on. */
    f->stop_ns = f->cfg.duration_ns > 0
                     ? f->end_ns + (f->cfg.duration_ns / 10 < ITG__TX_GRACE_MAX_NS
                                        ? f->cfg.duration_ns / 10
                                        : ITG__TX_GRACE_MAX_NS)
                     : INT64_MAX;
    f->turn_ns = f->cu.due_ns;
    h.v[h.n++] = f;
    heap_up(&h, h.n - 1);
  }
  waited_for = t0;
  last_ns = t0;
  while (h.n > 0) {
    itg__tx_flow *f = h.v[0];
    int64_t now = (int64_t)uv_hrtime();
    if (waited) {
      woke.at_ns = now;
      woke.late_ns = now > waited_for ? now - waited_for : 0;
      waited = 0;
    } else if (now - last_ns > ITG__TX_STALL_NS +
                                   sent * ITG__TX_STALL_DGRAM_NS &&
               f->cu.due_ns < now) {
      /* The last turn took far longer than its sends do: the thread was
       * held up while it worked (preempted, a send that blocked), and
       * resumes as from a wake-up that late for the departure at hand.
       * Counted as the sender's own work, every departure the hold-up
       * delayed would leave at once and the next of each flow at its law
       * instant, short of its IDT by the hold-up. */
      woke.at_ns = now;
      woke.late_ns = now - f->cu.due_ns;
    }
    last_ns = now;
    sent = 0;
    if (atomic_load(&s->stop) || atomic_load(&f->abort) || flow_over(f, now)) {
      heap_pop(&h);
      finish(f);
    } else if (f->cu.due_ns > now) {
      waited_for = f->cu.due_ns;
      wait_for(s, &pacer, waited_for);
      waited = 1;
    } else if (depart(f, now, &woke, heap_second(&h), &sent)) {
      heap_pop(&h);
      finish(f);
    } else {
      heap_down(&h, 0);
    }
  }
  free(h.v);
}
