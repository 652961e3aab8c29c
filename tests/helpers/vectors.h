/* Reader of the text test-vector files in tests/vectors/ (format in
 * tests/vectors/README.md), for the cmocka tests. A malformed file or a
 * missing or unparsable field fails the running test with the file, line
 * and key, so a bad vector is never skipped silently. */
#ifndef ITG_TEST_VECTORS_H
#define ITG_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#define VEC_MAX_FIELDS 16

typedef struct vec {
  char name[64];
  const char *file;
  int line; /* of the [name] line */
  size_t nfields;
  char *key[VEC_MAX_FIELDS];
  char *val[VEC_MAX_FIELDS];
} vec;

typedef struct vec_file {
  char path[512];
  vec *v;
  size_t n;
} vec_file;

/* Loads tests/vectors/<name> (or $ITG_VECTORS/<name>); fails the test if
 * the file cannot be read or is malformed. */
void vec_load(const char *name, vec_file *out);

/* Frees what vec_load allocated. */
void vec_free(vec_file *f);

/* Returns the value of key, or NULL if the vector does not set it. */
const char *vec_get(const vec *v, const char *key);

/* Returns the value of key; fails the test if it is missing. */
const char *vec_str(const vec *v, const char *key);

/* Returns key's value as an unsigned integer of at most max (decimal or
 * 0x hexadecimal), or as a signed decimal one; fails the test if missing
 * or malformed. */
uint64_t vec_u64(const vec *v, const char *key, uint64_t max);
int64_t vec_i64(const vec *v, const char *key);

/* Decodes the hex of key "bytes" into buf[0..cap). Returns the byte count;
 * fails the test on bad hex or more than cap bytes. */
size_t vec_bytes(const vec *v, uint8_t *buf, size_t cap);

/* Returns the error code named by key "result" (0 for OK); fails the test
 * for an unknown name. */
int vec_result(const vec *v);

/* Fails the running test, naming vector v, when a and b differ (compared
 * as long long). */
#define VEQ(v, a, b)                                                           \
  do {                                                                         \
    long long va_ = (long long)(a), vb_ = (long long)(b);                      \
    if (va_ != vb_)                                                            \
      fail_msg("%s:%d [%s]: %s is %lld, expected %lld", (v)->file, (v)->line,  \
               (v)->name, #a, va_, vb_);                                       \
  } while (0)

#endif
