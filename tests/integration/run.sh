#!/bin/sh
# Runs the integration tests (tests/integration/*.sh but this file and
# lib.sh) against the programs in BUILD/bin, each under a time limit, and
# prints one closing line: "integration: N passed, M failed, K skipped".
# Usage: run.sh [-s NEEDS] [BUILD [NAME...]]
#   NAME...   only these tests (dec or dec.sh), whatever they need, each
#             log shown whole
#   -s NEEDS  skips the tests whose "# needs:" header line names one of
#             NEEDS (comma-separated): root (namespaces, mounts, packet
#             capture) or install (packages fetched on first run); make
#             check runs with -s root,install
# A test declares what it needs in one header line, e.g.
#   # needs: root (packet capture: wiretap)
skip=""
whole=""
while getopts s: opt; do
  case "$opt" in
    s) skip=$(echo "$OPTARG" | tr ',' ' ') ;;
    *) echo "usage: run.sh [-s NEEDS] [BUILD [NAME...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
BUILD=${1:-build}
[ $# -gt 0 ] && shift
here=$(dirname "$0")
if [ $# -gt 0 ]; then
  tests=""
  for name in "$@"; do
    name=${name%.sh}
    [ -f "$here/$name.sh" ] && [ "$name" != run ] && [ "$name" != lib ] || {
      echo "run.sh: no integration test $name ($here/$name.sh)" >&2
      exit 2
    }
    tests="$tests $here/$name.sh"
  done
  skip=""
  whole=1
else
  tests=$(ls "$here"/*.sh)
fi

# needs FILE: the words of its "# needs:" line, before any parenthesis.
needs() {
  sed -n 's/^# needs: *\([^(]*\).*/\1/p' "$1" | head -n 1 | tr ',' ' '
}

passed=0
failed=0
skipped=0
failures=""
for t in $tests; do
  name=$(basename "$t" .sh)
  case "$name" in run | lib) continue ;; esac
  missing=""
  for need in $(needs "$t"); do
    case " $skip " in *" $need "*) missing="$missing $need" ;; esac
  done
  if [ -n "$missing" ]; then
    skipped=$((skipped + 1))
    echo "skip $name (needs$missing)"
    continue
  fi
  log="$BUILD/integration-$name.log"
  mkdir -p "$BUILD"
  if timeout 240 sh "$t" "$BUILD" >"$log" 2>&1; then
    passed=$((passed + 1))
    [ -n "$whole" ] && cat "$log"
    echo "ok   $name"
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "FAIL $name:"
    if [ -n "$whole" ]; then cat "$log"; else tail -n 40 "$log"; fi
  fi
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
