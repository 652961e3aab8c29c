package org.libitg;

/**
 * The fields of a packet header (include/itg/wire.h). Unsigned C fields
 * are held in wider Java types: flowId and length are 0 to 2^32 - 1;
 * seq holds a 64-bit unsigned number in a long (read it with
 * Long.toUnsignedString when it may exceed Long.MAX_VALUE).
 *
 * @param version the format version: set by decoding (0 for the DITG
 *     profile); encoding always writes {@link Wire#VERSION}
 * @param flags {@link Wire#FLAG_ECHO_REQUEST}, {@link Wire#FLAG_ECHO_REPLY}
 *     (NATIVE profile), 0 to 255
 * @param flowId the flow
 * @param seq the sequence number, the first packet of a flow being 1
 * @param txNs the send time in ns since the Unix epoch (UTC); from a DITG
 *     decode, ns since UTC midnight (see {@link Wire#ditgUnwrap})
 * @param length the whole packet's length in bytes (DITG: only over TCP)
 * @param token the flow's token, a 64-bit unsigned number the receiver
 *     chose (NATIVE version 2; 0 from a version 1 or DITG decode)
 */
public record PacketHeader(int version, int flags, long flowId, long seq, long txNs, long length,
    long token) {
  /** Checks that each field fits its C type. */
  public PacketHeader {
    if (version < 0 || version > 0xFF || flags < 0 || flags > 0xFF) {
      throw new IllegalArgumentException("version and flags are 0 to 255");
    }
    if (flowId < 0 || flowId > 0xFFFFFFFFL || length < 0 || length > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("flowId and length are 0 to 2^32 - 1");
    }
  }

  /** Returns a header of the current version without flags. */
  public static PacketHeader of(long flowId, long seq, long txNs, long length, long token) {
    return new PacketHeader(Wire.VERSION, 0, flowId, seq, txNs, length, token);
  }

  /** Returns a C header holding these fields, for the caller to close. */
  itg_pkt_hdr toC() {
    itg_pkt_hdr h = new itg_pkt_hdr();
    h.setVersion((short) version);
    h.setFlags((short) flags);
    h.setFlow_id(flowId);
    h.setSeq(seq);
    h.setTx_ns(txNs);
    h.setLength(length);
    h.setToken(token);
    return h;
  }

  /** Returns the fields of a C header. */
  static PacketHeader of(itg_pkt_hdr h) {
    return new PacketHeader(h.getVersion(), h.getFlags(), h.getFlow_id(), h.getSeq(),
        h.getTx_ns(), h.getLength(), h.getToken());
  }
}
