#!/bin/sh
# Compiles SendAndReport.java against the Java binding built in BUILD/java
# and runs it:
#   (cd bindings/java && mvn -B package)   # once: the jar and JNI library
#   sh examples/java/run.sh [BUILD]        # BUILD defaults to build
set -eu
BUILD=${1:-build}
here=$(dirname "$0")
jar="$BUILD/java/libitg-java.jar"
lib="$BUILD/java/native/libitgjava.so"
out="$BUILD/java/example"
for f in "$jar" "$lib"; do
  [ -f "$f" ] || { echo "run.sh: $f is missing: build the binding first" >&2; exit 1; }
done
mkdir -p "$out"
javac -d "$out" -cp "$jar" "$here/SendAndReport.java"
exec java -cp "$out:$jar" -Dorg.libitg.lib="$lib" SendAndReport
