#!/bin/sh
# Compiles SendAndReport.java against the Java binding built in BUILD/java
# and runs it:
#   (cd bindings/java && mvn -B package)   # once: the jar and JNI library
#   sh examples/java/run.sh [BUILD]        # BUILD defaults to build
set -eu
BUILD=${1:-build}
here=$(dirname "$0")
jar="$BUILD/java/libitg-java.jar"
out="$BUILD/java/example"
[ -f "$jar" ] || { echo "run.sh: $jar is missing: build the binding first" >&2; exit 1; }
mkdir -p "$out"
javac -d "$out" -cp "$jar" "$here/SendAndReport.java"
# The jar carries the JNI library and loads it: no -Dorg.libitg.lib.
exec java -cp "$out:$jar" SendAndReport
