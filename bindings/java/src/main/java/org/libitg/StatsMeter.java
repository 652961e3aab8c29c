package org.libitg;

/** What the delays of a report entry measure (include/itg/stats.h). */
public enum StatsMeter {
  /** One-way delay, from a receiver's records. */
  OWD(itg_stats_meter.ITG_STATS_OWD),
  /** Round-trip time, from a sender's records of a round-trip flow. */
  RTT(itg_stats_meter.ITG_STATS_RTT),
  /** No delay: packets sent, from a one-way sender's records. */
  SENT(itg_stats_meter.ITG_STATS_SENT);

  final int code;

  StatsMeter(int code) {
    this.code = code;
  }

  /** Returns the constant of a C itg_stats_meter value. */
  static StatsMeter of(long code) {
    for (StatsMeter m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown stats meter " + code);
  }
}
