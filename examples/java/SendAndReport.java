// Sends one flow over loopback and prints its QoS report, with libitg's
// Java binding: a receiver and a sender in this JVM, the packets paced and
// logged by libitg's own C threads.
//
// Build and run with run.sh (it compiles this file against the binding's
// jar; build the binding first: `mvn -B package` in bindings/java).

import java.nio.file.Files;
import java.nio.file.Path;
import org.libitg.Flow;
import org.libitg.FlowResult;
import org.libitg.FlowStats;
import org.libitg.Itg;
import org.libitg.ItgException;
import org.libitg.Receiver;
import org.libitg.Report;
import org.libitg.Sender;

public final class SendAndReport {
  private SendAndReport() {}

  public static void main(String[] args) throws Exception {
    Path log = Files.createTempFile("itg-example-", ".itglog");
    try {
      System.exit(run(log));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static int run(Path log) throws ItgException {
    FlowResult sent;
    // The receiver starts when it is made. Signaling port 0 lets the system
    // pick a free port; every packet it receives goes to the log file.
    try (Receiver rx = new Receiver(new Receiver.Config()
        .bindHost("127.0.0.1")
        .sigPort(0)
        .logPath(log))) {
      // The flow, in itg-send's own words: UDP, 1000 packets a second of
      // 64 bytes for 1000 ms, to the receiver's address and port.
      Flow flow = Flow.parse("-T UDP -C 1000 -c 64 -t 1000 -rp 0")
          .to("127.0.0.1")
          .sigPort(rx.port());
      System.out.println("flow:     " + flow.describe());

      // Sender.send runs the flow to its end and returns what happened.
      sent = Sender.send(flow).get(0);
      System.out.printf("sent:     %d packets, %d bytes; the receiver logged %d%n",
          sent.packets(), sent.bytes(), sent.received());
    } // closing the receiver flushes and closes its log

    // The report itg-dec would print, computed from the receiver's log.
    Report report = Itg.decode(log);
    FlowStats t = report.total();
    System.out.printf("packets:  %d%n", t.packets());
    System.out.printf("lost:     %d (%.2f %%)%n", t.lost(), t.lossPct());
    System.out.printf("delay:    avg %.3f ms, min %.3f ms, max %.3f ms, p99 %.3f ms%n",
        t.delayAvgNs() / 1e6, t.delayMinNs() / 1e6, t.delayMaxNs() / 1e6, t.delayP99Ns() / 1e6);
    System.out.printf("jitter:   %.3f ms%n", t.jitterAvgNs() / 1e6);
    System.out.printf("rate:     %.1f pkt/s, %.1f kbit/s%n", t.ratePps(), t.bitrateKbps());
    return sent.ok() ? 0 : 1;
  }
}
