/* Per-packet log records, log files and the ring-buffered logger.
 *
 * One record format everywhere: in memory, in files, and (later) on the way
 * to a log server. On disk a record is 32 bytes, little endian:
 *   off 0  u32 flow id
 *   off 4  u16 packet size in bytes
 *   off 6  u16 flags (ITG_REC_*)
 *   off 8  u64 sequence number
 *   off 16 i64 send time, ns since the Unix epoch (UTC)
 *   off 24 i64 receive time, ns since the Unix epoch (UTC); 0 in a sender
 *              record of a one-way flow
 *
 * A log file starts with a 68-byte header, little endian:
 *   off 0  8 bytes magic "ITGLOG\r\n"
 *   off 8  u16 format version (2)
 *   off 10 u16 byte-order mark 0xFEFF (reads 0xFFFE on a big-endian file)
 *   off 12 u16 header length (68), off 14 u16 record length (32)
 *   off 16 u32 role (ITG_LOG_ROLE_*), off 20 u32 clock (ITG_LOG_CLOCK_*)
 *   off 24 i64 creation time, ns since the epoch
 *   off 32 32 bytes host name, NUL padded
 *   off 64 u32 CRC-32C of bytes 0-63
 * followed by blocks of records, each:
 *   off 0  4 bytes block magic "ITGB"
 *   off 4  u32 record count n, 1 to ITG_LOG_BLOCK_RECORDS
 *   off 8  n records
 *   then   u32 CRC-32C of the block's bytes before it (8 + 32 n)
 * so that damage is found: a block whose checksum fails is reported and
 * skipped, and reading goes on at the next block that checks out. A file
 * cut short is readable up to its last whole block.
 *
 * Version 1 (still read): the header's first 64 bytes alone (version 1,
 * header length 64), followed by records without blocks or checksums. A
 * version 1 file cut short is readable up to its last whole record.
 *
 * Test vectors shared by every language binding: tests/vectors/logrec.txt.
 */
#ifndef ITG_LOG_H
#define ITG_LOG_H

#include "itg/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_LOG_VERSION 2u
#define ITG_LOG_HEADER_LEN 68u
#define ITG_LOG_V1_HEADER_LEN 64u
#define ITG_LOG_RECORD_LEN 32u
/* The most records in a block; writers close a block when it is full and
 * on every flush. */
#define ITG_LOG_BLOCK_RECORDS 256u

/* Record flags. */
#define ITG_REC_TX 0x0001u        /* written by a sender when it sent */
#define ITG_REC_RX 0x0002u        /* written by a receiver on arrival */
#define ITG_REC_RTT 0x0004u       /* rx_ns is when the echo came back */
#define ITG_REC_KERNEL_TS 0x0008u /* rx_ns is the kernel's timestamp */
#define ITG_REC_FLOW_END 0x0010u  /* end of a flow: seq = packets sent,
                                     size = 0, tx_ns = when it ended; with
                                     RX when a receiver wrote it, TX or RTT
                                     when a sender did */
#define ITG_REC_GAP 0x0020u       /* seq = records lost on the way to a
                                     log server, before this point */
#define ITG_REC_TCP 0x0040u       /* the flow runs over TCP */
#define ITG_REC_ALL_FLAGS 0x007Fu

typedef struct itg_logrec {
  uint32_t flow_id;
  uint16_t size;
  uint16_t flags;
  uint64_t seq;
  int64_t tx_ns;
  int64_t rx_ns;
} itg_logrec;

typedef enum itg_log_role {
  ITG_LOG_ROLE_SENDER = 1,
  ITG_LOG_ROLE_RECEIVER = 2
} itg_log_role;

typedef enum itg_log_clock {
  ITG_LOG_CLOCK_REALTIME = 1, /* user-space wall clock */
  ITG_LOG_CLOCK_KERNEL = 2    /* kernel receive timestamps where present */
} itg_log_clock;

typedef struct itg_log_hdr {
  uint16_t version;
  uint32_t role;
  uint32_t clock;
  int64_t created_ns;
  char host[32]; /* NUL-terminated: at most 31 bytes of name */
} itg_log_hdr;

/* Encodes one record into 32 bytes at buf (little endian). */
ITG_API void itg_logrec_encode(const itg_logrec *rec, uint8_t *buf);

/* Decodes 32 bytes at buf into *rec. Returns 0, or ITG_EBADMSG if the flags
 * hold unknown bits or the record is not self-consistent (neither TX, RX,
 * FLOW_END nor GAP; a size of 0 on a packet record). */
ITG_API int itg_logrec_decode(const uint8_t *buf, itg_logrec *rec);

/* Encodes a file header (ITG_LOG_HEADER_LEN bytes) at buf: the version
 * written is always ITG_LOG_VERSION, the host name at most 31 bytes of it,
 * NUL padded, and the checksum. */
ITG_API void itg_log_hdr_encode(const itg_log_hdr *hdr, uint8_t *buf);

/* Decodes a file header, version 2 or 1, from buf[0..len). Returns 0,
 * ITG_ETRUNC (len < 64, or < 68 for version 2, and the bytes begin as a
 * log's magic does: a header cut short), ITG_EBADMSG (not a libitg log; a
 * wrong byte-order mark; a header or record length other than the
 * version's; a checksum that fails; a role or clock this version does not
 * know; a host name field without a NUL) or ITG_EVERSION. The checks run
 * in that order, with the version checked after the byte-order mark and
 * before the rest. The host name is copied up to its first NUL and zero
 * filled after it. */
ITG_API int itg_log_hdr_decode(const uint8_t *buf, size_t len,
                               itg_log_hdr *hdr);

/* ---- log files --------------------------------------------------------- */

typedef struct itg_logwriter itg_logwriter;

/* Creates (truncates) a log file and writes its header. hdr->version is
 * ignored (always ITG_LOG_VERSION). The file is written through a buffer of
 * its own: records reach the operating system in whole blocks, when the
 * buffer fills, on itg_logwriter_flush (which closes the block being
 * filled) and on close. Returns 0, ITG_EINVAL (NULL argument, unknown role
 * or clock), ITG_ENOENT, ITG_EPERM, ITG_ENOSPC, ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_logwriter_open(const char *path, const itg_log_hdr *hdr,
                               itg_logwriter **out);

/* Returns 0 if dir ("" for the current directory) is a directory, where a
 * receiver (itg_receiver_cfg.log_dir) or a log server (its dir) can write
 * logs; else ITG_ENOENT (the error of their start for such a directory),
 * or ITG_EINVAL for NULL. */
ITG_API int itg_log_dir_check(const char *dir);

/* Appends n records. Returns 0, ITG_EINVAL (NULL argument), ITG_ENOSPC
 * (the disk is full) or ITG_EIO; after a failure every later call returns
 * the same error: a writer that failed once stays failed, and the records
 * it held are lost (itg_logwriter_written tells what was not). */
ITG_API int itg_logwriter_write(itg_logwriter *w, const itg_logrec *recs,
                                size_t n);

/* Pushes buffered records to the operating system. Returns 0, ITG_EINVAL
 * (NULL writer), ITG_ENOSPC or ITG_EIO. */
ITG_API int itg_logwriter_flush(itg_logwriter *w);

/* Returns how many records the writer has handed to the operating system
 * (0 for NULL): those appended minus those still buffered or lost. */
ITG_API uint64_t itg_logwriter_written(const itg_logwriter *w);

/* Flushes and closes; NULL is accepted. Returns 0, ITG_ENOSPC or
 * ITG_EIO. */
ITG_API int itg_logwriter_close(itg_logwriter *w);

typedef struct itg_logreader itg_logreader;

/* Opens a log file and reads its header. Returns 0, ITG_EINVAL (NULL
 * argument), ITG_ENOENT, ITG_EPERM, ITG_EIO, ITG_ETRUNC, ITG_EBADMSG,
 * ITG_EVERSION or ITG_ENOMEM. */
ITG_API int itg_logreader_open(const char *path, itg_logreader **out);

/* Copies the file's header into *out. */
ITG_API void itg_logreader_header(const itg_logreader *r, itg_log_hdr *out);

/* Reads the next record. Returns 1 with *rec filled, 0 at the clean end of
 * the file, ITG_ETRUNC when the file ends inside a block (version 1:
 * inside a record), ITG_EBADMSG for damage, ITG_EIO, or ITG_EINVAL (NULL
 * argument).
 * Damage in a version 2 file is a block whose checksum fails, that is not
 * a block at all, or that holds a record that does not decode: the reader
 * has skipped it and what follows up to the next block that checks out
 * (itg_logreader_damage says which block and how many records were lost),
 * and the next call reads on from there. In a version 1 file it is a
 * record that does not decode, where the reader then stays.
 * After ITG_ETRUNC, and ITG_EBADMSG of version 1, the reader stays where
 * the damage starts (see itg_logreader_offset): calling again gives the
 * same answer, unless the file has grown since (a log still being written
 * can be followed so). */
ITG_API int itg_logreader_next(itg_logreader *r, itg_logrec *rec);

/* Returns the byte offset where reading goes on: of the next record
 * (version 1), or of the next block, past the one whose records are being
 * given out (version 2); after ITG_ETRUNC, or ITG_EBADMSG of version 1,
 * where the damage starts. */
ITG_API uint64_t itg_logreader_offset(const itg_logreader *r);

/* A stretch of a version 2 file that a reader skipped as damaged. */
typedef struct itg_log_damage {
  uint64_t block;   /* its first block's number, the block after the
                       header being 0 */
  uint64_t offset;  /* the byte offset where it starts */
  uint64_t records; /* records lost with it, reckoned from its length
                       (for one damaged block: that block's count) */
} itg_log_damage;

/* Copies the last damaged stretch r skipped into *out, if not NULL (zeros
 * if none). Returns how many it has skipped so far. */
ITG_API uint64_t itg_logreader_damage(const itg_logreader *r,
                                      itg_log_damage *out);

/* Closes the reader; NULL is accepted. */
ITG_API void itg_logreader_close(itg_logreader *r);

/* ---- the logger: ring buffer plus writer thread ------------------------ */

/* Threading contract: a logger has one or more lanes; each lane is a
 * single-producer single-consumer ring, pushed to by exactly one thread.
 * A writer thread owned by the logger drains the lanes in batches of
 * `batch` records (the paper's D) and writes them to the file, so a
 * producer never waits on the disk. The writer is woken when a lane is a
 * quarter full (or holds a batch, if that is more) and every flush_ms
 * otherwise, not once per batch. When a lane is full the producer waits
 * for room (counted in itg_logger_stats.full_waits): no record is dropped.
 * A remote sink never makes it wait for the log server: see
 * itg_logger_cfg. */
typedef struct itg_logger itg_logger;

/* The port a log server listens on and a logger ships to by default. */
#define ITG_DEFAULT_LOG_PORT 9001

/* How a logger reaches a log server (itg/logserver.h). */
typedef enum itg_log_transport {
  ITG_LOG_TCP = 0, /* reliable: the server acknowledges what it wrote */
  ITG_LOG_UDP = 1  /* datagrams: what is lost is counted by the server */
} itg_log_transport;

/* The protocol a logger speaks to its log server. */
typedef enum itg_log_server_kind {
  ITG_LOG_SERVER_LIBITG = 0, /* libitg's itg-log (itg/logserver.h) */
  ITG_LOG_SERVER_DITG = 1    /* D-ITG's ITGLog, in its own protocol: the
                                records of the log's role (a sender's
                                packets sent, a receiver's received) as
                                D-ITG records without addresses or ports,
                                which ITGLog writes into the file named
                                by path (required) and ITGDec reads. ITGLog
                                acknowledges nothing: no spill file, no
                                token; records that cannot be sent are
                                counted lost, and over UDP nothing tells
                                what the network lost */
} itg_log_server_kind;

/* What a logger tells when its sink fails (itg_logger_cfg.on_error). */
typedef struct itg_log_error {
  const char *path; /* the file that cannot be written: the log file, or a
                       remote sink's spill file */
  int error;        /* ITG_ENOSPC (the disk is full), ITG_EIO, ... */
  uint64_t lost;    /* records lost so far; the records that follow are
                       lost too (itg_logger_stats.lost counts them all) */
} itg_log_error;

/* Called once, at the sink's first error: on the logger's writer thread,
 * or on the thread closing the logger for an error found only then. */
typedef void (*itg_log_error_cb)(const itg_log_error *e, void *user);

/* Remote sink: with server_host set, the writer thread ships the records
 * to that log server instead of writing a file. It keeps two batches: one
 * on the wire while the next fills. Over TCP it keeps every record the
 * server has not yet acknowledged; when the server cannot be reached or
 * goes away, those records and the following ones go to the spill file (a
 * log file like any other, created when first needed) and the writer tries
 * to register again every second, going on with the server once it can;
 * no record is lost (a server killed between writing records and
 * acknowledging them leaves them in both places). A server that is
 * connected but does not read (stalled, or slower than the records come)
 * is waited for only while every lane is less than three quarters full
 * (a producer faster than the server gets there too); then the
 * batches go to the spill file until it reads again, when shipping goes
 * on. Records once spilled stay in the spill file: decoding the server's
 * log and the spill file together (itg-dec SERVER-LOG SPILL-FILE, or
 * itg_decode_files) gives every record. Over UDP records that
 * leave are not kept: the server counts the lost ones (ITG_REC_GAP); the
 * spill file takes the records only while the server cannot be
 * registered with. */
typedef struct itg_logger_cfg {
  size_t struct_size; /* set by itg_logger_cfg_init (itg/common.h) */
  const char *path;   /* log file to create (required for a file sink);
                         with a remote sink, the log name asked of the
                         server (NULL or "": the server chooses) */
  itg_log_role role;  /* ITG_LOG_ROLE_SENDER by default */
  itg_log_clock clock;
  uint32_t batch;     /* D: records written per batch, default 64 */
  uint32_t capacity;  /* records per lane, 1 to 2^30 (rounded up to a
                         power of two), default 65536 */
  uint32_t lanes;     /* producers, default 1 */
  uint32_t flush_ms;  /* longest time a record waits in the ring before
                         the writer takes it (>= 1), default 200; what
                         was taken on such a timeout is also flushed to
                         the operating system */
  const char *server_host; /* NULL or "": a file sink */
  uint16_t server_port;    /* default 9001 */
  itg_log_transport transport; /* default ITG_LOG_TCP */
  const char *token;       /* the server's shared token, NULL for none */
  const char *spill_path;  /* NULL: "NAME.PID.spill" in the current
                              directory, NAME being path or "itg" */
  const uint32_t *flow_ids; /* told to the server (optional, at most 256) */
  uint32_t n_flow_ids;
  itg_log_error_cb on_error; /* optional: told of the first sink error as
                                it happens */
  void *error_user;          /* passed to on_error */
  int create_new;     /* file sink: 1 to make a new file, never replacing,
                         truncating or following (a symbolic link) what
                         exists: path, or path.1, path.2, ... up to
                         path.999, the first name free (itg_logger_path
                         tells which); 0 (default) creates or truncates
                         path */
  itg_log_server_kind server_kind; /* remote sink: the server's protocol,
                                      default ITG_LOG_SERVER_LIBITG */
} itg_logger_cfg;

typedef struct itg_logger_stats {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint64_t records;    /* written to the sink */
  uint64_t batches;    /* writes made */
  uint64_t full_waits; /* times a producer found its lane full */
  int error;           /* first sink error, 0 if none */
  uint64_t lost;       /* records taken that no file holds: the log file
                          (or a remote sink's spill file) failed; exact
                          after close */
  uint64_t spilled;    /* remote sink: records written to the spill file */
  uint64_t reconnects; /* remote sink: registrations after the first */
  uint64_t missing;    /* remote sink over UDP: records the server found
                          missing (known after close) */
  int connected;       /* remote sink: 1 while registered with its server
                          (0 while spilling, and after close) */
  uint64_t unconfirmed; /* remote sink over UDP: sessions that ended
                           without the server's count (it stopped
                           answering, or went away, after datagrams were
                           sent): what it missed of them is in no count,
                           and its file is NAME.incomplete */
} itg_logger_stats;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_logger_cfg_init(cfg) passes sizeof *cfg. Returns 0, or ITG_EINVAL
 * (NULL cfg, or a size this library does not know), cfg untouched. */
ITG_API int itg_logger_cfg_init_size(itg_logger_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_logger_cfg_init(cfg) itg_logger_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Opens the sink and starts the writer thread. The file header takes the
 * role and clock from cfg, the host name and the current wall-clock time.
 * A remote sink tries to register with its server here (at most about a
 * second): if it cannot, the logger still starts, spilling. Returns 0, an
 * error of itg_logwriter_open, ITG_EBUSY (create_new: every name taken),
 * ITG_ERANGE (create_new: the name made would not fit), ITG_EINVAL (NULL
 * argument, no path for a file sink, a field out of range, a server name
 * that does not resolve), ITG_ENOMEM or ITG_ETHREAD. */
ITG_API int itg_logger_new(const itg_logger_cfg *cfg, itg_logger **out);

/* Appends a record to a lane (0 <= lane < lanes). Only that lane's producer
 * thread may call it. Waits while the lane is full. Returns 0, or
 * ITG_EINVAL for a bad lane or a NULL argument. */
ITG_API int itg_logger_push(itg_logger *l, uint32_t lane,
                            const itg_logrec *rec);

/* Returns the number of lanes (itg_logger_cfg.lanes), 0 for NULL. */
ITG_API uint32_t itg_logger_lanes(const itg_logger *l);
/* Copies the counters (safe from any thread). Returns 0, or ITG_EINVAL
 * (NULL argument, or a size this library does not know: the macro passes
 * sizeof *out), out untouched. */
ITG_API int itg_logger_get_stats_size(itg_logger *l, itg_logger_stats *out,
                                      size_t size);
#ifndef SWIG
#define itg_logger_get_stats(l, out) \
  itg_logger_get_stats_size((l), (out), sizeof *(out))
#endif

/* Copies the spill file's path of a remote sink into buf (always
 * terminated when len > 0). Returns 0, or ITG_EINVAL (a file sink, or a
 * NULL argument). */
ITG_API int itg_logger_spill_path(const itg_logger *l, char *buf, size_t len);

/* Copies the path of a file sink's file into buf (always terminated when
 * len > 0): with create_new, the name made. Returns 0, or ITG_EINVAL (a
 * remote sink, or a NULL argument). */
ITG_API int itg_logger_path(const itg_logger *l, char *buf, size_t len);

/* Drains every lane, flushes, stops the writer and frees the logger; NULL
 * is accepted. A remote sink leaves its session (waiting at most a few
 * seconds for the server's last acknowledgement; what it does not
 * acknowledge goes to the spill file). Producers must have stopped. Returns 0 or the first sink
 * error. */
ITG_API int itg_logger_close(itg_logger *l);

/* Like itg_logger_close, and copies the final counters into *final: for a
 * remote sink over UDP, `missing` is known only then. The macro passes
 * sizeof *final; a size this library does not know leaves *final untouched
 * (the logger is closed all the same) and gives ITG_EINVAL, unless a sink
 * error comes first. */
ITG_API int itg_logger_close_stats_size(itg_logger *l, itg_logger_stats *final,
                                        size_t size);
#ifndef SWIG
#define itg_logger_close_stats(l, final) \
  itg_logger_close_stats_size((l), (final), sizeof *(final))
#endif

#ifdef __cplusplus
}
#endif
#endif
