/* Strict number parsing for option words: whole words only, ranges
 * enforced, decimal unless 0x, nothing written on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "itg/common.h"
#include "itg/log.h"
#include "itg/logserver.h"
#include "itg/parse.h"
#include "itg/version.h"

static void test_u64(void **state) {
  uint64_t v = 77;
  (void)state;
  assert_int_equal(itg_parse_u64("010", 0, 1000, &v), 0);
  assert_int_equal(v, 10); /* decimal, not octal */
  assert_int_equal(itg_parse_u64("08", 0, 1000, &v), 0);
  assert_int_equal(v, 8);
  assert_int_equal(itg_parse_u64("0x1F", 0, 1000, &v), 0);
  assert_int_equal(v, 31);
  assert_int_equal(itg_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
  assert_true(v == UINT64_MAX);
  v = 77;
  assert_int_equal(itg_parse_u64("0x", 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64("12a", 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64("", 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64(NULL, 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64("-1", 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64(" 5", 0, 1000, &v), ITG_EINVAL);
  assert_int_equal(itg_parse_u64("1001", 0, 1000, &v), ITG_ERANGE);
  assert_int_equal(itg_parse_u64("4", 5, 1000, &v), ITG_ERANGE);
  assert_int_equal(itg_parse_u64("18446744073709551616", 0, UINT64_MAX, &v),
                   ITG_ERANGE);
  assert_int_equal(v, 77);
}

static void test_i64_and_port(void **state) {
  int64_t v = 5;
  uint16_t p = 9;
  (void)state;
  assert_int_equal(itg_parse_i64("-42", -100, 100, &v), 0);
  assert_int_equal(v, -42);
  assert_int_equal(itg_parse_i64("101", -100, 100, &v), ITG_ERANGE);
  assert_int_equal(itg_parse_i64("4.5", -100, 100, &v), ITG_EINVAL);
  assert_int_equal(v, -42);
  assert_int_equal(itg_parse_port("65535", &p), 0);
  assert_int_equal(p, 65535);
  assert_int_equal(itg_parse_port("65536", &p), ITG_ERANGE);
  assert_int_equal(itg_parse_port("http", &p), ITG_EINVAL);
  assert_int_equal(p, 65535);
}

static void test_double_and_ms(void **state) {
  double d = 1.0;
  int64_t ns = 3;
  (void)state;
  assert_int_equal(itg_parse_double("2.5e-3", &d), 0);
  assert_true(d == 2.5e-3);
  assert_int_equal(itg_parse_double("nan", &d), ITG_ERANGE);
  assert_int_equal(itg_parse_double("inf", &d), ITG_ERANGE);
  assert_int_equal(itg_parse_double("1e999", &d), ITG_ERANGE);
  assert_int_equal(itg_parse_double("1.5x", &d), ITG_EINVAL);
  assert_int_equal(itg_parse_double(" 1", &d), ITG_EINVAL);
  assert_true(d == 2.5e-3);
  assert_int_equal(itg_parse_ms("1.5", &ns), 0);
  assert_int_equal(ns, 1500000);
  assert_int_equal(itg_parse_ms("0", &ns), 0);
  assert_int_equal(ns, 0);
  assert_int_equal(itg_parse_ms("-1", &ns), ITG_ERANGE);
  assert_int_equal(itg_parse_ms("40000000000", &ns), ITG_ERANGE);
  assert_int_equal(ns, 0);
}

static void test_error_table(void **state) {
  (void)state;
  assert_string_equal(itg_err_name(ITG_EINVAL), "EINVAL");
  assert_string_equal(itg_err_name(ITG_EPERM), "EPERM");
  assert_string_equal(itg_strerror(ITG_ETIMEDOUT), "timed out");
  assert_string_equal(itg_err_name(12345), "UNKNOWN");
  assert_string_equal(itg_strerror(12345), "unknown error");
  assert_string_equal(itg_version_string(), ITG_VERSION_STRING);
}

/* The version number macro grows with each part (so #if can compare
 * releases) and agrees with the library's. */
static void test_version_hex(void **state) {
  (void)state;
  assert_int_equal(ITG_VERSION_HEX, (ITG_VERSION_MAJOR << 16) |
                                        (ITG_VERSION_MINOR << 8) |
                                        ITG_VERSION_PATCH);
  assert_int_equal(itg_version_hex(), ITG_VERSION_HEX);
  assert_int_equal(itg_version_number(), ITG_VERSION_MAJOR * 10000 +
                                             ITG_VERSION_MINOR * 100 +
                                             ITG_VERSION_PATCH);
}

/* A list of networks as itg-recv's --log-servers takes it: the entry that
 * is not a network is named, and a list too long is told apart. */
static void test_net_list(void **state) {
  itg_logserver_net nets[2];
  uint32_t n = 77;
  char bad[16];
  (void)state;
  assert_int_equal(itg_logserver_net_list_parse("", nets, 2, &n, bad,
                                                sizeof bad), 0);
  assert_int_equal(n, 0);
  assert_int_equal(itg_logserver_net_list_parse(" 10.0.0.0/8 , ::1", nets, 2,
                                                &n, bad, sizeof bad), 0);
  assert_int_equal(n, 2);
  assert_int_equal(nets[0].family, 4);
  assert_int_equal(nets[0].prefix, 8);
  assert_int_equal(nets[0].addr[0], 10);
  assert_int_equal(nets[1].family, 6);
  assert_int_equal(nets[1].prefix, 128);
  assert_int_equal(itg_logserver_net_list_parse("10.0.0.0/8,nowhere", nets,
                                                2, &n, bad, sizeof bad),
                   ITG_EINVAL);
  assert_string_equal(bad, "nowhere");
  assert_int_equal(itg_logserver_net_list_parse("1.1.1.1,2.2.2.2,3.3.3.3",
                                                nets, 2, &n, bad, sizeof bad),
                   ITG_ELIMIT);
  assert_int_equal(itg_logserver_net_list_parse(NULL, nets, 2, &n, NULL, 0),
                   ITG_EINVAL);
  assert_int_equal(itg_logserver_net_list_parse("::1", nets, 2, NULL, NULL,
                                                0), ITG_EINVAL);
}

/* A log directory is checked before a server starts on it. */
static void test_log_dir(void **state) {
  (void)state;
  assert_int_equal(itg_log_dir_check(""), 0);
  assert_int_equal(itg_log_dir_check("."), 0);
  assert_int_equal(itg_log_dir_check("./no such directory"), ITG_ENOENT);
  assert_int_equal(itg_log_dir_check(NULL), ITG_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_u64),
      cmocka_unit_test(test_version_hex),
      cmocka_unit_test(test_i64_and_port),
      cmocka_unit_test(test_double_and_ms),
      cmocka_unit_test(test_error_table),
      cmocka_unit_test(test_net_list),
      cmocka_unit_test(test_log_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
