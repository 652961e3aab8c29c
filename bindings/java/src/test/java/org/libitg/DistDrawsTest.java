package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reference draws of every law (tests/vectors/dist_draws.txt) through
 * Dist: the same seeds give the same sequences in Java as in C, to the
 * relative 1e-12 the C test allows for the math library's last bits.
 */
class DistDrawsTest {
  private static final int DRAWS = 1000;

  @Test
  void referenceDraws() throws IOException, ItgException {
    List<String> lines = Vectors.lines("dist_draws.txt");
    Set<Dist.Kind> seen = EnumSet.noneOf(Dist.Kind.class);
    int blocks = 0;
    int i = 0;
    while (i < lines.size()) {
      String header = lines.get(i++).strip();
      if (header.isEmpty() || header.startsWith("#")) {
        continue;
      }
      String[] w = header.split(" ");
      assertTrue(w.length >= 5 && w[0].equals("law") && w[2].equals("params"), "line " + i + ": " + header);
      Dist.Kind kind = Dist.Kind.ofName(w[1]);
      int np = kind.parameterCount();
      assertEquals(3 + np + 2, w.length, "line " + i + ": " + header);
      double[] params = new double[np];
      for (int j = 0; j < np; j++) {
        params[j] = Double.parseDouble(w[3 + j]);
      }
      assertEquals("seed", w[3 + np], "line " + i);
      long seed = Long.parseUnsignedLong(w[4 + np]);
      try (Dist d = Dist.of(kind, seed, params)) {
        assertEquals(kind, d.kind());
        for (int k = 0; k < DRAWS; k++, i++) {
          if (i >= lines.size()) {
            fail("dist_draws.txt ends inside the draws of " + header);
          }
          double want = Double.parseDouble(lines.get(i).strip());
          double got = d.next();
          if (!(Math.abs(got - want) <= 1e-12 * Math.max(Math.abs(got), Math.abs(want)))) {
            fail("line " + (i + 1) + " (" + header + "): expected " + want + ", Java draws " + got);
          }
        }
      }
      seen.add(kind);
      blocks++;
    }
    assertTrue(blocks > 0, "no law in dist_draws.txt");
    Set<Dist.Kind> parametric = EnumSet.complementOf(EnumSet.of(Dist.Kind.EMPIRICAL));
    assertEquals(parametric, seen, "every parametric law has reference draws");
  }

  /** A trace replays its values in order, from the start again; a bad law is EINVAL naming it. */
  @Test
  void empiricalAndBadParameters() throws ItgException {
    try (Dist d = Dist.empirical(1.5, 2.5, 4)) {
      assertEquals(Dist.Kind.EMPIRICAL, d.kind());
      double[] got = {d.next(), d.next(), d.next(), d.next()};
      assertEquals(List.of(1.5, 2.5, 4.0, 1.5), List.of(got[0], got[1], got[2], got[3]));
      assertEquals(8.0 / 3, d.mean(), 1e-15);
    }
    ItgException e = org.junit.jupiter.api.Assertions.assertThrows(ItgException.class,
        () -> Dist.of(Dist.Kind.EXPONENTIAL, 1, -1.0));
    assertEquals("EINVAL", e.errorName());
    assertTrue(e.getMessage().contains("exponential"), e.getMessage());
  }
}
