/* Log files: a buffered writer and a reader that survives damage (see
 * itg/log.h). Plain stdio in binary mode, so the same code runs on every
 * platform; offsets are counted here, not asked of ftell (whose long is 32
 * bits on Windows). The block framing and its checksums live here alone:
 * whoever writes records through itg_logwriter writes blocks. */
#include "itg/log.h"
#include "core/logfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "core/byteorder.h"
#include "core/crc32c.h"
#include "platform/platform.h"

/* A block: magic and count, the records, the checksum. */
#define ITG__BLOCK_HEAD 8u
#define ITG__BLOCK_TAIL 4u
#define ITG__BLOCK_MAX                                                         \
  (ITG__BLOCK_HEAD + ITG_LOG_BLOCK_RECORDS * ITG_LOG_RECORD_LEN +              \
   ITG__BLOCK_TAIL)
/* Bytes moved per fwrite/fread: room for several whole blocks (and, for
 * the reader, always for the largest one). */
#define ITG__LOGFILE_CHUNK (8u * ITG__BLOCK_MAX)

static const uint8_t block_magic[4] = {'I', 'T', 'G', 'B'};

struct itg_logwriter {
  FILE *f;
  size_t used;      /* bytes in buf: closed blocks, then the open one */
  size_t open_at;   /* where the open block starts in buf */
  uint32_t open_n;  /* records in the open block (0: none open) */
  uint64_t written; /* records handed to the operating system whole */
  int failed;       /* 0, or the error that stopped the writer */
  uint8_t buf[ITG__LOGFILE_CHUNK];
};

struct itg_logreader {
  FILE *f;
  itg_log_hdr hdr;
  uint64_t offset; /* file offset of buf[pos] */
  size_t pos;
  size_t len;
  uint32_t block_n;    /* version 2: records of the checked block */
  uint32_t block_next; /* version 2: the next of them to give out */
  uint64_t blocks;     /* version 2: blocks passed (checked or damaged) */
  uint64_t damaged;    /* damaged stretches skipped */
  itg_log_damage last; /* the last of them */
  itg_logrec block[ITG_LOG_BLOCK_RECORDS]; /* version 2: decoded */
  uint8_t buf[ITG__LOGFILE_CHUNK];
};

/* Counts the records of the whole blocks at the start of b[0..len): what
 * a reader finds of them in a file cut after len bytes. */
static uint64_t whole_block_records(const uint8_t *b, size_t len) {
  uint64_t n = 0;
  size_t at = 0;
  while (len - at >= ITG__BLOCK_HEAD &&
         memcmp(b + at, block_magic, sizeof block_magic) == 0) {
    uint32_t k = itg__get_le32(b + at + 4);
    size_t size = ITG__BLOCK_HEAD + (size_t)k * ITG_LOG_RECORD_LEN +
                  ITG__BLOCK_TAIL;
    if (size > len - at)
      break;
    n += k;
    at += size;
  }
  return n;
}

/* Hands the closed blocks to the operating system; the open one (which
 * starts at open_at) moves to the front of the buffer. Once a write fails
 * the writer keeps the error and takes nothing more; the blocks that got
 * out whole before it still count as written. */
static int writer_drain(itg_logwriter *w) {
  size_t done = w->open_n > 0 ? w->open_at : w->used;
  size_t put;
  if (w->failed)
    return w->failed;
  put = done > 0 ? fwrite(w->buf, 1, done, w->f) : 0;
  if (put != done)
    w->failed = itg__file_errno(errno);
  w->written += whole_block_records(w->buf, put);
  memmove(w->buf, w->buf + done, w->used - done);
  w->used -= done;
  w->open_at = 0;
  return w->failed;
}

/* Writes the open block's count and checksum. */
static void writer_close_block(itg_logwriter *w) {
  uint8_t *b = w->buf + w->open_at;
  if (w->open_n == 0)
    return;
  memcpy(b, block_magic, sizeof block_magic);
  itg__put_le32(b + 4, w->open_n);
  itg__put_le32(w->buf + w->used, itg__crc32c(0, b, w->used - w->open_at));
  w->used += ITG__BLOCK_TAIL;
  w->open_n = 0;
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
  w->open_n = 0;
  w->open_at = 0;
  w->written = 0;
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
    rc = itg__file_errno(errno);
    free(w);
    return rc;
  }
  return writer_start(w, f, head, out);
}

int itg__file_create_new(const char *base, char *path, size_t pathlen,
                         FILE **out) {
  unsigned k;
  int rc = ITG_EBUSY;
  for (k = 0; k <= ITG__LOG_SUFFIX_MAX && rc == ITG_EBUSY; k++) {
    int n = k == 0 ? snprintf(path, pathlen, "%s", base)
                   : snprintf(path, pathlen, "%s.%u", base, k);
    if (n < 0 || (size_t)n >= pathlen)
      return ITG_ERANGE;
    rc = itg__file_create(path, out);
  }
  return rc;
}

int itg__logwriter_create(const char *base, const itg_log_hdr *hdr,
                          char *path, size_t pathlen, itg_logwriter **out) {
  uint8_t head[ITG_LOG_HEADER_LEN];
  itg_logwriter *w;
  FILE *f;
  int rc;
  if (header_bytes(hdr, head) != 0)
    return ITG_EINVAL;
  w = malloc(sizeof *w);
  if (w == NULL)
    return ITG_ENOMEM;
  rc = itg__file_create_new(base, path, pathlen, &f);
  if (rc != 0) {
    free(w);
    return rc;
  }
  rc = writer_start(w, f, head, out);
  if (rc != 0)
    remove(path); /* made here and empty (a full disk): not left behind */
  return rc;
}

void itg__log_mark_incomplete(const char *path, char *file, size_t filelen) {
  char to[2 * ITG_PATH_MAX + 40], suffix[24];
  unsigned k;
  for (k = 0; k < 1000; k++) {
    int rc;
    if (k == 0)
      snprintf(suffix, sizeof suffix, ".incomplete");
    else
      snprintf(suffix, sizeof suffix, ".incomplete.%u", k);
    if ((size_t)snprintf(to, sizeof to, "%s%s", path, suffix) >= sizeof to)
      return;
    rc = itg__rename_noreplace(path, to);
    if (rc == ITG_EBUSY)
      continue;
    if (rc == 0)
      snprintf(file + strlen(file), filelen - strlen(file),
               "%s", suffix);
    return;
  }
}

int itg_log_dir_check(const char *dir) {
  uv_fs_t req;
  int rc, is_dir;
  if (dir == NULL)
    return ITG_EINVAL;
  rc = uv_fs_stat(NULL, &req, dir[0] != '\0' ? dir : ".", NULL);
  is_dir = rc == 0 && (req.statbuf.st_mode & S_IFMT) == S_IFDIR;
  uv_fs_req_cleanup(&req);
  return is_dir ? 0 : ITG_ENOENT;
}

int itg_logwriter_write(itg_logwriter *w, const itg_logrec *recs, size_t n) {
  size_t i;
  if (w == NULL || (recs == NULL && n > 0))
    return ITG_EINVAL;
  if (w->failed)
    return w->failed;
  for (i = 0; i < n; i++) {
    if (w->open_n == 0) {
      if (sizeof w->buf - w->used < ITG__BLOCK_MAX && writer_drain(w) != 0)
        return w->failed;
      w->open_at = w->used;
      w->used += ITG__BLOCK_HEAD;
    }
    itg_logrec_encode(&recs[i], w->buf + w->used);
    w->used += ITG_LOG_RECORD_LEN;
    if (++w->open_n == ITG_LOG_BLOCK_RECORDS)
      writer_close_block(w);
  }
  return 0;
}

int itg_logwriter_flush(itg_logwriter *w) {
  int rc;
  if (w == NULL)
    return ITG_EINVAL;
  writer_close_block(w);
  rc = writer_drain(w);
  if (rc == 0 && fflush(w->f) != 0) {
    w->failed = itg__file_errno(errno);
    rc = w->failed;
  }
  return rc;
}

uint64_t itg_logwriter_written(const itg_logwriter *w) {
  return w != NULL ? w->written : 0;
}

int itg_logwriter_close(itg_logwriter *w) {
  int rc;
  if (w == NULL)
    return 0;
  rc = itg_logwriter_flush(w);
  if (fclose(w->f) != 0 && rc == 0)
    rc = itg__file_errno(errno);
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
    rc = itg__file_errno(errno);
    goto out_free_reader;
  }
  /* A version 1 header is shorter: what follows it stays in the buffer. */
  got = fread(r->buf, 1, ITG_LOG_HEADER_LEN, r->f);
  if (ferror(r->f)) {
    rc = ITG_EIO;
    goto out_close_file;
  }
  rc = itg_log_hdr_decode(r->buf, got, &r->hdr);
  if (rc != 0)
    goto out_close_file;
  r->pos = r->hdr.version == 1 ? ITG_LOG_V1_HEADER_LEN : ITG_LOG_HEADER_LEN;
  r->offset = r->pos;
  r->len = got;
  r->block_n = 0;
  r->block_next = 0;
  r->blocks = 0;
  r->damaged = 0;
  memset(&r->last, 0, sizeof r->last);
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

/* Makes at least want bytes (at most the buffer) readable at pos if the
 * file has them. Returns the bytes readable at pos, or ITG_EIO. */
static int reader_have(itg_logreader *r, size_t want) {
  if (r->len - r->pos < want) {
    int rc = reader_refill(r);
    if (rc != 0)
      return rc;
  }
  return (int)(r->len - r->pos);
}

static void reader_skip(itg_logreader *r, size_t n) {
  r->pos += n;
  r->offset += n;
}

/* Reads a version 1 record: no blocks. */
static int next_v1(itg_logreader *r, itg_logrec *rec) {
  int rc = reader_have(r, ITG_LOG_RECORD_LEN);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return 0;
  if (rc < (int)ITG_LOG_RECORD_LEN)
    return ITG_ETRUNC;
  rc = itg_logrec_decode(r->buf + r->pos, rec);
  if (rc != 0)
    return rc;
  reader_skip(r, ITG_LOG_RECORD_LEN);
  return 1;
}

/* Looks at the bytes at pos as a block. Returns its record count when it
 * is whole and checks out (its checksum holds and every record decodes),
 * 0 when it does not, ITG_ETRUNC when the file ends before a block whose
 * head is sound is whole (or inside a head), or ITG_EIO. The records of a
 * block that checks out are decoded into r->block. */
static int check_block(itg_logreader *r) {
  const uint8_t *b;
  uint32_t n, i;
  size_t len;
  int have = reader_have(r, ITG__BLOCK_HEAD);
  if (have < 0)
    return have;
  if (have < (int)ITG__BLOCK_HEAD)
    return ITG_ETRUNC;
  b = r->buf + r->pos;
  n = itg__get_le32(b + 4);
  if (memcmp(b, block_magic, sizeof block_magic) != 0 || n == 0 ||
      n > ITG_LOG_BLOCK_RECORDS)
    return 0;
  len = ITG__BLOCK_HEAD + (size_t)n * ITG_LOG_RECORD_LEN;
  have = reader_have(r, len + ITG__BLOCK_TAIL);
  if (have < 0)
    return have;
  if (have < (int)(len + ITG__BLOCK_TAIL))
    return ITG_ETRUNC;
  b = r->buf + r->pos; /* the refill may have moved it */
  if (itg__get_le32(b + len) != itg__crc32c(0, b, len))
    return 0;
  /* A record that does not decode in a block whose checksum holds was
   * written so: the block's other records are not to be trusted either. */
  for (i = 0; i < n; i++)
    if (itg_logrec_decode(b + ITG__BLOCK_HEAD + (size_t)i * ITG_LOG_RECORD_LEN,
                          &r->block[i]) != 0)
      return 0;
  return (int)n;
}

/* Returns the first block magic in p[0..n), or NULL. */
static const uint8_t *find_magic(const uint8_t *p, size_t n) {
  const uint8_t *end = p + n;
  while (n >= sizeof block_magic) {
    const uint8_t *c = memchr(p, block_magic[0], n - (sizeof block_magic - 1));
    if (c == NULL)
      return NULL;
    if (memcmp(c, block_magic, sizeof block_magic) == 0)
      return c;
    p = c + 1;
    n = (size_t)(end - p);
  }
  return NULL;
}

/* The stretch from pos is damaged: skips to the next block that checks
 * out (or one cut short by the end of the file), or to the end, and notes
 * what was lost. Returns ITG_EBADMSG, or ITG_EIO. */
static int skip_damage(itg_logreader *r) {
  uint64_t start = r->offset;
  uint64_t len;
  reader_skip(r, 1);
  for (;;) {
    const uint8_t *hit;
    int have = reader_have(r, ITG__BLOCK_MAX);
    int rc;
    if (have < 0)
      return have;
    if (have < (int)sizeof block_magic) {
      reader_skip(r, (size_t)have);
      break;
    }
    hit = find_magic(r->buf + r->pos, (size_t)have);
    if (hit == NULL) {
      /* A magic may straddle what is read next: keep its first bytes. */
      reader_skip(r, (size_t)have - (sizeof block_magic - 1));
      continue;
    }
    reader_skip(r, (size_t)(hit - (r->buf + r->pos)));
    rc = check_block(r);
    if (rc < 0 && rc != ITG_ETRUNC)
      return rc;
    if (rc != 0)
      break;
    reader_skip(r, 1);
  }
  len = r->offset - start;
  r->last.block = r->blocks++;
  r->last.offset = start;
  r->last.records =
      len > ITG__BLOCK_HEAD + ITG__BLOCK_TAIL
          ? (len - ITG__BLOCK_HEAD - ITG__BLOCK_TAIL) / ITG_LOG_RECORD_LEN
          : 0;
  r->damaged++;
  return ITG_EBADMSG;
}

/* Reads a version 2 record, checking each block before its first record
 * is given out. */
static int next_v2(itg_logreader *r, itg_logrec *rec) {
  if (r->block_next == r->block_n) {
    int n = check_block(r);
    if (n == ITG_ETRUNC && r->len == r->pos)
      return 0; /* nothing after the last block */
    if (n < 0)
      return n;
    if (n == 0)
      return skip_damage(r);
    r->block_n = (uint32_t)n;
    r->block_next = 0;
    r->blocks++;
    reader_skip(r, ITG__BLOCK_HEAD + (size_t)n * ITG_LOG_RECORD_LEN +
                       ITG__BLOCK_TAIL);
  }
  *rec = r->block[r->block_next++];
  return 1;
}

int itg_logreader_next(itg_logreader *r, itg_logrec *rec) {
  if (r == NULL || rec == NULL)
    return ITG_EINVAL;
  return r->hdr.version == 1 ? next_v1(r, rec) : next_v2(r, rec);
}

uint64_t itg_logreader_offset(const itg_logreader *r) { return r->offset; }

uint64_t itg_logreader_damage(const itg_logreader *r, itg_log_damage *out) {
  if (out != NULL)
    *out = r->last;
  return r->damaged;
}

void itg_logreader_close(itg_logreader *r) {
  if (r == NULL)
    return;
  fclose(r->f);
  free(r);
}
