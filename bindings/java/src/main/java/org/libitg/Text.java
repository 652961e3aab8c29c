package org.libitg;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * C strings on the Java side: UTF-8 bytes, NUL-terminated on the way into
 * C. The raw layer passes strings as byte[] so that file and host names
 * keep their real UTF-8 bytes (JNI's string functions use a modified
 * UTF-8).
 */
final class Text {
  private Text() {}

  /**
   * Returns s as UTF-8 with a terminating NUL, or null for null.
   *
   * @throws IllegalArgumentException if s holds a NUL character, which C
   *     would take for its end
   */
  static byte[] cString(String s) {
    if (s == null) {
      return null;
    }
    if (s.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("string holds a NUL character: " + s.replace('\0', '?'));
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    byte[] c = new byte[utf8.length + 1];
    System.arraycopy(utf8, 0, c, 0, utf8.length);
    return c;
  }

  /** Returns the C strings of words, as {@link #cString} makes them. */
  static byte[][] cStrings(List<String> words) {
    byte[][] c = new byte[words.size()][];
    for (int i = 0; i < c.length; i++) {
      c[i] = cString(words.get(i));
    }
    return c;
  }

  /** Returns the text in b up to its first NUL (or all of it), or null for null. */
  static String string(byte[] b) {
    if (b == null) {
      return null;
    }
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  /**
   * Returns s if its UTF-8 form fits a C array of capacity bytes with its
   * NUL; a longer text would be cut short by C, so it is refused.
   *
   * @throws ItgException EINVAL naming what the text is
   */
  static String fit(String s, int capacity, String what) throws ItgException {
    if (s.getBytes(StandardCharsets.UTF_8).length >= capacity) {
      throw new ItgException(itg_errno.ITG_EINVAL,
          what + " is longer than " + (capacity - 1) + " bytes: " + s);
    }
    return s;
  }
}
