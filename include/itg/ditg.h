/* D-ITG 2.8.1's per-packet logs, read into libitg's statistics and
 * written from libitg's records, so that a lab mixing the two tools can
 * decode either's logs with either's decoder.
 *
 * D-ITG's binary log (ITGSend -l, ITGRecv -l, ITGSend -x, ITGLog) is a
 * bare sequence of 144-byte records, no header, in the byte order of the
 * host that wrote it (little endian on every machine libitg builds for;
 * read and written so here):
 *   off 0   u32 flow id        off 4   u32 sequence number (from 1)
 *   off 8   u32 source port    off 12  u32 destination port
 *   off 16  u32 send hour      off 20  u32 send minute
 *   off 24  u32 receive hour   off 28  u32 receive minute
 *   off 32  u32 size (bytes of payload)
 *   off 36  char[46] source address, NUL-terminated text
 *   off 82  char[46] destination address, NUL-terminated text
 *   off 128 double send seconds, off 136 double receive seconds (within
 *           the minute, microseconds in the fraction)
 * The times are times of the UTC day only. A sender's log holds its send
 * time in both places.
 * D-ITG's text log (what ITGDec -l writes) is one line per record:
 *   Flow>%04u Seq>%7u Src>%46s/%hu Dest>%46s/%hu txTime>%u:%u:%lf
 *   rxTime>%u:%u:%lf Size>%5u
 * (one line; the addresses right-aligned in 46 columns).
 *
 * Reading. Each record becomes one RX record (itg/log.h) of a one-way
 * delay, as ITGDec counts every record a packet received (a sender's log
 * gives delays of 0 there and here). Its times are put on a date:
 *   - the first record is received on the day cfg->day_ns names, or, by
 *     default, on the day that puts the file's last record at most a day
 *     before the file was last modified (and at most
 *     ITG_DITG_MTIME_SLACK_NS after it: a clock set back a little);
 *   - a record's receive time is the one of its time of day closest to
 *     the previous record's: a time of day smaller than the previous one
 *     by more than half a day is the next day (a run across midnight),
 *     larger by more than half a day the day before (records of flows
 *     written out of order around midnight);
 *   - its send time is the one of its time of day closest to its receive
 *     time: delays and clock offsets are taken to be under half a day.
 * So a log whose records are more than half a day apart, or that was
 * copied without its modification time (give the day then), is misdated;
 * the delays stay right across midnight whatever the day.
 * D-ITG tells flows apart by flow id, addresses and ports (two senders
 * each with a flow 1 to one receiver); libitg by id alone. The first
 * flow of each id keeps it; a later one whose id is taken is given the
 * next id above every one seen (cfg->on_flow tells which).
 *
 * Detection. A libitg log starts with its magic ("ITGLOG\r\n"). A D-ITG
 * binary log is recognised by its first record: hours at most 23, minutes
 * at most 59, seconds finite in [0, 60), ports at most 65535, a size of 1
 * to 65535 and two addresses of 1 to 45 characters of an address's text
 * (letters, digits, '.', ':', '%', '-', '_') ending in a NUL: a file of
 * other content passes all of these by chance about never. A D-ITG text
 * log starts with "Flow>" and its first line parses whole.
 */
#ifndef ITG_DITG_H
#define ITG_DITG_H

#include "itg/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_DITG_RECORD_LEN 144u
#define ITG_DITG_ADDR_LEN 46u
/* The longest line of a text log read (a line of ITGDec is about 200). */
#define ITG_DITG_LINE_MAX 512u
/* The most flows (id, address and port tuples) one decoding tells apart:
 * about 120 bytes each. */
#define ITG_DITG_MAX_FLOWS 65536u
/* The farthest, in days, a record's date may move from the first
 * record's (a log that would span more is damaged). */
#define ITG_DITG_MAX_DAYS 10000
/* How far after the file's modification time its last record may have
 * been received. */
#define ITG_DITG_MTIME_SLACK_NS (INT64_C(600) * 1000000000)
/* itg_ditg_cfg.day_ns: take the day from the file's modification time. */
#define ITG_DITG_DAY_MTIME INT64_MIN
/* The latest day itg_ditg_cfg.day_ns may name: 2200-01-01 (so that no
 * date computed overflows). */
#define ITG_DITG_DAY_MAX (INT64_C(84006) * 86400 * 1000000000)

/* What a file holds, by its first bytes. */
typedef enum itg_log_format {
  ITG_LOG_FORMAT_UNKNOWN = 0,
  ITG_LOG_FORMAT_LIBITG = 1,   /* a libitg log (or a prefix of its magic) */
  ITG_LOG_FORMAT_DITG = 2,     /* a D-ITG binary log */
  ITG_LOG_FORMAT_DITG_TEXT = 3 /* a D-ITG text log (ITGDec -l) */
} itg_log_format;

/* Tells what the bytes buf[0..len), a file's first bytes, begin (see
 * Detection above): ITG_DITG_RECORD_LEN bytes are enough for a binary log,
 * the first line for a text log. */
ITG_API itg_log_format itg_log_format_detect(const uint8_t *buf, size_t len);

/* Reads the first bytes of the file at path and tells its format into
 * *out. Returns 0, ITG_EINVAL (NULL argument), ITG_ENOENT, ITG_EPERM or
 * ITG_EIO. */
ITG_API int itg_log_format_of(const char *path, itg_log_format *out);

/* One flow a decoding found (itg_ditg_cfg.on_flow). */
typedef struct itg_ditg_flow {
  uint32_t flow_id;      /* the id its records are counted under */
  uint32_t ditg_flow_id; /* the id in the D-ITG log */
  uint16_t src_port;
  uint16_t dst_port;
  char src_addr[ITG_DITG_ADDR_LEN];
  char dst_addr[ITG_DITG_ADDR_LEN];
} itg_ditg_flow;

typedef struct itg_ditg_cfg {
  size_t struct_size; /* set by itg_ditg_cfg_init (itg/common.h) */
  int64_t day_ns; /* midnight (UTC, ns since the epoch, 0 to
                     ITG_DITG_DAY_MAX) of the day each log's first record
                     was received; ITG_DITG_DAY_MTIME (default): from each
                     file's modification time */
  /* Called once per flow, in the order found (optional). */
  void (*on_flow)(const itg_ditg_flow *f, void *user);
  void *user; /* passed to on_flow */
} itg_ditg_cfg;

/* Fills cfg with the defaults and cfg->struct_size with `size`:
 * itg_ditg_cfg_init(cfg) passes sizeof *cfg. Returns 0, or ITG_EINVAL. */
ITG_API int itg_ditg_cfg_init_size(itg_ditg_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_ditg_cfg_init(cfg) itg_ditg_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* itg_decode_files_map for D-ITG logs, binary or text (cfg NULL: the
 * defaults; map NULL: none). A malformed record (one that the detection
 * above would refuse, or whose date would move more than
 * ITG_DITG_MAX_DAYS) is skipped and counted in the file's status as a
 * damaged stretch of one record (first_damage.block is its index from 0,
 * a line's number less one); reading goes on, and the file's error is
 * ITG_EBADMSG. A file ending inside a record or a line is ITG_ETRUNC (its
 * whole records are counted). A file that is not a D-ITG log is not
 * opened (status error ITG_EBADMSG). Returns what itg_decode_files does,
 * ITG_EINVAL for a cfg with a size this library does not know or a day_ns
 * out of range, ITG_ERANGE when a file's modification time is before 1970
 * or after ITG_DITG_DAY_MAX (give the day), and ITG_ELIMIT for more than
 * ITG_DITG_MAX_FLOWS flows or no flow id left to give one. Each file is
 * read twice when its day comes from its modification time. */
ITG_API int itg_ditg_decode_files_size(const char *const *paths, size_t n,
                                       const itg_ditg_cfg *cfg,
                                       const itg_decode_map *map,
                                       itg_stats *stats, itg_series *series,
                                       itg_decode_status *st, size_t size);
#ifndef SWIG
#define itg_ditg_decode_files(paths, n, cfg, map, stats, series, st)           \
  itg_ditg_decode_files_size((paths), (n), (cfg), (map), (stats), (series),    \
                             (st), sizeof *(st))
#endif

/* ---- writing ------------------------------------------------------------ */

/* A D-ITG binary log written from libitg records. D-ITG has no room for
 * what libitg does not log: the addresses are written as "0.0.0.0" and
 * the ports as 0 (ITGDec then shows every flow "From 0.0.0.0:0"), and
 * there is no record of a flow's end, of a log server's gaps or of the
 * packets sent after the last one received. */
typedef struct itg_ditg_writer itg_ditg_writer;

/* Creates (truncates) path for the records that meter counts (as
 * itg_stats does): ITG_STATS_OWD, a receiver's one-way records;
 * ITG_STATS_RTT, a sender's round-trip records (as ITGSend -m rttm logs
 * them: the echo's arrival as receive time); ITG_STATS_SENT, a sender's
 * packets (receive time = send time, as ITGSend logs them). Returns 0,
 * ITG_EINVAL (NULL argument, another meter), ITG_ENOENT, ITG_EPERM,
 * ITG_ENOSPC, ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_ditg_writer_open(const char *path, itg_stats_meter meter,
                                 itg_ditg_writer **out);

/* Appends the records of recs[0..n) that the writer's meter counts, in
 * order; the others are passed over. Times are written as times of the
 * UTC day, to the nanosecond in the seconds' double. Returns 0,
 * ITG_EINVAL (NULL argument, a record with unknown flags), ITG_ERANGE (a
 * sequence number above 2^32 - 1: D-ITG's are 32 bits; the records before
 * it are written), ITG_ENOSPC or ITG_EIO. A writer that failed stays
 * failed: later calls return the same error. */
ITG_API int itg_ditg_writer_write(itg_ditg_writer *w, const itg_logrec *recs,
                                  size_t n);

/* itg_ditg_writer_write with the addresses and ports of flow (its
 * flow_id and ditg_flow_id are not used; the records keep theirs), as
 * itg_ditg_decode_files reported them through on_flow; flow NULL: the
 * unknown ones, as itg_ditg_writer_write. Returns what that returns, and
 * ITG_EINVAL for an address without its NUL within ITG_DITG_ADDR_LEN. */
ITG_API int itg_ditg_writer_write_flow(itg_ditg_writer *w,
                                       const itg_logrec *recs, size_t n,
                                       const itg_ditg_flow *flow);

/* Returns how many records the writer has taken (0 for NULL). */
ITG_API uint64_t itg_ditg_writer_count(const itg_ditg_writer *w);

/* Flushes and closes; NULL is accepted. Returns 0, the writer's first
 * error, ITG_ENOSPC or ITG_EIO. */
ITG_API int itg_ditg_writer_close(itg_ditg_writer *w);

#ifdef __cplusplus
}
#endif
#endif
