package org.libitg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An interval series: per interval of T nanoseconds, per flow and in
 * total, the packets, bytes, lost packets, mean delay, mean jitter and
 * bitrate of one meter's records; what itg-dec writes with -d, -j, -b, -p
 * and -c. Intervals are aligned on the first record added.
 *
 * <pre>{@code
 * try (Series s = Series.decode(100_000_000L, log)) {   // itg-dec -d 100
 *   for (SeriesPoint p : s.points()) { ... }            // the total
 *   String delays = s.csv(Series.Field.DELAY);           // itg-dec -d 100 --csv -
 * }
 * }</pre>
 *
 * <p>Owns a C object: close it (try-with-resources). Not thread-safe.
 */
public final class Series implements AutoCloseable {
  /** What {@link #csv(Field)} writes, as itg-dec's series options. */
  public enum Field {
    /** -d: mean delay per interval, in s. */
    DELAY(itg_series_field.ITG_SERIES_DELAY),
    /** -j: mean jitter per interval, in s. */
    JITTER(itg_series_field.ITG_SERIES_JITTER),
    /** -b: bitrate per interval, in kbit/s. */
    BITRATE(itg_series_field.ITG_SERIES_BITRATE),
    /** -p: packets lost per interval. */
    LOSS(itg_series_field.ITG_SERIES_LOSS),
    /** -c: all of it, one row per flow and interval. */
    COMBINED(itg_series_field.ITG_SERIES_COMBINED);

    final int code;

    Field(int code) {
      this.code = code;
    }
  }

  /** The C API's ITG_SERIES_TOTAL, (size_t)-1, as the long SWIG passes for a size_t. */
  private static final long TOTAL = -1L;

  private SWIGTYPE_p_itg_series handle;

  /**
   * Creates an empty series of intervals intervalNs long over the records
   * of one meter.
   *
   * @throws ItgException EINVAL (intervalNs not positive) or ENOMEM
   */
  public Series(long intervalNs, StatsMeter meter) throws ItgException {
    SWIGTYPE_p_itg_series[] out = new SWIGTYPE_p_itg_series[1];
    ItgException.check(ItgC.itg_series_new(intervalNs, meter.code, out),
        intervalNs <= 0 ? "interval must be positive: " + intervalNs + " ns" : null);
    handle = out[0];
  }

  /**
   * Reads log files in order into a one-way delay series of intervals
   * intervalNs long (itg-dec -d T reads them so).
   *
   * @throws ItgException a file that cannot be opened or is not a libitg
   *     log (the message names it), EINVAL, ENOMEM, ELIMIT
   */
  public static Series decode(long intervalNs, Path... paths) throws ItgException {
    Series s = new Series(intervalNs, StatsMeter.OWD);
    boolean done = false;
    try {
      List<String> names = new ArrayList<>(paths.length);
      for (Path p : paths) {
        names.add(p.toString());
      }
      try (itg_decode_status_array st = new itg_decode_status_array(Math.max(1, paths.length))) {
        int rc = ItgC.itg_decode_files(Text.cStrings(names), null, s.open(), st.cast());
        boolean fileError = false;
        for (int i = 0; i < paths.length; i++) {
          try (itg_decode_status one = st.getitem(i)) {
            if (one.getOpened() == 0) {
              throw new ItgException(one.getError(), paths[i] + ": " + ItgC.itg_strerror(one.getError()));
            }
            fileError |= one.getError() != 0;
          }
        }
        if (rc < 0 && !fileError) {
          ItgException.check(rc);
        }
      }
      done = true;
      return s;
    } finally {
      if (!done) {
        s.close();
      }
    }
  }

  /**
   * Adds records, in logged order.
   *
   * @throws ItgException EINVAL (a record with unknown or missing kind
   *     flags), ENOMEM, ELIMIT (more cells than ITG_SERIES_MAX_CELLS)
   */
  public void add(List<LogRecord> records) throws ItgException {
    ItgException.check(ItgC.itg_series_add(open(), LogRecord.pack(records)));
  }

  /** Adds records, as {@link #add(List)}. */
  public void add(LogRecord... records) throws ItgException {
    add(Arrays.asList(records));
  }

  /** Returns the number of intervals. */
  public int intervals() {
    return Math.toIntExact(ItgC.itg_series_interval_count(open()));
  }

  /** Returns the ids of the flows in the series, in order. */
  public List<Long> flowIds() throws ItgException {
    SWIGTYPE_p_itg_series s = open();
    List<Long> ids = new ArrayList<>();
    if (intervals() == 0) {
      return ids;
    }
    try (itg_series_point c = new itg_series_point()) {
      long n = ItgC.itg_series_flow_count(s);
      for (long i = 0; i < n; i++) {
        ItgException.check(ItgC.itg_series_get(s, i, 0, c));
        ids.add(c.getFlow_id());
      }
    }
    return ids;
  }

  /** Returns the total's values, interval by interval. */
  public List<SeriesPoint> points() throws ItgException {
    return pointsAt(TOTAL);
  }

  /**
   * Returns one flow's values, interval by interval.
   *
   * @throws IllegalArgumentException if the flow is not in the series
   */
  public List<SeriesPoint> points(long flowId) throws ItgException {
    int index = flowIds().indexOf(flowId);
    if (index < 0) {
      throw new IllegalArgumentException("flow " + flowId + " is not in the series");
    }
    return pointsAt(index);
  }

  private List<SeriesPoint> pointsAt(long index) throws ItgException {
    SWIGTYPE_p_itg_series s = open();
    int n = intervals();
    List<SeriesPoint> points = new ArrayList<>(n);
    try (itg_series_point c = new itg_series_point()) {
      for (int i = 0; i < n; i++) {
        ItgException.check(ItgC.itg_series_get(s, index, i, c));
        points.add(SeriesPoint.of(c));
      }
    }
    return points;
  }

  /**
   * Returns the series as CSV, the text itg-dec --csv writes with the
   * field's option (delays and jitter in seconds there).
   *
   * @throws ItgException ENOMEM
   */
  public String csv(Field field) throws ItgException {
    SWIGTYPE_p_itg_series s = open();
    long count = intervals();
    long[] needed = new long[1];
    byte[] buf = new byte[4096];
    int rc = ItgC.itg_series_csv(s, field.code, 0, count, buf, needed);
    if (rc == itg_errno.ITG_ERANGE) {
      buf = new byte[Math.toIntExact(needed[0])];
      rc = ItgC.itg_series_csv(s, field.code, 0, count, buf, needed);
    }
    ItgException.check(rc);
    return Text.string(buf);
  }

  /** Frees the series; closing again does nothing. */
  @Override
  public void close() {
    if (handle != null) {
      ItgC.itg_series_free(handle);
      handle = null;
    }
  }

  private SWIGTYPE_p_itg_series open() {
    if (handle == null) {
      throw new IllegalStateException("series is closed");
    }
    return handle;
  }
}
