/* The offsets that spread the first departures of flows started together
 * (core/spread.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/spread.h"

#define MS INT64_C(1000000)

/* Four flows of one delay and one period take turns a quarter period
 * apart, in the order given; a flow of another delay is alone there. */
static void test_one_group(void **state) {
  int64_t delay[5] = {0, 0, 0, 7 * MS, 0};
  double period[5] = {1e6, 1e6, 1e6, 1e6, 1e6};
  int64_t off[5];
  (void)state;
  assert_int_equal(itg__spread(delay, period, 5, off), 0);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 250000);
  assert_int_equal(off[2], 500000);
  assert_int_equal(off[4], 750000);
  assert_int_equal(off[3], 0);
}

/* Each flow moves by its own period's share, whatever the others' laws;
 * groups are found by delay however the flows are interleaved. */
static void test_groups_and_periods(void **state) {
  int64_t delay[6] = {5 * MS, 0, 5 * MS, 0, 5 * MS, 0};
  double period[6] = {3e6, 1e6, 3e6, 2e6, 3e6, 4e6};
  int64_t off[6];
  (void)state;
  assert_int_equal(itg__spread(delay, period, 6, off), 0);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[2], 1000000);
  assert_int_equal(off[4], 2000000);
  assert_int_equal(off[1], 0);
  assert_int_equal(off[3], 666667);
  assert_int_equal(off[5], 2666667);
}

/* A law with no mean, or no positive one, gives no period; a slow flow's
 * period is capped, so it never waits long to start. */
static void test_no_period_and_cap(void **state) {
  int64_t delay[4] = {0, 0, 0, 0};
  double period[4] = {60e9, NAN, INFINITY, 0};
  int64_t off[4];
  (void)state;
  assert_int_equal(itg__spread(delay, period, 4, off), 0);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 0);
  assert_int_equal(off[2], 0);
  assert_int_equal(off[3], 0);
  period[0] = NAN;
  period[1] = 60e9;
  assert_int_equal(itg__spread(delay, period, 4, off), 0);
  assert_int_equal(off[1], ITG__SPREAD_MAX_NS / 4);
}

/* No flow: nothing to do, nothing touched. */
static void test_none(void **state) {
  int64_t off = -1;
  (void)state;
  assert_int_equal(itg__spread(NULL, NULL, 0, &off), 0);
  assert_int_equal(off, -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_group),
      cmocka_unit_test(test_groups_and_periods),
      cmocka_unit_test(test_no_period_and_cap),
      cmocka_unit_test(test_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
