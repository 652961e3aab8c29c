package org.libitg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One per-packet log record (include/itg/log.h), the unit of every log
 * file and of the receiver's record listener. Unsigned C fields are held
 * in wider Java types: flowId is 0 to 2^32 - 1, size and flags 0 to
 * 65535; seq holds a 64-bit unsigned number in a long.
 *
 * @param flowId the flow
 * @param size the packet's size in bytes
 * @param flags what the record says: FLAG_* bits
 * @param seq the sequence number (FLOW_END: packets sent; GAP: records lost)
 * @param txNs the send time, ns since the Unix epoch (UTC)
 * @param rxNs the receive time, ns since the Unix epoch; 0 in a sender's
 *     record of a one-way flow
 */
public record LogRecord(long flowId, int size, int flags, long seq, long txNs, long rxNs) {
  /** Bytes of a record in a file. */
  public static final int LENGTH = (int) ItgCConstants.ITG_LOG_RECORD_LEN;
  /** Written by a sender when it sent. */
  public static final int FLAG_TX = (int) ItgCConstants.ITG_REC_TX;
  /** Written by a receiver on arrival. */
  public static final int FLAG_RX = (int) ItgCConstants.ITG_REC_RX;
  /** rxNs is when the echo came back. */
  public static final int FLAG_RTT = (int) ItgCConstants.ITG_REC_RTT;
  /** rxNs is the kernel's receive timestamp. */
  public static final int FLAG_KERNEL_TS = (int) ItgCConstants.ITG_REC_KERNEL_TS;
  /** The end of a flow: seq is the count of packets sent. */
  public static final int FLAG_FLOW_END = (int) ItgCConstants.ITG_REC_FLOW_END;
  /** seq records were lost on the way to a log server. */
  public static final int FLAG_GAP = (int) ItgCConstants.ITG_REC_GAP;
  /** The flow runs over TCP. */
  public static final int FLAG_TCP = (int) ItgCConstants.ITG_REC_TCP;

  /** Longs a record takes in the packed form the raw layer passes. */
  static final int PACKED_LONGS = 6;

  /** Checks that each field fits its C type. */
  public LogRecord {
    if (flowId < 0 || flowId > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("flowId is 0 to 2^32 - 1: " + flowId);
    }
    if (size < 0 || size > 0xFFFF || flags < 0 || flags > 0xFFFF) {
      throw new IllegalArgumentException("size and flags are 0 to 65535");
    }
  }

  /**
   * Returns whether the record stands for a packet (sent, received or echoed),
   * not for the end of a flow or a gap in a remote log.
   */
  public boolean isPacket() {
    return (flags & (FLAG_TX | FLAG_RX | FLAG_RTT)) != 0
        && (flags & (FLAG_FLOW_END | FLAG_GAP)) == 0;
  }

  /** Returns whether all the bits of flag are set. */
  public boolean has(int flag) {
    return (flags & flag) == flag;
  }

  /** Returns the record's 32 bytes as a file holds them (little endian). */
  public byte[] encode() {
    byte[] buf = new byte[LENGTH];
    try (itg_logrec c = toC()) {
      ItgC.itg_logrec_encode(c, buf);
    }
    return buf;
  }

  /**
   * Decodes a record from buf[off..off + 32).
   *
   * @throws ItgException ETRUNC if fewer than 32 bytes are there; EBADMSG
   *     for unknown flag bits or a record that is not self-consistent
   */
  public static LogRecord decode(byte[] buf, int off) throws ItgException {
    if (off < 0 || off > buf.length || buf.length - off < LENGTH) {
      throw new ItgException(itg_errno.ITG_ETRUNC,
          "a log record is " + LENGTH + " bytes; " + Math.max(0, buf.length - off) + " given");
    }
    byte[] rec = off == 0 ? buf : Arrays.copyOfRange(buf, off, off + LENGTH);
    try (itg_logrec c = new itg_logrec()) {
      ItgException.check(ItgC.itg_logrec_decode(rec, c));
      return of(c);
    }
  }

  /** Decodes the record at the start of buf, as {@link #decode(byte[], int)}. */
  public static LogRecord decode(byte[] buf) throws ItgException {
    return decode(buf, 0);
  }

  /** Returns a C record holding these fields, for the caller to close. */
  itg_logrec toC() {
    itg_logrec c = new itg_logrec();
    c.setFlow_id(flowId);
    c.setSize(size);
    c.setFlags(flags);
    c.setSeq(seq);
    c.setTx_ns(txNs);
    c.setRx_ns(rxNs);
    return c;
  }

  /** Returns the fields of a C record. */
  static LogRecord of(itg_logrec c) {
    return new LogRecord(c.getFlow_id(), c.getSize(), c.getFlags(), c.getSeq(), c.getTx_ns(),
        c.getRx_ns());
  }

  /** Packs records into the long[] the raw layer takes, PACKED_LONGS each. */
  static long[] pack(List<LogRecord> records) {
    long[] f = new long[records.size() * PACKED_LONGS];
    int i = 0;
    for (LogRecord r : records) {
      f[i++] = r.flowId;
      f[i++] = r.size;
      f[i++] = r.flags;
      f[i++] = r.seq;
      f[i++] = r.txNs;
      f[i++] = r.rxNs;
    }
    return f;
  }

  /** Unpacks the records of a long[] the raw layer filled. */
  static List<LogRecord> unpack(long[] f) {
    List<LogRecord> records = new ArrayList<>(f.length / PACKED_LONGS);
    for (int i = 0; i + PACKED_LONGS <= f.length; i += PACKED_LONGS) {
      records.add(new LogRecord(f[i], (int) f[i + 1], (int) f[i + 2], f[i + 3], f[i + 4], f[i + 5]));
    }
    return Collections.unmodifiableList(records);
  }
}
