package org.libitg;

/**
 * When the first departures of flows of one start delay are due
 * (include/itg/sender.h): SPREAD starts the k-th of n such flows k/n of its
 * mean IDT (at most 100 ms) after the instant, so that flows of one rate take
 * turns at even intervals; TOGETHER starts them all at the instant, in the
 * order they were added.
 */
public enum StartMode {
  SPREAD(itg_start_mode.ITG_START_SPREAD),
  TOGETHER(itg_start_mode.ITG_START_TOGETHER);

  final int code;

  StartMode(int code) {
    this.code = code;
  }
}
