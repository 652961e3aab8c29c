/* Log records and log files: the shared vectors in tests/vectors/logrec.txt,
 * file round trips, and a reader facing truncated, corrupted and foreign
 * files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "core/byteorder.h"
#include "core/crc32c.h"
#include "core/logfile.h"
#include "helpers/rng.h"
#include "helpers/tmpdir.h"
#include "helpers/vectors.h"
#include "itg/log.h"

#define HDR ITG_LOG_HEADER_LEN
#define HDR1 ITG_LOG_V1_HEADER_LEN
#define REC ITG_LOG_RECORD_LEN
#define BLK ITG_LOG_BLOCK_RECORDS
/* A block's magic and count, and its checksum. */
#define BHEAD 8u
#define BTAIL 4u
/* Where record i of a log written without flushes lies: blocks are full
 * but the last. */
#define REC_AT(i) (HDR + ((i) / BLK) * (BHEAD + BLK * REC + BTAIL) + BHEAD + \
                   ((i) % BLK) * REC)

/* ---- helpers ---------------------------------------------------------- */

/* A path in the temporary directory, unique to this process. */
static void tmp_path(const char *name, char *buf, size_t len) {
  char dir[1024];
  size_t n = sizeof dir;
  assert_int_equal(uv_os_tmpdir(dir, &n), 0);
  snprintf(buf, len, "%s/itg_test_logfile_%d_%s", dir, (int)uv_os_getpid(),
           name);
}

/* Writes bytes to path, opened with mode ("wb" or "ab"). */
static void put_file(const char *path, const char *mode, const uint8_t *bytes,
                     size_t len) {
  FILE *f = fopen(path, mode);
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* Returns the whole file (caller frees) and its length in *len. */
static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0, got;
  assert_non_null(f);
  do {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  assert_int_equal(ferror(f), 0);
  fclose(f);
  *len = n;
  return buf;
}

/* A random record of one of the kinds a log holds. */
static itg_logrec random_rec(uint64_t *seed) {
  static const uint16_t kinds[] = {
      ITG_REC_TX,
      ITG_REC_RX,
      ITG_REC_RX | ITG_REC_KERNEL_TS,
      ITG_REC_TX | ITG_REC_RTT,
      ITG_REC_TX | ITG_REC_TCP,
      ITG_REC_RX | ITG_REC_TCP | ITG_REC_KERNEL_TS,
      ITG_REC_TX | ITG_REC_FLOW_END,
      ITG_REC_GAP,
  };
  itg_logrec r;
  uint64_t x = rng_next(seed);
  memset(&r, 0, sizeof r);
  r.flags = kinds[x % (sizeof kinds / sizeof kinds[0])];
  r.size = (r.flags & (ITG_REC_FLOW_END | ITG_REC_GAP))
               ? 0
               : (uint16_t)(1 + (x >> 8) % 65535);
  r.flow_id = (uint32_t)rng_next(seed);
  r.seq = rng_next(seed);
  r.tx_ns = (int64_t)rng_next(seed);
  r.rx_ns = (int64_t)rng_next(seed);
  return r;
}

static void assert_rec_equal(const itg_logrec *a, const itg_logrec *b) {
  assert_int_equal(a->flow_id, b->flow_id);
  assert_int_equal(a->size, b->size);
  assert_int_equal(a->flags, b->flags);
  assert_true(a->seq == b->seq);
  assert_true(a->tx_ns == b->tx_ns);
  assert_true(a->rx_ns == b->rx_ns);
}

static itg_log_hdr test_header(void) {
  itg_log_hdr h;
  memset(&h, 0, sizeof h);
  h.role = ITG_LOG_ROLE_RECEIVER;
  h.clock = ITG_LOG_CLOCK_KERNEL;
  h.created_ns = 1700000000123456789;
  strcpy(h.host, "roundtrip-host");
  return h;
}

/* Writes a log of n random records (seeded) at path; fills recs if given. */
static void make_log(const char *path, size_t n, uint64_t seed,
                     itg_logrec *recs) {
  itg_log_hdr h = test_header();
  itg_logwriter *w = NULL;
  size_t i;
  assert_int_equal(itg_logwriter_open(path, &h, &w), 0);
  for (i = 0; i < n; i++) {
    itg_logrec r = random_rec(&seed);
    assert_int_equal(itg_logwriter_write(w, &r, 1), 0);
    if (recs != NULL)
      recs[i] = r;
  }
  assert_int_equal(itg_logwriter_close(w), 0);
}

/* Writes a version 1 log (header and bare records, as libitg wrote them
 * before blocks) of n random records (seeded) at path. */
static void make_v1_log(const char *path, size_t n, uint64_t seed,
                        itg_logrec *recs) {
  itg_log_hdr h = test_header();
  uint8_t head[HDR], one[REC];
  FILE *f = fopen(path, "wb");
  size_t i;
  assert_non_null(f);
  itg_log_hdr_encode(&h, head);
  itg__put_le16(head + 8, 1);
  itg__put_le16(head + 12, HDR1);
  assert_int_equal(fwrite(head, 1, HDR1, f), HDR1);
  for (i = 0; i < n; i++) {
    itg_logrec r = random_rec(&seed);
    itg_logrec_encode(&r, one);
    assert_int_equal(fwrite(one, 1, REC, f), REC);
    if (recs != NULL)
      recs[i] = r;
  }
  assert_int_equal(fclose(f), 0);
}

/* Writes a block's checksum again after its bytes were changed. */
static void reseal_block(uint8_t *block) {
  size_t len = BHEAD + (size_t)itg__get_le32(block + 4) * REC;
  itg__put_le32(block + len, itg__crc32c(0, block, len));
}

/* Reads n records that must equal recs[0..n), then expects `end` (0, or an
 * error that repeats) at byte offset end_off. */
static void expect_log(const char *path, const itg_logrec *recs, size_t n,
                       int end, uint64_t end_off) {
  itg_logreader *r = NULL;
  itg_logrec got;
  size_t i;
  assert_int_equal(itg_logreader_open(path, &r), 0);
  for (i = 0; i < n; i++) {
    assert_int_equal(itg_logreader_next(r, &got), 1);
    assert_rec_equal(&got, &recs[i]);
  }
  assert_int_equal(itg_logreader_next(r, &got), end);
  assert_int_equal(itg_logreader_offset(r), end_off);
  assert_int_equal(itg_logreader_next(r, &got), end);
  assert_int_equal(itg_logreader_offset(r), end_off);
  itg_logreader_close(r);
}

/* ---- vectors ---------------------------------------------------------- */

static void vec_rec_fields(const vec *v, itg_logrec *r) {
  memset(r, 0, sizeof *r);
  r->flow_id = (uint32_t)vec_u64(v, "flow_id", UINT32_MAX);
  r->size = (uint16_t)vec_u64(v, "size", UINT16_MAX);
  r->flags = (uint16_t)vec_u64(v, "flags", UINT16_MAX);
  r->seq = vec_u64(v, "seq", UINT64_MAX);
  r->tx_ns = vec_i64(v, "tx_ns");
  r->rx_ns = vec_i64(v, "rx_ns");
}

static void vec_hdr_fields(const vec *v, itg_log_hdr *h) {
  const char *host = vec_str(v, "host");
  size_t n = strlen(host);
  memset(h, 0, sizeof *h);
  h->version = (uint16_t)vec_u64(v, "version", UINT16_MAX);
  h->role = (uint32_t)vec_u64(v, "role", UINT32_MAX);
  h->clock = (uint32_t)vec_u64(v, "clock", UINT32_MAX);
  h->created_ns = vec_i64(v, "created_ns");
  /* A name of 32 bytes fills the field with no NUL: the encoder must cut. */
  memcpy(h->host, host, n < sizeof h->host ? n : sizeof h->host);
}

static void run_record_vector(const vec *v, const char *test,
                              const uint8_t *bytes, size_t n) {
  itg_logrec want, got;
  uint8_t buf[REC];
  int rc;
  if (strcmp(test, "roundtrip") == 0) {
    VEQ(v, n, REC);
    vec_rec_fields(v, &want);
    itg_logrec_encode(&want, buf);
    if (memcmp(buf, bytes, REC) != 0)
      fail_msg("%s:%d [%s]: encoded bytes differ", v->file, v->line, v->name);
    rc = itg_logrec_decode(bytes, &got);
    VEQ(v, rc, 0);
    assert_rec_equal(&got, &want);
  } else if (strcmp(test, "decode") == 0) {
    VEQ(v, n, REC);
    rc = itg_logrec_decode(bytes, &got);
    VEQ(v, rc, vec_result(v));
    if (rc == 0) {
      vec_rec_fields(v, &want);
      assert_rec_equal(&got, &want);
    }
  } else {
    fail_msg("%s:%d [%s]: unknown test %s", v->file, v->line, v->name, test);
  }
}

static void check_hdr(const vec *v, const itg_log_hdr *got) {
  itg_log_hdr want;
  vec_hdr_fields(v, &want);
  VEQ(v, got->version, want.version);
  VEQ(v, got->role, want.role);
  VEQ(v, got->clock, want.clock);
  VEQ(v, got->created_ns, want.created_ns);
  if (memcmp(got->host, want.host, sizeof want.host) != 0)
    fail_msg("%s:%d [%s]: host is \"%.32s\"", v->file, v->line, v->name,
             got->host);
}

static void run_header_vector(const vec *v, const char *test,
                              const uint8_t *bytes, size_t n) {
  itg_log_hdr fields, got;
  uint8_t buf[HDR];
  int rc;
  if (strcmp(test, "roundtrip") == 0 || strcmp(test, "encode") == 0) {
    VEQ(v, n, HDR);
    vec_hdr_fields(v, &fields);
    itg_log_hdr_encode(&fields, buf);
    if (memcmp(buf, bytes, HDR) != 0)
      fail_msg("%s:%d [%s]: encoded bytes differ", v->file, v->line, v->name);
    if (strcmp(test, "encode") == 0) {
      VEQ(v, vec_result(v), 0);
      return;
    }
    rc = itg_log_hdr_decode(bytes, n, &got);
    VEQ(v, rc, 0);
    check_hdr(v, &got);
  } else if (strcmp(test, "decode") == 0) {
    /* A heap copy of exactly n bytes: reading past them is caught. */
    uint8_t *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    if (n > 0)
      memcpy(copy, bytes, n);
    rc = itg_log_hdr_decode(copy, n, &got);
    free(copy);
    VEQ(v, rc, vec_result(v));
    if (rc == 0)
      check_hdr(v, &got);
  } else {
    fail_msg("%s:%d [%s]: unknown test %s", v->file, v->line, v->name, test);
  }
}

static void test_logrec_vectors(void **state) {
  vec_file f;
  size_t i, records = 0, headers = 0;
  (void)state;
  vec_load("logrec.txt", &f);
  for (i = 0; i < f.n; i++) {
    const vec *v = &f.v[i];
    const char *what = vec_str(v, "what");
    const char *test = vec_str(v, "test");
    uint8_t bytes[128];
    size_t n = vec_bytes(v, bytes, sizeof bytes);
    if (strcmp(what, "record") == 0) {
      run_record_vector(v, test, bytes, n);
      records++;
    } else if (strcmp(what, "header") == 0) {
      run_header_vector(v, test, bytes, n);
      headers++;
    } else {
      fail_msg("%s:%d [%s]: unknown kind %s", v->file, v->line, v->name, what);
    }
  }
  assert_true(records >= 10);
  assert_true(headers >= 10);
  vec_free(&f);
}

/* ---- records and headers in memory ------------------------------------- */

/* Folds one byte into a CRC-32C register one bit at a time, straight from
 * the definition: what the library's faster ways (tables, the processor's
 * instruction) must agree with. */
static uint32_t crc32c_bitwise_step(uint32_t reg, uint8_t byte) {
  int k;
  reg ^= byte;
  for (k = 0; k < 8; k++)
    reg = (reg >> 1) ^ (0x82F63B78u & (0u - (reg & 1u)));
  return reg;
}

/* CRC-32C's check value, the definition's value for every length up to a
 * few 8-byte steps past a log block's and every start alignment, and a CRC
 * continued over pieces is the CRC of the whole, for every split and every
 * start alignment of the 8-byte steps. */
static void test_crc32c(void **state) {
  uint8_t buf[100], big[8 + 8 + BLK * REC + 40];
  uint64_t seed = 8;
  size_t i, cut, start;
  (void)state;
  assert_int_equal(itg__crc32c(0, "123456789", 9), 0xE3069283u);
  assert_int_equal(itg__crc32c(0, buf, 0), 0);
  for (i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)rng_next(&seed);
  for (i = 0; i < sizeof big; i++)
    big[i] = (uint8_t)rng_next(&seed);
  for (start = 0; start < 8; start++) {
    uint32_t reg = 0xFFFFFFFFu;
    for (i = 0; start + i < sizeof big; i++) {
      assert_int_equal(itg__crc32c(0, big + start, i), ~reg);
      reg = crc32c_bitwise_step(reg, big[start + i]);
    }
  }
  for (start = 0; start < 8; start++) {
    uint32_t whole = itg__crc32c(0, buf + start, sizeof buf - start);
    for (cut = start; cut <= sizeof buf; cut++)
      assert_int_equal(
          itg__crc32c(itg__crc32c(0, buf + start, cut - start), buf + cut,
                      sizeof buf - cut),
          whole);
  }
}

static void test_record_random_roundtrip(void **state) {
  uint64_t seed = 31337;
  int i;
  (void)state;
  for (i = 0; i < 200000; i++) {
    itg_logrec r = random_rec(&seed), back;
    uint8_t buf[REC];
    itg_logrec_encode(&r, buf);
    assert_int_equal(itg_logrec_decode(buf, &back), 0);
    assert_rec_equal(&back, &r);
  }
}

/* Every header prefix is ETRUNC, a short buffer that does not begin as a
 * log is EBADMSG, and a failed decode leaves *hdr alone. */
static void test_header_truncations(void **state) {
  itg_log_hdr h = test_header(), out, before;
  uint8_t buf[HDR];
  size_t k;
  (void)state;
  itg_log_hdr_encode(&h, buf);
  memset(&out, 0x5A, sizeof out);
  memcpy(&before, &out, sizeof before);
  for (k = 0; k < HDR; k++)
    assert_int_equal(itg_log_hdr_decode(buf, k, &out), ITG_ETRUNC);
  assert_int_equal(itg_log_hdr_decode((const uint8_t *)"ITGLAG\r\n", 8, &out),
                   ITG_EBADMSG);
  assert_int_equal(itg_log_hdr_decode((const uint8_t *)"x", 1, &out),
                   ITG_EBADMSG);
  assert_memory_equal(&out, &before, sizeof out);
  assert_int_equal(itg_log_hdr_decode(buf, HDR, &out), 0);
  assert_string_equal(out.host, "roundtrip-host");
}

/* ---- files ------------------------------------------------------------ */

static void test_file_roundtrip(void **state) {
  enum { N = 150000 };
  char path[1100];
  itg_log_hdr h = test_header(), got_hdr;
  itg_logwriter *w = NULL;
  itg_logreader *r = NULL;
  itg_logrec *recs = malloc(N * sizeof *recs), got;
  uint64_t seed = 5;
  size_t i = 0, len;
  uint8_t *bytes;
  (void)state;
  assert_non_null(recs);
  tmp_path("roundtrip.log", path, sizeof path);
  for (i = 0; i < N; i++)
    recs[i] = random_rec(&seed);
  assert_int_equal(itg_logwriter_open(path, &h, &w), 0);
  /* Batches of every size up to 3000 cross the writer's buffer edge at
   * every record position; a flush in the middle changes nothing. */
  for (i = 0; i < N;) {
    size_t n = 1 + (size_t)(rng_next(&seed) % 3000);
    if (n > N - i)
      n = N - i;
    assert_int_equal(itg_logwriter_write(w, recs + i, n), 0);
    i += n;
    if (i > N / 2 && i - n <= N / 2)
      assert_int_equal(itg_logwriter_flush(w), 0);
  }
  assert_int_equal(itg_logwriter_write(w, recs, 0), 0);
  assert_int_equal(itg_logwriter_close(w), 0);

  /* The file is the header, then blocks as itg/log.h lays them out, each
   * full but the one the flush closed and the last, holding the records
   * in order. */
  bytes = read_file(path, &len);
  {
    size_t off = HDR, short_blocks = 0;
    uint8_t one[REC];
    for (i = 0; i < N;) {
      uint32_t n;
      size_t k;
      assert_true(off + BHEAD <= len);
      assert_memory_equal(bytes + off, "ITGB", 4);
      n = itg__get_le32(bytes + off + 4);
      assert_true(n >= 1 && n <= BLK);
      short_blocks += n < BLK;
      assert_true(off + BHEAD + n * REC + BTAIL <= len);
      assert_int_equal(itg__get_le32(bytes + off + BHEAD + n * REC),
                       itg__crc32c(0, bytes + off, BHEAD + n * REC));
      for (k = 0; k < n; k++, i++) {
        itg_logrec_encode(&recs[i], one);
        assert_memory_equal(bytes + off + BHEAD + k * REC, one, REC);
      }
      off += BHEAD + n * REC + BTAIL;
    }
    assert_int_equal(off, len);
    assert_true(short_blocks <= 2);
  }
  free(bytes);

  assert_int_equal(itg_logreader_open(path, &r), 0);
  itg_logreader_header(r, &got_hdr);
  assert_int_equal(got_hdr.version, ITG_LOG_VERSION);
  assert_int_equal(got_hdr.role, h.role);
  assert_int_equal(got_hdr.clock, h.clock);
  assert_true(got_hdr.created_ns == h.created_ns);
  assert_string_equal(got_hdr.host, h.host);
  assert_int_equal(itg_logreader_offset(r), HDR);
  for (i = 0; i < N; i++) {
    assert_int_equal(itg_logreader_next(r, &got), 1);
    assert_rec_equal(&got, &recs[i]);
  }
  assert_int_equal(itg_logreader_next(r, &got), 0);
  assert_int_equal(itg_logreader_next(r, &got), 0);
  assert_int_equal(itg_logreader_offset(r), len);
  itg_logreader_close(r);
  free(recs);
  remove(path);
}

/* A version 1 log, as libitg wrote them before blocks, reads record by
 * record to its end. */
static void test_v1_roundtrip(void **state) {
  enum { N = 5000 };
  char path[1100];
  itg_logrec recs[N];
  itg_logreader *r = NULL;
  itg_log_hdr got_hdr;
  (void)state;
  tmp_path("v1.log", path, sizeof path);
  make_v1_log(path, N, 23, recs);
  assert_int_equal(itg_logreader_open(path, &r), 0);
  itg_logreader_header(r, &got_hdr);
  assert_int_equal(got_hdr.version, 1);
  assert_string_equal(got_hdr.host, "roundtrip-host");
  assert_int_equal(itg_logreader_offset(r), HDR1);
  itg_logreader_close(r);
  expect_log(path, recs, N, 0, HDR1 + (uint64_t)N * REC);
  make_v1_log(path, 0, 23, NULL);
  expect_log(path, NULL, 0, 0, HDR1);
  remove(path);
}

static void test_empty_log(void **state) {
  char path[1100];
  (void)state;
  tmp_path("empty.log", path, sizeof path);
  make_log(path, 0, 1, NULL);
  expect_log(path, NULL, 0, 0, HDR);
  remove(path);
}

/* A file cut anywhere inside its last block: the records of the blocks
 * before it come back whole, then ETRUNC at the start of the cut block. */
static void test_truncated_last_block(void **state) {
  enum { N = BLK + 10 };
  char path[1100], cut_path[1100];
  itg_logrec recs[N];
  uint8_t *bytes;
  size_t len, cut, last = REC_AT(BLK) - BHEAD;
  (void)state;
  tmp_path("full.log", path, sizeof path);
  tmp_path("cut.log", cut_path, sizeof cut_path);
  make_log(path, N, 7, recs);
  bytes = read_file(path, &len);
  assert_int_equal(len, last + BHEAD + 10 * REC + BTAIL);
  for (cut = 0; cut < len - last; cut++) {
    put_file(cut_path, "wb", bytes, last + cut);
    expect_log(cut_path, recs, BLK, cut == 0 ? 0 : ITG_ETRUNC, last);
  }
  free(bytes);
  remove(path);
  remove(cut_path);
}

/* A version 1 file cut anywhere inside its last record: the records
 * before it come back whole, then ETRUNC at the start of the cut record. */
static void test_v1_truncated_last_record(void **state) {
  enum { N = 10 };
  char path[1100], cut_path[1100];
  itg_logrec recs[N];
  uint8_t *bytes;
  size_t len, cut;
  (void)state;
  tmp_path("full1.log", path, sizeof path);
  tmp_path("cut1.log", cut_path, sizeof cut_path);
  make_v1_log(path, N, 7, recs);
  bytes = read_file(path, &len);
  assert_int_equal(len, HDR1 + N * REC);
  for (cut = 0; cut < REC; cut++) {
    size_t keep = HDR1 + (N - 1) * REC + cut;
    put_file(cut_path, "wb", bytes, keep);
    expect_log(cut_path, recs, N - 1, cut == 0 ? 0 : ITG_ETRUNC,
               HDR1 + (N - 1) * REC);
  }
  free(bytes);
  remove(path);
  remove(cut_path);
}

/* A file cut inside its header is refused as truncated. */
static void test_truncated_header(void **state) {
  char path[1100], cut_path[1100];
  uint8_t *bytes;
  size_t len, cut;
  (void)state;
  tmp_path("hfull.log", path, sizeof path);
  tmp_path("hcut.log", cut_path, sizeof cut_path);
  make_log(path, 3, 9, NULL);
  bytes = read_file(path, &len);
  for (cut = 0; cut < HDR; cut++) {
    itg_logreader *r = NULL;
    put_file(cut_path, "wb", bytes, cut);
    assert_int_equal(itg_logreader_open(cut_path, &r), ITG_ETRUNC);
    assert_null(r);
  }
  free(bytes);
  remove(path);
  remove(cut_path);
}

/* In a version 1 file a record that does not decode stops the reader at
 * its offset, and the records before it are intact. */
static void test_v1_corrupt_middle_record(void **state) {
  enum { N = 20, BAD = 7 };
  char path[1100];
  itg_logrec recs[N];
  uint8_t *bytes;
  size_t len;
  (void)state;
  tmp_path("corrupt.log", path, sizeof path);
  make_v1_log(path, N, 11, recs);
  bytes = read_file(path, &len);
  /* An unknown flag bit. */
  bytes[HDR1 + BAD * REC + 6] = 0x80;
  put_file(path, "wb", bytes, len);
  expect_log(path, recs, BAD, ITG_EBADMSG, HDR1 + BAD * REC);
  /* A packet record of size 0. */
  bytes[HDR1 + BAD * REC + 4] = 0;
  bytes[HDR1 + BAD * REC + 5] = 0;
  bytes[HDR1 + BAD * REC + 6] = ITG_REC_TX;
  bytes[HDR1 + BAD * REC + 7] = 0;
  put_file(path, "wb", bytes, len);
  expect_log(path, recs, BAD, ITG_EBADMSG, HDR1 + BAD * REC);
  free(bytes);
  remove(path);
}

/* Reads path expecting recs[0..n) but for the records of block `lost`
 * (which holds `count` of them): ITG_EBADMSG comes once where they were,
 * with the damage it names, then the rest and the clean end. */
static void expect_skipped(const char *path, const itg_logrec *recs,
                           size_t n, size_t lost, size_t count) {
  itg_logreader *r = NULL;
  itg_log_damage d;
  itg_logrec got;
  size_t i;
  assert_int_equal(itg_logreader_open(path, &r), 0);
  assert_int_equal(itg_logreader_damage(r, &d), 0);
  for (i = 0; i < n; i++) {
    if (i == lost * BLK) {
      assert_int_equal(itg_logreader_next(r, &got), ITG_EBADMSG);
      assert_int_equal(itg_logreader_damage(r, &d), 1);
      assert_int_equal(d.block, lost);
      assert_int_equal(d.offset, REC_AT(i) - BHEAD);
      assert_int_equal(d.records, count);
      i += count - 1;
      continue;
    }
    assert_int_equal(itg_logreader_next(r, &got), 1);
    assert_rec_equal(&got, &recs[i]);
  }
  assert_int_equal(itg_logreader_next(r, &got), 0);
  assert_int_equal(itg_logreader_damage(r, &d), 1);
  itg_logreader_close(r);
}

/* In a version 2 file a damaged block is reported once and skipped; the
 * blocks around it read whole. A record that does not decode in a block
 * whose checksum holds (written so) costs its block too. */
static void test_damaged_block(void **state) {
  enum { N = 3 * BLK + 5 };
  char path[1100];
  itg_logrec *recs = malloc(N * sizeof *recs);
  uint8_t *bytes;
  size_t len;
  (void)state;
  assert_non_null(recs);
  tmp_path("damaged.log", path, sizeof path);
  make_log(path, N, 11, recs);
  bytes = read_file(path, &len);

  bytes[REC_AT(BLK + 9) + 3] ^= 0x04; /* a bit of a record */
  put_file(path, "wb", bytes, len);
  expect_skipped(path, recs, N, 1, BLK);
  bytes[REC_AT(BLK + 9) + 3] ^= 0x04;

  bytes[REC_AT(BLK) - BHEAD + 5] ^= 0x01; /* the count, now 0 */
  put_file(path, "wb", bytes, len);
  expect_skipped(path, recs, N, 1, BLK);
  bytes[REC_AT(BLK) - BHEAD + 5] ^= 0x01;

  bytes[REC_AT(2 * BLK) - BHEAD] = 'X'; /* the magic */
  put_file(path, "wb", bytes, len);
  expect_skipped(path, recs, N, 2, BLK);
  bytes[REC_AT(2 * BLK) - BHEAD] = 'I';

  bytes[len - 1] ^= 0x80; /* the last block's checksum */
  put_file(path, "wb", bytes, len);
  expect_skipped(path, recs, N, 3, 5);
  bytes[len - 1] ^= 0x80;

  bytes[REC_AT(7) + 6] = 0x80; /* an unknown flag bit, block resealed */
  reseal_block(bytes + REC_AT(0) - BHEAD);
  put_file(path, "wb", bytes, len);
  expect_skipped(path, recs, N, 0, BLK);
  free(bytes);
  free(recs);
  remove(path);
}

/* Random single-bit flips anywhere in a log (fixed seed): a flip in the
 * header makes it refused; a flip in a block is found, reported once with
 * that block's number and count, and only that block's records are lost. */
static void test_bit_flips(void **state) {
  enum { N = 4 * BLK + 77, FLIPS = 1500 };
  char path[1100], flip_path[1100];
  itg_logrec *recs = malloc(N * sizeof *recs);
  uint64_t seed = 20261124;
  uint8_t *bytes;
  size_t len, f, in_header = 0;
  (void)state;
  assert_non_null(recs);
  tmp_path("flipsrc.log", path, sizeof path);
  tmp_path("flip.log", flip_path, sizeof flip_path);
  make_log(path, N, 3, recs);
  bytes = read_file(path, &len);
  for (f = 0; f < FLIPS; f++) {
    size_t bit = (size_t)(rng_next(&seed) % (len * 8)), at = bit / 8;
    itg_logreader *r = NULL;
    bytes[at] ^= (uint8_t)(1u << (bit % 8));
    put_file(flip_path, "wb", bytes, len);
    if (at < HDR) {
      int rc = itg_logreader_open(flip_path, &r);
      if (rc == 0)
        fail_msg("flip of bit %zu in the header went unseen", bit);
      assert_null(r);
      in_header++;
    } else {
      size_t block = (at - HDR) / (BHEAD + BLK * REC + BTAIL);
      size_t count = block == N / BLK ? N % BLK : BLK;
      expect_skipped(flip_path, recs, N, block, count);
    }
    bytes[at] ^= (uint8_t)(1u << (bit % 8));
  }
  assert_true(in_header > 0);
  free(bytes);
  free(recs);
  remove(path);
  remove(flip_path);
}

/* Opens a copy of a good log with one header byte changed. */
static int open_patched(const char *path, const uint8_t *bytes, size_t len,
                        size_t at, uint8_t value) {
  uint8_t *copy = malloc(len);
  itg_logreader *r = NULL;
  int rc;
  assert_non_null(copy);
  memcpy(copy, bytes, len);
  copy[at] = value;
  put_file(path, "wb", copy, len);
  free(copy);
  rc = itg_logreader_open(path, &r);
  if (rc == 0)
    itg_logreader_close(r);
  else
    assert_null(r);
  return rc;
}

static void test_foreign_headers(void **state) {
  char path[1100], bad_path[1100];
  uint8_t *bytes;
  size_t len;
  (void)state;
  tmp_path("good.log", path, sizeof path);
  tmp_path("bad.log", bad_path, sizeof bad_path);
  make_log(path, 2, 13, NULL);
  bytes = read_file(path, &len);
  assert_int_equal(open_patched(bad_path, bytes, len, 0, bytes[0]), 0);
  /* A byte-order mark that reads 0xFFFE: a big-endian file. */
  bytes[10] = 0xFE;
  bytes[11] = 0xFF;
  assert_int_equal(open_patched(bad_path, bytes, len, 0, 'I'), ITG_EBADMSG);
  bytes[10] = 0xFF;
  bytes[11] = 0xFE;
  assert_int_equal(open_patched(bad_path, bytes, len, 0, 'X'), ITG_EBADMSG);
  assert_int_equal(open_patched(bad_path, bytes, len, 6, '\n'), ITG_EBADMSG);
  assert_int_equal(open_patched(bad_path, bytes, len, 8, 3), ITG_EVERSION);
  assert_int_equal(open_patched(bad_path, bytes, len, 8, 1), ITG_EBADMSG);
  assert_int_equal(open_patched(bad_path, bytes, len, 9, 1), ITG_EVERSION);
  assert_int_equal(open_patched(bad_path, bytes, len, 14, 33), ITG_EBADMSG);
  assert_int_equal(open_patched(bad_path, bytes, len, 16, 9), ITG_EBADMSG);
  assert_int_equal(open_patched(bad_path, bytes, len, 40, 'x'), ITG_EBADMSG);
  free(bytes);
  remove(path);
  remove(bad_path);
}

/* A reader at the end of a log still being written picks up what is
 * appended later, even after reporting a partial block. */
static void test_growing_file(void **state) {
  char path[1100];
  itg_log_hdr h = test_header();
  itg_logwriter *w = NULL;
  itg_logrec recs[3], got;
  itg_logreader *r = NULL;
  uint64_t seed = 17;
  uint8_t *bytes;
  size_t len, i, second = HDR + BHEAD + REC + BTAIL;
  (void)state;
  tmp_path("grow.log", path, sizeof path);
  for (i = 0; i < 3; i++)
    recs[i] = random_rec(&seed);
  /* Blocks of 1 and 2 records: a flush closes a block. */
  assert_int_equal(itg_logwriter_open(path, &h, &w), 0);
  assert_int_equal(itg_logwriter_write(w, recs, 1), 0);
  assert_int_equal(itg_logwriter_flush(w), 0);
  assert_int_equal(itg_logwriter_write(w, recs + 1, 2), 0);
  assert_int_equal(itg_logwriter_close(w), 0);
  bytes = read_file(path, &len);
  assert_int_equal(len, second + BHEAD + 2 * REC + BTAIL);
  put_file(path, "wb", bytes, second + BHEAD + REC);
  assert_int_equal(itg_logreader_open(path, &r), 0);
  assert_int_equal(itg_logreader_next(r, &got), 1);
  assert_rec_equal(&got, &recs[0]);
  assert_int_equal(itg_logreader_next(r, &got), ITG_ETRUNC);
  assert_int_equal(itg_logreader_offset(r), second);
  put_file(path, "ab", bytes + second + BHEAD + REC, REC + BTAIL);
  assert_int_equal(itg_logreader_next(r, &got), 1);
  assert_rec_equal(&got, &recs[1]);
  assert_int_equal(itg_logreader_next(r, &got), 1);
  assert_rec_equal(&got, &recs[2]);
  assert_int_equal(itg_logreader_next(r, &got), 0);
  assert_int_equal(itg_logreader_offset(r), len);
  itg_logreader_close(r);
  free(bytes);
  remove(path);
}

static void test_open_errors(void **state) {
  char path[1100], missing_dir[1100];
  itg_log_hdr h = test_header();
  itg_logwriter *w = NULL;
  itg_logreader *r = NULL;
  itg_logrec rec;
  (void)state;
  tmp_path("never-created.log", path, sizeof path);
  tmp_path("no-such-dir/x.log", missing_dir, sizeof missing_dir);
  assert_int_equal(itg_logreader_open(path, &r), ITG_ENOENT);
  assert_int_equal(itg_logreader_open(NULL, &r), ITG_EINVAL);
  assert_int_equal(itg_logreader_open(path, NULL), ITG_EINVAL);
  assert_null(r);
  assert_int_equal(itg_logwriter_open(missing_dir, &h, &w), ITG_ENOENT);
  assert_int_equal(itg_logwriter_open(NULL, &h, &w), ITG_EINVAL);
  assert_int_equal(itg_logwriter_open(path, NULL, &w), ITG_EINVAL);
  assert_int_equal(itg_logwriter_open(path, &h, NULL), ITG_EINVAL);
  h.role = 3;
  assert_int_equal(itg_logwriter_open(path, &h, &w), ITG_EINVAL);
  h.role = ITG_LOG_ROLE_SENDER;
  h.clock = 0;
  assert_int_equal(itg_logwriter_open(path, &h, &w), ITG_EINVAL);
  assert_null(w);
  assert_int_equal(itg_logwriter_write(NULL, &rec, 1), ITG_EINVAL);
  assert_int_equal(itg_logwriter_flush(NULL), ITG_EINVAL);
  assert_int_equal(itg_logwriter_close(NULL), 0);
  assert_int_equal(itg_logreader_next(NULL, &rec), ITG_EINVAL);
  itg_logreader_close(NULL);
}

/* A name a peer chose: the file there keeps its bytes, and the log goes
 * to NAME.1, then NAME.2; the path made is told. */
static void test_create_new(void **state) {
  char dir[512], base[600], made[700], want[700];
  itg_log_hdr h = test_header();
  itg_logwriter *w = NULL;
  itg_logreader *r = NULL;
  uint64_t seed = 7;
  itg_logrec rec = random_rec(&seed), got;
  uint8_t bytes[3] = {1, 2, 3}, back[4];
  FILE *f;
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-create-"), 0);
  snprintf(base, sizeof base, "%s/taken", dir);
  put_file(base, "wb", bytes, sizeof bytes);
  assert_int_equal(itg__logwriter_create(base, &h, made, sizeof made, &w), 0);
  snprintf(want, sizeof want, "%s.1", base);
  assert_string_equal(made, want);
  assert_int_equal(itg_logwriter_write(w, &rec, 1), 0);
  assert_int_equal(itg_logwriter_close(w), 0);
  assert_int_equal(itg__logwriter_create(base, &h, made, sizeof made, &w), 0);
  snprintf(want, sizeof want, "%s.2", base);
  assert_string_equal(made, want);
  assert_int_equal(itg_logwriter_close(w), 0);
  f = fopen(base, "rb");
  assert_non_null(f);
  assert_int_equal(fread(back, 1, sizeof back, f), sizeof bytes);
  fclose(f);
  assert_memory_equal(back, bytes, sizeof bytes);
  snprintf(want, sizeof want, "%s.1", base);
  assert_int_equal(itg_logreader_open(want, &r), 0);
  assert_int_equal(itg_logreader_next(r, &got), 1);
  assert_rec_equal(&got, &rec);
  assert_int_equal(itg_logreader_next(r, &got), 0);
  itg_logreader_close(r);
  /* A path made that would not fit, a directory that is not there. */
  assert_int_equal(itg__logwriter_create(base, &h, made, strlen(base) + 2, &w),
                   ITG_ERANGE);
  snprintf(base, sizeof base, "%s/no-such-dir/x", dir);
  assert_int_equal(itg__logwriter_create(base, &h, made, sizeof made, &w),
                   ITG_ENOENT);
  assert_int_equal(tmpdir_remove(dir), 0);
}

#if defined(__linux__)
/* Linux's /dev/full fails every write with ENOSPC, and a directory opens
 * for reading but fails every read. */
static void test_io_errors(void **state) {
  char dir[1024];
  size_t n = sizeof dir;
  itg_log_hdr h = test_header();
  itg_logwriter *w = NULL;
  itg_logreader *r = NULL;
  (void)state;
  assert_int_equal(itg_logwriter_open("/dev/full", &h, &w), ITG_ENOSPC);
  assert_null(w);
  assert_int_equal(uv_os_tmpdir(dir, &n), 0);
  assert_int_equal(itg_logreader_open(dir, &r), ITG_EIO);
  assert_null(r);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_logrec_vectors),
      cmocka_unit_test(test_record_random_roundtrip),
      cmocka_unit_test(test_crc32c),
      cmocka_unit_test(test_header_truncations),
      cmocka_unit_test(test_file_roundtrip),
      cmocka_unit_test(test_v1_roundtrip),
      cmocka_unit_test(test_empty_log),
      cmocka_unit_test(test_truncated_last_block),
      cmocka_unit_test(test_v1_truncated_last_record),
      cmocka_unit_test(test_truncated_header),
      cmocka_unit_test(test_v1_corrupt_middle_record),
      cmocka_unit_test(test_damaged_block),
      cmocka_unit_test(test_bit_flips),
      cmocka_unit_test(test_foreign_headers),
      cmocka_unit_test(test_growing_file),
      cmocka_unit_test(test_open_errors),
      cmocka_unit_test(test_create_new),
#if defined(__linux__)
      cmocka_unit_test(test_io_errors),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
