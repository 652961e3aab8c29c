#!/bin/sh
# Runs every unit-test program in BUILD/tests, each with a time limit,
# and prints one closing line: "NAME: N passed, M failed".
# Usage: run-unit.sh [BUILD [NAME [RUNNER [RUNNER ARGUMENTS...]]]]
#   BUILD defaults to build, NAME to "unit"; a cross build's programs run
#   through the target's RUNNER (wine64, qemu-arm, ...).
BUILD=${1:-build}
NAME=${2:-unit}
[ $# -gt 2 ] && shift 2 || set --
passed=0
failed=0
failures=""
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t" .exe)
  began=$(date +%s)
  timeout 300 "$@" "$t" >"$BUILD/tests/$name.log" 2>&1
  st=$?
  if [ "$st" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures="$failures $name"
    # The status and time tell a test's failure from its runner's (a
    # program the emulator could not start prints nothing) or a hang
    # (status 124, its buffered output lost).
    echo "---- $name failed${1:+ under $1}: status $st after" \
      "$(($(date +%s) - began)) s:"
    tail -n 40 "$BUILD/tests/$name.log"
  fi
done
echo "$NAME: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
