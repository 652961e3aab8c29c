/* Log files: a buffered writer and a reader that survives damage (see
 * itg/log.h). Plain stdio in binary mode, so the same code runs on every
 * platform; offsets are counted here, not asked of ftell (whose long is 32
 * bits on Windows). */
#include "itg/log.h"
#include "core/logfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "platform/platform.h"

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

/* Encodes hdr into head, refusing a header the reader would refuse (by the
 * reader's own rules), before any file is touched. */
static int header_bytes(const itg_log_hdr *hdr, uint8_t *head) {
  itg_log_hdr check;
  itg_log_hdr_encode(hdr, head);
  return itg_log_hdr_decode(head, ITG_LOG_HEADER_LEN, &check) != 0
             ? ITG_EINVAL
             : 0;
}

/* Starts writer w (allocated) on the open file f with the header head;
 * both are freed on failure. */
static int writer_start(itg_logwriter *w, FILE *f, const uint8_t *head,
                        itg_logwriter **out) {
  int rc;
  w->f = f;
  /* The records are already gathered in w->buf: a second buffer in stdio
   * would only copy them once more. */
  setvbuf(w->f, NULL, _IONBF, 0);
  w->failed = 0;
  memcpy(w->buf, head, ITG_LOG_HEADER_LEN);
  w->used = ITG_LOG_HEADER_LEN;
  rc = writer_drain(w);
  if (rc != 0) {
    fclose(w->f);
    free(w);
    return rc;
  }
  *out = w;
  return 0;
}

int itg_logwriter_open(const char *path, const itg_log_hdr *hdr,
                       itg_logwriter **out) {
  uint8_t head[ITG_LOG_HEADER_LEN];
  itg_logwriter *w;
  FILE *f;
  int rc;
  if (path == NULL || hdr == NULL || out == NULL)
    return ITG_EINVAL;
  if (header_bytes(hdr, head) != 0)
    return ITG_EINVAL;
  w = malloc(sizeof *w);
  if (w == NULL)
    return ITG_ENOMEM;
  f = fopen(path, "wb");
  if (f == NULL) {
    rc = open_error(errno);
    free(w);
    return rc;
  }
  return writer_start(w, f, head, out);
}

int itg__logwriter_create(const char *base, const itg_log_hdr *hdr,
                          char *path, size_t pathlen, itg_logwriter **out) {
  uint8_t head[ITG_LOG_HEADER_LEN];
  itg_logwriter *w;
  unsigned k;
  int rc = ITG_EBUSY;
  if (header_bytes(hdr, head) != 0)
    return ITG_EINVAL;
  w = malloc(sizeof *w);
  if (w == NULL)
    return ITG_ENOMEM;
  for (k = 0; k <= ITG__LOG_SUFFIX_MAX && rc == ITG_EBUSY; k++) {
    FILE *f;
    int n = k == 0 ? snprintf(path, pathlen, "%s", base)
                   : snprintf(path, pathlen, "%s.%u", base, k);
    if (n < 0 || (size_t)n >= pathlen) {
      rc = ITG_ERANGE;
      break;
    }
    rc = itg__file_create(path, &f);
    if (rc == 0)
      return writer_start(w, f, head, out);
  }
  free(w);
  return rc;
}

int itg__log_dir_check(const char *dir) {
  uv_fs_t req;
  int rc = uv_fs_stat(NULL, &req, dir[0] != '\0' ? dir : ".", NULL);
  int is_dir = rc == 0 && (req.statbuf.st_mode & S_IFMT) == S_IFDIR;
  uv_fs_req_cleanup(&req);
  return is_dir ? 0 : ITG_ENOENT;
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
  if (got < ITG_LOG_HEADER_LEN) {
    rc = ferror(r->f) ? ITG_EIO : ITG_ETRUNC;
    goto out_close_file;
  }
  rc = itg_log_hdr_decode(r->buf, got, &r->hdr);
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
