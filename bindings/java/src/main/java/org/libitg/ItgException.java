package org.libitg;

/**
 * An error reported by libitg: the C error code (a negative ITG_E* value),
 * its name in the library's error table ("EINVAL", as itg_err_name gives
 * it) and a message, the library's own sentence for the code unless
 * something more precise is known (such as the option word a flow could
 * not parse).
 *
 * <p>Unchecked, as the JDK's own IllegalArgumentException and
 * UncheckedIOException are: a method of the binding says which codes it
 * throws, and a caller catches what it can handle, while lambdas and
 * method references ({@code lines.stream().map(Flow::parse)}) and
 * try-with-resources blocks need no wrapping.
 */
public class ItgException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String errorName;

  /**
   * Creates the exception for a code, with a message of its own, or the
   * library's sentence for the code when message is null or empty.
   */
  public ItgException(int code, String message) {
    super(message == null || message.isEmpty() ? ItgC.itg_strerror(code) : message);
    this.code = code;
    this.errorName = ItgC.itg_err_name(code);
  }

  /** Returns the C error code, a negative ITG_E* value. */
  public int code() {
    return code;
  }

  /** Returns the code's name without the ITG_ prefix, e.g. "EINVAL"; "UNKNOWN" for a code the library does not know. */
  public String errorName() {
    return errorName;
  }

  @Override
  public String toString() {
    return getClass().getName() + ": " + getMessage() + " (" + errorName + ")";
  }

  /**
   * Returns status unchanged when it is not negative, as the C functions
   * return counts.
   *
   * @throws ItgException carrying the code when status is negative
   */
  static int check(int status) throws ItgException {
    return check(status, null);
  }

  /**
   * Like {@link #check(int)}, with the message to give when status is an
   * error (null for the library's sentence).
   */
  static int check(int status, String message) throws ItgException {
    if (status < 0) {
      throw new ItgException(status, message);
    }
    return status;
  }

  /**
   * Reads the status of a wait with a time limit: true when what was
   * awaited came, false when the time ran out.
   *
   * @throws ItgException carrying any other error
   */
  static boolean checkWait(int status) throws ItgException {
    if (status == itg_errno.ITG_ETIMEDOUT) {
      return false;
    }
    check(status);
    return true;
  }
}
