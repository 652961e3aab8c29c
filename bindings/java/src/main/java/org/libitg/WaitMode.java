package org.libitg;

/**
 * How the sender waits for each departure (include/itg/pacer.h): HYBRID
 * sleeps, then spins for the last stretch; SLEEP only sleeps (least CPU);
 * SPIN only spins (a whole core, best precision).
 */
public enum WaitMode {
  HYBRID(itg_wait_mode.ITG_WAIT_HYBRID),
  SLEEP(itg_wait_mode.ITG_WAIT_SLEEP),
  SPIN(itg_wait_mode.ITG_WAIT_SPIN);

  final int code;

  WaitMode(int code) {
    this.code = code;
  }
}
