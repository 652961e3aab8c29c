/* The platform's file primitives, alike on every OS: the same test runs
 * natively and in the Windows build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "helpers/tmpdir.h"
#include "platform/platform.h"

/* Writes text to a new file at path. */
static void put_file(const char *path, const char *text) {
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fputs(text, fp) >= 0, 1);
  assert_int_equal(fclose(fp), 0);
}

/* Returns the first line of the file at path (static buffer). */
static const char *file_text(const char *path) {
  static char buf[64];
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  memset(buf, 0, sizeof buf);
  assert_non_null(fgets(buf, sizeof buf, fp));
  fclose(fp);
  return buf;
}

/* A rename onto an existing file fails and leaves both files as they
 * were; onto a free name it moves the file. */
static void test_rename_noreplace(void **state) {
  char dir[300], a[400], b[400], c[400];
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg_test_rename_"), 0);
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  snprintf(c, sizeof c, "%s/c", dir);
  put_file(a, "first");
  put_file(b, "second");
  assert_int_equal(itg__rename_noreplace(a, b), ITG_EBUSY);
  assert_string_equal(file_text(a), "first");
  assert_string_equal(file_text(b), "second");
  assert_int_equal(itg__rename_noreplace(a, c), 0);
  assert_string_equal(file_text(c), "first");
  assert_null(fopen(a, "rb"));
  assert_int_equal(itg__rename_noreplace(a, c), ITG_ENOENT);
  assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rename_noreplace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
