/* The framing module: the 8-byte header's round trip and its checks, and
 * the stream reader: every frame comes out whole wherever the stream is
 * cut, an oversize length is refused on the header alone, a frame larger
 * than the reader's buffer is refused rather than waited for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/cursor.h"
#include "core/frame.h"
#include "itg/common.h"

#define VERSION 3u
#define MAX_BODY 40u
#define CAP (ITG__FRAME_HDR_LEN + MAX_BODY)

/* The measure of this test's frames: version VERSION, bodies of at most
 * MAX_BODY bytes. */
static int measure(const uint8_t *buf, size_t avail, void *arg) {
  itg__frame_hdr h;
  int rc = itg__frame_hdr_get(buf, avail, VERSION, MAX_BODY, &h);
  (void)arg;
  if (rc == ITG_ETRUNC)
    return 0;
  return rc < 0 ? rc : (int)(ITG__FRAME_HDR_LEN + h.body);
}

static void test_hdr_round_trip(void **state) {
  static const uint32_t bodies[] = {0, 1, 255, 256, 65536, 0xFFFFFFFFu};
  uint8_t buf[ITG__FRAME_HDR_LEN];
  itg__frame_hdr h;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
    itg__frame_hdr_put(buf, (uint8_t)(7 + i), 0xA5, bodies[i]);
    /* Big endian, reserved bytes zero: the bytes on the wire. */
    assert_int_equal(buf[0], 7 + i);
    assert_int_equal(buf[1], 0xA5);
    assert_int_equal(buf[2], 0);
    assert_int_equal(buf[3], 0);
    assert_int_equal(buf[4], bodies[i] >> 24);
    assert_int_equal(buf[7], bodies[i] & 0xFF);
    memset(&h, 0, sizeof h);
    assert_int_equal(itg__frame_hdr_get(buf, sizeof buf, 0xA5, 0xFFFFFFFFu, &h),
                     0);
    assert_int_equal(h.type, 7 + i);
    assert_int_equal(h.version, 0xA5);
    assert_int_equal(h.body, bodies[i]);
  }
}

static void test_hdr_checks(void **state) {
  uint8_t buf[ITG__FRAME_HDR_LEN];
  itg__frame_hdr h;
  (void)state;
  itg__frame_hdr_put(buf, 1, VERSION, MAX_BODY);
  assert_int_equal(itg__frame_hdr_get(buf, 7, VERSION, MAX_BODY, &h),
                   ITG_ETRUNC);
  assert_int_equal(itg__frame_hdr_get(buf, 8, VERSION + 1, MAX_BODY, &h),
                   ITG_EVERSION);
  assert_int_equal(itg__frame_hdr_get(buf, 8, VERSION, MAX_BODY, &h), 0);
  /* One byte more than the protocol allows. */
  assert_int_equal(itg__frame_hdr_get(buf, 8, VERSION, MAX_BODY - 1, &h),
                   ITG_EBADMSG);
  buf[3] = 1; /* reserved */
  assert_int_equal(itg__frame_hdr_get(buf, 8, VERSION, MAX_BODY, &h),
                   ITG_EBADMSG);
}

/* Writes a frame of type t whose body is `body` bytes of t + i. */
static size_t put_frame(uint8_t *at, uint8_t t, uint32_t body) {
  uint32_t i;
  itg__frame_hdr_put(at, t, VERSION, body);
  for (i = 0; i < body; i++)
    at[ITG__FRAME_HDR_LEN + i] = (uint8_t)(t + i);
  return ITG__FRAME_HDR_LEN + body;
}

static void check_frame(const uint8_t *f, int n, uint8_t t, uint32_t body) {
  uint32_t i;
  assert_int_equal(n, ITG__FRAME_HDR_LEN + body);
  assert_int_equal(f[0], t);
  for (i = 0; i < body; i++)
    assert_int_equal(f[ITG__FRAME_HDR_LEN + i], (uint8_t)(t + i));
}

static const uint32_t sizes[] = {0, 5, MAX_BODY, 1, MAX_BODY - 1, 0, 17};
#define NFRAMES (sizeof sizes / sizeof sizes[0])

/* Feeds stream[0..len) to a reader of a CAP-byte buffer in two parts cut
 * at `cut`, then byte by byte from there if `bytewise`; checks that every
 * frame comes out whole and in order, and nothing is left over. */
static void feed(const uint8_t *stream, size_t len, size_t cut, int bytewise) {
  uint8_t buf[CAP];
  itg__frame_reader r;
  size_t off = 0, got = 0;
  memset(&r, 0, sizeof r); /* all zero is an empty reader */
  while (off < len) {
    size_t room, k = off < cut ? cut - off : bytewise ? 1 : len - off;
    uint8_t *p = itg__frame_reader_space(&r, buf, sizeof buf, &room), *f;
    int n;
    if (k > room)
      k = room;
    assert_true(k > 0); /* room while no whole frame is held */
    memcpy(p, stream + off, k);
    itg__frame_reader_commit(&r, k);
    off += k;
    while ((n = itg__frame_reader_next(&r, buf, sizeof buf, measure, NULL,
                                       &f)) > 0) {
      assert_true(got < NFRAMES);
      check_frame(f, n, (uint8_t)(10 + got), sizes[got]);
      got++;
    }
    assert_int_equal(n, 0);
  }
  assert_int_equal(got, NFRAMES);
  assert_int_equal(r.len - r.start, 0);
}

/* The stream cut at every byte boundary, once into two parts and once
 * byte by byte after the cut. */
static void test_split_everywhere(void **state) {
  uint8_t stream[NFRAMES * CAP];
  size_t len = 0, i, cut;
  (void)state;
  for (i = 0; i < NFRAMES; i++)
    len += put_frame(stream + len, (uint8_t)(10 + i), sizes[i]);
  for (cut = 0; cut <= len; cut++) {
    feed(stream, len, cut, 0);
    feed(stream, len, cut, 1);
  }
}

/* A length beyond the protocol's bound is refused once the header is in,
 * before any of the body is waited for; so is a frame that cannot fit the
 * reader's buffer, which would otherwise stall the stream for good. */
static void test_oversize_refused(void **state) {
  uint8_t buf[CAP], small[ITG__FRAME_HDR_LEN + 4], *f;
  itg__frame_reader r;
  size_t room;
  uint8_t *p;
  (void)state;
  itg__frame_reader_reset(&r);
  p = itg__frame_reader_space(&r, buf, sizeof buf, &room);
  itg__frame_hdr_put(p, 1, VERSION, MAX_BODY + 1);
  itg__frame_reader_commit(&r, ITG__FRAME_HDR_LEN - 1);
  assert_int_equal(itg__frame_reader_next(&r, buf, sizeof buf, measure, NULL,
                                          &f), 0);
  itg__frame_reader_commit(&r, 1);
  assert_int_equal(itg__frame_reader_next(&r, buf, sizeof buf, measure, NULL,
                                          &f), ITG_EBADMSG);

  itg__frame_reader_reset(&r);
  p = itg__frame_reader_space(&r, small, sizeof small, &room);
  assert_int_equal(room, sizeof small);
  itg__frame_hdr_put(p, 1, VERSION, 5); /* allowed, but not here */
  itg__frame_reader_commit(&r, ITG__FRAME_HDR_LEN);
  assert_int_equal(itg__frame_reader_next(&r, small, sizeof small, measure,
                                          NULL, &f), ITG_EBADMSG);
}

/* The body cursors: fields in network order, and a field that would pass
 * the end, or a text that breaks its rule, marks the cursor bad without
 * writing or reading past it. */
static void test_cursors(void **state) {
  uint8_t buf[16], guard[4];
  itg__wcur w = {buf, 15, 0, 0};
  itg__rcur r;
  char text[8];
  (void)state;
  memset(buf, 0xEE, sizeof buf);
  itg__wcur_u8(&w, 0x01);
  itg__wcur_u16(&w, 0x0203);
  itg__wcur_u32(&w, 0x04050607);
  itg__wcur_text(&w, "ab");
  assert_int_equal(w.at, 11);
  assert_false(w.bad);
  itg__wcur_u64(&w, 1); /* 8 bytes into the 4 left */
  assert_true(w.bad);
  assert_int_equal(w.at, 11);
  assert_int_equal(buf[11], 0xEE);
  itg__wcur_u8(&w, 9); /* bad stays bad: nothing more is written */
  assert_int_equal(buf[11], 0xEE);

  r = (itg__rcur){buf, 11, 0, 0};
  assert_int_equal(itg__rcur_u8(&r), 0x01);
  assert_int_equal(itg__rcur_u16(&r), 0x0203);
  assert_int_equal(itg__rcur_u32(&r), 0x04050607);
  itg__rcur_text(&r, text, sizeof text);
  assert_string_equal(text, "ab");
  assert_false(r.bad);
  assert_int_equal(itg__rcur_u8(&r), 0); /* past the end */
  assert_true(r.bad);

  /* A text longer than its place, or holding a NUL, is refused. */
  r = (itg__rcur){buf + 7, 4, 0, 0};
  itg__rcur_text(&r, text, 2);
  assert_true(r.bad);
  assert_string_equal(text, "");
  memcpy(guard, "\0\2a\0", 4);
  r = (itg__rcur){guard, 4, 0, 0};
  itg__rcur_text(&r, text, sizeof text);
  assert_true(r.bad);
  assert_string_equal(text, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hdr_round_trip),
      cmocka_unit_test(test_hdr_checks),
      cmocka_unit_test(test_split_everywhere),
      cmocka_unit_test(test_oversize_refused),
      cmocka_unit_test(test_cursors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
