package org.libitg;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the JNI library, libitgjava, once: the static initialiser of the
 * raw layer's JNI class calls {@link #load()}, and the JVM runs it once.
 */
final class NativeLibrary {
  /** System property naming the JNI library's file, to use instead of the jar's. */
  static final String PATH_PROPERTY = "org.libitg.lib";

  /** The library's name for System.loadLibrary (libitgjava.so on Linux). */
  static final String NAME = "itgjava";

  private NativeLibrary() {}

  /**
   * Loads the library: from the file named by the system property
   * org.libitg.lib if it is set; else the copy the jar carries for this
   * platform (native/OS-ARCH/, e.g. native/linux-x86_64/libitgjava.so),
   * written to a temporary file that is removed once loaded; else by name
   * from java.library.path.
   *
   * @throws UnsatisfiedLinkError if it cannot be found or loaded, with a
   *     message saying where it was looked for
   */
  static void load() {
    String path = System.getProperty(PATH_PROPERTY);
    if (path != null && !path.isEmpty()) {
      loadFile(Path.of(path).toAbsolutePath(), "from " + PATH_PROPERTY + "=" + path);
      return;
    }
    String resource = resourceName();
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in != null) {
        loadFromJar(in, resource);
        return;
      }
    } catch (IOException e) {
      throw linkError("from the jar's " + resource, e);
    }
    try {
      System.loadLibrary(NAME);
    } catch (UnsatisfiedLinkError e) {
      throw linkError("lib" + NAME + " from java.library.path="
          + System.getProperty("java.library.path") + " (the jar has no " + resource
          + "; or set -D" + PATH_PROPERTY + "=/path/to/" + System.mapLibraryName(NAME) + ")", e);
    }
  }

  /** The jar's resource holding the library for this JVM's platform. */
  static String resourceName() {
    return "/native/" + platform() + "/" + System.mapLibraryName(NAME);
  }

  /** OS-ARCH as build-jni.sh names it: linux-x86_64, linux-aarch64, ... */
  static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    switch (arch) {
      case "amd64":
      case "x86_64":
        arch = "x86_64";
        break;
      case "arm64":
      case "aarch64":
        arch = "aarch64";
        break;
      default:
        break;
    }
    return os + "-" + arch;
  }

  private static void loadFromJar(InputStream in, String resource) throws IOException {
    // A file of the user's own (created 0600), gone once loaded: the
    // loaded library stays mapped, and nothing is left behind in /tmp.
    Path tmp = Files.createTempFile("libitgjava-", ".so");
    try {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      loadFile(tmp, "from the jar's " + resource);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void loadFile(Path file, String where) {
    try {
      System.load(file.toString());
    } catch (UnsatisfiedLinkError e) {
      throw linkError(where, e);
    }
  }

  private static UnsatisfiedLinkError linkError(String where, Throwable cause) {
    UnsatisfiedLinkError wrapped = new UnsatisfiedLinkError(
        "cannot load libitg's JNI library " + where + ": " + cause.getMessage());
    wrapped.initCause(cause);
    return wrapped;
  }
}
