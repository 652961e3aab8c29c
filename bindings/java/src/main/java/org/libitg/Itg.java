package org.libitg;

import java.nio.file.Path;

/** The library as a whole: its version, its clocks, and the shortest way to a QoS report. */
public final class Itg {
  private Itg() {}

  /** Returns the version of the libitg linked into the JNI library, "MAJOR.MINOR.PATCH". */
  public static String version() {
    return ItgC.itg_version_string();
  }

  /** Returns the version as MAJOR*10000 + MINOR*100 + PATCH. */
  public static int versionNumber() {
    return (int) ItgC.itg_version_number();
  }

  /** Returns the wall clock in nanoseconds since the Unix epoch (UTC), the clock of log records. */
  public static long realtimeNanos() {
    return ItgC.itg_clock_real_ns();
  }

  /** Returns the monotonic clock in nanoseconds (arbitrary origin), the clock of the pacer. */
  public static long monotonicNanos() {
    return ItgC.itg_clock_mono_ns();
  }

  /**
   * Reads log files and returns their QoS report, the numbers itg-dec
   * prints. Shorthand for {@link Stats#decode(Path...)}.
   *
   * @throws ItgException if a file cannot be read to its end
   */
  public static Report decode(Path... logs) throws ItgException {
    return Stats.decode(logs);
  }
}
