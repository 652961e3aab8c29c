/* The SPSC record ring: capacity rules, full and empty, wrap-around, and two
 * threads passing millions of numbered records through a small ring. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "core/ring.h"
#include "itg/common.h"
#include "platform/platform.h"

/* A record whose every field follows from seq, so a torn or stale slot
 * shows up in any field. */
static itg_logrec rec_of(uint64_t seq) {
  itg_logrec r;
  memset(&r, 0, sizeof r);
  r.flow_id = (uint32_t)(seq * 2654435761u);
  r.size = (uint16_t)(1 + seq % 1500);
  r.flags = ITG_REC_RX;
  r.seq = seq;
  r.tx_ns = (int64_t)(seq * 1000003u);
  r.rx_ns = -(int64_t)seq;
  return r;
}

static int rec_is(const itg_logrec *r, uint64_t seq) {
  itg_logrec want = rec_of(seq);
  return r->flow_id == want.flow_id && r->size == want.size &&
         r->flags == want.flags && r->seq == want.seq &&
         r->tx_ns == want.tx_ns && r->rx_ns == want.rx_ns;
}

static itg__ring *make_ring(uint32_t capacity) {
  itg__ring *r = NULL;
  assert_int_equal(itg__ring_new(capacity, &r), 0);
  assert_non_null(r);
  return r;
}

static void test_bad_capacity(void **state) {
  itg__ring *r = NULL;
  (void)state;
  assert_int_equal(itg__ring_new(0, &r), ITG_EINVAL);
  assert_int_equal(itg__ring_new(ITG__RING_MAX_CAPACITY + 1, &r), ITG_EINVAL);
  assert_int_equal(itg__ring_new(UINT32_MAX, &r), ITG_EINVAL);
  assert_null(r);
  itg__ring_free(NULL);
}

static void test_capacity_rounding(void **state) {
  static const uint32_t asked[] = {1, 2, 3, 5, 1000, 1024, 1025};
  static const uint32_t got[] = {1, 2, 4, 8, 1024, 1024, 2048};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof asked / sizeof asked[0]; i++) {
    itg__ring *r = make_ring(asked[i]);
    assert_int_equal(itg__ring_capacity(r), got[i]);
    itg__ring_free(r);
  }
}

static void test_empty_and_full(void **state) {
  itg__ring *r = make_ring(8);
  itg_logrec out[16], rec;
  uint64_t s;
  (void)state;
  assert_int_equal(itg__ring_pop(r, out, 16), 0);
  for (s = 1; s <= 8; s++) {
    rec = rec_of(s);
    assert_int_equal(itg__ring_push(r, &rec), s);
  }
  rec = rec_of(9);
  assert_int_equal(itg__ring_push(r, &rec), 0);
  assert_int_equal(itg__ring_pop(r, out, 0), 0);
  assert_int_equal(itg__ring_pop(r, out, 3), 3);
  for (s = 0; s < 3; s++)
    assert_true(rec_is(&out[s], s + 1));
  /* The refused record was not stored: 9 goes in now, after 8. */
  assert_int_equal(itg__ring_push(r, &rec), 6);
  assert_int_equal(itg__ring_pop(r, out, 16), 6);
  for (s = 0; s < 6; s++)
    assert_true(rec_is(&out[s], s + 4));
  assert_int_equal(itg__ring_pop(r, out, 16), 0);
  itg__ring_free(r);
}

static void test_capacity_one(void **state) {
  itg__ring *r = make_ring(1);
  itg_logrec out[2], rec;
  uint64_t s;
  (void)state;
  for (s = 1; s <= 100; s++) {
    rec = rec_of(s);
    assert_int_equal(itg__ring_push(r, &rec), 1);
    assert_int_equal(itg__ring_push(r, &rec), 0);
    assert_int_equal(itg__ring_pop(r, out, 2), 1);
    assert_true(rec_is(&out[0], s));
  }
  itg__ring_free(r);
}

/* A batch pop that starts near the end of the slots and continues at the
 * start. */
static void test_pop_across_wrap(void **state) {
  itg__ring *r = make_ring(8);
  itg_logrec out[8], rec;
  uint64_t s;
  (void)state;
  for (s = 1; s <= 8; s++) {
    rec = rec_of(s);
    assert_int_equal(itg__ring_push(r, &rec), s);
  }
  assert_int_equal(itg__ring_pop(r, out, 5), 5);
  for (s = 9; s <= 13; s++) {
    rec = rec_of(s);
    assert_int_equal(itg__ring_push(r, &rec), s - 5);
  }
  assert_int_equal(itg__ring_pop(r, out, 8), 8);
  for (s = 0; s < 8; s++)
    assert_true(rec_is(&out[s], s + 6));
  itg__ring_free(r);
}

/* Random pushes and pops against a model: the count the ring reports and
 * the order it gives back always match. */
static void test_wraparound_model(void **state) {
  itg__ring *r = make_ring(8);
  itg_logrec out[11], rec;
  uint64_t next_in = 1, next_out = 1, x = 12345;
  int round;
  (void)state;
  for (round = 0; round < 100000; round++) {
    int pushes, k;
    size_t want, got, i;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    pushes = (int)((x >> 33) % 11);
    for (k = 0; k < pushes; k++) {
      uint64_t held = next_in - next_out;
      rec = rec_of(next_in);
      if (held == 8) {
        assert_int_equal(itg__ring_push(r, &rec), 0);
      } else {
        assert_int_equal(itg__ring_push(r, &rec), held + 1);
        next_in++;
      }
    }
    want = (size_t)((x >> 45) % 11);
    got = itg__ring_pop(r, out, want);
    assert_int_equal(got, want < next_in - next_out ? want
                                                    : next_in - next_out);
    for (i = 0; i < got; i++)
      assert_true(rec_is(&out[i], next_out++));
  }
  assert_true(next_in > 300000);
  itg__ring_free(r);
}

#define THREAD_RECORDS 5000000u

static void producer_main(void *arg) {
  itg__ring *r = arg;
  uint64_t s;
  for (s = 1; s <= THREAD_RECORDS; s++) {
    itg_logrec rec = rec_of(s);
    while (itg__ring_push(r, &rec) == 0)
      itg__yield();
  }
}

static void test_two_threads(void **state) {
  itg__ring *r = make_ring(1024);
  uv_thread_t producer;
  itg_logrec out[64];
  uint64_t expect = 1, bad = 0;
  (void)state;
  assert_int_equal(uv_thread_create(&producer, producer_main, r), 0);
  while (expect <= THREAD_RECORDS) {
    size_t n = itg__ring_pop(r, out, 64), i;
    if (n == 0) {
      itg__yield();
      continue;
    }
    for (i = 0; i < n; i++, expect++)
      if (!rec_is(&out[i], expect))
        bad++;
  }
  assert_int_equal(uv_thread_join(&producer), 0);
  assert_int_equal(bad, 0);
  assert_int_equal(expect, THREAD_RECORDS + 1);
  assert_int_equal(itg__ring_pop(r, out, 64), 0);
  itg__ring_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_capacity),
      cmocka_unit_test(test_capacity_rounding),
      cmocka_unit_test(test_empty_and_full),
      cmocka_unit_test(test_capacity_one),
      cmocka_unit_test(test_pop_across_wrap),
      cmocka_unit_test(test_wraparound_model),
      cmocka_unit_test(test_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
