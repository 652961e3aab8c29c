package org.libitg;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Errors become ItgException with the right code and name; resources close once and safely. */
class ErrorsTest {
  @Test
  void badNumberNamesTheWord() {
    ItgException e = assertThrows(ItgException.class, () -> Flow.parse("-T UDP -C abc -c 64"));
    assertEquals(itg_errno.ITG_EINVAL, e.code());
    assertEquals(-1, e.code());
    assertEquals("EINVAL", e.errorName());
    assertTrue(e.getMessage().contains("-C") && e.getMessage().contains("abc"), e.getMessage());
    assertTrue(e.toString().endsWith("(EINVAL)"), e.toString());
  }

  @Test
  void unknownOptionAndMissingValue() {
    ItgException e = assertThrows(ItgException.class, () -> Flow.parse("-T UDP -Q 5"));
    assertEquals("EINVAL", e.errorName());
    assertTrue(e.getMessage().contains("-Q"), e.getMessage());
    e = assertThrows(ItgException.class, () -> Flow.of("-c"));
    assertTrue(e.getMessage().contains("-c"), e.getMessage());
    e = assertThrows(ItgException.class, () -> Flow.parse("-T UDP").with("-T QUIC"));
    assertTrue(e.getMessage().contains("QUIC"), e.getMessage());
  }

  @Test
  void missingTraceIsEnoent(@TempDir Path dir) {
    ItgException e = assertThrows(ItgException.class,
        () -> Flow.of("-Ft", dir.resolve("no such trace.txt").toString()));
    assertEquals("ENOENT", e.errorName());
    assertEquals(itg_errno.ITG_ENOENT, e.code());
  }

  @Test
  void unboundedFlowFailsValidation() throws ItgException {
    Flow f = Flow.parse("-t 0");
    ItgException e = assertThrows(ItgException.class, f::validate);
    assertEquals("EINVAL", e.errorName());
    try (Sender s = new Sender()) {
      assertThrows(ItgException.class, () -> s.add(f));
      assertEquals(0, s.flowCount());
    }
  }

  @Test
  void addRefusalCarriesTheLibrarysMessage() throws ItgException {
    Flow f = Flow.parse("-T UDP -C 10 -c 64 -z 5").to("127.0.0.1").id(7);
    Flow unbounded = Flow.parse("-t 0").to("127.0.0.1");
    ItgException want = assertThrows(ItgException.class, unbounded::validate);
    try (Sender s = new Sender()) {
      s.add(f);
      ItgException dup = assertThrows(ItgException.class, () -> s.add(f));
      assertEquals(itg_errno.ITG_EEXIST, dup.code());
      assertEquals("EEXIST", dup.errorName());
      assertEquals("flow id 7 is already used by flow 1", dup.getMessage());
      ItgException bad = assertThrows(ItgException.class, () -> s.add(unbounded));
      assertEquals("EINVAL", bad.errorName());
      assertTrue(bad.getMessage().contains("no end"), bad.getMessage());
      assertEquals(want.getMessage(), bad.getMessage());
      assertEquals(1, s.flowCount());
    }
  }

  @Test
  void describeAndBadValues() throws ItgException {
    Flow f = Flow.parse("-T UDP -C 1000 -c 64 -t 1000").to("127.0.0.1");
    String d = f.describe();
    assertTrue(d.startsWith("UDP 127.0.0.1:8999"), d); // fixed port: the default, described
    assertEquals(d, f.toString());
    assertThrows(IllegalArgumentException.class, () -> Flow.of("-a", "bad\0host"));
    assertThrows(IllegalArgumentException.class, () -> Flow.parse("-t 100").id(-1));
  }

  @Test
  @Timeout(30)
  void refusedConnectionIsReportedPerFlow() throws Exception {
    // A port held bound but not listening: a connection to it is refused,
    // and no other program can take it meanwhile.
    try (Socket closed = new Socket();
        Sender s = new Sender(new Sender.Config().connectTimeout(Duration.ofSeconds(5)))) {
      closed.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      Flow f = Flow.parse("-T UDP -C 100 -c 64 -t 200 -rp 0").to("127.0.0.1")
          .sigPort(closed.getLocalPort());
      s.add(f);
      ItgException e = assertThrows(ItgException.class, s::run);
      FlowResult r = s.results().get(0);
      assertEquals(e.code(), r.status());
      assertEquals(r.errorName(), e.errorName());
      assertEquals("ECONNREFUSED", e.errorName());
      assertTrue(e.getMessage().startsWith("flow " + r.flowId() + ":"), e.getMessage());
    }
  }

  @Test
  @Timeout(30)
  void portInUseAndLongPath() throws ItgException {
    try (Receiver first = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0))) {
      ItgException e = assertThrows(ItgException.class,
          () -> new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(first.port())));
      assertEquals("EADDRINUSE", e.errorName());
      assertTrue(e.getMessage().contains(Integer.toString(first.port())), e.getMessage());
    }
    Path tooLong = Path.of("/tmp", "x".repeat(600));
    ItgException e = assertThrows(ItgException.class, () -> new Receiver(new Receiver.Config().sigPort(0).logPath(tooLong)));
    assertEquals("EINVAL", e.errorName());
  }

  @Test
  void closedObjectsRefuseUseAndCloseTwice(@TempDir Path dir) throws Exception {
    Stats st = new Stats();
    try (st) {
      st.add(new LogRecord(1, 64, LogRecord.FLAG_RX, 1, 10, 20));
    }
    st.close();
    assertThrows(IllegalStateException.class, st::report);

    Dist d = Dist.of(Dist.Kind.CONSTANT, 0, 2.0);
    try (d) {
      assertEquals(2.0, d.next());
    }
    d.close();
    assertThrows(IllegalStateException.class, d::next);

    Path log = dir.resolve("w.itglog");
    LogWriter w = LogWriter.create(log, LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_REALTIME, 0, "h"));
    try (w) {
      w.write(new LogRecord(1, 64, LogRecord.FLAG_RX, 1, 10, 20));
    }
    w.close();
    assertThrows(IllegalStateException.class, w::flush);

    LogReader r = LogReader.open(log);
    try (r) {
      assertEquals(1, r.readAll().size());
    }
    r.close();
    assertThrows(IllegalStateException.class, r::next);

    Sender s = new Sender();
    try (s) {
      assertEquals(0, s.flowCount());
    }
    s.close();
    assertThrows(IllegalStateException.class, s::results);

    Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0));
    try (rx) {
      rx.stop();
      rx.stop();
    }
    assertDoesNotThrow(rx::close);
    assertThrows(IllegalStateException.class, rx::stats);
  }

  @Test
  void badRecordsAreRefused() throws ItgException {
    try (Stats st = new Stats()) {
      ItgException e = assertThrows(ItgException.class,
          () -> st.add(new LogRecord(1, 64, 0x80, 1, 10, 20)));
      assertEquals("EINVAL", e.errorName());
      assertEquals(0, st.report().flows().size());
    }
    assertThrows(IllegalArgumentException.class, () -> new LogRecord(-1, 64, 0, 1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new LogRecord(1, 70000, 0, 1, 0, 0));
  }

  /** What a listener throws comes back from close, once; the receiver is still freed. */
  @Test
  @Timeout(60)
  void listenerFailureComesBack() throws Exception {
    RuntimeException boom = new RuntimeException("listener failed");
    Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0).onFlow(ev -> {
      throw boom;
    }));
    Sender.send(Flow.parse("-T UDP -C 100 -c 64 -z 5 -rp 0").to("127.0.0.1").sigPort(rx.port()));
    RuntimeException got = assertThrows(RuntimeException.class, rx::close);
    assertSame(boom, got);
    assertDoesNotThrow(rx::close);
  }

  /** A listener calling back into its receiver is refused rather than deadlocking. */
  @Test
  @Timeout(60)
  void listenerCannotCallItsReceiver() throws Exception {
    Receiver[] self = new Receiver[1];
    Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0).onFlow(ev -> {
      try {
        self[0].stats();
      } catch (ItgException e) {
        throw new IllegalStateException(e);
      }
    }));
    self[0] = rx;
    Sender.send(Flow.parse("-T UDP -C 100 -c 64 -z 5 -rp 0").to("127.0.0.1").sigPort(rx.port()));
    IllegalStateException e = assertThrows(IllegalStateException.class, rx::close);
    assertTrue(e.getMessage().contains("listener"), e.getMessage());
  }

  @Test
  void versionIsTheLibrarys() throws IOException {
    assertTrue(Itg.version().matches("\\d+\\.\\d+\\.\\d+"), Itg.version());
    String[] v = Itg.version().split("\\.");
    assertEquals(Integer.parseInt(v[0]) * 10000 + Integer.parseInt(v[1]) * 100 + Integer.parseInt(v[2]),
        Itg.versionNumber());
    long now = System.currentTimeMillis() * 1_000_000L;
    assertTrue(Math.abs(Itg.realtimeNanos() - now) < 60_000_000_000L, "wall clocks agree within a minute");
  }
}
