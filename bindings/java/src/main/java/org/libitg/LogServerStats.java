package org.libitg;

/**
 * A log server's counters: sessions open now and since start, those that
 * ended without their client leaving (incomplete), clients refused,
 * records written and counted lost on the way (missing, UDP), clients
 * closed for not registering in time (expired).
 */
public record LogServerStats(long sessionsOpen, long sessionsTotal, long incomplete,
    long refused, long records, long missing, long expired) {
  static LogServerStats of(itg_logserver_stats c) {
    return new LogServerStats(c.getSessions_open(), c.getSessions_total(), c.getIncomplete(),
        c.getRefused(), c.getRecords(), c.getMissing(), c.getExpired());
  }
}
