package org.libitg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The shared packet header vectors (tests/vectors/wire_*.txt) through Wire. */
class WireVectorsTest {
  @TestFactory
  Stream<DynamicTest> nativeVectors() throws IOException {
    return tests("wire_native.txt", Wire.Profile.NATIVE);
  }

  @TestFactory
  Stream<DynamicTest> ditgVectors() throws IOException {
    return tests("wire_ditg.txt", Wire.Profile.DITG);
  }

  private static Stream<DynamicTest> tests(String file, Wire.Profile profile) throws IOException {
    return Vectors.load(file).stream().map(v -> dynamicTest(v.name(), () -> run(profile, v)));
  }

  /** The vector's header fields; DITG vectors have no token: it decodes as 0. */
  private static PacketHeader fields(Wire.Profile profile, Vectors.Vector v) {
    return new PacketHeader((int) v.unsigned("version"), (int) v.unsigned("flags"),
        v.unsigned("flow_id"), v.unsigned("seq"), v.signed("tx_ns"), v.unsigned("length"),
        profile == Wire.Profile.NATIVE ? v.unsigned("token") : 0);
  }

  private static void run(Wire.Profile profile, Vectors.Vector v) throws ItgException {
    String test = v.str("test");
    if (test.equals("unwrap")) {
      assertEquals(v.signed("expect_ns"), Wire.ditgUnwrap(v.signed("tod_ns"), v.signed("ref_ns")), v.toString());
      return;
    }
    boolean tcp = v.unsigned("tcp") != 0;
    byte[] bytes = v.has("bytes") ? v.bytes() : new byte[0];
    int hl = Wire.headerLength(profile, tcp);
    switch (test) {
      case "roundtrip" -> {
        checkEncode(profile, tcp, v, fields(profile, v), bytes.length, 0, bytes, hl);
        assertEquals(fields(profile, v), Wire.decode(profile, tcp, bytes), v.toString());
        int limit = profile == Wire.Profile.NATIVE && !tcp ? bytes.length : hl;
        for (int k = 0; k < limit; k++) {
          byte[] prefix = Arrays.copyOf(bytes, k);
          ItgException e = assertThrows(ItgException.class, () -> Wire.decode(profile, tcp, prefix),
              v + ": prefix of " + k + " bytes");
          assertEquals("ETRUNC", e.errorName(), v + ": prefix of " + k + " bytes");
        }
      }
      case "decode" -> {
        int want = v.result();
        if (want == 0) {
          assertEquals(fields(profile, v), Wire.decode(profile, tcp, bytes), v.toString());
          // An older version's header is shorter than the one encoding writes.
          ByteBuffer in = ByteBuffer.wrap(bytes);
          Wire.decode(profile, tcp, in);
          assertEquals(v.has("hdr_len") ? (int) v.unsigned("hdr_len") : hl, in.position(), v.toString());
        } else {
          ItgException e = assertThrows(ItgException.class, () -> Wire.decode(profile, tcp, bytes), v.toString());
          assertEquals(want, e.code(), v.toString());
          assertEquals(v.str("result"), e.errorName(), v.toString());
        }
      }
      case "encode" -> {
        int buflen = v.has("buflen") ? (int) v.unsigned("buflen") : bytes.length;
        checkEncode(profile, tcp, v, fields(profile, v), buflen, v.result(), bytes, hl);
      }
      default -> throw new AssertionError(v + ": unknown test '" + test + "'");
    }
  }

  /** Encodes into a buffer of buflen bytes filled with 0xEE: the header goes in front, the rest stays. */
  private static void checkEncode(Wire.Profile profile, boolean tcp, Vectors.Vector v, PacketHeader h,
      int buflen, int want, byte[] bytes, int hl) throws ItgException {
    byte[] buf = new byte[buflen];
    Arrays.fill(buf, (byte) 0xEE);
    if (want != 0) {
      ItgException e = assertThrows(ItgException.class, () -> Wire.encode(profile, tcp, h, buf), v.toString());
      assertEquals(want, e.code(), v.toString());
      return;
    }
    assertEquals(hl, Wire.encode(profile, tcp, h, buf), v.toString());
    assertArrayEquals(Arrays.copyOf(bytes, hl), Arrays.copyOf(buf, hl), v.toString());
    for (int i = hl; i < buflen; i++) {
      assertEquals((byte) 0xEE, buf[i], v + ": byte " + i + " past the header");
    }
  }

  /** The ByteBuffer forms: encode at the position, decode the remaining bytes, positions advance. */
  @Test
  void byteBuffersAdvancePastTheHeader() throws ItgException {
    PacketHeader h = PacketHeader.of(7, 42, 1_700_000_000_123_456_789L, 100, -2L);
    ByteBuffer buf = ByteBuffer.allocate(104);
    buf.position(4);
    assertEquals(Wire.headerLength(Wire.Profile.NATIVE, false), Wire.encode(Wire.Profile.NATIVE, false, h, buf));
    assertEquals(4 + 36, buf.position());
    buf.position(4);
    assertEquals(h, Wire.decode(Wire.Profile.NATIVE, false, buf));
    assertEquals(4 + 36, buf.position());

    ByteBuffer small = ByteBuffer.allocate(35);
    ItgException e = assertThrows(ItgException.class, () -> Wire.encode(Wire.Profile.NATIVE, false, h, small));
    assertEquals("ETRUNC", e.errorName());
    assertEquals(0, small.position());
  }

  /** A slice of an array decodes like the same bytes on their own. */
  @Test
  void arraySliceDecodes() throws ItgException {
    PacketHeader h = PacketHeader.of(1, 2, 3, 36, 4);
    byte[] packet = new byte[36];
    Wire.encode(Wire.Profile.NATIVE, false, h, packet);
    byte[] framed = new byte[48];
    System.arraycopy(packet, 0, framed, 5, 36);
    assertEquals(h, Wire.decode(Wire.Profile.NATIVE, false, framed, 5, 36));
    assertThrows(IndexOutOfBoundsException.class, () -> Wire.decode(Wire.Profile.NATIVE, false, framed, 20, 36));
  }
}
