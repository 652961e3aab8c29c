package org.libitg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Streaming QoS statistics over log records (include/itg/stats.h): takes
 * records in any number of batches, in the order they were logged, and
 * gives a {@link Report} at any time. The same object serves a receiver's
 * record listener live and the decoding of log files.
 *
 * <p>Owns a C object: close it (try-with-resources). Not thread-safe: use
 * it from one thread at a time.
 */
public final class Stats implements AutoCloseable {
  private SWIGTYPE_p_itg_stats handle;

  /**
   * Creates an empty statistics object.
   *
   * @throws ItgException ENOMEM
   */
  public Stats() throws ItgException {
    SWIGTYPE_p_itg_stats[] out = new SWIGTYPE_p_itg_stats[1];
    ItgException.check(ItgC.itg_stats_new(out));
    handle = out[0];
  }

  /**
   * Reads log files in order and returns their report.
   *
   * @throws ItgException if a file cannot be opened or read to its end
   *     (the message names the file and the byte offset), or ENOMEM
   */
  public static Report decode(Path... paths) throws ItgException {
    try (Stats stats = new Stats()) {
      for (DecodeStatus st : stats.addFiles(paths)) {
        if (!st.ok()) {
          throw new ItgException(st.error(), st.path() + ": " + ItgC.itg_strerror(st.error())
              + (st.opened() ? " at byte " + st.offset() : ""));
        }
      }
      return stats.report();
    }
  }

  /**
   * Adds records, in logged order.
   *
   * @throws ItgException EINVAL (a record with unknown flag bits or none of
   *     TX, RX, RTT, FLOW_END and GAP: nothing of the batch is added) or
   *     ENOMEM
   */
  public void add(List<LogRecord> records) throws ItgException {
    ItgException.check(ItgC.itg_stats_add(open(), LogRecord.pack(records)));
  }

  /** Adds records, as {@link #add(List)}. */
  public void add(LogRecord... records) throws ItgException {
    add(Arrays.asList(records));
  }

  /**
   * Reads log files in order and adds their records. A damaged block of a
   * version 2 file is skipped; reading a file stops where it is cut short
   * or at a damaged record of a version 1 file (what came before is kept)
   * and goes on with the next file; the statuses, one per path, say what
   * happened.
   *
   * @throws ItgException ENOMEM or ELIMIT when adding records fails, EINVAL
   *     when no path is given
   */
  public List<DecodeStatus> addFiles(Path... paths) throws ItgException {
    List<String> names = new ArrayList<>(paths.length);
    for (Path p : paths) {
      names.add(p.toString());
    }
    List<DecodeStatus> statuses = new ArrayList<>(paths.length);
    try (itg_decode_status_array st = new itg_decode_status_array(Math.max(1, paths.length))) {
      int rc = ItgC.itg_decode_files(Text.cStrings(names), open(), null, st.cast());
      boolean fileError = false;
      for (int i = 0; i < paths.length; i++) {
        try (itg_decode_status s = st.getitem(i)) {
          boolean opened = s.getOpened() != 0;
          statuses.add(new DecodeStatus(paths[i], s.getError(), opened, s.getOffset(),
              s.getRecords(), opened ? LogHeader.of(s.getHdr()) : null, s.getDamaged(),
              s.getSkipped(), s.getDamaged() > 0 ? LogDamage.of(s.getFirst_damage()) : null));
          fileError |= s.getError() != 0;
        }
      }
      if (rc < 0 && !fileError) {
        ItgException.check(rc);
      }
    }
    return statuses;
  }

  /**
   * Returns the report as it stands.
   *
   * @throws ItgException ENOMEM
   */
  public Report report() throws ItgException {
    SWIGTYPE_p_itg_stats s = open();
    List<FlowStats> flows = new ArrayList<>();
    List<FlowStats> totals = new ArrayList<>();
    FlowStats total;
    try (itg_flow_stats c = new itg_flow_stats()) {
      long n = ItgC.itg_stats_flow_count(s);
      for (long i = 0; i < n; i++) {
        ItgException.check(ItgC.itg_stats_flow(s, i, c));
        flows.add(FlowStats.of(c));
      }
      ItgException.check(ItgC.itg_stats_total(s, itg_stats_meter.ITG_STATS_MAIN, c));
      total = FlowStats.of(c);
      for (StatsMeter m : StatsMeter.values()) {
        if (flows.stream().anyMatch(f -> f.meter() == m)) {
          ItgException.check(ItgC.itg_stats_total(s, m.code, c));
          totals.add(FlowStats.of(c));
        }
      }
    }
    return new Report(flows, total, StatsMeter.of(ItgC.itg_stats_main_meter(s)), totals, json());
  }

  /**
   * Returns the report as JSON, in the shape itg-dec writes.
   *
   * @throws ItgException ENOMEM
   */
  public String json() throws ItgException {
    SWIGTYPE_p_itg_stats s = open();
    long[] needed = new long[1];
    byte[] buf = new byte[4096];
    int rc = ItgC.itg_stats_json(s, buf, needed);
    if (rc == itg_errno.ITG_ERANGE) {
      buf = new byte[Math.toIntExact(needed[0])];
      rc = ItgC.itg_stats_json(s, buf, needed);
    }
    ItgException.check(rc);
    return Text.string(buf);
  }

  /** Frees the C object; closing again does nothing. */
  @Override
  public void close() {
    if (handle != null) {
      ItgC.itg_stats_free(handle);
      handle = null;
    }
  }

  private SWIGTYPE_p_itg_stats open() {
    if (handle == null) {
      throw new IllegalStateException("stats object is closed");
    }
    return handle;
  }
}
