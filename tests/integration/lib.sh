# Shared by the integration tests: sourced, with BUILD set to the build
# directory. Every wait here is bounded; nothing waits by sleeping a fixed
# time in place of checking a condition.

# Absolute paths, so a test may change directory.
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
BIN="$BUILD/bin"
# The measuring instruments, tests/tools: the test scripts live beside it.
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd) || exit 1
WIRESTATS="$TOOLS/wirestats.py"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/itg-test.XXXXXX")
PIDS=""
FAILS=0
CHECKS=0

cleanup() {
  for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# check DESCRIPTION COMMAND...: runs a test command, counts the result.
check() {
  desc=$1
  shift
  CHECKS=$((CHECKS + 1))
  if "$@"; then
    echo "  ok: $desc"
  else
    echo "  FAILED: $desc"
    FAILS=$((FAILS + 1))
  fi
}

# finish: prints the count and exits with the verdict.
finish() {
  echo "$(basename "$0" .sh): $((CHECKS - FAILS)) passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
  exit $?
}

# die MESSAGE: a set-up step failed; the test cannot go on.
die() {
  echo "setup failed: $*" >&2
  exit 1
}

# wait_until SECONDS COMMAND...: polls COMMAND every 20 ms until it
# succeeds, at most SECONDS; returns its last status.
wait_until() {
  limit=$(($1 * 50))
  shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    [ "$i" -ge "$limit" ] && return 1
    sleep 0.02
  done
  return 0
}

tcp_listening() { ss -Hltn "sport = :$1" | grep -q LISTEN; }

# start_recv PORT LOG [more itg-recv options]: starts itg-recv in the
# background with its signaling on PORT and waits until it listens. A
# command in RECV_WRAP (such as "taskset -c 0") runs it.
start_recv() {
  port=$1
  log=$2
  shift 2
  $RECV_WRAP "$BIN/itg-recv" -Sp "$port" -l "$log" "$@" >"$WORK/recv-$port.out" 2>&1 &
  RECV_PID=$!
  PIDS="$PIDS $RECV_PID"
  wait_until 10 tcp_listening "$port" || die "itg-recv did not listen on $port"
}

# stop_recv: SIGTERM, then the exit status of itg-recv (must flush, exit 0).
stop_recv() {
  kill -TERM "$RECV_PID"
  wait "$RECV_PID"
}

# json_field FILE EXPR: evaluates a Python expression over the parsed JSON
# report `r` of itg-dec, e.g. json_field rep.json 'r["total"]["packets"]'.
json_field() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# build_tool NAME: builds the instrument tests/tools/NAME.c into
# BUILD/tools/NAME with the host's compiler, whatever BUILD targets; again
# when its source changed.
build_tool() {
  [ "$BUILD/tools/$1" -nt "$TOOLS/$1.c" ] && return 0
  mkdir -p "$BUILD/tools"
  cc -std=gnu11 -O2 -Wall -Wextra -o "$BUILD/tools/$1.$$" "$TOOLS/$1.c" &&
    mv "$BUILD/tools/$1.$$" "$BUILD/tools/$1" || die "cannot build $TOOLS/$1.c"
}
WIRETAP="$BUILD/tools/wiretap"

# start_tap PORT SECONDS FILE: captures UDP packets to PORT on lo, waits
# until the capture is ready.
start_tap() {
  build_tool wiretap
  "$WIRETAP" lo "$1" "$2" "$3" 2>"$3.err" &
  TAP_PID=$!
  PIDS="$PIDS $TAP_PID"
  wait_until 10 grep -qs ready "$3.err" || die "wiretap did not start"
}

# tap_count FILE [SIZE]: packets in a wiretap capture (16 bytes a record),
# or only those of SIZE payload bytes: a test's own flow, should another
# program on this machine send to the same port meanwhile.
tap_count() {
  python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
size = int(sys.argv[2]) if len(sys.argv) > 2 else None
print(sum(1 for i in range(0, len(d) - 15, 16)
          if size is None or int.from_bytes(d[i + 8:i + 12], "little") == size))' "$@"
}
