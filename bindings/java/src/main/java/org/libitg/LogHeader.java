package org.libitg;

/**
 * The header of a log file (include/itg/log.h): 68 bytes, little endian,
 * checksum included, before the blocks of records (version 1, which still
 * decodes: 64 bytes without a checksum, before bare records).
 *
 * @param version the format version (set by decoding; encoding always
 *     writes {@link #VERSION})
 * @param role {@link #ROLE_SENDER} or {@link #ROLE_RECEIVER}
 * @param clock {@link #CLOCK_REALTIME} or {@link #CLOCK_KERNEL}
 * @param createdNs when the file was created, ns since the Unix epoch
 * @param host the host that wrote it, at most 31 bytes of UTF-8 (encoding
 *     cuts a longer name)
 */
public record LogHeader(int version, int role, int clock, long createdNs, String host) {
  /** Bytes of the header in a file. */
  public static final int LENGTH = (int) ItgCConstants.ITG_LOG_HEADER_LEN;
  /** The format version libitg writes. */
  public static final int VERSION = (int) ItgCConstants.ITG_LOG_VERSION;
  /** The file was written by a sender. */
  public static final int ROLE_SENDER = itg_log_role.ITG_LOG_ROLE_SENDER;
  /** The file was written by a receiver. */
  public static final int ROLE_RECEIVER = itg_log_role.ITG_LOG_ROLE_RECEIVER;
  /** Times come from the user-space wall clock. */
  public static final int CLOCK_REALTIME = itg_log_clock.ITG_LOG_CLOCK_REALTIME;
  /** Receive times are the kernel's timestamps where there are some. */
  public static final int CLOCK_KERNEL = itg_log_clock.ITG_LOG_CLOCK_KERNEL;

  /** Checks that each field fits its C type. */
  public LogHeader {
    if (version < 0 || version > 0xFFFF) {
      throw new IllegalArgumentException("version is 0 to 65535");
    }
    if (role < 0 || clock < 0) {
      throw new IllegalArgumentException("role and clock are not negative");
    }
    if (host == null) {
      throw new NullPointerException("host");
    }
  }

  /** Returns a header of the current version. */
  public static LogHeader of(int role, int clock, long createdNs, String host) {
    return new LogHeader(VERSION, role, clock, createdNs, host);
  }

  /** Returns the header's {@link #LENGTH} bytes as a file holds them, checksum last. */
  public byte[] encode() {
    byte[] buf = new byte[LENGTH];
    try (itg_log_hdr c = toC()) {
      ItgC.itg_log_hdr_encode(c, buf);
    }
    return buf;
  }

  /**
   * Decodes a file header, version {@link #VERSION} or 1, from the start
   * of buf.
   *
   * @throws ItgException ETRUNC (fewer than {@link #LENGTH} bytes, 64 for
   *     version 1), EBADMSG (not a libitg log, a wrong byte order, a
   *     checksum that fails, a field this version does not know) or
   *     EVERSION
   */
  public static LogHeader decode(byte[] buf) throws ItgException {
    try (itg_log_hdr c = new itg_log_hdr()) {
      ItgException.check(ItgC.itg_log_hdr_decode(buf, c));
      return of(c);
    }
  }

  /** Returns a C header holding these fields, for the caller to close. */
  itg_log_hdr toC() {
    itg_log_hdr c = new itg_log_hdr();
    c.setVersion(version);
    c.setRole(role);
    c.setClock(clock);
    c.setCreated_ns(createdNs);
    c.setHost(host);
    return c;
  }

  /** Returns the fields of a C header. */
  static LogHeader of(itg_log_hdr c) {
    return new LogHeader(c.getVersion(), (int) c.getRole(), (int) c.getClock(), c.getCreated_ns(),
        c.getHost());
  }
}
