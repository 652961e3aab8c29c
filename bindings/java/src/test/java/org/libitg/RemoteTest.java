package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An agent in this JVM driven through a Remote, on loopback, every port picked by the system. */
class RemoteTest {
  private static final byte[] TOKEN =
      "a token of the Java binding's tests, 32+ bytes".getBytes(StandardCharsets.UTF_8);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  @Timeout(60)
  void flowToTheAgentsOwnReceiverAndRefusals(@TempDir Path dir) throws Exception {
    try (Remote.Agent agent = new Remote.Agent(new Remote.Agent.Config(TOKEN)
        .port(0).receiverPort(0).logDir(dir))) {
      try (Remote a = Remote.connect("127.0.0.1", agent.port(), TOKEN, TIMEOUT)) {
        assertEquals(agent.receiverPort(), a.receiverPort());
        assertTrue(a.software().startsWith("libitg "), a.software());
        Remote.Clock c = a.clock(5);
        // One clock on both ends: the offset is 0, known within rtt / 2.
        assertTrue(c.rttNs() > 0 && Math.abs(c.offsetNs()) <= c.rttNs() / 2 + 1, c.toString());
        assertEquals("idle", a.status().state());
        a.start(List.of("-a 127.0.0.1 -Sdp " + a.receiverPort()
            + " -rp 0 -C 500 -c 64 -z 50 -x f.itglog"), 0);
        Remote.Status st = a.results(Duration.ofSeconds(20));
        assertTrue(st.ended(), st.state());
        assertEquals(1, st.flows().size());
        FlowResult f = st.flows().get(0);
        assertTrue(f.ok(), f.error());
        assertEquals(50, f.packets());
        assertEquals(50, f.received());
        assertEquals(50, st.rxPackets());
        assertEquals(1, st.rxFlows().size());
        assertEquals(Proto.UDP, st.rxFlows().get(0).proto());
        assertEquals("f.itglog", st.rxFlows().get(0).logFile());
        a.fetchLog("f.itglog", dir.resolve("copy.itglog"));
        ItgException escape =
            assertThrows(ItgException.class, () -> a.fetchLog("../f.itglog", dir.resolve("x")));
        assertTrue(escape.code() < 0);
        ItgException bad = assertThrows(ItgException.class,
            () -> a.start(List.of("-a 127.0.0.1 -C 100 -t 1000", "-C abc"), 0));
        assertEquals("EINVAL", bad.errorName());
        assertTrue(bad.getMessage().contains("abc"), bad.getMessage());
      }
      assertEquals(50, Itg.decode(dir.resolve("copy.itglog")).total().packets());
      ItgException refused = assertThrows(ItgException.class, () -> Remote.connect(
          "127.0.0.1", agent.port(), "not the agent's token", TIMEOUT));
      assertEquals("EPERM", refused.errorName());
    }
  }

  @Test
  void aClosedConnectionIsRefused(@TempDir Path dir) throws Exception {
    try (Remote.Agent agent = new Remote.Agent(new Remote.Agent.Config(TOKEN)
        .port(0).receiverPort(0).logDir(dir))) {
      Remote a = Remote.connect("127.0.0.1", agent.port(), TOKEN, TIMEOUT);
      a.close();
      a.close();
      assertThrows(IllegalStateException.class, a::status);
    }
  }
}
