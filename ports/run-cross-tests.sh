#!/bin/sh
# Runs every unit-test program of a cross build through the target's
# runner (wine64, qemu-arm, ...), each under a time limit, and prints one
# closing line: "<target>: N passed, M failed".
# Usage: run-cross-tests.sh TARGET BUILD RUNNER [RUNNER ARGUMENTS...]
target=$1
BUILD=$2
shift 2
passed=0
failed=0
failures=""
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t" .exe)
  if timeout 300 "$@" "$t" >"$BUILD/tests/$name.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "---- $name failed under $1:"
    tail -n 40 "$BUILD/tests/$name.log"
  fi
done
echo "$target: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
