/* Log files: a buffered writer and a reader that survives damage (see
 * itg/log.h). Plain stdio in binary mode, so the same code runs on every
 * platform; offsets are counted here, not asked of ftell (whose long is 32
 * bits on Windows). */
#include "itg/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes moved per fwrite/fread: a whole number of records. */
#define ITG__LOGFILE_CHUNK (2048u * ITG_LOG_RECORD_LEN)

struct itg_logwriter {
  FILE *f;
  size_t used;
  int failed;
  uint8_t buf[ITG__LOGFILE_CHUNK];
};

struct itg_logreader {
  FILE *f;
  itg_log_hdr hdr;
  uint64_t offset; /* file offset of buf[pos] */
  size_t pos;
  size_t len;
  uint8_t buf[ITG__LOGFILE_CHUNK];
};

/* Maps the errno of a failed fopen to the error table. */
static int open_error(int e) {
  switch (e) {
  case ENOENT:
  case ENOTDIR:
    return ITG_ENOENT;
  case EACCES:
  case EPERM:
  case EROFS:
    return ITG_EPERM;
  case ENOMEM:
    return ITG_ENOMEM;
  default:
    return ITG_EIO;
  }
}

/* Hands the buffered bytes to the operating system. */
static int writer_drain(itg_logwriter *w) {
  if (w->failed)
    return ITG_EIO;
  if (w->used > 0 && fwrite(w->buf, 1, w->used, w->f) != w->used)
    w->failed = 1;
  w->used = 0;
  return w->failed ? ITG_EIO : 0;
}

int itg_logwriter_open(const char *path, const itg_log_hdr *hdr,
                       itg_logwriter **out) {
  itg_logwriter *w;
  itg_log_hdr check;
  uint8_t head[ITG_LOG_HEADER_LEN];
  int rc;
  if (path == NULL || hdr == NULL || out == NULL)
    return ITG_EINVAL;
  /* A header the reader would refuse is refused here, by the reader's own
   * rules. */
  itg_log_hdr_encode(hdr, head);
  if (itg_log_hdr_decode(head, sizeof head, &check) != 0)
    return ITG_EINVAL;
  w = malloc(sizeof *w);
  if (w == NULL)
    return ITG_ENOMEM;
  w->f = fopen(path, "wb");
  if (w->f == NULL) {
    rc = open_error(errno);
    goto out_free_writer;
  }
  /* The records are already gathered in w->buf: a second buffer in stdio
   * would only copy them once more. */
  setvbuf(w->f, NULL, _IONBF, 0);
  w->failed = 0;
  memcpy(w->buf, head, sizeof head);
  w->used = sizeof head;
  rc = writer_drain(w);
  if (rc != 0)
    goto out_close_file;
  *out = w;
  return 0;

out_close_file:
  fclose(w->f);
out_free_writer:
  free(w);
  return rc;
}

int itg_logwriter_write(itg_logwriter *w, const itg_logrec *recs, size_t n) {
  size_t i;
  if (w == NULL || (recs == NULL && n > 0))
    return ITG_EINVAL;
  if (w->failed)
    return ITG_EIO;
  for (i = 0; i < n; i++) {
    if (w->used == sizeof w->buf && writer_drain(w) != 0)
      return ITG_EIO;
    itg_logrec_encode(&recs[i], w->buf + w->used);
    w->used += ITG_LOG_RECORD_LEN;
  }
  return 0;
}

int itg_logwriter_flush(itg_logwriter *w) {
  int rc;
  if (w == NULL)
    return ITG_EINVAL;
  rc = writer_drain(w);
  if (rc == 0 && fflush(w->f) != 0) {
    w->failed = 1;
    rc = ITG_EIO;
  }
  return rc;
}

int itg_logwriter_close(itg_logwriter *w) {
  int rc;
  if (w == NULL)
    return 0;
  rc = itg_logwriter_flush(w);
  if (fclose(w->f) != 0)
    rc = ITG_EIO;
  free(w);
  return rc;
}

int itg_logreader_open(const char *path, itg_logreader **out) {
  itg_logreader *r;
  size_t got;
  int rc;
  if (path == NULL || out == NULL)
    return ITG_EINVAL;
  r = malloc(sizeof *r);
  if (r == NULL)
    return ITG_ENOMEM;
  r->f = fopen(path, "rb");
  if (r->f == NULL) {
    rc = open_error(errno);
    goto out_free_reader;
  }
  got = fread(r->buf, 1, ITG_LOG_HEADER_LEN, r->f);
  rc = ferror(r->f) ? ITG_EIO : itg_log_hdr_decode(r->buf, got, &r->hdr);
  if (rc != 0)
    goto out_close_file;
  r->offset = ITG_LOG_HEADER_LEN;
  r->pos = 0;
  r->len = 0;
  *out = r;
  return 0;

out_close_file:
  fclose(r->f);
out_free_reader:
  free(r);
  return rc;
}

void itg_logreader_header(const itg_logreader *r, itg_log_hdr *out) {
  *out = r->hdr;
}

/* Moves the unread bytes to the front of the buffer and reads after them.
 * At end of file, a seek to where the stream already is drops the
 * end-of-file state, so a file that grows is followed: clearerr() alone
 * does that in glibc but not in the Windows C runtime, which keeps
 * answering end of file. A stream that cannot seek (a pipe) has no more
 * to follow; clearing its mark is enough. */
static int reader_refill(itg_logreader *r) {
  size_t left = r->len - r->pos;
  memmove(r->buf, r->buf + r->pos, left);
  r->pos = 0;
  r->len = left;
  if (feof(r->f) && fseek(r->f, 0, SEEK_CUR) != 0)
    clearerr(r->f);
  r->len += fread(r->buf + left, 1, sizeof r->buf - left, r->f);
  return ferror(r->f) ? ITG_EIO : 0;
}

int itg_logreader_next(itg_logreader *r, itg_logrec *rec) {
  int rc;
  if (r == NULL || rec == NULL)
    return ITG_EINVAL;
  if (r->len - r->pos < ITG_LOG_RECORD_LEN) {
    rc = reader_refill(r);
    if (rc != 0)
      return rc;
    if (r->len == 0)
      return 0;
    if (r->len < ITG_LOG_RECORD_LEN)
      return ITG_ETRUNC;
  }
  rc = itg_logrec_decode(r->buf + r->pos, rec);
  if (rc != 0)
    return rc;
  r->pos += ITG_LOG_RECORD_LEN;
  r->offset += ITG_LOG_RECORD_LEN;
  return 1;
}

uint64_t itg_logreader_offset(const itg_logreader *r) { return r->offset; }

void itg_logreader_close(itg_logreader *r) {
  if (r == NULL)
    return;
  fclose(r->f);
  free(r);
}
