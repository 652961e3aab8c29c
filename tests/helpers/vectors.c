/* Reader of the test-vector files (see vectors.h). */
#include "vectors.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "itg/parse.h"
#include "itg/common.h"

/* Drops blanks at both ends, in place. */
static char *trim(char *s) {
  char *end;
  while (isspace((unsigned char)*s))
    s++;
  end = s + strlen(s);
  while (end > s && isspace((unsigned char)end[-1]))
    *--end = '\0';
  return s;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  assert_non_null(d);
  memcpy(d, s, n);
  return d;
}

/* Appends " more" to the last value of v (a continuation line). */
static void append_value(vec *v, const char *more) {
  char *old = v->val[v->nfields - 1];
  size_t a = strlen(old), b = strlen(more);
  char *s = realloc(old, a + b + 2);
  assert_non_null(s);
  s[a] = ' ';
  memcpy(s + a + 1, more, b + 1);
  v->val[v->nfields - 1] = s;
}

void vec_load(const char *name, vec_file *out) {
  const char *dir = getenv("ITG_VECTORS");
  char line[1024];
  int lineno = 0;
  size_t cap = 0;
  vec *cur = NULL;
  FILE *f;
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s/%s",
           dir != NULL && *dir != '\0' ? dir : "tests/vectors", name);
  f = fopen(out->path, "r");
  if (f == NULL)
    fail_msg("cannot open %s (run from the repository root or set "
             "ITG_VECTORS)", out->path);
  while (fgets(line, sizeof line, f) != NULL) {
    int continued = isspace((unsigned char)line[0]);
    char *s;
    lineno++;
    if (strchr(line, '\n') == NULL && !feof(f))
      fail_msg("%s:%d: line too long", out->path, lineno);
    s = trim(line);
    if (*s == '\0' || *s == '#')
      continue;
    if (*s == '[') {
      char *close = strchr(s, ']');
      if (close == NULL || close[1] != '\0' || close - s - 1 >= 64)
        fail_msg("%s:%d: bad vector name", out->path, lineno);
      if (out->n == cap) {
        vec *nv;
        cap = cap ? cap * 2 : 32;
        nv = realloc(out->v, cap * sizeof *nv);
        assert_non_null(nv);
        out->v = nv;
      }
      cur = &out->v[out->n++];
      memset(cur, 0, sizeof *cur);
      memcpy(cur->name, s + 1, (size_t)(close - s - 1));
      cur->file = out->path;
      cur->line = lineno;
      continue;
    }
    if (cur == NULL)
      fail_msg("%s:%d: field before the first [name]", out->path, lineno);
    if (continued) {
      if (cur->nfields == 0)
        fail_msg("%s:%d: continuation without a key", out->path, lineno);
      append_value(cur, s);
      continue;
    }
    {
      char *eq = strchr(s, '=');
      if (eq == NULL)
        fail_msg("%s:%d: expected key = value", out->path, lineno);
      if (cur->nfields == VEC_MAX_FIELDS)
        fail_msg("%s:%d: too many fields", out->path, lineno);
      *eq = '\0';
      cur->key[cur->nfields] = dup_str(trim(s));
      cur->val[cur->nfields] = dup_str(trim(eq + 1));
      cur->nfields++;
    }
  }
  fclose(f);
  if (out->n == 0)
    fail_msg("%s: no vectors", out->path);
}

void vec_free(vec_file *f) {
  size_t i, k;
  for (i = 0; i < f->n; i++)
    for (k = 0; k < f->v[i].nfields; k++) {
      free(f->v[i].key[k]);
      free(f->v[i].val[k]);
    }
  free(f->v);
  memset(f, 0, sizeof *f);
}

const char *vec_get(const vec *v, const char *key) {
  size_t k;
  for (k = 0; k < v->nfields; k++)
    if (strcmp(v->key[k], key) == 0)
      return v->val[k];
  return NULL;
}

const char *vec_str(const vec *v, const char *key) {
  const char *s = vec_get(v, key);
  if (s == NULL)
    fail_msg("%s:%d [%s]: missing %s", v->file, v->line, v->name, key);
  return s;
}

uint64_t vec_u64(const vec *v, const char *key, uint64_t max) {
  uint64_t x;
  if (itg_parse_u64(vec_str(v, key), 0, max, &x) != 0)
    fail_msg("%s:%d [%s]: bad %s", v->file, v->line, v->name, key);
  return x;
}

int64_t vec_i64(const vec *v, const char *key) {
  int64_t x;
  if (itg_parse_i64(vec_str(v, key), INT64_MIN, INT64_MAX, &x) != 0)
    fail_msg("%s:%d [%s]: bad %s", v->file, v->line, v->name, key);
  return x;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

size_t vec_bytes(const vec *v, uint8_t *buf, size_t cap) {
  const char *s = vec_str(v, "bytes");
  size_t n = 0;
  int hi = -1;
  for (; *s != '\0'; s++) {
    int d;
    if (isspace((unsigned char)*s))
      continue;
    d = hex_digit(*s);
    if (d < 0)
      fail_msg("%s:%d [%s]: bad hex", v->file, v->line, v->name);
    if (hi < 0) {
      hi = d;
      continue;
    }
    if (n == cap)
      fail_msg("%s:%d [%s]: more than %zu bytes", v->file, v->line, v->name,
               cap);
    buf[n++] = (uint8_t)(hi << 4 | d);
    hi = -1;
  }
  if (hi >= 0)
    fail_msg("%s:%d [%s]: odd number of hex digits", v->file, v->line,
             v->name);
  return n;
}

int vec_result(const vec *v) {
  const char *name = vec_str(v, "result");
  int code;
  if (strcmp(name, "OK") == 0)
    return 0;
  /* The error table is dense from -1 down; its names are the source of
   * truth, so look the name up there rather than keep a second list. */
  for (code = -1; strcmp(itg_err_name(code), "UNKNOWN") != 0; code--)
    if (strcmp(itg_err_name(code), name) == 0)
      return code;
  fail_msg("%s:%d [%s]: unknown result %s", v->file, v->line, v->name, name);
  return 0;
}
