package org.libitg;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reader of the shared test vectors in tests/vectors/ (format in
 * tests/vectors/README.md). The directory is $ITG_VECTORS, else the system
 * property itg.vectors (the Maven build sets it), else tests/vectors under
 * the current directory. A malformed file or field fails the test, naming
 * the file, line and key: a bad vector is never skipped.
 */
final class Vectors {
  /** One vector: its name, where it starts, and its fields in order. */
  record Vector(String name, String file, int line, Map<String, String> fields) {
    @Override
    public String toString() {
      return file + ":" + line + " [" + name + "]";
    }

    String str(String key) {
      String v = fields.get(key);
      if (v == null) {
        fail(this + ": no '" + key + "'");
      }
      return v;
    }

    boolean has(String key) {
      return fields.containsKey(key);
    }

    /** An unsigned field: decimal, or hexadecimal with 0x (64 bits at most). */
    long unsigned(String key) {
      String v = str(key);
      try {
        return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseUnsignedLong(v);
      } catch (NumberFormatException e) {
        return fail(this + ": '" + key + "' is not an unsigned number: " + v);
      }
    }

    /** A signed field: decimal with an optional '-'. */
    long signed(String key) {
      String v = str(key);
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        return fail(this + ": '" + key + "' is not a signed number: " + v);
      }
    }

    /** The hexadecimal field "bytes", blanks ignored. */
    byte[] bytes() {
      String hex = str("bytes").replaceAll("\\s+", "");
      if (hex.length() % 2 != 0 || !hex.matches("[0-9a-fA-F]*")) {
        fail(this + ": bad hex in 'bytes'");
      }
      byte[] b = new byte[hex.length() / 2];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
      }
      return b;
    }

    /** The error code named by "result" (0 for OK). */
    int result() {
      String name = str("result");
      if (name.equals("OK")) {
        return 0;
      }
      for (int code = -1; code >= -64; code--) {
        if (ItgC.itg_err_name(code).equals(name)) {
          return code;
        }
      }
      return fail(this + ": unknown result '" + name + "'");
    }
  }

  private Vectors() {}

  /** Returns the vector directory. */
  static Path dir() {
    String env = System.getenv("ITG_VECTORS");
    if (env != null && !env.isEmpty()) {
      return Path.of(env);
    }
    return Path.of(System.getProperty("itg.vectors", "tests/vectors"));
  }

  /** Returns the lines of a vector file. */
  static List<String> lines(String file) throws IOException {
    Path p = dir().resolve(file);
    assertTrue(Files.isRegularFile(p), "no vector file " + p + " (set ITG_VECTORS)");
    return Files.readAllLines(p, StandardCharsets.UTF_8);
  }

  /** Loads the vectors of a file; at least one must be there. */
  static List<Vector> load(String file) throws IOException {
    List<Vector> all = new ArrayList<>();
    Map<String, String> fields = null;
    String lastKey = null;
    int lineNo = 0;
    for (String raw : lines(file)) {
      lineNo++;
      String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      if (Character.isWhitespace(line.charAt(0))) {
        if (fields == null || lastKey == null) {
          fail(file + ":" + lineNo + ": continuation line outside a field");
        }
        fields.merge(lastKey, trimmed, (a, b) -> a.isEmpty() ? b : a + " " + b);
        continue;
      }
      if (trimmed.startsWith("[") && trimmed.endsWith("]")) {
        String name = trimmed.substring(1, trimmed.length() - 1);
        if (all.stream().anyMatch(v -> v.name().equals(name))) {
          fail(file + ":" + lineNo + ": vector [" + name + "] twice");
        }
        fields = new LinkedHashMap<>();
        lastKey = null;
        all.add(new Vector(name, file, lineNo, fields));
        continue;
      }
      int eq = line.indexOf('=');
      if (fields == null || eq < 0) {
        fail(file + ":" + lineNo + ": not a [name] or key = value line: " + line);
      }
      lastKey = line.substring(0, eq).strip();
      if (fields.put(lastKey, line.substring(eq + 1).strip()) != null) {
        fail(file + ":" + lineNo + ": '" + lastKey + "' twice");
      }
    }
    assertTrue(!all.isEmpty(), file + " holds no vector");
    return all;
  }
}
