package org.libitg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiments through Java: placements as the lines give them, placement
 * on a job, and errors naming their line (the cases of the Python
 * binding's test_experiment.py).
 */
class ExperimentTest {
  private static final String TEXT = """
      # sender, receiver, flow
      @1     -a @2        -T UDP -C 1000 -c 512 -t 5000
      @beta  -a @gamma    -T TCP -E 200 -t 5000
             -a 10.0.0.2  -C 500 -t 5000
             -a @1        -O 300 -t 5000
      """.stripLeading();
  /** TEXT's flows, each line's options without its sender word. */
  private static final List<String> OPTIONS = List.of(
      "-a @2 -T UDP -C 1000 -c 512 -t 5000",
      "-a @gamma -T TCP -E 200 -t 5000",
      "-a 10.0.0.2 -C 500 -t 5000",
      "-a @1 -O 300 -t 5000");

  private static ItgException invalid(String message, Executable call) {
    ItgException e = assertThrows(ItgException.class, call);
    assertEquals("EINVAL", e.errorName(), e.toString());
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
    return e;
  }

  @Test
  void flowsAsWritten() throws ItgException {
    try (Experiment exp = Experiment.parse(TEXT)) {
      assertEquals(4, exp.count());
      assertEquals(new Experiment.Placement(2, Experiment.Where.RANK, 1, "",
          Experiment.Where.RANK, 2, "", 1000), round(exp.placement(0)));
      assertEquals(new Experiment.Placement(3, Experiment.Where.HOST, -1, "beta",
          Experiment.Where.HOST, -1, "gamma", 200), round(exp.placement(1)));
      assertEquals(new Experiment.Placement(4, Experiment.Where.ANY, -1, "",
          Experiment.Where.ADDRESS, -1, "10.0.0.2", 500), round(exp.placement(2)));
      assertEquals(new Experiment.Placement(5, Experiment.Where.ANY, -1, "",
          Experiment.Where.RANK, 1, "", 300), round(exp.placement(3)));
      for (int i = 0; i < OPTIONS.size(); i++) {
        assertEquals(Flow.parse(OPTIONS.get(i)).describe(), exp.flow(i).describe());
        assertEquals(0, exp.flow(i).id());
      }
      assertTrue(exp.flow(1).describe().startsWith("TCP @gamma:"), exp.flow(1).describe());
      assertThrows(IndexOutOfBoundsException.class, () -> exp.flow(4));
      assertThrows(IndexOutOfBoundsException.class, () -> exp.placement(-1));
    }
  }

  /** The rate rounded to a millionth of a packet per second: 1 / (1 / r) may not be r exactly. */
  private static Experiment.Placement round(Experiment.Placement p) {
    return new Experiment.Placement(p.line(), p.sender(), p.senderRank(), p.senderHost(),
        p.receiver(), p.receiverRank(), p.receiverHost(), Math.round(p.rate() * 1e6) / 1e6);
  }

  @Test
  void placeOnHosts() throws ItgException {
    try (Experiment exp = Experiment.parse(TEXT)) {
      // beta is rank 1 (its first rank), gamma rank 3; ranks 1-3 send.
      // Rank 1 carries the two placed flows (1200 pkt/s); the others,
      // heaviest first: 500 to the least loaded, rank 2; 300, whose
      // receiver is rank 1, to rank 3 (0 against rank 2's 500).
      Experiment.Ranks placed = exp.place("alpha", "beta", "beta", "gamma");
      assertArrayEquals(new int[] {1, 1, 2, 3}, placed.senders());
      assertArrayEquals(new int[] {2, 3, -1, 1}, placed.receivers());
      Experiment.Ranks again = exp.place("alpha", "beta", "beta", "gamma");
      assertArrayEquals(placed.senders(), again.senders());
      assertArrayEquals(placed.receivers(), again.receivers());
    }
  }

  @Test
  void placeBalancesByRate() throws ItgException {
    StringBuilder text = new StringBuilder();
    for (int rate : new int[] {300, 1000, 200, 500, 1000}) {
      text.append("-a 10.0.0.9 -C ").append(rate).append(" -t 1000\n");
    }
    try (Experiment exp = Experiment.parse(text.toString())) {
      Experiment.Ranks placed = exp.place(3);
      assertArrayEquals(new int[] {2, 1, 2, 1, 2}, placed.senders());
      assertArrayEquals(new int[] {-1, -1, -1, -1, -1}, placed.receivers());
      double[] load = new double[3];
      for (int i = 0; i < exp.count(); i++) {
        load[placed.senders()[i]] += exp.placement(i).rate();
      }
      assertEquals(0.0, load[0]);
      assertEquals(1500.0, load[1], 1e-6);
      assertEquals(1500.0, load[2], 1e-6);
    }
  }

  /**
   * Flow i's ranks are at index i of both arrays: every rank is given by
   * its line and no two lines agree, so an array reversed, shifted, or
   * the two swapped, differs.
   */
  @Test
  void placedRanksFollowLineOrder() throws ItgException {
    String text = "@3 -a @1 -t 10\n@1 -a @2 -t 10\n@2 -a @0 -t 10\n@0 -a 10.0.0.9 -t 10\n";
    try (Experiment exp = Experiment.parse(text)) {
      Experiment.Ranks placed = exp.place(4);
      assertArrayEquals(new int[] {3, 1, 2, 0}, placed.senders());
      assertArrayEquals(new int[] {1, 2, 0, -1}, placed.receivers());
      for (int i = 0; i < exp.count(); i++) {
        assertEquals(exp.placement(i).senderRank(), placed.senders()[i]);
        assertEquals(exp.placement(i).receiverRank(), placed.receivers()[i]);
      }
      placed.senders()[0] = 9;
      assertEquals(3, placed.senders()[0], "the arrays given are copies");
    }
  }

  @Test
  void errorsNameTheLine() throws ItgException {
    invalid("line 3: -C: 'abc' is not a number", () -> Experiment.parse("# x\n-a @1 -t 10\n-a @1 -C abc\n"));
    invalid("line 1: no receiver", () -> Experiment.parse("-C 10 -t 10\n"));
    invalid("line 1: holds a NUL byte", () -> Experiment.parse("-a @1 -t 10\0\n"));
    invalid("no flow in the experiment", () -> Experiment.parse("# nothing\n"));
    try (Experiment exp = Experiment.parse("-a @1 -t 10\n@5 -a @0 -t 10\n")) {
      invalid("line 2: @5: no such rank (the job has 2)", () -> exp.place(2));
    }
    try (Experiment exp = Experiment.parse("-a @delta -t 10\n")) {
      invalid("line 1: @delta: no rank of the job", () -> exp.place("alpha", "beta"));
      invalid("line 1: @delta: ", () -> exp.place(2));
      invalid("a job has 1 to", () -> exp.place(0));
      invalid("a job has 1 to", () -> exp.place());
      assertThrows(IllegalArgumentException.class, () -> exp.place("a\0b"));
      Experiment.Ranks placed = exp.place("delta", "delta");
      assertArrayEquals(new int[] {1}, placed.senders());
      assertArrayEquals(new int[] {0}, placed.receivers());
    }
  }

  @Test
  void readFile(@TempDir Path dir) throws Exception {
    Path path = dir.resolve("two.exp");
    Files.writeString(path, "@1 -a @2 -C 10 -t 10\n\n-a @1 -C 20 -t 10\n");
    try (Experiment exp = Experiment.read(path)) {
      assertEquals(2, exp.count());
      assertEquals(1, exp.placement(0).line());
      assertEquals(3, exp.placement(1).line());
    }
    ItgException e = assertThrows(ItgException.class, () -> Experiment.read(dir.resolve("none.exp")));
    assertEquals("ENOENT", e.errorName());
    assertTrue(e.getMessage().contains("none.exp"), e.getMessage());
  }

  @Test
  void exampleFile() throws ItgException {
    String examples = Objects.requireNonNull(System.getProperty("itg.examples"),
        "the itg.examples property, which the Maven build sets");
    Path mixed = Path.of(examples, "experiments", "mixed.exp");
    try (Experiment exp = Experiment.read(mixed)) {
      Experiment.Ranks placed = exp.place(4);
      Set<String> protos = new HashSet<>();
      Set<Integer> senders = new HashSet<>();
      for (int i = 0; i < exp.count(); i++) {
        protos.add(exp.flow(i).describe().substring(0, 3));
        assertNotEquals(placed.senders()[i], placed.receivers()[i], "flow " + i);
        senders.add(placed.senders()[i]);
      }
      assertEquals(Set.of("UDP", "TCP"), protos);
      assertTrue(senders.containsAll(Set.of(1, 2, 3)), senders.toString());
    }
  }

  /** A flow of an experiment is a Flow like any other: refined, numbered and sent. */
  @Test
  @Timeout(60)
  void flowIsSent() throws ItgException {
    Flow flow;
    try (Experiment exp = Experiment.parse("@1 -a @2 -T UDP -C 100 -c 64 -z 5 -rp 0\n")) {
      flow = exp.flow(0);
    }
    assertTrue(flow.id(7).describe().contains(" flow 7"), flow.id(7).describe());
    try (Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0))) {
      List<FlowResult> results = Sender.send(flow.to("127.0.0.1").sigPort(rx.port()).id(7));
      assertEquals(1, results.size());
      FlowResult r = results.get(0);
      assertTrue(r.ok(), r.error());
      assertEquals(7, r.flowId());
      assertEquals(5, r.packets());
      assertEquals(5 * 64, r.bytes());
      assertTrue(rx.awaitIdle(Duration.ofSeconds(10)), "receiver idle after the flow");
      assertEquals(5, rx.stats().packets());
    }
  }

  @Test
  void closedExperimentRefusesUse() throws ItgException {
    Experiment exp = Experiment.parse("-a @1 -t 10\n");
    try (exp) {
      assertEquals(1, exp.count());
    }
    assertDoesNotThrow(exp::close);
    assertThrows(IllegalStateException.class, exp::count);
    assertThrows(IllegalStateException.class, () -> exp.flow(0));
    assertThrows(IllegalStateException.class, () -> exp.placement(0));
    assertThrows(IllegalStateException.class, () -> exp.place(2));
  }
}
