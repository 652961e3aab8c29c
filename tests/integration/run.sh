#!/bin/sh
# Runs every integration test (tests/integration/*.sh but this file and
# lib.sh) against the programs in BUILD/bin, each under a time limit, and
# prints one closing line: "integration: N passed, M failed".
BUILD=${1:-build}
here=$(dirname "$0")
passed=0
failed=0
failures=""
for t in "$here"/*.sh; do
  name=$(basename "$t" .sh)
  case "$name" in run | lib) continue ;; esac
  log="$BUILD/integration-$name.log"
  mkdir -p "$BUILD"
  if timeout 240 sh "$t" "$BUILD" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "FAIL $name:"
    tail -n 40 "$log"
  fi
done
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
