package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Log files written and read through Java, and decoded into reports. */
class LogFileTest {
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final long MS = 1_000_000L;
  /** A block's magic and count before its records, its checksum after. */
  private static final int BLOCK_HEAD = 8;
  private static final int BLOCK_TAIL = 4;

  /**
   * Flow 3 sends 10 packets (FLOW_END says so); 3 and 6 never arrive,
   * every other one arrives 1 ms after it left: 8 packets, 2 lost in 2
   * bursts of 1, a delay of exactly 1 ms and no jitter.
   */
  private static List<LogRecord> flowWithTwoLosses() {
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
  void writeReadAndDecode(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("flow.itglog");
    LogHeader hdr = LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_KERNEL, T0, "héte");
    List<LogRecord> recs = flowWithTwoLosses();
    try (LogWriter w = LogWriter.create(log, hdr)) {
      w.write(recs.subList(0, 3));
      w.flush();
      w.write(recs.subList(3, recs.size()));
    }
    try (LogReader r = LogReader.open(log)) {
      assertEquals(hdr, r.header());
      assertEquals(LogHeader.LENGTH, r.offset());
      assertEquals(recs, r.readAll());
      assertNull(r.next());
      assertEquals(Files.size(log), r.offset());
      assertEquals(List.of(), r.damaged());
    }
    // Two blocks, the flush having closed the first.
    assertEquals(LogHeader.LENGTH + 2L * (BLOCK_HEAD + BLOCK_TAIL) + (long) recs.size() * LogRecord.LENGTH,
        Files.size(log));

    Report report = Itg.decode(log);
    FlowStats t = report.total();
    assertEquals(StatsMeter.OWD, report.mainMeter());
    assertEquals(8, t.packets());
    assertEquals(800, t.bytes());
    assertEquals(10, t.expected());
    assertEquals(2, t.lost());
    assertEquals(2, t.lossBursts());
    assertEquals(1.0, t.lossBurstAvg());
    assertEquals(20.0, t.lossPct(), 1e-12);
    assertEquals(MS, t.delayMinNs());
    assertEquals(MS, t.delayMaxNs());
    assertEquals(MS, t.delayP50Ns(), MS * 0.0005, "histogram percentile within 0.05 %");
    assertEquals((double) MS, t.delayAvgNs());
    assertEquals(0.0, t.jitterAvgNs());
    assertEquals(List.of(t), report.totals());
    assertEquals(1, report.flows().size());
    FlowStats f = report.flows().get(0);
    assertEquals(3, f.flowId());
    assertEquals(0, t.flowId());
    assertEquals(t.packets(), f.packets());
    assertEquals(t.lost(), f.lost());
    assertEquals(t.delayAvgNs(), f.delayAvgNs());
  }

  /** The same records added live give the report the file gives. */
  @Test
  void liveStatsMatchTheFile(@TempDir Path dir) throws ItgException {
    Path log = dir.resolve("flow.itglog");
    try (LogWriter w = LogWriter.create(log, LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_REALTIME, 0, ""))) {
      w.write(flowWithTwoLosses());
    }
    try (Stats live = new Stats()) {
      for (LogRecord r : flowWithTwoLosses()) {
        live.add(r);
      }
      Report fromFile = Itg.decode(log);
      Report fromLive = live.report();
      assertEquals(fromFile.flows(), fromLive.flows());
      assertEquals(fromFile.json(), fromLive.json());
    }
  }

  /** A file cut inside a block reads up to its last whole block, and says where it stopped. */
  @Test
  void truncatedFile(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("cut.itglog");
    List<LogRecord> recs = flowWithTwoLosses().subList(0, 3);
    try (LogWriter w = LogWriter.create(log, LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_REALTIME, 0, "h"))) {
      w.write(recs.subList(0, 2));
      w.flush();
      w.write(recs.subList(2, 3));
    }
    long damaged = LogHeader.LENGTH + BLOCK_HEAD + 2L * LogRecord.LENGTH + BLOCK_TAIL;
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      f.setLength(damaged + BLOCK_HEAD + 5);
    }
    try (LogReader r = LogReader.open(log)) {
      assertEquals(recs.get(0), r.next());
      assertEquals(recs.get(1), r.next());
      ItgException e = assertThrows(ItgException.class, r::next);
      assertEquals("ETRUNC", e.errorName());
      assertTrue(e.getMessage().contains(Long.toString(damaged)), e.getMessage());
      assertEquals(damaged, r.offset());
      assertThrows(ItgException.class, r::next);
    }
    try (Stats st = new Stats()) {
      List<DecodeStatus> statuses = st.addFiles(log);
      DecodeStatus s = statuses.get(0);
      assertEquals("ETRUNC", s.errorName());
      assertTrue(s.opened());
      assertEquals(damaged, s.offset());
      assertEquals(2, s.records());
      assertEquals(0, s.damaged());
      assertEquals(2, st.report().total().packets());
    }
    ItgException e = assertThrows(ItgException.class, () -> Itg.decode(log));
    assertEquals("ETRUNC", e.errorName());
    assertTrue(e.getMessage().contains(log.toString()), e.getMessage());
  }

  /** One flipped bit in a block costs that block alone: it is skipped and reported. */
  @Test
  void damagedBlockIsSkipped(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("flipped.itglog");
    List<LogRecord> recs = flowWithTwoLosses();
    try (LogWriter w = LogWriter.create(log, LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_REALTIME, 0, "h"))) {
      w.write(recs.subList(0, 2));
      w.flush();
      w.write(recs.subList(2, 5));
      w.flush();
      w.write(recs.subList(5, recs.size()));
    }
    long second = LogHeader.LENGTH + BLOCK_HEAD + 2L * LogRecord.LENGTH + BLOCK_TAIL;
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      long at = second + BLOCK_HEAD + LogRecord.LENGTH + 17;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x08);
    }
    List<LogRecord> kept = new ArrayList<>(recs.subList(0, 2));
    kept.addAll(recs.subList(5, recs.size()));
    try (LogReader r = LogReader.open(log)) {
      assertEquals(kept, r.readAll());
      assertEquals(List.of(new LogDamage(1, second, 3)), r.damaged());
    }
    try (Stats st = new Stats()) {
      DecodeStatus s = st.addFiles(log).get(0);
      assertEquals("EBADMSG", s.errorName());
      assertEquals(1, s.damaged());
      assertEquals(3, s.skipped());
      assertEquals(new LogDamage(1, second, 3), s.firstDamage());
      assertEquals(kept.size(), s.records());
    }
    assertThrows(ItgException.class, () -> Itg.decode(log));
  }

  /** A version 1 log (a 64-byte header, records without blocks) still reads. */
  @Test
  void versionOneFile(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("v1.itglog");
    LogHeader hdr = LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_REALTIME, T0, "old");
    List<LogRecord> recs = flowWithTwoLosses();
    ByteBuffer buf = ByteBuffer.allocate(64 + recs.size() * LogRecord.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    buf.put(hdr.encode(), 0, 64);
    buf.putShort(8, (short) 1);
    buf.putShort(12, (short) 64);
    for (LogRecord r : recs) {
      buf.put(r.encode());
    }
    Files.write(log, buf.array());
    try (LogReader r = LogReader.open(log)) {
      assertEquals(1, r.header().version());
      assertEquals(64, r.offset());
      assertEquals(recs, r.readAll());
      assertEquals(64L + recs.size() * LogRecord.LENGTH, r.offset());
    }
    assertEquals(8, Itg.decode(log).total().packets());
  }

  @Test
  void missingAndForeignFiles(@TempDir Path dir) throws Exception {
    ItgException e = assertThrows(ItgException.class, () -> LogReader.open(dir.resolve("none.itglog")));
    assertEquals("ENOENT", e.errorName());
    Path text = dir.resolve("text.txt");
    java.nio.file.Files.writeString(text, "not a log file, but long enough to hold a header of 64 bytes.....\n");
    e = assertThrows(ItgException.class, () -> LogReader.open(text));
    assertEquals("EBADMSG", e.errorName());
    try (Stats st = new Stats()) {
      DecodeStatus s = st.addFiles(text).get(0);
      assertEquals("EBADMSG", s.errorName());
      assertTrue(!s.opened());
      assertNull(s.header());
    }
  }
}
