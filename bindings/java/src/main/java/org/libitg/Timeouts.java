package org.libitg;

import java.time.Duration;

/** Durations as the C API takes them. */
final class Timeouts {
  private Timeouts() {}

  /** Returns timeout in ns: -1 (no limit) for null or negative, saturated at Long.MAX_VALUE. */
  static long nanos(Duration timeout) {
    if (timeout == null || timeout.isNegative()) {
      return -1;
    }
    try {
      return timeout.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }
}
