package org.libitg;

import java.nio.file.Path;

/**
 * Loads the JNI library, libitgjava, once: the static initialiser of the
 * raw layer's JNI class calls {@link #load()}, and the JVM runs it once.
 */
final class NativeLibrary {
  /** System property naming the JNI library's file, if it is not on java.library.path. */
  static final String PATH_PROPERTY = "org.libitg.lib";

  /** The library's name for System.loadLibrary (libitgjava.so on Linux). */
  static final String NAME = "itgjava";

  private NativeLibrary() {}

  /**
   * Loads the library from the file named by the system property
   * org.libitg.lib, or else by name from java.library.path.
   *
   * @throws UnsatisfiedLinkError if it cannot be found or loaded, with a
   *     message saying where it was looked for
   */
  static void load() {
    String path = System.getProperty(PATH_PROPERTY);
    try {
      if (path != null && !path.isEmpty()) {
        System.load(Path.of(path).toAbsolutePath().toString());
      } else {
        System.loadLibrary(NAME);
      }
    } catch (UnsatisfiedLinkError e) {
      String where = path != null && !path.isEmpty()
          ? "from " + PATH_PROPERTY + "=" + path
          : "lib" + NAME + " from java.library.path="
              + System.getProperty("java.library.path")
              + " (or set -D" + PATH_PROPERTY + "=/path/to/lib" + NAME + ".so)";
      UnsatisfiedLinkError wrapped =
          new UnsatisfiedLinkError("cannot load libitg's JNI library " + where + ": " + e.getMessage());
      wrapped.initCause(e);
      throw wrapped;
    }
  }
}
