#!/bin/sh
# Runs every unit-test program in BUILD/tests, each with a time limit, and
# prints one closing line: "unit: N passed, M failed".
BUILD=${1:-build}
passed=0
failed=0
failures=""
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  if timeout 300 "$t" >"$BUILD/tests/$name.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "---- $name failed:"
    tail -n 40 "$BUILD/tests/$name.log"
  fi
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
