package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Interval series of a known log, and a sender's log shipped to a log server. */
class SeriesLogServerTest {
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final long MS = 1_000_000L;

  /** Flow 3: 10 packets 10 ms apart, 3 and 6 lost, each delayed 1 ms; then its end. */
  private static List<LogRecord> flow() {
    List<LogRecord> recs = new ArrayList<>();
    for (long seq = 1; seq <= 10; seq++) {
      if (seq != 3 && seq != 6) {
        long tx = T0 + seq * 10 * MS;
        recs.add(new LogRecord(3, 100, LogRecord.FLAG_RX, seq, tx, tx + MS));
      }
    }
    recs.add(new LogRecord(3, 0, LogRecord.FLAG_FLOW_END | LogRecord.FLAG_RX, 10, T0 + 200 * MS, 0));
    return recs;
  }

  @Test
  void seriesOfAKnownLog(@TempDir Path dir) {
    Path log = dir.resolve("s.itglog");
    try (LogWriter w = LogWriter.create(log,
        LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_KERNEL, T0, "h"))) {
      w.write(flow());
    }
    try (Series s = Series.decode(20 * MS, log); Series live = new Series(20 * MS, StatsMeter.OWD)) {
      assertEquals(List.of(3L), s.flowIds());
      List<SeriesPoint> total = s.points();
      assertEquals(s.intervals(), total.size());
      assertTrue(total.size() >= 4, "intervals: " + total.size());
      assertEquals(8, total.stream().mapToLong(SeriesPoint::packets).sum());
      assertEquals(800, total.stream().mapToLong(SeriesPoint::bytes).sum());
      assertEquals(2, total.stream().mapToLong(SeriesPoint::lost).sum());
      for (int i = 0; i < total.size(); i++) {
        SeriesPoint p = total.get(i);
        assertEquals(i * 20 * MS, p.startNs());
        if (p.packets() > 0) {
          assertEquals((double) MS, p.delayAvgNs(), 1e-6);
          assertEquals(0.0, p.jitterAvgNs(), 1e-6);
        }
      }
      assertEquals(s.points(3).stream().mapToLong(SeriesPoint::packets).sum(), 8);
      assertThrows(IllegalArgumentException.class, () -> s.points(4));
      String delays = s.csv(Series.Field.DELAY);
      assertTrue(delays.startsWith("time_s,flow_3,total\n0.000000000,0.001000000,0.001000000\n"), delays);
      // Fed in two batches, as a receiver's listener gets them.
      List<LogRecord> recs = flow();
      live.add(recs.subList(0, 4));
      live.add(recs.subList(4, recs.size()));
      assertEquals(s.csv(Series.Field.COMBINED), live.csv(Series.Field.COMBINED));
    }
    ItgException bad = assertThrows(ItgException.class, () -> new Series(0, StatsMeter.OWD));
    assertEquals("EINVAL", bad.errorName());
    assertThrows(ItgException.class, () -> Series.decode(MS, dir.resolve("missing.itglog")));
  }

  @Test
  void aSendersLogShippedToALogServer(@TempDir Path dir) throws InterruptedException {
    LogServerStats st;
    try (LogServer ls = new LogServer(new LogServer.Config().bindHost("127.0.0.1").port(0).dir(dir))) {
      assertTrue(ls.port() > 0 && ls.udpPort() > 0);
      try (Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0));
          Sender s = new Sender(new Sender.Config().logPath(Path.of("sent.itglog"))
              .logServer("127.0.0.1", ls.port()))) {
        s.add(Flow.parse("-C 1000 -c 64 -z 50 -t 0 -rp 0").to("127.0.0.1").sigPort(rx.port()));
        assertTrue(s.run().get(0).ok());
      }
      // The session is closed once the sender's logger has left.
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      do {
        st = ls.stats();
        if (st.sessionsTotal() == 1 && st.sessionsOpen() == 0) {
          break;
        }
        Thread.sleep(10);
      } while (System.nanoTime() < deadline);
    }
    assertEquals(new LogServerStats(0, 1, 0, 0, 51, 0, 0), st);
    Report report = Itg.decode(dir.resolve("sent.itglog"));
    assertEquals(StatsMeter.SENT, report.mainMeter());
    assertEquals(50, report.total().packets());
    assertThrows(ItgException.class,
        () -> new LogServer(new LogServer.Config().port(0).allow("not-a-network")));
  }
}
