/* Tests of the streaming statistics, the JSON report, the interval series
 * and the decoding of log files (itg/stats.h). The expected values are
 * worked out by hand in the comments, or computed independently (a sorted
 * array for the percentiles). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/tmpdir.h"
#include "itg/flow.h"
#include "itg/stats.h"

#define T0 1700000000000000000LL /* an epoch time in ns */
#define MS 1000000LL
#define US 1000LL

/* ---- helpers ------------------------------------------------------------- */

static itg_logrec rec(uint16_t flags, uint32_t flow, uint64_t seq,
                      int64_t tx_ns, int64_t rx_ns, uint16_t size) {
  itg_logrec r;
  memset(&r, 0, sizeof r);
  r.flow_id = flow;
  r.flags = flags;
  r.seq = seq;
  r.tx_ns = tx_ns;
  r.rx_ns = rx_ns;
  r.size = size;
  return r;
}

/* A receiver's record: sent at tx, arrived delay ns later. */
static itg_logrec rx(uint32_t flow, uint64_t seq, int64_t tx, int64_t delay,
                     uint16_t size) {
  return rec(ITG_REC_RX, flow, seq, tx, tx + delay, size);
}

static itg_logrec flow_end(uint32_t flow, uint64_t sent) {
  return rec(ITG_REC_FLOW_END, flow, sent, T0, 0, 0);
}

static itg_stats *new_stats(void) {
  itg_stats *s = NULL;
  assert_int_equal(itg_stats_new(&s), 0);
  assert_non_null(s);
  return s;
}

static void add(itg_stats *s, const itg_logrec *r, size_t n) {
  assert_int_equal(itg_stats_add(s, r, n), 0);
}

static itg_flow_stats entry(const itg_stats *s, size_t i) {
  itg_flow_stats f;
  assert_int_equal(itg_stats_flow(s, i, &f), 0);
  return f;
}

static itg_flow_stats total(const itg_stats *s, itg_stats_meter m) {
  itg_flow_stats f;
  assert_int_equal(itg_stats_total(s, m, &f), 0);
  return f;
}

static void assert_close(double got, double want, double tol) {
  if (!(fabs(got - want) <= tol))
    fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Within the histogram's documented precision (0.05 %) of want. */
static void assert_quantile(int64_t got, int64_t want) {
  double tol = fabs((double)want) * 0.0005 + 0.5;
  assert_close((double)got, (double)want, tol);
}

/* The whole JSON report, allocated. */
static char *json_of(const itg_stats *s) {
  size_t need = 0;
  char *buf;
  assert_int_equal(itg_stats_json(s, NULL, 0, &need), ITG_ERANGE);
  assert_true(need > 1);
  buf = malloc(need);
  assert_non_null(buf);
  assert_int_equal(itg_stats_json(s, buf, need, NULL), 0);
  assert_int_equal(strlen(buf), need - 1);
  return buf;
}

/* ---- one flow, worked by hand -------------------------------------------- */

/* Four packets of 100 bytes sent 1 ms apart, with one-way delays 10, 30,
 * 20, 40 us:
 *   mean 25 us; deviations -15, 5, -5, 15 -> squares 225+25+25+225 = 500
 *   us^2 over 4 = 125 -> std sqrt(125) = 11.18034 us (population);
 *   D-ITG jitter |30-10|, |20-30|, |40-20| = 20, 10, 20 -> 50/3 us;
 *   RFC 3550: J = 20000/16 = 1250; J += (10000-1250)/16 -> 1796.875;
 *   J += (20000-1796.875)/16 -> 2934.5703125 ns;
 *   arrivals at 10 us, 1.03 ms, 2.02 ms, 3.04 ms -> span 3.03 ms:
 *   bitrate 400*8/1000/0.00303 = 1056.1056 kbit/s, rate 4/0.00303 pps;
 *   p50 is the 2nd of (10, 20, 30, 40) = 20 us, p99 the 4th = 40 us. */
static void test_hand_computed_flow(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {
      rx(1, 1, T0, 10 * US, 100), rx(1, 2, T0 + 1 * MS, 30 * US, 100),
      rx(1, 3, T0 + 2 * MS, 20 * US, 100), rx(1, 4, T0 + 3 * MS, 40 * US, 100)};
  add(s, r, 4);
  assert_int_equal(itg_stats_flow_count(s), 1);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.flow_id, 1);
  assert_int_equal(f.meter, ITG_STATS_OWD);
  assert_int_equal(f.flows, 1);
  assert_int_equal(f.packets, 4);
  assert_int_equal(f.bytes, 400);
  assert_int_equal(f.expected, 4);
  assert_int_equal(f.lost, 0);
  assert_int_equal(f.loss_bursts, 0);
  assert_int_equal(f.duplicates, 0);
  assert_int_equal(f.reordered, 0);
  assert_int_equal(f.delay_min_ns, 10 * US);
  assert_int_equal(f.delay_max_ns, 40 * US);
  assert_close(f.delay_avg_ns, 25000, 1e-6);
  assert_close(f.delay_std_ns, sqrt(125.0) * 1000, 1e-6);
  assert_close(f.jitter_avg_ns, 50000.0 / 3, 1e-6);
  assert_close(f.jitter_rfc3550_ns, 2934.5703125, 1e-9);
  assert_int_equal(f.first_ns, T0 + 10 * US);
  assert_int_equal(f.last_ns, T0 + 3 * MS + 40 * US);
  assert_int_equal(f.duration_ns, 3030 * US);
  assert_close(f.bitrate_kbps, 3.2 / 0.00303, 1e-6);
  assert_close(f.rate_pps, 4 / 0.00303, 1e-6);
  assert_quantile(f.delay_p50_ns, 20 * US);
  assert_quantile(f.delay_p99_ns, 40 * US);
  assert_close(f.loss_pct, 0, 0);
  /* The total of a single flow is that flow. */
  itg_flow_stats t = total(s, ITG_STATS_MAIN);
  assert_int_equal(t.flow_id, 0);
  assert_int_equal(t.meter, ITG_STATS_OWD);
  assert_int_equal(t.packets, 4);
  assert_close(t.delay_std_ns, f.delay_std_ns, 1e-6);
  assert_close(t.jitter_avg_ns, f.jitter_avg_ns, 1e-6);
  assert_close(t.jitter_rfc3550_ns, f.jitter_rfc3550_ns, 1e-9);
  assert_close(t.bitrate_kbps, f.bitrate_kbps, 1e-6);
  itg_stats_free(s);
}

/* RFC 3550 on delays 0, 16, 0, 16 us: |D| is 16000 ns each time, so
 *   J1 = 16000/16 = 1000; J2 = 1000 + 15000/16 = 1937.5;
 *   J3 = 1937.5 + (16000 - 1937.5)/16 = 2816.40625,
 * while D-ITG's jitter is the plain mean, 16000 ns. Batches of one record
 * give the same result as one batch (the state carries over). */
static void test_rfc3550_jitter(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  int64_t delays[] = {0, 16 * US, 0, 16 * US};
  for (int i = 0; i < 4; i++) {
    itg_logrec r = rx(7, (uint64_t)i + 1, T0 + i * MS, delays[i], 64);
    add(s, &r, 1);
  }
  itg_flow_stats f = entry(s, 0);
  assert_close(f.jitter_rfc3550_ns, 2816.40625, 1e-9);
  assert_close(f.jitter_avg_ns, 16000, 1e-9);
  assert_int_equal(f.delay_min_ns, 0);
  assert_int_equal(f.delay_p50_ns, 0); /* 2nd of (0, 0, 16, 16) */
  itg_stats_free(s);
}

/* ---- loss, bursts, duplicates, reordering -------------------------------- */

/* Sequences 1, 2, 4, 7 arrive. Without an end record the sender is taken
 * to have sent 7: lost 3, 5, 6 = 3 packets in 2 bursts ({3}, {5,6}), mean
 * burst 1.5, 3/7 lost. With FLOW_END saying 10 were sent, 8, 9 and 10 are
 * lost too: 6 lost, 3 bursts, mean 2, 60 %. */
static void test_loss_and_tail_loss(void **state) {
  (void)state;
  itg_logrec r[] = {rx(1, 1, T0, 5 * US, 50), rx(1, 2, T0 + MS, 5 * US, 50),
                    rx(1, 4, T0 + 3 * MS, 5 * US, 50),
                    rx(1, 7, T0 + 6 * MS, 5 * US, 50), flow_end(1, 10)};
  itg_stats *s = new_stats();
  add(s, r, 4);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.packets, 4);
  assert_int_equal(f.expected, 7);
  assert_int_equal(f.lost, 3);
  assert_int_equal(f.loss_bursts, 2);
  assert_close(f.loss_burst_avg, 1.5, 1e-12);
  assert_close(f.loss_pct, 300.0 / 7, 1e-9);
  assert_int_equal(f.reordered, 0);

  add(s, &r[4], 1);
  assert_int_equal(itg_stats_flow_count(s), 1);
  f = entry(s, 0);
  assert_int_equal(f.packets, 4);
  assert_int_equal(f.expected, 10);
  assert_int_equal(f.lost, 6);
  assert_int_equal(f.loss_bursts, 3);
  assert_close(f.loss_burst_avg, 2.0, 1e-12);
  assert_close(f.loss_pct, 60.0, 1e-9);
  itg_stats_free(s);
}

/* The sender's TX records give the count sent when there is no end
 * record: TX 1..10 plus RX 1..8 is one OWD entry with 2 lost at the tail;
 * its bitrate runs over arrivals only. */
static void test_sender_records_give_sent(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  for (uint64_t i = 1; i <= 10; i++) {
    itg_logrec t = rec(ITG_REC_TX, 3, i, T0 + (int64_t)i * MS, 0, 64);
    add(s, &t, 1);
  }
  for (uint64_t i = 1; i <= 8; i++) {
    itg_logrec a = rx(3, i, T0 + (int64_t)i * MS, 100 * US, 64);
    add(s, &a, 1);
  }
  assert_int_equal(itg_stats_flow_count(s), 1);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.meter, ITG_STATS_OWD);
  assert_int_equal(f.packets, 8);
  assert_int_equal(f.expected, 10);
  assert_int_equal(f.lost, 2);
  assert_int_equal(f.loss_bursts, 1);
  assert_int_equal(f.duration_ns, 7 * MS);
  assert_close(f.rate_pps, 8 / 0.007, 1e-6);
  itg_stats_free(s);
}

/* Arrival order 1, 3, 2, 3, 5, 4, 4, 1:
 *   1 new, 3 new, 2 reordered, 3 duplicate, 5 new, 4 reordered,
 *   4 duplicate, 1 duplicate -> 8 packets, 3 duplicates, 2 reordered,
 *   5 distinct of 5 expected: nothing lost. */
static void test_duplicates_and_reordering(void **state) {
  (void)state;
  uint64_t order[] = {1, 3, 2, 3, 5, 4, 4, 1};
  itg_stats *s = new_stats();
  for (int i = 0; i < 8; i++) {
    itg_logrec r = rx(2, order[i], T0 + i * MS, 20 * US, 80);
    add(s, &r, 1);
  }
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.packets, 8);
  assert_int_equal(f.bytes, 640);
  assert_int_equal(f.duplicates, 3);
  assert_int_equal(f.reordered, 2);
  assert_int_equal(f.expected, 5);
  assert_int_equal(f.lost, 0);
  assert_int_equal(f.loss_bursts, 0);
  itg_stats_free(s);
}

/* A long flow that slides the 65536-number window many times: 1..200000
 * with 1000..1009 (10), 70000 (1) and 150000..150099 (100) missing is 111
 * lost in 3 bursts (mean 37). Packet 1005 arriving at the very end is far
 * older than the window: it counts as reordered and as received. A packet
 * repeated inside the window is still caught as a duplicate. */
static void test_bursts_across_the_window(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec batch[512];
  size_t n = 0;
  for (uint64_t i = 1; i <= 200000; i++) {
    if ((i >= 1000 && i <= 1009) || i == 70000 || (i >= 150000 && i <= 150099))
      continue;
    batch[n++] = rx(9, i, T0 + (int64_t)i * US, 30 * US, 64);
    if (n == 512) {
      add(s, batch, n);
      n = 0;
    }
  }
  add(s, batch, n);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.packets, 200000 - 111);
  assert_int_equal(f.lost, 111);
  assert_int_equal(f.loss_bursts, 3);
  assert_close(f.loss_burst_avg, 37.0, 1e-12);
  assert_int_equal(f.duplicates, 0);

  itg_logrec late = rx(9, 1005, T0, 30 * US, 64);
  itg_logrec again = rx(9, 199990, T0, 30 * US, 64);
  add(s, &late, 1);
  add(s, &again, 1);
  f = entry(s, 0);
  assert_int_equal(f.lost, 110);
  assert_int_equal(f.reordered, 1);
  assert_int_equal(f.duplicates, 1);
  itg_stats_free(s);
}

/* A jump far beyond the window (1, then 100000, then 1000000) loses
 * everything in between: 2 bursts, 99998 + 899999 packets. */
static void test_jump_beyond_the_window(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(4, 1, T0, US, 64), rx(4, 100000, T0 + MS, US, 64),
                    rx(4, 1000000, T0 + 2 * MS, US, 64)};
  add(s, r, 3);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.expected, 1000000);
  assert_int_equal(f.lost, 999997);
  assert_int_equal(f.loss_bursts, 2);
  assert_close(f.loss_burst_avg, 999997 / 2.0, 1e-9);
  itg_stats_free(s);
}

/* A forged or damaged sequence number far beyond the flow (here the
 * largest there is) is held, not believed: the flow of 1..5 with 3 lost
 * still expects 5 and loses 1, not 2^64 - 5. */
static void test_far_number_is_an_outlier(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(4, 1, T0, US, 64), rx(4, 2, T0 + MS, US, 64),
                    rx(4, UINT64_MAX, T0 + 2 * MS, US, 64),
                    rx(4, 4, T0 + 3 * MS, US, 64),
                    rx(4, 5, T0 + 4 * MS, US, 64),
                    rx(4, UINT64_MAX / 2, T0 + 5 * MS, US, 64)};
  add(s, r, 6);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.packets, 6);
  assert_int_equal(f.expected, 5);
  assert_int_equal(f.lost, 1);
  assert_int_equal(f.loss_bursts, 1);
  assert_int_equal(f.reordered, 0);
  itg_stats_free(s);
}

/* Two far numbers close together confirm a jump, even to the end of the
 * number space: the window's walk up to 2^64 - 1 ends (it wrapped around
 * to 0 and never did), and the jump counts as lost. */
static void test_confirmed_jump_to_the_last_number(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(4, 1, T0, US, 64),
                    rx(4, UINT64_MAX - 1, T0 + MS, US, 64),
                    rx(4, UINT64_MAX, T0 + 2 * MS, US, 64)};
  add(s, r, 3);
  itg_flow_stats f = entry(s, 0);
  assert_true(f.expected == UINT64_MAX);
  assert_true(f.lost == UINT64_MAX - 3);
  assert_int_equal(f.loss_bursts, 1);
  itg_stats_free(s);

  /* The same number alone, as the first record of a flow. */
  s = new_stats();
  itg_logrec last[] = {rx(5, UINT64_MAX, T0, US, 64),
                       rx(5, UINT64_MAX - 3, T0 + MS, US, 64)};
  add(s, last, 2);
  f = entry(s, 0);
  assert_true(f.expected == UINT64_MAX);
  assert_int_equal(f.reordered, 1);
  itg_stats_free(s);
}

/* The interval series follows the same rule: a lone far number adds no
 * loss; a confirmed jump does. */
static void test_series_far_numbers(void **state) {
  (void)state;
  itg_series *s = NULL;
  itg_series_point p;
  itg_logrec r[] = {rx(1, 1, T0, US, 64), rx(1, UINT64_MAX, T0 + US, US, 64),
                    rx(1, 3, T0 + 2 * US, US, 64)};
  assert_int_equal(itg_series_new(MS, ITG_STATS_OWD, &s), 0);
  assert_int_equal(itg_series_add(s, r, 3), 0);
  assert_int_equal(itg_series_get(s, 0, 0, &p), 0);
  assert_int_equal(p.packets, 3);
  assert_int_equal(p.lost, 1);
  itg_logrec jump[] = {rx(1, 1u << 30, T0 + 3 * US, US, 64),
                       rx(1, (1u << 30) + 1, T0 + 4 * US, US, 64)};
  assert_int_equal(itg_series_add(s, jump, 2), 0);
  assert_int_equal(itg_series_get(s, 0, 0, &p), 0);
  assert_int_equal(p.lost, 1 + (1u << 30) - 4);
  itg_series_free(s);
}

/* A receiver's end record for a flow its sender never closed counts 0:
 * the sender's TX records still tell how many were sent (6: 3 lost). */
static void test_end_without_count(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(4, 1, T0, US, 64), rx(4, 2, T0 + MS, US, 64),
                    rx(4, 4, T0 + 3 * MS, US, 64),
                    rec(ITG_REC_FLOW_END | ITG_REC_RX, 4, 0, T0, 0, 0),
                    rec(ITG_REC_TX, 4, 6, T0 + 5 * MS, 0, 64)};
  add(s, r, 5);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.expected, 6);
  assert_int_equal(f.lost, 3);
  itg_stats_free(s);
}

/* An end count far beyond every number seen is not believed (a flow known
 * only by END 2^63 lost 2^63 packets); a near one is. A sender's far TX
 * number alone is held as a received one is. */
static void test_far_end_and_tx_counts(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rec(ITG_REC_FLOW_END | ITG_REC_RX, 1, (uint64_t)1 << 63,
                        T0, 0, 0),
                    rec(ITG_REC_FLOW_END | ITG_REC_RX, 2, 1000, T0, 0, 0),
                    rec(ITG_REC_TX, 3, 1, T0, 0, 64),
                    rec(ITG_REC_TX, 3, UINT64_MAX, T0 + MS, 0, 64),
                    rec(ITG_REC_TX, 3, 2, T0 + 2 * MS, 0, 64),
                    rx(3, 1, T0, US, 64)};
  add(s, r, 6);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.flow_id, 1);
  assert_int_equal(f.expected, 0);
  assert_int_equal(f.lost, 0);
  f = entry(s, 1);
  assert_int_equal(f.expected, 1000);
  assert_int_equal(f.lost, 1000);
  assert_true(f.loss_pct == 100.0);
  f = entry(s, 2);
  assert_int_equal(f.expected, 2);
  assert_int_equal(f.lost, 1);
  itg_stats_free(s);
}

/* A loss of every packet is 100 %, never a rounding above it: 100 * x / x
 * is 100.00000000000001 for this x. */
static void test_loss_pct_at_most_100(void **state) {
  (void)state;
  const uint64_t x = 7566049573039268864u;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rec(ITG_REC_TX, 1, x - 1, T0, 0, 64),
                    rec(ITG_REC_TX, 1, x, T0 + MS, 0, 64),
                    rec(ITG_REC_FLOW_END | ITG_REC_RX, 1, x, T0, 0, 0)};
  add(s, r, 3);
  itg_flow_stats f = entry(s, 0);
  assert_true(f.expected == x);
  assert_true(f.lost == x);
  assert_true(f.loss_pct == 100.0);
  itg_stats_free(s);
}

/* ---- meters and totals --------------------------------------------------- */

/* Two one-way flows: A (id 5) delays 10 and 30 us, B (id 2) 20, 40, 60 us.
 * Entries come in id order. Total over all five delays: mean 32 us;
 * deviations -22, -2, -12, 8, 28 -> squares 484+4+144+64+784 = 1480 over
 * 5 = 296 -> std sqrt(296) us; jitter pairs (20) in A and (20, 20) in B ->
 * 20 us; p50 is the 3rd of (10, 20, 30, 40, 60) = 30 us; arrivals span
 * from A's first (T0 + 10 us) to B's last (T0 + 4 ms + 60 us). */
static void test_total_over_flows(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(5, 1, T0, 10 * US, 100), rx(2, 1, T0 + MS, 20 * US, 200),
                    rx(5, 2, T0 + MS, 30 * US, 100),
                    rx(2, 2, T0 + 2 * MS, 40 * US, 200),
                    rx(2, 3, T0 + 4 * MS, 60 * US, 200)};
  add(s, r, 5);
  assert_int_equal(itg_stats_flow_count(s), 2);
  assert_int_equal(entry(s, 0).flow_id, 2);
  assert_int_equal(entry(s, 1).flow_id, 5);
  itg_flow_stats t = total(s, ITG_STATS_OWD);
  assert_int_equal(t.flows, 2);
  assert_int_equal(t.packets, 5);
  assert_int_equal(t.bytes, 800);
  assert_close(t.delay_avg_ns, 32000, 1e-6);
  assert_close(t.delay_std_ns, sqrt(296.0) * 1000, 1e-6);
  assert_int_equal(t.delay_min_ns, 10 * US);
  assert_int_equal(t.delay_max_ns, 60 * US);
  assert_close(t.jitter_avg_ns, 20000, 1e-6);
  assert_quantile(t.delay_p50_ns, 30 * US);
  assert_int_equal(t.duration_ns, 4 * MS + 50 * US);
  assert_close(t.bitrate_kbps, 800 * 8 / 1000.0 / 0.00405, 1e-6);
  /* No round-trip or sent entries: those totals are empty. */
  assert_int_equal(total(s, ITG_STATS_RTT).flows, 0);
  assert_int_equal(total(s, ITG_STATS_RTT).packets, 0);
  itg_flow_stats bad;
  assert_int_equal(itg_stats_total(s, (itg_stats_meter)9, &bad), ITG_EINVAL);
  itg_stats_free(s);
}

/* A one-way sender's log (TX records and its end record) is one SENT
 * entry: 5 packets of 64 bytes over 4 ms of send times = 1250 pkt/s and
 * 5*64*8/1000/0.004 = 640 kbit/s. A round-trip sender's records are an RTT
 * entry; a flow with both arrivals and round trips is listed under both
 * meters; the main meter is OWD as soon as there is a one-way entry. */
static void test_meters(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  for (uint64_t i = 1; i <= 5; i++) {
    itg_logrec t = rec(ITG_REC_TX, 1, i, T0 + (int64_t)(i - 1) * MS, 0, 64);
    add(s, &t, 1);
  }
  itg_logrec end = rec(ITG_REC_FLOW_END, 1, 5, T0 + 5 * MS, 0, 0);
  add(s, &end, 1);
  assert_int_equal(itg_stats_flow_count(s), 1);
  assert_int_equal(itg_stats_main_meter(s), ITG_STATS_SENT);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.meter, ITG_STATS_SENT);
  assert_int_equal(f.packets, 5);
  assert_int_equal(f.bytes, 320);
  assert_int_equal(f.lost, 0);
  assert_int_equal(f.duration_ns, 4 * MS);
  assert_close(f.rate_pps, 1250, 1e-9);
  assert_close(f.bitrate_kbps, 640, 1e-9);
  assert_int_equal(f.delay_max_ns, 0);

  /* Round trips of 200 and 300 us for flow 2; an echo that never came
   * back (rx_ns 0) counts as sent, and so as lost. */
  itg_logrec rt[] = {
      rec(ITG_REC_TX | ITG_REC_RTT, 2, 1, T0, T0 + 200 * US, 64),
      rec(ITG_REC_TX | ITG_REC_RTT, 2, 2, T0 + MS, T0 + MS + 300 * US, 64),
      rec(ITG_REC_TX | ITG_REC_RTT, 2, 3, T0 + 2 * MS, 0, 64)};
  add(s, rt, 3);
  assert_int_equal(itg_stats_main_meter(s), ITG_STATS_RTT);
  f = entry(s, 1);
  assert_int_equal(f.flow_id, 2);
  assert_int_equal(f.meter, ITG_STATS_RTT);
  assert_int_equal(f.packets, 2);
  assert_int_equal(f.expected, 3);
  assert_int_equal(f.lost, 1);
  assert_close(f.delay_avg_ns, 250 * US, 1e-6);
  itg_flow_stats t = total(s, ITG_STATS_MAIN);
  assert_int_equal(t.meter, ITG_STATS_RTT);
  assert_int_equal(t.packets, 2);

  /* The receiver's arrivals of flow 2: a second entry, one-way. */
  itg_logrec a = rx(2, 1, T0, 90 * US, 64);
  add(s, &a, 1);
  assert_int_equal(itg_stats_flow_count(s), 3);
  assert_int_equal(entry(s, 1).meter, ITG_STATS_OWD);
  assert_int_equal(entry(s, 2).meter, ITG_STATS_RTT);
  assert_int_equal(itg_stats_main_meter(s), ITG_STATS_OWD);
  t = total(s, ITG_STATS_MAIN);
  assert_int_equal(t.meter, ITG_STATS_OWD);
  assert_int_equal(t.packets, 1);
  assert_int_equal(t.delay_min_ns, 90 * US);
  t = total(s, ITG_STATS_SENT);
  assert_int_equal(t.flows, 1);
  assert_int_equal(t.packets, 5);
  itg_stats_free(s);
}

/* A receiver that got nothing of a flow logs only its end record: the
 * flow is one-way with everything lost (one burst of 40). Gap records add
 * up per flow. */
static void test_end_only_and_gaps(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {flow_end(6, 40), rec(ITG_REC_GAP, 6, 3, T0, 0, 0),
                    rec(ITG_REC_GAP, 6, 4, T0, 0, 0)};
  add(s, r, 3);
  itg_flow_stats f = entry(s, 0);
  assert_int_equal(f.meter, ITG_STATS_OWD);
  assert_int_equal(f.packets, 0);
  assert_int_equal(f.expected, 40);
  assert_int_equal(f.lost, 40);
  assert_int_equal(f.loss_bursts, 1);
  assert_close(f.loss_burst_avg, 40, 0);
  assert_close(f.loss_pct, 100, 0);
  assert_int_equal(f.log_gaps, 7);
  assert_int_equal(total(s, ITG_STATS_MAIN).log_gaps, 7);
  itg_stats_free(s);
}

/* ---- percentiles --------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rng_next(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717u;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The nearest-rank percentile of a sorted array, p in parts per million. */
static int64_t ref_quantile(const int64_t *sorted, size_t n, uint64_t ppm) {
  uint64_t rank = (n * ppm + 999999) / 1000000;
  return sorted[rank == 0 ? 0 : rank - 1];
}

/* 100 000 delays drawn from a heavy-tailed mix (mostly 20 us to 1 ms, some
 * up to 2 s, a few negative as with unsynchronised clocks), fixed seed:
 * p50 and p99 from the histogram agree with the sorted array within 0.05
 * %, for the flow and for a total split over two flows. */
static void test_percentiles_against_sorted(void **state) {
  (void)state;
  enum { N = 100000 };
  int64_t *d = malloc(N * sizeof *d);
  itg_logrec *r = malloc(N * sizeof *r);
  assert_non_null(d);
  assert_non_null(r);
  itg_stats *one = new_stats(), *two = new_stats();
  for (size_t i = 0; i < N; i++) {
    uint64_t u = rng_next();
    int64_t v;
    if (u % 100 < 90)
      v = 20 * US + (int64_t)(rng_next() % (uint64_t)(980 * US));
    else if (u % 100 < 98)
      v = (int64_t)(rng_next() % (uint64_t)(2000 * MS));
    else
      v = -(int64_t)(rng_next() % (uint64_t)(5 * MS));
    d[i] = v;
    r[i] = rx((uint32_t)(1 + i % 2), i / 2 + 1, T0 + (int64_t)i * US, v, 64);
  }
  for (size_t i = 0; i < N; i++) {
    itg_logrec x = r[i];
    x.flow_id = 1;
    x.seq = i + 1;
    add(one, &x, 1);
  }
  add(two, r, N);
  qsort(d, N, sizeof *d, cmp_i64);
  itg_flow_stats f = entry(one, 0);
  itg_flow_stats t = total(two, ITG_STATS_MAIN);
  assert_quantile(f.delay_p50_ns, ref_quantile(d, N, 500000));
  assert_quantile(f.delay_p99_ns, ref_quantile(d, N, 990000));
  assert_quantile(t.delay_p50_ns, ref_quantile(d, N, 500000));
  assert_quantile(t.delay_p99_ns, ref_quantile(d, N, 990000));
  assert_int_equal(f.delay_min_ns, d[0]);
  assert_int_equal(f.delay_max_ns, d[N - 1]);
  assert_int_equal(t.delay_min_ns, d[0]);
  /* The mean and std of the merged total match the single flow's. */
  assert_close(t.delay_avg_ns, f.delay_avg_ns, fabs(f.delay_avg_ns) * 1e-9);
  assert_close(t.delay_std_ns, f.delay_std_ns, f.delay_std_ns * 1e-9);
  /* Small quantiles below 2048 ns are exact: 1..999 ns, p50 = 500. */
  itg_stats *small = new_stats();
  for (uint64_t i = 1; i < 1000; i++) {
    itg_logrec x = rx(1, i, T0, (int64_t)i, 64);
    add(small, &x, 1);
  }
  assert_int_equal(entry(small, 0).delay_p50_ns, 500);
  assert_int_equal(entry(small, 0).delay_p99_ns, 990);
  itg_stats_free(small);
  itg_stats_free(one);
  itg_stats_free(two);
  free(r);
  free(d);
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *const required_keys[] = {
    "flow",         "packets",      "lost",        "bytes",
    "delay_avg_s",  "delay_min_s",  "delay_max_s", "delay_std_s",
    "jitter_avg_s", "bitrate_kbps", "rate_pps"};

/* Copies the flat object that starts at p ('{') into a new string. */
static char *object_at(const char *p) {
  const char *end = strchr(p, '}');
  char *o;
  assert_non_null(end);
  assert_int_equal(*p, '{');
  o = malloc((size_t)(end - p) + 2);
  assert_non_null(o);
  memcpy(o, p, (size_t)(end - p) + 1);
  o[end - p + 1] = '\0';
  return o;
}

/* The number after "key": in a flat object; fails if the key is absent. */
static double num(const char *obj, const char *key) {
  char pat[64];
  const char *p;
  char *end;
  double v;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  p = strstr(obj, pat);
  if (p == NULL)
    fail_msg("key %s missing in %s", key, obj);
  v = strtod(p + strlen(pat), &end);
  assert_true(end != p + strlen(pat));
  return v;
}

/* The required keys appear first, in the required order. */
static void assert_key_order(const char *obj) {
  const char *at = obj + 1;
  for (size_t k = 0; k < sizeof required_keys / sizeof *required_keys; k++) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", required_keys[k]);
    if (strncmp(at, pat, strlen(pat)) != 0)
      fail_msg("expected key %s at: %.40s", required_keys[k], at);
    at = strchr(at, ',');
    assert_non_null(at);
    at++;
  }
}

static void assert_no_nan(const char *json) {
  assert_null(strstr(json, "nan"));
  assert_null(strstr(json, "NAN"));
  assert_null(strstr(json, "inf"));
  assert_null(strstr(json, "INF"));
}

/* The report of the hand-computed flow: keys in order, values as worked
 * out in test_hand_computed_flow (seconds), and a total with flow 0. */
static void test_json_shape(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(1, 1, T0, 10 * US, 100),
                    rx(1, 2, T0 + 1 * MS, 30 * US, 100),
                    rx(1, 3, T0 + 2 * MS, 20 * US, 100),
                    rx(1, 4, T0 + 3 * MS, 40 * US, 100), flow_end(1, 5)};
  add(s, r, 5);
  char *json = json_of(s);
  assert_true(strncmp(json, "{\"flows\":[{", 11) == 0);
  char *flow = object_at(json + 10);
  assert_key_order(flow);
  assert_close(num(flow, "flow"), 1, 0);
  assert_close(num(flow, "packets"), 4, 0);
  assert_close(num(flow, "lost"), 1, 0);
  assert_close(num(flow, "bytes"), 400, 0);
  assert_close(num(flow, "delay_avg_s"), 25e-6, 1e-12);
  assert_close(num(flow, "delay_min_s"), 10e-6, 1e-12);
  assert_close(num(flow, "delay_max_s"), 40e-6, 1e-12);
  assert_close(num(flow, "delay_std_s"), sqrt(125.0) * 1e-6, 1e-9);
  assert_close(num(flow, "jitter_avg_s"), 50e-6 / 3, 1e-9);
  assert_close(num(flow, "bitrate_kbps"), 3.2 / 0.00303, 1e-6);
  assert_close(num(flow, "rate_pps"), 4 / 0.00303, 1e-6);
  assert_close(num(flow, "expected"), 5, 0);
  assert_close(num(flow, "loss_pct"), 20, 1e-6);
  assert_close(num(flow, "jitter_rfc3550_s"), 2934.5703125e-9, 1e-9);
  assert_close(num(flow, "duration_s"), 0.00303, 1e-12);
  assert_non_null(strstr(flow, "\"meter\":\"owd\""));
  const char *tp = strstr(json, "],\"total\":{");
  assert_non_null(tp);
  char *tot = object_at(tp + 10);
  assert_key_order(tot);
  assert_close(num(tot, "flow"), 0, 0);
  assert_close(num(tot, "packets"), 4, 0);
  assert_close(num(tot, "lost"), 1, 0);
  assert_non_null(strstr(json, ",\"totals\":[{\"flow\":0,"));
  assert_true(json[strlen(json) - 1] == '}');
  assert_no_nan(json);
  free(tot);
  free(flow);
  free(json);
  itg_stats_free(s);
}

/* Entries where a naive division would give NaN or infinity: one packet
 * (zero duration), a flow known only by its end record, a sender entry of
 * one record, and absurd timestamps. */
static void test_json_never_nan(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(1, 1, T0, 10 * US, 100),
                    flow_end(2, 3),
                    rec(ITG_REC_TX, 3, 1, T0, 0, 64),
                    rec(ITG_REC_RX, 4, 1, INT64_MAX, INT64_MIN, 64),
                    rec(ITG_REC_RX, 4, 2, INT64_MIN, INT64_MAX, 64),
                    rec(ITG_REC_FLOW_END, 5, 0, T0, 0, 0)};
  add(s, r, 6);
  char *json = json_of(s);
  assert_no_nan(json);
  itg_flow_stats f = entry(s, 0);
  assert_close(f.bitrate_kbps, 0, 0);
  assert_close(f.rate_pps, 0, 0);
  assert_close(f.jitter_avg_ns, 0, 0);
  f = entry(s, 3); /* flow 4: saturated delays, no overflow */
  assert_int_equal(f.delay_min_ns, INT64_MIN);
  assert_int_equal(f.delay_max_ns, INT64_MAX);
  assert_true(isfinite(f.delay_std_ns));
  free(json);
  itg_stats_free(s);
}

/* An empty object: no entries, a zero total (meter OWD), a JSON report
 * with an empty list; a buffer too small keeps a NUL-terminated prefix and
 * says how much is needed. */
static void test_empty_stats(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  assert_int_equal(itg_stats_flow_count(s), 0);
  assert_int_equal(itg_stats_main_meter(s), ITG_STATS_OWD);
  itg_flow_stats t = total(s, ITG_STATS_MAIN);
  assert_int_equal(t.meter, ITG_STATS_OWD);
  assert_int_equal(t.flows, 0);
  assert_int_equal(t.packets, 0);
  assert_close(t.delay_avg_ns, 0, 0);
  itg_flow_stats f;
  assert_int_equal(itg_stats_flow(s, 0, &f), ITG_EINVAL);
  char *json = json_of(s);
  assert_true(strncmp(json,
                      "{\"flows\":[],\"total\":{\"flow\":0,\"packets\":0,",
                      42) == 0);
  assert_non_null(strstr(json, "\"delay_avg_s\":0.000000000,"));
  assert_true(strcmp(json + strlen(json) - 14, "},\"totals\":[]}") == 0);
  assert_no_nan(json);
  char small[10];
  size_t need = 0;
  memset(small, 'x', sizeof small);
  assert_int_equal(itg_stats_json(s, small, sizeof small, &need), ITG_ERANGE);
  assert_int_equal(need, strlen(json) + 1);
  assert_int_equal(small[9], '\0');
  assert_true(strncmp(small, json, 9) == 0);
  free(json);
  itg_stats_free(s);
  itg_stats_free(NULL);
}

static void test_bad_input(void **state) {
  (void)state;
  itg_stats *s = new_stats();
  itg_logrec r[] = {rx(1, 1, T0, US, 64), rec(0x0100, 1, 2, T0, T0, 64)};
  assert_int_equal(itg_stats_add(s, r, 2), ITG_EINVAL);
  assert_int_equal(itg_stats_flow_count(s), 0); /* nothing of the batch */
  r[1].flags = ITG_REC_KERNEL_TS;               /* no kind at all */
  assert_int_equal(itg_stats_add(s, r, 2), ITG_EINVAL);
  assert_int_equal(itg_stats_add(s, NULL, 1), ITG_EINVAL);
  assert_int_equal(itg_stats_add(NULL, r, 1), ITG_EINVAL);
  assert_int_equal(itg_stats_add(s, NULL, 0), 0);
  assert_int_equal(itg_stats_new(NULL), ITG_EINVAL);
  char buf[4];
  assert_int_equal(itg_stats_json(s, NULL, sizeof buf, NULL), ITG_EINVAL);
  itg_stats_free(s);
}

/* ---- series -------------------------------------------------------------- */

/* T = 1 ms, origin at flow 1's first arrival (T0 + 100 us):
 *   flow 1: seq 1 at +0.0 ms (delay 100 us), seq 2 at +0.4 ms (300 us)
 *           -> interval 0; seq 4 at +1.1 ms (200 us) -> interval 1, skips
 *           3 (1 lost); seq 5 at +3.4 ms (100 us) -> interval 3; FLOW_END
 *           says 7: 6 and 7 lost after the last arrival, in interval 3.
 *   flow 2: one packet at +1.5 ms (delay 500 us), interval 1.
 * Interval 1: flow 1 delay 200 us, jitter |200-300| = 100 us; total
 * delay (200+500)/2 = 350 us, bytes 100+50 -> 150*8/1000/0.001 = 1200
 * kbit/s. Interval 2 is empty. */
/* One table names the meters: the JSON report's words, the headings, and
 * a flow's meter by the records it is reported under. */
static void test_meter_names(void **state) {
  (void)state;
  assert_int_equal(itg_stats_meter_at(0), ITG_STATS_OWD);
  assert_int_equal(itg_stats_meter_at(1), ITG_STATS_RTT);
  assert_int_equal(itg_stats_meter_at(2), ITG_STATS_SENT);
  assert_int_equal(itg_stats_meter_at(3), ITG_STATS_MAIN);
  assert_string_equal(itg_stats_meter_name(ITG_STATS_OWD), "owd");
  assert_string_equal(itg_stats_meter_name(ITG_STATS_RTT), "rtt");
  assert_string_equal(itg_stats_meter_name(ITG_STATS_SENT), "sent");
  assert_string_equal(itg_stats_meter_name(ITG_STATS_MAIN), "unknown");
  assert_string_equal(itg_stats_meter_name((itg_stats_meter)99), "unknown");
  assert_string_equal(itg_stats_meter_title(ITG_STATS_OWD), "one-way delay");
  assert_string_equal(itg_stats_meter_title(ITG_STATS_RTT), "round-trip time");
  assert_string_equal(itg_stats_meter_title(ITG_STATS_SENT), "sent packets");
  assert_string_equal(itg_stats_meter_title((itg_stats_meter)99),
                      "unknown meter");
  assert_string_equal(itg_meter_name(ITG_METER_OWD), "owd");
  assert_string_equal(itg_meter_name(ITG_METER_RTT), "rtt");
  assert_string_equal(itg_meter_name((itg_meter)7), "unknown");
}

static void test_series(void **state) {
  (void)state;
  itg_series *s = NULL;
  const int64_t o = T0 + 100 * US;
  itg_logrec r[] = {rec(ITG_REC_RX, 1, 1, o - 100 * US, o, 100),
                    rec(ITG_REC_RX, 1, 2, o + 100 * US, o + 400 * US, 100),
                    rec(ITG_REC_RX, 1, 4, o + 900 * US, o + 1100 * US, 100),
                    rec(ITG_REC_RX, 2, 1, o + 1000 * US, o + 1500 * US, 50),
                    rec(ITG_REC_RX, 1, 5, o + 3300 * US, o + 3400 * US, 100),
                    flow_end(1, 7)};
  itg_series_point p;
  assert_int_equal(itg_series_new(0, ITG_STATS_OWD, &s), ITG_EINVAL);
  assert_int_equal(itg_series_new(MS, ITG_STATS_MAIN, &s), ITG_EINVAL);
  assert_int_equal(itg_series_new(MS, ITG_STATS_OWD, &s), 0);
  assert_int_equal(itg_series_interval_count(s), 0);
  assert_int_equal(itg_series_add(s, r, 6), 0);
  assert_int_equal(itg_series_flow_count(s), 2);
  assert_int_equal(itg_series_interval_count(s), 4);

  assert_int_equal(itg_series_get(s, 0, 0, &p), 0);
  assert_int_equal(p.flow_id, 1);
  assert_int_equal(p.packets, 2);
  assert_close(p.delay_avg_ns, 200 * US, 1e-6);
  assert_close(p.jitter_avg_ns, 200 * US, 1e-6);
  assert_int_equal(p.lost, 0);

  assert_int_equal(itg_series_get(s, 0, 1, &p), 0);
  assert_int_equal(p.start_ns, MS);
  assert_int_equal(p.lost, 1);
  assert_close(p.jitter_avg_ns, 100 * US, 1e-6);
  assert_int_equal(itg_series_get(s, ITG_SERIES_TOTAL, 1, &p), 0);
  assert_int_equal(p.flow_id, 0);
  assert_int_equal(p.packets, 2);
  assert_int_equal(p.bytes, 150);
  assert_close(p.delay_avg_ns, 350 * US, 1e-6);
  assert_close(p.bitrate_kbps, 1200, 1e-9);

  assert_int_equal(itg_series_get(s, ITG_SERIES_TOTAL, 2, &p), 0);
  assert_int_equal(p.packets, 0);
  assert_close(p.delay_avg_ns, 0, 0);
  assert_int_equal(itg_series_get(s, 0, 3, &p), 0);
  assert_int_equal(p.lost, 2);
  assert_int_equal(itg_series_get(s, 1, 3, &p), 0);
  assert_int_equal(p.packets, 0);
  assert_int_equal(itg_series_get(s, 2, 0, &p), ITG_EINVAL);
  assert_int_equal(itg_series_get(s, 0, 4, &p), ITG_EINVAL);

  char buf[1024];
  size_t need = 0;
  assert_int_equal(
      itg_series_csv(s, ITG_SERIES_LOSS, 0, 100, buf, sizeof buf, &need), 0);
  assert_string_equal(buf, "time_s,flow_1,flow_2,total\n"
                           "0.000000000,0,0,0\n"
                           "0.001000000,1,0,1\n"
                           "0.002000000,0,0,0\n"
                           "0.003000000,2,0,2\n");
  assert_int_equal(need, strlen(buf) + 1);
  assert_int_equal(
      itg_series_csv(s, ITG_SERIES_DELAY, 1, 1, buf, sizeof buf, NULL), 0);
  assert_string_equal(buf, "0.001000000,0.000200000,0.000500000,0.000350000\n");
  assert_int_equal(
      itg_series_csv(s, ITG_SERIES_COMBINED, 1, 1, buf, sizeof buf, NULL), 0);
  assert_string_equal(
      buf, "0.001000000,1,1,100,1,0.000200000,0.000100000,800.000000\n"
           "0.001000000,2,1,50,0,0.000500000,0.000000000,400.000000\n"
           "0.001000000,total,2,150,1,0.000350000,0.000100000,"
           "1200.000000\n");
  assert_int_equal(itg_series_csv(s, ITG_SERIES_BITRATE, 0, 0, buf, 8, &need),
                   ITG_ERANGE);
  assert_int_equal(need, strlen("time_s,flow_1,flow_2,total\n") + 1);
  assert_int_equal(
      itg_series_csv(s, (itg_series_field)0, 0, 1, buf, sizeof buf, NULL),
      ITG_EINVAL);

  /* A record 1.5 ms before the origin prepends intervals -2 and -1. */
  itg_logrec early = rec(ITG_REC_RX, 2, 2, o - 2 * MS, o - 1500 * US, 50);
  assert_int_equal(itg_series_add(s, &early, 1), 0);
  assert_int_equal(itg_series_interval_count(s), 6);
  assert_int_equal(itg_series_get(s, 1, 0, &p), 0);
  assert_int_equal(p.packets, 1);
  assert_int_equal(itg_series_get(s, 0, 2, &p), 0); /* was interval 0 */
  assert_int_equal(p.packets, 2);
  itg_series_free(s);
  itg_series_free(NULL);
}

/* A sender's series counts departures by send time; a series that would
 * need more cells than allowed is refused, keeping what it has. */
static void test_series_sent_and_limit(void **state) {
  (void)state;
  itg_series *s = NULL;
  itg_series_point p;
  assert_int_equal(itg_series_new(10 * MS, ITG_STATS_SENT, &s), 0);
  for (int i = 0; i < 30; i++) {
    itg_logrec t = rec(ITG_REC_TX, 1, (uint64_t)i + 1, T0 + i * MS, 0, 125);
    assert_int_equal(itg_series_add(s, &t, 1), 0);
  }
  assert_int_equal(itg_series_interval_count(s), 3);
  assert_int_equal(itg_series_get(s, 0, 1, &p), 0);
  assert_int_equal(p.packets, 10);
  assert_close(p.bitrate_kbps, 1250 * 8 / 1000.0 / 0.01, 1e-9);
  assert_close(p.delay_avg_ns, 0, 0);
  itg_series_free(s);

  assert_int_equal(itg_series_new(1, ITG_STATS_OWD, &s), 0);
  itg_logrec a[] = {rx(1, 1, T0, US, 64), rx(1, 2, T0 + 1000 * MS, US, 64)};
  assert_int_equal(itg_series_add(s, a, 2), ITG_ELIMIT);
  assert_int_equal(itg_series_interval_count(s), 1);
  itg_series_free(s);
}

/* ---- decoding files ------------------------------------------------------ */

/* Writes a version 1 log file by hand: the header, then n bare records,
 * then `tail` stray bytes (a record cut short). */
static void write_log(const char *path, const itg_logrec *r, size_t n,
                      size_t tail) {
  itg_log_hdr h;
  uint8_t buf[ITG_LOG_HEADER_LEN];
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  memset(&h, 0, sizeof h);
  h.role = ITG_LOG_ROLE_RECEIVER;
  h.clock = ITG_LOG_CLOCK_REALTIME;
  h.created_ns = T0;
  strcpy(h.host, "test");
  itg_log_hdr_encode(&h, buf);
  buf[8] = 1;                     /* version 1 */
  buf[12] = ITG_LOG_V1_HEADER_LEN; /* its header length */
  assert_int_equal(fwrite(buf, 1, ITG_LOG_V1_HEADER_LEN, fp),
                   ITG_LOG_V1_HEADER_LEN);
  for (size_t i = 0; i < n; i++) {
    uint8_t rb[ITG_LOG_RECORD_LEN];
    itg_logrec_encode(&r[i], rb);
    assert_int_equal(fwrite(rb, 1, sizeof rb, fp), sizeof rb);
  }
  for (size_t i = 0; i < tail; i++)
    fputc(0x55, fp);
  fclose(fp);
}

/* Three files: a clean one (3 records and the flow's end), a truncated
 * one (2 records then 10 bytes) and a missing one. Decoding keeps every
 * whole record, says where the truncated file stopped (64 + 2*32 = 128),
 * and reports the missing file as not opened. A file that ends cleanly
 * with a flow that has no end record was cut short too (a full disk stops
 * a writer between records); one shorter than a header that begins as a
 * log does is cut short, text is not a log. */
static void test_decode_files(void **state) {
  (void)state;
  char dir[400], a[448], b[448], c[448], d[448];
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-test-stats."), 0);
  snprintf(a, sizeof a, "%s/a.log", dir);
  snprintf(b, sizeof b, "%s/b.log", dir);
  snprintf(c, sizeof c, "%s/missing.log", dir);
  snprintf(d, sizeof d, "%s/notalog.log", dir);
  itg_logrec r[] = {rx(1, 1, T0, 10 * US, 100), rx(1, 2, T0 + MS, 30 * US, 100),
                    rx(1, 3, T0 + 2 * MS, 20 * US, 100), flow_end(1, 3)};
  itg_logrec q[] = {rx(2, 1, T0, 50 * US, 60), rx(2, 3, T0 + MS, 50 * US, 60)};
  write_log(a, r, 4, 0);
  write_log(b, q, 2, 10);
  FILE *fp = fopen(d, "wb");
  assert_non_null(fp);
  fputs("this is not a log file, it is text long enough to hold a header "
        "of sixty-four bytes\n",
        fp);
  fclose(fp);

  const char *paths[] = {a, b};
  itg_decode_status st[4];
  itg_stats *s = new_stats();
  itg_series *ser = NULL;
  assert_int_equal(itg_series_new(MS, ITG_STATS_OWD, &ser), 0);
  assert_int_equal(itg_decode_files(paths, 2, s, ser, st), ITG_ETRUNC);
  assert_int_equal(st[0].error, 0);
  assert_int_equal(st[0].opened, 1);
  assert_int_equal(st[0].records, 4);
  assert_int_equal(st[0].offset, 64 + 4 * 32);
  assert_int_equal(st[0].hdr.role, ITG_LOG_ROLE_RECEIVER);
  assert_string_equal(st[0].hdr.host, "test");
  assert_int_equal(st[1].error, ITG_ETRUNC);
  assert_int_equal(st[1].opened, 1);
  assert_int_equal(st[1].records, 2);
  assert_int_equal(st[1].offset, 128);
  assert_int_equal(itg_stats_flow_count(s), 2);
  assert_int_equal(entry(s, 1).packets, 2);
  assert_int_equal(entry(s, 1).lost, 1);
  assert_int_equal(itg_series_flow_count(ser), 2);

  const char *bad[] = {a, c, d};
  itg_stats *s2 = new_stats();
  assert_int_equal(itg_decode_files(bad, 3, s2, NULL, st), ITG_ENOENT);
  assert_int_equal(st[0].error, 0);
  assert_int_equal(st[1].opened, 0);
  assert_int_equal(st[1].error, ITG_ENOENT);
  assert_int_equal(st[2].opened, 0);
  assert_int_equal(st[2].error, ITG_EBADMSG);
  assert_int_equal(itg_stats_flow_count(s2), 1);
  assert_int_equal(entry(s2, 0).packets, 3);
  assert_int_equal(entry(s2, 0).lost, 0);

  /* q, whose flow ends in no file; the first 20 bytes of a log. */
  write_log(b, q, 2, 0);
  fp = fopen(d, "wb");
  assert_non_null(fp);
  fputs("ITGLOG\r\n", fp);
  for (int i = 0; i < 12; i++)
    fputc(0, fp);
  fclose(fp);
  const char *cut[] = {b, d, a};
  itg_stats *s3 = new_stats();
  assert_int_equal(itg_decode_files(cut, 3, s3, NULL, st), ITG_ETRUNC);
  assert_int_equal(st[0].opened, 1);
  assert_int_equal(st[0].error, ITG_ETRUNC);
  assert_int_equal(st[0].records, 2);
  assert_int_equal(st[0].offset, 64 + 2 * 32);
  assert_int_equal(st[1].opened, 0);
  assert_int_equal(st[1].error, ITG_ETRUNC);
  assert_int_equal(st[2].error, 0);
  itg_stats_free(s3);

  assert_int_equal(itg_decode_files_size(paths, 0, s2, NULL, NULL, 0),
                   ITG_EINVAL);
  itg_series_free(ser);
  itg_stats_free(s2);
  itg_stats_free(s);
  assert_int_equal(tmpdir_remove(dir), 0);
}

/* Decodes the two files a and b; checks the call's result and each
 * file's status. */
static void decode_pair(const char *a, const char *b, int want,
                        int want_a, int want_b) {
  const char *paths[] = {a, b};
  itg_decode_status st[2];
  itg_stats *s = new_stats();
  assert_int_equal(itg_decode_files(paths, 2, s, NULL, st), want);
  assert_int_equal(st[0].error, want_a);
  assert_int_equal(st[1].error, want_b);
  itg_stats_free(s);
}

/* A flow whose records are split across two files (a log gathered from a
 * log server or over MPI, and the spill file beside it) with its end
 * record in only one of them: neither file was cut short, whichever comes
 * first. Without an end record in either, both were. The end must be the
 * same writer's: a receiver's end does not end a sender's records. */
static void test_decode_end_in_other_file(void **state) {
  char dir[400], a[448], b[448];
  itg_logrec first[] = {rx(1, 1, T0, 10 * US, 100),
                        rx(1, 2, T0 + MS, 10 * US, 100)};
  itg_logrec rest[] = {rx(1, 3, T0 + 2 * MS, 10 * US, 100),
                       rec(ITG_REC_FLOW_END | ITG_REC_RX, 1, 3, T0, 0, 0)};
  itg_logrec sent[] = {rec(ITG_REC_TX, 1, 1, T0, 0, 100),
                       rec(ITG_REC_TX, 1, 2, T0 + MS, 0, 100)};
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-test-stats."), 0);
  snprintf(a, sizeof a, "%s/a.log", dir);
  snprintf(b, sizeof b, "%s/b.log", dir);

  write_log(a, first, 2, 0);
  write_log(b, rest, 2, 0);
  decode_pair(a, b, 0, 0, 0);
  decode_pair(b, a, 0, 0, 0);

  write_log(b, rest, 1, 0);
  decode_pair(a, b, ITG_ETRUNC, ITG_ETRUNC, ITG_ETRUNC);

  write_log(a, sent, 2, 0);
  write_log(b, rest, 2, 0);
  decode_pair(a, b, ITG_ETRUNC, ITG_ETRUNC, 0);
  assert_int_equal(tmpdir_remove(dir), 0);
}

/* A version 2 log with one damaged block: the block is skipped and
 * counted, the records around it are decoded, and the file's status says
 * which block and how many records it cost. */
static void test_decode_damaged_block(void **state) {
  enum { N = 3 * ITG_LOG_BLOCK_RECORDS };
  char dir[400], path[448];
  itg_logwriter *w = NULL;
  itg_log_hdr h;
  itg_decode_status st;
  itg_stats *s = new_stats();
  const char *paths[1];
  FILE *fp;
  long at;
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-test-stats."), 0);
  snprintf(path, sizeof path, "%s/damaged.log", dir);
  memset(&h, 0, sizeof h);
  h.role = ITG_LOG_ROLE_RECEIVER;
  h.clock = ITG_LOG_CLOCK_REALTIME;
  assert_int_equal(itg_logwriter_open(path, &h, &w), 0);
  for (uint64_t i = 1; i <= N; i++) {
    itg_logrec r = rx(1, i, T0 + (int64_t)i * MS, 10 * US, 100);
    assert_int_equal(itg_logwriter_write(w, &r, 1), 0);
  }
  assert_int_equal(itg_logwriter_close(w), 0);
  /* A bit in the middle block's records. */
  at = (long)(ITG_LOG_HEADER_LEN + (8 + ITG_LOG_BLOCK_RECORDS * 32 + 4) + 8 +
              100 * 32 + 9);
  fp = fopen(path, "r+b");
  assert_non_null(fp);
  assert_int_equal(fseek(fp, at, SEEK_SET), 0);
  int c = fgetc(fp);
  assert_int_equal(fseek(fp, at, SEEK_SET), 0);
  fputc(c ^ 0x10, fp);
  fclose(fp);

  paths[0] = path;
  assert_int_equal(itg_decode_files(paths, 1, s, NULL, &st), ITG_EBADMSG);
  assert_int_equal(st.opened, 1);
  assert_int_equal(st.error, ITG_EBADMSG);
  assert_int_equal(st.damaged, 1);
  assert_int_equal(st.skipped, ITG_LOG_BLOCK_RECORDS);
  assert_int_equal(st.first_damage.block, 1);
  assert_int_equal(st.first_damage.offset,
                   ITG_LOG_HEADER_LEN + 8 + ITG_LOG_BLOCK_RECORDS * 32 + 4);
  assert_int_equal(st.records, N - ITG_LOG_BLOCK_RECORDS);
  assert_int_equal(entry(s, 0).packets, N - ITG_LOG_BLOCK_RECORDS);
  itg_stats_free(s);
  assert_int_equal(tmpdir_remove(dir), 0);
}

/* A map sees each batch with its file's index, and what it rewrites is
 * what is counted: a shift of the second file's receive times moves the
 * delays of its flow alone. */
static void shift_rx(itg_logrec *recs, size_t n, size_t file, void *user) {
  const int64_t *by_file = user;
  for (size_t i = 0; i < n; i++)
    if (!(recs[i].flags & ITG_REC_FLOW_END))
      recs[i].rx_ns += by_file[file];
}

static void test_decode_map(void **state) {
  char dir[400], a[448], b[448];
  const int64_t by_file[2] = {0, 3 * MS};
  itg_decode_map map = {shift_rx, (void *)by_file}, none = {NULL, NULL};
  itg_logrec r[] = {rx(1, 1, T0, 10 * US, 100), flow_end(1, 1)};
  itg_logrec q[] = {rx(2, 1, T0, 20 * US, 100), flow_end(2, 1)};
  const char *paths[2];
  itg_stats *s = new_stats();
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-test-stats."), 0);
  snprintf(a, sizeof a, "%s/a.log", dir);
  snprintf(b, sizeof b, "%s/b.log", dir);
  write_log(a, r, 2, 0);
  write_log(b, q, 2, 0);
  paths[0] = a;
  paths[1] = b;
  assert_int_equal(
      itg_decode_files_map_size(paths, 2, &none, s, NULL, NULL, 0),
      ITG_EINVAL);
  assert_int_equal(itg_decode_files_map_size(paths, 2, &map, s, NULL, NULL, 0),
                   0);
  assert_int_equal(itg_stats_flow_count(s), 2);
  assert_int_equal(entry(s, 0).delay_min_ns, 10 * US);
  assert_int_equal(entry(s, 1).delay_min_ns, 20 * US + 3 * MS);
  itg_stats_free(s);
  remove(a);
  remove(b);
  assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_computed_flow),
      cmocka_unit_test(test_decode_map),
      cmocka_unit_test(test_rfc3550_jitter),
      cmocka_unit_test(test_loss_and_tail_loss),
      cmocka_unit_test(test_sender_records_give_sent),
      cmocka_unit_test(test_duplicates_and_reordering),
      cmocka_unit_test(test_bursts_across_the_window),
      cmocka_unit_test(test_jump_beyond_the_window),
      cmocka_unit_test(test_far_number_is_an_outlier),
      cmocka_unit_test(test_confirmed_jump_to_the_last_number),
      cmocka_unit_test(test_end_without_count),
      cmocka_unit_test(test_far_end_and_tx_counts),
      cmocka_unit_test(test_loss_pct_at_most_100),
      cmocka_unit_test(test_total_over_flows),
      cmocka_unit_test(test_meters),
      cmocka_unit_test(test_end_only_and_gaps),
      cmocka_unit_test(test_percentiles_against_sorted),
      cmocka_unit_test(test_json_shape),
      cmocka_unit_test(test_json_never_nan),
      cmocka_unit_test(test_empty_stats),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_meter_names),
      cmocka_unit_test(test_series),
      cmocka_unit_test(test_series_sent_and_limit),
      cmocka_unit_test(test_series_far_numbers),
      cmocka_unit_test(test_decode_files),
    cmocka_unit_test(test_decode_end_in_other_file),
      cmocka_unit_test(test_decode_damaged_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
