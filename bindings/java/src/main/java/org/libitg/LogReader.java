package org.libitg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads the records of a log file one by one. A damaged block of a
 * version 2 file is skipped, and reading goes on after it ({@link
 * #damaged()} lists what was skipped). A file cut short is readable up to
 * its last whole block (version 1: record); that, or a damaged record of a
 * version 1 file, stops the reader where the damage starts ({@link
 * #offset()}), and reading again gives the same answer unless the file has
 * grown since (a log still being written can be followed so).
 *
 * <p>A reader is also the {@link Iterable} of its records from where it
 * is to the end ({@code for (LogRecord r : reader)}); an iterator reads as
 * {@link #next()} does, one record ahead, and throws what it throws.
 *
 * <p>Not thread-safe: use a reader from one thread at a time.
 */
public final class LogReader implements AutoCloseable, Iterable<LogRecord> {
  private final LogHeader header;
  private final List<LogDamage> damaged = new ArrayList<>();
  private SWIGTYPE_p_itg_logreader handle;

  private LogReader(SWIGTYPE_p_itg_logreader handle) {
    this.handle = handle;
    try (itg_log_hdr c = new itg_log_hdr()) {
      ItgC.itg_logreader_header(handle, c);
      this.header = LogHeader.of(c);
    }
  }

  /**
   * Opens a log file and reads its header.
   *
   * @throws ItgException ENOENT, EPERM, EIO, ETRUNC, EBADMSG (not a libitg
   *     log) or EVERSION, with the path in the message
   */
  public static LogReader open(Path path) throws ItgException {
    SWIGTYPE_p_itg_logreader[] out = new SWIGTYPE_p_itg_logreader[1];
    int rc = ItgC.itg_logreader_open(path.toString(), out);
    if (rc < 0) {
      throw new ItgException(rc, path + ": " + ItgC.itg_strerror(rc));
    }
    return new LogReader(out[0]);
  }

  /** Returns the file's header. */
  public LogHeader header() {
    return header;
  }

  /**
   * Returns the next record, past damaged blocks, or null at the clean end
   * of the file.
   *
   * @throws ItgException ETRUNC (the file ends inside a block or, version
   *     1, a record), EBADMSG (version 1: a record that does not decode) or
   *     EIO, with the offset in the message
   */
  public LogRecord next() throws ItgException {
    SWIGTYPE_p_itg_logreader r = open();
    try (itg_logrec c = new itg_logrec(); itg_log_damage d = new itg_log_damage()) {
      for (;;) {
        int rc = ItgC.itg_logreader_next(r, c);
        if (rc == itg_errno.ITG_EBADMSG && ItgC.itg_logreader_damage(r, d) > damaged.size()) {
          damaged.add(LogDamage.of(d));
          continue;
        }
        if (rc < 0) {
          throw new ItgException(rc, "log record at byte " + offset() + ": " + ItgC.itg_strerror(rc));
        }
        return rc == 0 ? null : LogRecord.of(c);
      }
    }
  }

  /**
   * Returns an iterator over the records from here to the end. Iterators
   * of one reader share its position: use one at a time.
   */
  @Override
  public Iterator<LogRecord> iterator() {
    return new Iterator<>() {
      private LogRecord ahead;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (ahead == null && !done) {
          ahead = LogReader.this.next();
          done = ahead == null;
        }
        return ahead != null;
      }

      @Override
      public LogRecord next() {
        if (!hasNext()) {
          throw new NoSuchElementException("end of the log");
        }
        LogRecord r = ahead;
        ahead = null;
        return r;
      }
    };
  }

  /** Returns the damaged stretches skipped so far, in file order. */
  public List<LogDamage> damaged() {
    return List.copyOf(damaged);
  }

  /** Returns every record from here to the end, as {@link #next()} reads them. */
  public List<LogRecord> readAll() throws ItgException {
    List<LogRecord> all = new ArrayList<>();
    for (LogRecord r = next(); r != null; r = next()) {
      all.add(r);
    }
    return all;
  }

  /**
   * Returns the byte offset where reading goes on: of the next record
   * (version 1) or block (version 2); after an error, where the damage
   * starts.
   */
  public long offset() {
    return ItgC.itg_logreader_offset(open());
  }

  /** Closes the file; closing again does nothing. */
  @Override
  public void close() {
    if (handle != null) {
      ItgC.itg_logreader_close(handle);
      handle = null;
    }
  }

  private SWIGTYPE_p_itg_logreader open() {
    if (handle == null) {
      throw new IllegalStateException("log reader is closed");
    }
    return handle;
  }
}
