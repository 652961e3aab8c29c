package org.libitg;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a log file: the header, then records, through a buffer that
 * reaches the operating system when it fills, on {@link #flush()} and on
 * {@link #close()}. A writer that failed once stays failed.
 *
 * <p>Not thread-safe: use a writer from one thread at a time.
 */
public final class LogWriter implements AutoCloseable {
  private SWIGTYPE_p_itg_logwriter handle;

  private LogWriter(SWIGTYPE_p_itg_logwriter handle) {
    this.handle = handle;
  }

  /**
   * Creates (or truncates) a log file and writes its header (whose version
   * is ignored: the current one is written).
   *
   * @throws ItgException EINVAL (unknown role or clock), ENOENT, EPERM,
   *     EIO, with the path in the message
   */
  public static LogWriter create(Path path, LogHeader header) throws ItgException {
    SWIGTYPE_p_itg_logwriter[] out = new SWIGTYPE_p_itg_logwriter[1];
    int rc;
    try (itg_log_hdr c = header.toC()) {
      rc = ItgC.itg_logwriter_open(path.toString(), c, out);
    }
    if (rc < 0) {
      throw new ItgException(rc, path + ": " + ItgC.itg_strerror(rc));
    }
    return new LogWriter(out[0]);
  }

  /**
   * Appends records.
   *
   * @throws ItgException EIO
   */
  public void write(List<LogRecord> records) throws ItgException {
    ItgException.check(ItgC.itg_logwriter_write(open(), LogRecord.pack(records)));
  }

  /** Appends records, as {@link #write(List)}. */
  public void write(LogRecord... records) throws ItgException {
    write(Arrays.asList(records));
  }

  /**
   * Pushes buffered records to the operating system.
   *
   * @throws ItgException EIO
   */
  public void flush() throws ItgException {
    ItgException.check(ItgC.itg_logwriter_flush(open()));
  }

  /**
   * Flushes and closes the file; closing again does nothing.
   *
   * @throws ItgException EIO if the last records could not be written
   */
  @Override
  public void close() throws ItgException {
    if (handle != null) {
      SWIGTYPE_p_itg_logwriter w = handle;
      handle = null;
      ItgException.check(ItgC.itg_logwriter_close(w));
    }
  }

  private SWIGTYPE_p_itg_logwriter open() {
    if (handle == null) {
      throw new IllegalStateException("log writer is closed");
    }
    return handle;
  }
}
