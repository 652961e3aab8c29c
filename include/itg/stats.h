/* Streaming QoS statistics over log records, interval series, and the
 * decoding of log files into both.
 *
 * An itg_stats takes records (itg/log.h) in any number of batches, in the
 * order they were logged, and keeps per-flow accumulators of bounded size;
 * a report can be taken at any time, so a receiver can use the same object
 * live that the decoder uses on files.
 *
 * What each record counts for (flags, checked in this order):
 *   GAP        seq records were lost on the way to a log server: adds to
 *              the flow's log_gaps.
 *   FLOW_END   seq = packets the sender sent: the loss reference (0: not
 *              known, a flow its sender never closed). With RX
 *              (or RTT) in its flags it also marks the flow as measured
 *              one way (round trip) even if nothing arrived.
 *   RTT        a round trip, delay = rx_ns - tx_ns (meter RTT); with
 *              rx_ns == 0 (no echo came back) it counts as sent only.
 *   RX         an arrival at the receiver, delay = rx_ns - tx_ns (meter
 *              OWD).
 *   TX         a departure: the highest TX sequence number is the count
 *              sent when no FLOW_END says otherwise.
 * A flow is reported once per meter it has samples of: OWD and RTT entries
 * side by side when both kinds of records were given; a flow with neither
 * is a SENT entry (a one-way sender's log: packets and bytes sent, rates
 * over first -> last send time), except a flow known only by a FLOW_END
 * counting n > 0 packets, which is an OWD entry with all n lost (what a
 * receiver that got nothing sees). Entries are ordered by flow id, then
 * meter.
 *
 * Definitions (OWD and RTT entries; D-ITG's where it has one):
 *   delay            rx_ns - tx_ns per packet; min, max, mean and the
 *                    population standard deviation (Welford's algorithm);
 *   p50, p99         nearest-rank percentiles (the smallest sample with at
 *                    least p % of the samples at or below it) read from a
 *                    log-bucketed histogram: exact below 2048 ns, otherwise
 *                    within 0.05 % of the true sample (buckets are 1/1024
 *                    of a power of two wide; the midpoint is reported);
 *                    a histogram takes at most 8 KiB per power of two
 *                    its values span, never more than about 900 KiB;
 *   jitter_avg       D-ITG's jitter: the mean of |D(i) - D(i-1)| over
 *                    consecutive packets in arrival (record) order;
 *   jitter_rfc3550   RFC 3550's smoothed J += (|D(i-1,i)| - J) / 16 after
 *                    the last packet;
 *   expected         packets sent: the largest FLOW_END count (if not 0),
 *                    else the highest TX sequence number, but never less
 *                    than the highest sequence number received (sequences
 *                    start at 1, as in D-ITG);
 *   lost             expected - distinct sequence numbers received, so
 *                    packets lost after the last arrival count when a
 *                    FLOW_END or the sender's TX records are given;
 *   loss bursts      maximal runs of consecutive missing sequence numbers
 *                    in 1..expected; loss_burst_avg = their mean length;
 *   duplicates       a sequence number received again; reordered: one
 *                    received after a higher one, not a duplicate.
 *                    Duplicates and losses are told apart in a sliding
 *                    window of the last 65536 sequence numbers (8 KiB per
 *                    entry): a packet arriving more than 65536 numbers
 *                    late counts as reordered and is taken as new;
 *   packets, bytes   every record counted, duplicates included;
 *   duration         last - first arrival (send time for SENT);
 *   bitrate, rate    bytes * 8 / duration (kbit/s) and packets / duration,
 *                    as ITGDec computes them; 0 when duration is 0.
 * A record with sequence number 0 counts as a packet and a delay sample
 * but takes no part in loss, duplicate or reordering counts; so does a
 * far number: one more than 2^24 beyond the highest number taken so far
 * (a forged or damaged one), unless the next such far number arrives
 * within 65536 of it, which confirms a real jump (both are then taken and
 * the numbers skipped count as lost). The highest TX number follows the
 * same rule, and a FLOW_END count more than 2^24 beyond every number
 * taken is not believed (expected then falls back as if it were 0), so no
 * single record makes a loss count absurd. The interval series follow
 * the same rules.
 *
 * Totals are per meter: packets, bytes, losses, duplicates and bursts are
 * summed over the entries of that meter; delays are those of all their
 * packets together (min, max, mean, std, percentiles); jitter_avg is the
 * mean over all consecutive pairs within each flow; jitter_rfc3550 the
 * mean of the flows' J weighted by their pairs; duration, bitrate and rate
 * run over the overall span, first arrival of any flow to the last.
 *
 * Threading contract: an itg_stats or itg_series is not thread-safe; use
 * each from one thread at a time.
 */
#ifndef ITG_STATS_H
#define ITG_STATS_H

#include "itg/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an entry's delays measure. */
typedef enum itg_stats_meter {
  ITG_STATS_MAIN = 0, /* in itg_stats_total: the main meter (below) */
  ITG_STATS_OWD = 1,  /* one-way delay, from a receiver's RX records */
  ITG_STATS_RTT = 2,  /* round-trip time, from a sender's RTT records */
  ITG_STATS_SENT = 3  /* no delay: packets sent, from TX records */
} itg_stats_meter;

/* Results for one entry (one flow, one meter) or a total. Times and
 * delays are in nanoseconds. */
typedef struct itg_flow_stats {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint32_t flow_id;  /* 0 in a total */
  uint32_t meter;    /* ITG_STATS_OWD, _RTT or _SENT */
  uint32_t flows;    /* entries counted: 1, or the total's count */
  uint32_t reserved; /* 0 */
  uint64_t packets;
  uint64_t bytes;
  uint64_t expected; /* packets the sender sent, as far as known */
  uint64_t lost;
  uint64_t duplicates;
  uint64_t reordered;
  uint64_t loss_bursts;
  uint64_t log_gaps; /* records lost on the way to a log server */
  int64_t first_ns;  /* first arrival (send time for SENT), 0 if none */
  int64_t last_ns;
  int64_t duration_ns;  /* last_ns - first_ns */
  int64_t delay_min_ns; /* the delay fields are 0 without samples */
  int64_t delay_max_ns;
  int64_t delay_p50_ns;
  int64_t delay_p99_ns;
  double delay_avg_ns;
  double delay_std_ns;
  double jitter_avg_ns;
  double jitter_rfc3550_ns;
  double loss_pct;       /* 100 * lost / expected */
  double loss_burst_avg; /* packets per loss burst */
  double bitrate_kbps;
  double rate_pps;
} itg_flow_stats;

typedef struct itg_stats itg_stats;

/* Creates an empty statistics object. Returns 0, ITG_EINVAL (out is NULL)
 * or ITG_ENOMEM. */
ITG_API int itg_stats_new(itg_stats **out);

/* Frees the object; NULL is accepted. */
ITG_API void itg_stats_free(itg_stats *s);

/* Adds n records, in logged order. Returns 0, ITG_EINVAL (a record with
 * unknown flag bits or none of TX, RX, RTT, FLOW_END and GAP; nothing of
 * the batch is added then) or ITG_ENOMEM (the records before the one that
 * needed memory are added). */
ITG_API int itg_stats_add(itg_stats *s, const itg_logrec *recs, size_t n);

/* Returns the number of entries (flow and meter pairs). */
ITG_API size_t itg_stats_flow_count(const itg_stats *s);

/* Fills *out with entry i (0 <= i < itg_stats_flow_count). Returns 0 or
 * ITG_EINVAL (i out of range, or a size this library does not know: the
 * macro passes sizeof *out). */
ITG_API int itg_stats_flow_size(const itg_stats *s, size_t i,
                                itg_flow_stats *out, size_t size);
#ifndef SWIG
#define itg_stats_flow(s, i, out) \
  itg_stats_flow_size((s), (i), (out), sizeof *(out))
#endif

/* Returns the main meter: ITG_STATS_OWD if any entry is one-way (or there
 * is no entry at all), else ITG_STATS_RTT if any is round trip, else
 * ITG_STATS_SENT. */
ITG_API itg_stats_meter itg_stats_main_meter(const itg_stats *s);

/* Returns the i-th meter in report order, ITG_STATS_OWD, ITG_STATS_RTT,
 * ITG_STATS_SENT, then ITG_STATS_MAIN past the last: for walking every
 * meter. */
ITG_API itg_stats_meter itg_stats_meter_at(size_t i);

/* Returns a meter's name, "owd", "rtt" or "sent" (the "meter" of the JSON
 * report, and the bindings' names), or "unknown" for another value. */
ITG_API const char *itg_stats_meter_name(itg_stats_meter meter);

/* Returns a meter's title for a report's heading, "one-way delay",
 * "round-trip time" or "sent packets", or "unknown meter". */
ITG_API const char *itg_stats_meter_title(itg_stats_meter meter);

/* Fills *out with the total over the entries measured with meter
 * (ITG_STATS_MAIN: itg_stats_main_meter). A meter without entries gives
 * zeros. Returns 0, ITG_EINVAL (unknown meter, or a size this library
 * does not know: the macro passes sizeof *out) or ITG_ENOMEM. */
ITG_API int itg_stats_total_size(const itg_stats *s, itg_stats_meter meter,
                                 itg_flow_stats *out, size_t size);
#ifndef SWIG
#define itg_stats_total(s, meter, out) \
  itg_stats_total_size((s), (meter), (out), sizeof *(out))
#endif

/* Writes the report as JSON into buf[0..len), NUL-terminated, and sets
 * *needed (if not NULL) to the length the whole text needs, NUL included.
 * buf may be NULL when len is 0, to ask for the size. Shape:
 *   {"flows":[{"flow":1,"packets":N,"lost":L,"bytes":B,"delay_avg_s":..,
 *     "delay_min_s":..,"delay_max_s":..,"delay_std_s":..,
 *     "jitter_avg_s":..,"bitrate_kbps":..,"rate_pps":..,"meter":"owd",
 *     "duration_s":..,"delay_p50_s":..,"delay_p99_s":..,
 *     "jitter_rfc3550_s":..,"expected":E,"loss_pct":..,"loss_bursts":K,
 *     "loss_burst_avg":..,"duplicates":D,"reordered":R,"log_gaps":G},...],
 *    "total":{the same keys, "flow":0, for the main meter},
 *    "totals":[{the same keys} for each meter that has entries]}
 * Meters are named "owd", "rtt" and "sent". Numbers are never NaN or
 * infinite (an empty entry gives zeros). Returns 0, ITG_ERANGE (len too
 * small: buf holds a truncated, NUL-terminated prefix), ITG_EINVAL or
 * ITG_ENOMEM. */
ITG_API int itg_stats_json(const itg_stats *s, char *buf, size_t len,
                           size_t *needed);

/* ---- interval series ----------------------------------------------------- */

/* Per interval of T nanoseconds, per flow and in total, for one meter:
 * packets, bytes, bitrate, mean delay, mean jitter (D-ITG's, over the
 * pairs whose later packet falls in the interval) and lost packets.
 * Records are placed by arrival time (send time for ITG_STATS_SENT);
 * intervals are aligned on the first record added and the series grows
 * both ways as earlier or later records come. Losses follow ITGDec: the
 * sequence numbers a packet skips over the highest one before it count in
 * the packet's interval, a late packet gives none back, and the packets
 * sent after the last arrival (see expected above) count in the flow's
 * last interval. */
typedef struct itg_series itg_series;

/* The most cells (flows times intervals) a series holds: 48 bytes each,
 * so a series never takes more than 96 MiB. */
#define ITG_SERIES_MAX_CELLS (1u << 21)

/* Selects the total in itg_series_get. */
#define ITG_SERIES_TOTAL ((size_t)-1)

typedef struct itg_series_point {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  uint32_t flow_id;  /* 0 for the total */
  uint32_t reserved; /* 0 */
  int64_t start_ns;  /* from the start of the first interval */
  uint64_t packets;
  uint64_t bytes;
  uint64_t lost;
  double delay_avg_ns; /* 0 without packets (and for ITG_STATS_SENT) */
  double jitter_avg_ns;
  double bitrate_kbps;
} itg_series_point;

/* What itg_series_csv writes. */
typedef enum itg_series_field {
  ITG_SERIES_DELAY = 1,   /* mean delay, s */
  ITG_SERIES_JITTER = 2,  /* mean jitter, s */
  ITG_SERIES_BITRATE = 3, /* kbit/s */
  ITG_SERIES_LOSS = 4,    /* packets lost */
  ITG_SERIES_COMBINED = 5 /* everything, one row per flow and interval */
} itg_series_field;

/* Creates an empty series of intervals interval_ns long (> 0) over the
 * records of one meter (ITG_STATS_OWD, _RTT or _SENT). Returns 0,
 * ITG_EINVAL or ITG_ENOMEM. */
ITG_API int itg_series_new(int64_t interval_ns, itg_stats_meter meter,
                           itg_series **out);

/* Frees the series; NULL is accepted. */
ITG_API void itg_series_free(itg_series *s);

/* Adds n records in logged order (those of other meters only update the
 * flows' sent counts). Returns 0, ITG_EINVAL (as itg_stats_add),
 * ITG_ENOMEM, or ITG_ELIMIT when the series would need more than
 * ITG_SERIES_MAX_CELLS cells (the records before that one are added). */
ITG_API int itg_series_add(itg_series *s, const itg_logrec *recs, size_t n);

/* Returns the number of flows in the series (ordered by flow id). */
ITG_API size_t itg_series_flow_count(const itg_series *s);

/* Returns the number of intervals (0 when the series is empty). */
ITG_API size_t itg_series_interval_count(const itg_series *s);

/* Fills *out with one flow's (or, with ITG_SERIES_TOTAL, the total's)
 * values in one interval. Returns 0 or ITG_EINVAL (an index out of
 * range, or a size this library does not know: the macro passes
 * sizeof *out). */
ITG_API int itg_series_get_size(const itg_series *s, size_t flow,
                                size_t interval, itg_series_point *out,
                                size_t size);
#ifndef SWIG
#define itg_series_get(s, flow, interval, out) \
  itg_series_get_size((s), (flow), (interval), (out), sizeof *(out))
#endif

/* Writes the CSV rows of intervals first .. first + count - 1 (clamped to
 * the series) into buf[0..len), NUL-terminated, preceded by the header
 * line when first is 0; *needed (if not NULL) gets the length the whole
 * text needs, NUL included; buf may be NULL when len is 0. Call it again
 * with a later first to write a long series in parts. Layout:
 *   DELAY, JITTER, BITRATE, LOSS: "time_s,flow_<id>,...,total", one row
 *     per interval (delays and jitter in seconds);
 *   COMBINED: "time_s,flow,packets,bytes,lost,delay_avg_s,jitter_avg_s,
 *     bitrate_kbps", one row per flow and interval, then the interval's
 *     total with flow "total".
 * Returns 0, ITG_ERANGE (len too small) or ITG_EINVAL. */
ITG_API int itg_series_csv(const itg_series *s, itg_series_field field,
                           size_t first, size_t count, char *buf, size_t len,
                           size_t *needed);

/* ---- decoding log files -------------------------------------------------- */

/* What happened to one file in itg_decode_files. */
typedef struct itg_decode_status {
  size_t struct_size; /* set by the call filling it (itg/common.h) */
  int32_t error;    /* 0 when read to its clean end, else the ITG_E* code
                       that stopped it, or ITG_EBADMSG when it was read to
                       its end past damaged blocks (damaged > 0) */
  int32_t opened;   /* 1 when the header was read (error then tells where
                       the records stopped); 0 when the file could not be
                       opened or is not a libitg log */
  uint64_t offset;  /* byte offset where reading stopped */
  uint64_t records; /* records read and added */
  itg_log_hdr hdr;  /* the file's header when opened */
  uint64_t damaged; /* damaged stretches skipped (itg_logreader_next) */
  uint64_t skipped; /* records lost in them */
  itg_log_damage first_damage; /* the first of them */
} itg_decode_status;

/* Reads the log files paths[0..n) in order and adds their records to stats
 * and to series (either may be NULL). A damaged block of a version 2 file
 * is skipped (st counts it) and reading goes on; reading stops at a
 * truncated tail, or at the first damaged record of a version 1 file; what
 * was read before is kept and the next file is read. A file cut short is
 * ITG_ETRUNC: one shorter than its header whose bytes begin as a log's do
 * (not opened), one that ends inside a record or a block, and one that
 * ends cleanly but holds records of a flow whose FLOW_END none of the n
 * files holds (every writer ends each flow it logs with one; a full disk
 * or a crash stops it before). The FLOW_END may be in another file than
 * the records (a log server's log, or one gathered over MPI, and the
 * sender's spill file), but must be the same writer's: a receiver's (RX)
 * ends its RX records, a sender's (TX or RTT) its TX records and echoes,
 * one with none of these flags both; the check needs the whole call, not
 * made when decoding stops early on a consumer's error. st, if not NULL, has n elements of `size` bytes each
 * (the macro passes sizeof *st; without statuses, call
 * itg_decode_files_size with st NULL and size 0) and receives each file's
 * status. Returns 0 when every file was read to its end without damage,
 * the error of the first file that was not (st says which and where),
 * ITG_EINVAL (no paths, a NULL path, or an element size this library does
 * not know), or the error of itg_stats_add / itg_series_add that stopped
 * decoding (ITG_ENOMEM, ITG_ELIMIT). */
ITG_API int itg_decode_files_size(const char *const *paths, size_t n,
                                  itg_stats *stats, itg_series *series,
                                  itg_decode_status *st, size_t size);
#ifndef SWIG
#define itg_decode_files(paths, n, stats, series, st)                          \
  itg_decode_files_size((paths), (n), (stats), (series), (st), sizeof *(st))
#endif

/* A change applied to the records of itg_decode_files_map before they are
 * counted: fn gets each batch read from file paths[file] and may rewrite
 * the records in place (e.g. move their stamps into another clock's time
 * base); the end-of-flow checks see them as rewritten. */
typedef struct itg_decode_map {
  void (*fn)(itg_logrec *recs, size_t n, size_t file, void *user);
  void *user;
} itg_decode_map;

/* itg_decode_files with each batch passed through map first (NULL: none,
 * as itg_decode_files). Returns what itg_decode_files returns, and
 * ITG_EINVAL for a map without fn. */
ITG_API int itg_decode_files_map_size(const char *const *paths, size_t n,
                                      const itg_decode_map *map,
                                      itg_stats *stats, itg_series *series,
                                      itg_decode_status *st, size_t size);

#ifdef __cplusplus
}
#endif
#endif
