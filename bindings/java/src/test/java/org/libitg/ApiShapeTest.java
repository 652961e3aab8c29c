package org.libitg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding as plain Java code uses it: errors that streams and
 * try-with-resources take without wrapping (this file compiles only if
 * ItgException is unchecked), and a log reader in a for-each loop.
 */
class ApiShapeTest {
  @Test
  void flowsParseInAStream() {
    List<Flow> flows = Stream.of("-C 10 -z 1", "-C 20 -z 2", "-C 30 -z 3")
        .map(Flow::parse)
        .map(f -> f.to("127.0.0.1"))
        .collect(Collectors.toList());
    assertEquals(3, flows.size());
    assertTrue(flows.get(2).describe().contains("127.0.0.1"), flows.get(2).describe());
    ItgException e = assertThrows(ItgException.class,
        () -> Stream.of("-C 10", "-Q 5").map(Flow::parse).collect(Collectors.toList()));
    assertEquals("EINVAL", e.errorName());
    assertTrue(e.getMessage().contains("-Q"), e.getMessage());
    assertTrue(RuntimeException.class.isAssignableFrom(ItgException.class));
  }

  @Test
  void aReaderIsTheIterableOfItsRecords(@TempDir Path dir) {
    Path log = dir.resolve("it.itglog");
    List<LogRecord> recs = new ArrayList<>();
    for (long seq = 1; seq <= 5; seq++) {
      recs.add(new LogRecord(2, 64, LogRecord.FLAG_RX, seq, 1000 * seq, 1000 * seq + 7));
    }
    try (LogWriter w = LogWriter.create(log,
        LogHeader.of(LogHeader.ROLE_RECEIVER, LogHeader.CLOCK_KERNEL, 1, "h"))) {
      w.write(recs);
    }
    try (LogReader r = LogReader.open(log)) {
      assertEquals(recs.get(0), r.next());
      List<LogRecord> rest = new ArrayList<>();
      for (LogRecord rec : r) { // from where the reader is
        rest.add(rec);
      }
      assertEquals(recs.subList(1, 5), rest);
      Iterator<LogRecord> end = r.iterator();
      assertFalse(end.hasNext());
      assertThrows(NoSuchElementException.class, end::next);
    }
  }
}
