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
