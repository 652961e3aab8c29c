package org.libitg;

/** What a flow measures: one-way delay, or round trip (the receiver echoes every packet). */
public enum Meter {
  OWD(itg_meter.ITG_METER_OWD),
  RTT(itg_meter.ITG_METER_RTT);

  final int code;

  Meter(int code) {
    this.code = code;
  }

  /** Returns the constant of a C itg_meter value. */
  static Meter of(int code) {
    for (Meter m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown meter " + code);
  }
}
