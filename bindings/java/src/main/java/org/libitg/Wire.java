package org.libitg;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * The packet wire format (include/itg/wire.h): what a data packet carries
 * in its first bytes, in network byte order. Encoding and decoding run in
 * C, so Java reads and writes exactly the bytes the sender and receiver
 * do.
 */
public final class Wire {
  /** The header profiles. */
  public enum Profile {
    /** libitg's own 36-byte header (version 2; version 1's 28 bytes still decode). */
    NATIVE(itg_wire_profile.ITG_WIRE_NATIVE),
    /** The payload of D-ITG 2.8.1 with "-p 0": 16 bytes, 20 over TCP. */
    DITG(itg_wire_profile.ITG_WIRE_DITG);

    final int code;

    Profile(int code) {
      this.code = code;
    }
  }

  /** The NATIVE header's magic number, "IT". */
  public static final int MAGIC = (int) ItgCConstants.ITG_WIRE_MAGIC;
  /** The NATIVE header version encoding writes (version 1 still decodes). */
  public static final int VERSION = (int) ItgCConstants.ITG_WIRE_VERSION;
  /** The largest packet libitg sends or accepts (the UDP payload limit). */
  public static final int MAX_PACKET = (int) ItgCConstants.ITG_WIRE_MAX_PACKET;
  /** Packet flag: the round-trip meter asks for an echo. */
  public static final int FLAG_ECHO_REQUEST = (int) ItgCConstants.ITG_PKT_ECHO_REQUEST;
  /** Packet flag: this packet is an echo. */
  public static final int FLAG_ECHO_REPLY = (int) ItgCConstants.ITG_PKT_ECHO_REPLY;

  private Wire() {}

  /** Returns the length of the header encoding writes for a profile, over TCP or UDP. */
  public static int headerLength(Profile profile, boolean tcp) {
    return (int) ItgC.itg_wire_hdr_len(profile.code, tcp ? 1 : 0);
  }

  /**
   * Writes h into buf[0..header length) and returns the header length.
   *
   * @throws ItgException ETRUNC if buf is shorter than the header; EINVAL
   *     for a length field (NATIVE; DITG over TCP) outside [header length,
   *     {@link #MAX_PACKET}]
   */
  public static int encode(Profile profile, boolean tcp, PacketHeader h, byte[] buf) throws ItgException {
    try (itg_pkt_hdr c = h.toC()) {
      return ItgException.check(ItgC.itg_wire_encode(profile.code, tcp ? 1 : 0, c, buf));
    }
  }

  /**
   * Writes h at buf's position, which advances past the header, and
   * returns the header length; the errors of {@link #encode(Profile,
   * boolean, PacketHeader, byte[])}, with buf's remaining bytes as the
   * room there is.
   */
  public static int encode(Profile profile, boolean tcp, PacketHeader h, ByteBuffer buf) throws ItgException {
    byte[] out = new byte[Math.min(buf.remaining(), headerLength(profile, tcp))];
    int n = encode(profile, tcp, h, out);
    buf.put(out, 0, n);
    return n;
  }

  /**
   * Reads a header from buf: over UDP the whole datagram, over TCP at
   * least the header.
   *
   * @throws ItgException ETRUNC, EBADMSG or EVERSION as itg_wire_decode
   *     says (a short buffer or datagram, a wrong magic, length or time
   *     field, another version)
   */
  public static PacketHeader decode(Profile profile, boolean tcp, byte[] buf) throws ItgException {
    try (itg_pkt_hdr c = new itg_pkt_hdr()) {
      decodeInto(profile, tcp, buf, c);
      return PacketHeader.of(c);
    }
  }

  /** Decodes buf into c; returns the length of the header read (a version 1 NATIVE one is shorter). */
  private static int decodeInto(Profile profile, boolean tcp, byte[] buf, itg_pkt_hdr c) throws ItgException {
    return ItgException.check(ItgC.itg_wire_decode(profile.code, tcp ? 1 : 0, buf, c));
  }

  /** Reads a header from buf[off..off + len), as {@link #decode(Profile, boolean, byte[])}. */
  public static PacketHeader decode(Profile profile, boolean tcp, byte[] buf, int off, int len)
      throws ItgException {
    if (off == 0 && len == buf.length) {
      return decode(profile, tcp, buf);
    }
    Objects.checkFromIndexSize(off, len, buf.length);
    return decode(profile, tcp, Arrays.copyOfRange(buf, off, off + len));
  }

  /**
   * Reads a header from buf's remaining bytes (the datagram, over UDP);
   * on success buf's position advances past the header.
   */
  public static PacketHeader decode(Profile profile, boolean tcp, ByteBuffer buf) throws ItgException {
    byte[] in = new byte[buf.remaining()];
    buf.duplicate().get(in);
    try (itg_pkt_hdr c = new itg_pkt_hdr()) {
      int n = decodeInto(profile, tcp, in, c);
      buf.position(buf.position() + n);
      return PacketHeader.of(c);
    }
  }

  /**
   * Places a D-ITG time of day (ns since UTC midnight) on the day that
   * puts it nearest to refNs (normally the receive time), and returns that
   * instant in ns since the epoch.
   */
  public static long ditgUnwrap(long todNs, long refNs) {
    return ItgC.itg_wire_ditg_unwrap(todNs, refNs);
  }
}
