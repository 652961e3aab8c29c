package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receiver and a sender in this JVM, on loopback: the scenario of the
 * Python example, driven from Java.
 */
class LoopbackTest {
  private static final String FLOW = "-T UDP -C 1000 -c 64 -t 1000 -rp 0";

  @Test
  @Timeout(60)
  void thousandPacketsArriveAndDecode(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("r.itglog");
    List<FlowEvent> events = Collections.synchronizedList(new ArrayList<>());
    AtomicLong rxRecords = new AtomicLong();
    Receiver.Config config = new Receiver.Config()
        .bindHost("127.0.0.1")
        .sigPort(0)
        .logPath(log)
        .onFlow(events::add)
        .onRecords(batch -> rxRecords.addAndGet(batch.stream().filter(r -> r.isPacket() && r.has(LogRecord.FLAG_RX)).count()));
    List<FlowResult> results;
    try (Receiver rx = new Receiver(config)) {
      int port = rx.port();
      assertTrue(port > 0 && port <= 65535, "port " + port);
      results = Sender.send(Flow.parse(FLOW).to("127.0.0.1").sigPort(port));
      assertTrue(rx.awaitIdle(Duration.ofSeconds(10)), "receiver idle after the flow");
      ReceiverStats st = rx.stats();
      assertEquals(1000, st.packets());
      assertEquals(1000 * 64, st.bytes());
      assertEquals(0, st.malformed());
      assertEquals(1, st.flowsServed());
      assertEquals(0, st.flowsActive());
    }

    assertEquals(1, results.size());
    FlowResult sent = results.get(0);
    assertTrue(sent.ok(), sent.error());
    assertEquals("OK", sent.errorName());
    assertEquals(1000, sent.packets());
    assertEquals(1000 * 64, sent.bytes());
    assertEquals(1000, sent.received());
    assertTrue(sent.lastTxNs() > sent.firstTxNs());

    assertEquals(1000, rxRecords.get(), "records handed to the listener");
    List<FlowEvent.Kind> kinds = events.stream().map(FlowEvent::kind).toList();
    assertEquals(List.of(FlowEvent.Kind.OPENED, FlowEvent.Kind.ENDED), kinds);
    FlowEvent ended = events.get(1);
    assertEquals(sent.flowId(), ended.flowId());
    assertEquals(Proto.UDP, ended.proto());
    assertEquals(Meter.OWD, ended.meter());
    assertEquals(1000, ended.packets());
    assertEquals(1000, ended.sent());
    assertTrue(ended.sentKnown());
    assertTrue(ended.peer().startsWith("127.0.0.1:"), ended.peer());

    Report report = Itg.decode(log);
    assertEquals(StatsMeter.OWD, report.mainMeter());
    assertEquals(1000, report.total().packets());
    assertEquals(0, report.total().lost());
    assertEquals(1000, report.total().expected());
    assertEquals(1, report.flows().size());
    FlowStats flow = report.flows().get(0);
    assertEquals(sent.flowId(), flow.flowId());
    assertEquals(64_000, flow.bytes());
    assertTrue(flow.delayMinNs() >= 0 && flow.delayMinNs() <= flow.delayMaxNs());
    assertTrue(report.json().contains("\"packets\":1000"), report.json());

    try (LogReader reader = LogReader.open(log)) {
      assertEquals(LogHeader.ROLE_RECEIVER, reader.header().role());
      long rx = reader.readAll().stream().filter(r -> r.isPacket() && r.has(LogRecord.FLAG_RX)).count();
      assertEquals(1000, rx);
    }
  }

  /** The sender's own log holds a TX record per packet; decoded alone it is a SENT entry. */
  @Test
  @Timeout(60)
  void senderLogAndStartAwait(@TempDir Path dir) throws Exception {
    Path txLog = dir.resolve("s.itglog");
    try (Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0));
        Sender s = new Sender(new Sender.Config().logPath(txLog).waitMode(WaitMode.SLEEP))) {
      s.add(Flow.parse("-T UDP -C 500 -c 100 -z 200 -rp 0").to("127.0.0.1").sigPort(rx.port()).id(77));
      assertEquals(1, s.flowCount());
      s.start();
      assertTrue(s.await(Duration.ofSeconds(30)), "flow ended");
      FlowResult r = s.results().get(0);
      assertTrue(r.ok(), r.error());
      assertEquals(77, r.flowId());
      assertEquals(200, r.packets());
    }
    Report report = Itg.decode(txLog);
    assertEquals(StatsMeter.SENT, report.mainMeter());
    assertEquals(200, report.total().packets());
    assertEquals(77, report.flows().get(0).flowId());
  }

  /**
   * Two flows of 100 ms IDT started at once: spread (the default), the second's first
   * packet leaves no earlier than half a period after the sender starts; together, with
   * the first's.
   */
  @Test
  @Timeout(60)
  void startModes() throws Exception {
    try (Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0))) {
      for (StartMode mode : StartMode.values()) {
        long before = System.currentTimeMillis() * 1_000_000L;
        try (Sender s = new Sender(new Sender.Config().startMode(mode))) {
          for (int i = 0; i < 2; i++) {
            s.add(Flow.parse("-T UDP -C 10 -c 64 -z 2 -rp 0").to("127.0.0.1").sigPort(rx.port()));
          }
          s.start();
          assertTrue(s.await(Duration.ofSeconds(30)), "flows ended");
          FlowResult a = s.results().get(0), b = s.results().get(1);
          assertEquals(2, a.packets());
          assertEquals(2, b.packets());
          if (mode == StartMode.SPREAD) {
            assertTrue(b.firstTxNs() >= before + 50_000_000L, "second flow started half a period on");
          } else {
            assertTrue(b.firstTxNs() - a.firstTxNs() < 50_000_000L, "both flows started together");
          }
        }
      }
    }
  }
}
