/* splitmix64, the library's one mixer: the reference sequence of Steele,
 * Lea and Flood's generator (as Java's SplittableRandom and Vigna's
 * splitmix64.c give it from seed 0), and the sender's per-law seeds that
 * itg/sender.h documents as its output function on s + k * golden. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/mix.h"
#include "engine/sender_setup.h"

static const uint64_t reference[] = {
    0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull, 0x06C45D188009454Full,
    0xF88BB8A8724C81ECull, 0x1B39896A51A8749Bull,
};

static void test_reference_sequence(void **state) {
  uint64_t s = 0;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof reference / sizeof reference[0]; i++)
    assert_true(itg__splitmix64(&s) == reference[i]);
  assert_true(s == 5 * ITG__GOLDEN);
}

static void test_flow_seeds(void **state) {
  uint64_t idt, size;
  (void)state;
  itg__flow_seeds(0, &idt, &size);
  assert_true(idt == reference[0]);
  assert_true(size == reference[1]);
  itg__flow_seeds(12345, &idt, &size);
  assert_true(idt == itg__mix64(12345 + ITG__GOLDEN));
  assert_true(size == itg__mix64(12345 + 2 * ITG__GOLDEN));
  assert_true(idt != size);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_sequence),
      cmocka_unit_test(test_flow_seeds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
