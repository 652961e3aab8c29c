#!/bin/sh
# The Java binding against this tree's build: Maven generates the SWIG
# layer, builds the JNI library and the jar (into BUILD/java) and runs the
# JUnit tests; then the Java example runs. Called from the top of the tree:
#   sh tests/integration/java.sh BUILD
# ITG_SAN non-empty (BUILD built with SAN=1) builds the JNI library with the
# sanitizers and runs the JVMs with the AddressSanitizer runtime preloaded.
# swig, a JDK and Maven are installed when missing. Maven keeps what it
# downloads in its usual local repository (~/.m2), so only the first run
# downloads. Prints one closing line: "java: N passed, M failed".
# needs: install (swig, JDK, Maven and its downloads)
set -u
BUILD=${1:-build}
case "$BUILD" in
  /*) build=$BUILD ;;
  *) build=$(pwd)/$BUILD ;;
esac

passed=0
failed=0
finish() {
  echo "java: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

need=""
command -v swig >/dev/null 2>&1 || need="$need swig"
command -v javac >/dev/null 2>&1 || need="$need default-jdk-headless"
command -v mvn >/dev/null 2>&1 || need="$need maven"
if [ -n "$need" ]; then
  # shellcheck disable=SC2086
  if ! sh ports/need-debs.sh $need; then
    echo "setup failed: cannot install$need"
    failed=1
    finish
  fi
fi
if [ ! -f "$build/lib/libitg.a" ]; then
  echo "setup failed: $build/lib/libitg.a is missing (run make)"
  failed=1
  finish
fi

san=${ITG_SAN:-}
preload=""
asan_options=""
if [ -n "$san" ]; then
  # The JVM is not built with ASan: its runtime must be loaded first, and
  # the JVM's own use of SIGSEGV (null checks, safepoints) left to it.
  preload=$(${CC:-cc} -print-file-name=libasan.so)
  asan_options="detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:abort_on_error=1"
fi

reports="$build/java/surefire-reports"
rm -rf "$reports"
# Maven's output is shown without the colour codes some builds of it
# print even in batch mode.
mvn_log="$build/java-maven.log"
mkdir -p "$build"
mvn -B -q -f bindings/java/pom.xml \
  -Ditg.build="$build" -Ditg.san="$san" -Ditg.preload="$preload" \
  -Ditg.asan.options="$asan_options" package >"$mvn_log" 2>&1
mvn_status=$?
esc=$(printf '\033')
sed "s/$esc\[[0-9;]*m//g" "$mvn_log"

# suite_count NAME FILE: an attribute of the <testsuite> of a report.
suite_count() {
  n=$(sed -n '/<testsuite /{s/.* '"$1"'="\([0-9]*\)".*/\1/p;q;}' "$2")
  echo "${n:-0}"
}

# Count the JUnit test cases from the reports (a skipped one counts as
# failed: no test here is meant to be skipped).
counted=0
for r in "$reports"/TEST-*.xml; do
  [ -f "$r" ] || continue
  tests=$(suite_count tests "$r")
  bad=$(($(suite_count failures "$r") + $(suite_count errors "$r") + $(suite_count skipped "$r")))
  passed=$((passed + tests - bad))
  failed=$((failed + bad))
  counted=1
done
if [ "$mvn_status" -ne 0 ] && [ "$counted" -eq 0 ]; then
  echo "FAILED: the Maven build (no test ran)"
  failed=$((failed + 1))
fi

# A user's own Maven project: the jar installed (install:install-file) in
# a local repository of its own, BUILD/java-user/repo, which the project
# builds with (its plugins are fetched there on the first run only), then
# run with plain java and no -Dorg.libitg.lib: the jar's own JNI library is
# loaded. Its code maps option lines with Flow::parse in a stream (it
# compiles only with an unchecked ItgException) and reads the log with a
# for-each loop.
user="$build/java-user"
repo="$user/repo"
app="$user/app"
version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' bindings/java/pom.xml | head -n 1)
rm -rf "$app" "$repo/org/libitg"
mkdir -p "$app/src/main/java/demo"
cat >"$app/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>itg-user</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.libitg</groupId>
      <artifactId>libitg-java</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <artifactId>maven-resources-plugin</artifactId>
        <version>3.3.1</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF
cat >"$app/src/main/java/demo/Main.java" <<'EOF'
package demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.libitg.Flow;
import org.libitg.LogReader;
import org.libitg.LogRecord;
import org.libitg.Receiver;
import org.libitg.Sender;

public final class Main {
  public static void main(String[] args) throws Exception {
    Path log = Files.createTempFile("itg-user-", ".itglog");
    try {
      try (Receiver rx = new Receiver(new Receiver.Config().bindHost("127.0.0.1").sigPort(0)
          .logPath(log))) {
        List<Flow> flows = Stream.of("-C 2000 -c 64 -z 100 -t 0 -rp 0",
                "-C 2000 -c 64 -z 50 -t 0 -rp 0")
            .map(Flow::parse)
            .map(f -> f.to("127.0.0.1").sigPort(rx.port()))
            .collect(Collectors.toList());
        Sender.send(flows.toArray(new Flow[0]));
      }
      long received = 0;
      try (LogReader r = LogReader.open(log)) {
        for (LogRecord rec : r) {
          received += rec.isPacket() ? 1 : 0;
        }
      }
      System.out.println("received: " + received);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
EOF
user_log="$build/java-user.log"
jar="$repo/org/libitg/libitg-java/$version/libitg-java-$version.jar"
if [ "$mvn_status" -eq 0 ] &&
    mvn -B -q -Dmaven.repo.local="$repo" \
      org.apache.maven.plugins:maven-install-plugin:3.1.2:install-file \
      -Dfile="$build/java/libitg-java.jar" -DgroupId=org.libitg -DartifactId=libitg-java \
      -Dversion="$version" -Dpackaging=jar >"$user_log" 2>&1 &&
    mvn -B -q -f "$app/pom.xml" -Dmaven.repo.local="$repo" compile >>"$user_log" 2>&1 &&
    LD_PRELOAD=$preload ASAN_OPTIONS=$asan_options \
      java -cp "$app/target/classes:$jar" demo.Main >"$user.out" 2>&1 &&
    grep -q '^received: 150$' "$user.out"; then
  echo "ok: a fresh Maven project on the installed jar runs without -Dorg.libitg.lib"
  passed=$((passed + 1))
else
  echo "FAILED: a fresh Maven project on the installed jar:"
  sed "s/$esc\[[0-9;]*m//g" "$user_log" "$user.out" 2>/dev/null | tail -n 30
  failed=$((failed + 1))
fi

out="$build/java-example.out"
if [ "$mvn_status" -eq 0 ] &&
    LD_PRELOAD=$preload ASAN_OPTIONS=$asan_options \
      sh examples/java/run.sh "$build" >"$out" 2>&1 &&
    grep -q '^packets: *1000$' "$out" && grep -q '^lost: *0 ' "$out"; then
  echo "ok: examples/java receives 1000 packets, 0 lost"
  passed=$((passed + 1))
else
  echo "FAILED: examples/java:"
  cat "$out" 2>/dev/null
  failed=$((failed + 1))
fi
finish
