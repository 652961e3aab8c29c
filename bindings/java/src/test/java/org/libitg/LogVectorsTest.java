package org.libitg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The shared log record and file header vectors (tests/vectors/logrec.txt). */
class LogVectorsTest {
  @TestFactory
  Stream<DynamicTest> logVectors() throws IOException {
    return Vectors.load("logrec.txt").stream().map(v -> dynamicTest(v.name(), () -> run(v)));
  }

  private static void run(Vectors.Vector v) throws ItgException {
    switch (v.str("what")) {
      case "record" -> record(v);
      case "header" -> header(v);
      default -> throw new AssertionError(v + ": unknown 'what'");
    }
  }

  private static LogRecord recordFields(Vectors.Vector v) {
    return new LogRecord(v.unsigned("flow_id"), (int) v.unsigned("size"), (int) v.unsigned("flags"),
        v.unsigned("seq"), v.signed("tx_ns"), v.signed("rx_ns"));
  }

  private static LogHeader headerFields(Vectors.Vector v) {
    return new LogHeader((int) v.unsigned("version"), (int) v.unsigned("role"), (int) v.unsigned("clock"),
        v.signed("created_ns"), v.str("host"));
  }

  private static void record(Vectors.Vector v) throws ItgException {
    byte[] bytes = v.bytes();
    switch (v.str("test")) {
      case "roundtrip" -> {
        assertArrayEquals(bytes, recordFields(v).encode(), v.toString());
        assertEquals(recordFields(v), LogRecord.decode(bytes), v.toString());
      }
      case "encode" -> assertArrayEquals(bytes, recordFields(v).encode(), v.toString());
      case "decode" -> {
        int want = v.result();
        if (want == 0) {
          assertEquals(recordFields(v), LogRecord.decode(bytes), v.toString());
        } else {
          ItgException e = assertThrows(ItgException.class, () -> LogRecord.decode(bytes), v.toString());
          assertEquals(want, e.code(), v.toString());
          assertEquals(v.str("result"), e.errorName(), v.toString());
        }
      }
      default -> throw new AssertionError(v + ": unknown test");
    }
  }

  private static void header(Vectors.Vector v) throws ItgException {
    byte[] bytes = v.bytes();
    switch (v.str("test")) {
      case "roundtrip" -> {
        assertArrayEquals(bytes, headerFields(v).encode(), v.toString());
        assertEquals(headerFields(v), LogHeader.decode(bytes), v.toString());
      }
      case "encode" -> assertArrayEquals(bytes, headerFields(v).encode(), v.toString());
      case "decode" -> {
        int want = v.result();
        if (want == 0) {
          assertEquals(headerFields(v), LogHeader.decode(bytes), v.toString());
        } else {
          ItgException e = assertThrows(ItgException.class, () -> LogHeader.decode(bytes), v.toString());
          assertEquals(want, e.code(), v.toString());
          assertEquals(v.str("result"), e.errorName(), v.toString());
        }
      }
      default -> throw new AssertionError(v + ": unknown test");
    }
  }

  /** A record decodes from an offset; fewer than 32 bytes there is ETRUNC, not a crash. */
  @Test
  void recordAtOffsetAndShortBuffer() throws ItgException {
    LogRecord r = new LogRecord(5, 64, LogRecord.FLAG_RX, 9, 1000, 2000);
    byte[] buf = new byte[40];
    System.arraycopy(r.encode(), 0, buf, 8, LogRecord.LENGTH);
    assertEquals(r, LogRecord.decode(buf, 8));
    ItgException e = assertThrows(ItgException.class, () -> LogRecord.decode(buf, 9));
    assertEquals("ETRUNC", e.errorName());
  }
}
