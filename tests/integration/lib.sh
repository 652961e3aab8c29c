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

# ns_add NAME...: network namespaces for this script (root), each with
# its loopback up; when the script exits, the processes inside them are
# killed and they are removed. A system that refuses them fails the check
# "ip netns add works" and ends the script.
NETS=""
ns_cleanup() {
  for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
  for ns in $NETS; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p"; done
    ip netns del "$ns" 2>/dev/null
  done
  cleanup
}
ns_add() {
  trap ns_cleanup EXIT
  trap 'exit 1' INT TERM
  for ns in "$@"; do
    if ! err=$(ip netns add "$ns" 2>&1); then
      echo "$(basename "$0" .sh): cannot create a network namespace" \
        "(ip netns add $ns: $err);"
      echo "$(basename "$0" .sh): this test must run as root on a system" \
        "that allows it"
      check "ip netns add works" false
      finish
    fi
    NETS="$NETS $ns"
    nsx "$ns" ip link set lo up || die "lo up in $ns"
  done
}

# nsx NS COMMAND...: runs a command inside a namespace (in the foreground:
# a background job starts `ip netns exec` itself, which becomes the
# program, so that $! is the program's pid).
nsx() {
  ns=$1
  shift
  ip netns exec "$ns" "$@"
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

# listen_port FILE KEY: the port KEY=PORT of the "listening" line that
# itg-recv or itg-log printed into FILE (empty until the line is there).
listen_port() {
  sed -n "s/^itg-[a-z]*: listening .*$2=\([0-9][0-9]*\).*/\1/p" "$1" | head -n 1
}
has_listen_port() { [ -n "$(listen_port "$1" "$2")" ]; }

# start_recv LOG [more itg-recv options]: starts itg-recv in the background
# on a signaling port the system picks, waits for the line that names it:
# RECV_PORT is that port, RECV_OUT its output (stdout and stderr). A
# command in RECV_WRAP (such as "taskset -c 0") runs it.
RECV_N=0
start_recv() {
  log=$1
  shift
  RECV_N=$((RECV_N + 1))
  RECV_OUT="$WORK/recv-$RECV_N.out"
  $RECV_WRAP "$BIN/itg-recv" -Sp 0 -l "$log" "$@" >"$RECV_OUT" 2>&1 &
  RECV_PID=$!
  PIDS="$PIDS $RECV_PID"
  wait_until 10 has_listen_port "$RECV_OUT" sig ||
    die "itg-recv did not listen: $(cat "$RECV_OUT")"
  RECV_PORT=$(listen_port "$RECV_OUT" sig)
}

# start_log DIR [more itg-log options]: starts itg-log in the background on
# ports the system picks, waits for the line that names them: LOG_PORT is
# its TCP port (clients learn the UDP one from it), LOG_OUT its output.
LOG_N=0
start_log() {
  dir=$1
  shift
  LOG_N=$((LOG_N + 1))
  LOG_OUT="$WORK/log-$LOG_N.out"
  "$BIN/itg-log" -p 0 -d "$dir" "$@" >"$LOG_OUT" 2>&1 &
  LOG_PID=$!
  PIDS="$PIDS $LOG_PID"
  wait_until 10 has_listen_port "$LOG_OUT" tcp ||
    die "itg-log did not listen: $(cat "$LOG_OUT")"
  LOG_PORT=$(listen_port "$LOG_OUT" tcp)
}

# free_udp_port: a UDP port that no socket holds on any address at this
# moment (the system's pick for port 0), for a test that must know a data
# port before the flow starts. Another program may take it meanwhile: a
# caller tries again with another (see tap_send).
free_udp_port() {
  python3 -c 'import socket
try:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", 0))
except OSError:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", 0))
print(s.getsockname()[1])'
}

# free_tcp_port: a TCP port of loopback that no socket holds at this
# moment (the system's pick for port 0), for a program that cannot take
# port 0 (D-ITG's). Another program may take it meanwhile.
free_tcp_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# hold_closed_port: a TCP port of 127.0.0.1 that nothing listens on, held
# bound (not listening) by a background process until the test ends, so
# that no other program takes it meanwhile: CLOSED_PORT.
hold_closed_port() {
  python3 -c 'import signal, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
signal.pause()' >"$WORK/closed.port" &
  PIDS="$PIDS $!"
  wait_until 10 grep -q . "$WORK/closed.port" || die "no port held"
  CLOSED_PORT=$(cat "$WORK/closed.port")
}

# data_port_taken OUT: itg-send's output OUT says the receiver could not
# open the data port asked for (another program holds it).
data_port_taken() { grep -q "cannot open data port" "$1"; }

# stop_recv: SIGTERM, then the exit status of itg-recv (must flush, exit 0).
stop_recv() {
  kill -TERM "$RECV_PID"
  wait "$RECV_PID"
}

# json_field FILE EXPR: evaluates a Python expression over the report `r`
# of itg-dec --json (its document's "end"), e.g.
# json_field rep.json 'r["total"]["packets"]'.
json_field() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["end"]; print(eval(sys.argv[2]))' "$1" "$2"
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
# until the capture is ready. TAP_OPTS, if set, adds wiretap options.
start_tap() {
  build_tool wiretap
  "$WIRETAP" $TAP_OPTS lo "$1" "$2" "$3" 2>"$3.err" &
  TAP_PID=$!
  PIDS="$PIDS $TAP_PID"
  wait_until 10 grep -qs ready "$3.err" || die "wiretap did not start"
}

# tap_send SECONDS CAPTURE OUT [itg-send options]: runs itg-send (output
# in OUT) to a data port TAP_PORT from free_udp_port, captured by wiretap
# for SECONDS into CAPTURE; when the receiver could not open that port,
# again with another, up to 5 times. Returns itg-send's status.
tap_send() {
  secs=$1
  cap=$2
  out=$3
  shift 3
  tries=0
  while :; do
    TAP_PORT=$(free_udp_port)
    start_tap "$TAP_PORT" "$secs" "$cap"
    "$BIN/itg-send" "$@" -rp "$TAP_PORT" >"$out" 2>&1
    st=$?
    tries=$((tries + 1))
    [ "$st" -ne 0 ] && [ "$tries" -lt 5 ] && data_port_taken "$out" || return "$st"
    kill "$TAP_PID"
    wait "$TAP_PID"
  done
}

# log_has_records LOG: a receiver's log holds records past its header:
# its flows are sending.
log_has_records() { [ "$(wc -c <"$1")" -gt 68 ]; }

# at_least X BOUND: whether the number X (a decimal fraction or not) is
# BOUND or more.
at_least() { python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= float(sys.argv[2]))' "$1" "$2"; }

# script_of N FILE LINE: writes FILE, a script of N flows alike (itg-send
# -F), each the line LINE.
script_of() {
  : >"$2"
  i=0
  while [ "$i" -lt "$1" ]; do
    echo "$3" >>"$2"
    i=$((i + 1))
  done
}

# stop_send STOP LOG CAPTURE OUT SENDER: runs the function SENDER with a
# data port TAP_PORT from free_udp_port as its argument, in the background
# (output in OUT), captured by wiretap into CAPTURE; SENDER ends with
# exec itg-send, so that the signals reach itg-send itself. Unless STOP is 0,
# stops it for STOP seconds (SIGSTOP, then SIGCONT) once the receiver's
# log LOG holds records. When the receiver could not open that port,
# again with another, up to 5 times. Returns the sender's status, the
# capture ended.
stop_send() {
  tries=0
  while :; do
    TAP_PORT=$(free_udp_port)
    start_tap "$TAP_PORT" 60 "$3"
    "$5" "$TAP_PORT" >"$4" 2>&1 &
    SEND_PID=$!
    PIDS="$PIDS $SEND_PID"
    if [ "$1" != 0 ]; then
      wait_until 20 log_has_records "$2" || die "the flows did not start: $(cat "$4")"
      kill -STOP "$SEND_PID"
      sleep "$1"
      kill -CONT "$SEND_PID"
    fi
    wait "$SEND_PID"
    st=$?
    kill "$TAP_PID"
    wait "$TAP_PID"
    tries=$((tries + 1))
    [ "$st" -ne 0 ] && [ "$tries" -lt 5 ] && data_port_taken "$4" || return "$st"
  done
}

# send_stopped NAME STOP SENDER: a receiver logging to $WORK/NAME.log,
# and SENDER run by stop_send (stopped STOP seconds once it is sending),
# its capture in $WORK/NAME.cap and its output in $WORK/NAME.out; the
# receiver stopped after it. Dies if either fails.
send_stopped() {
  start_recv "$WORK/$1.log"
  stop_send "$2" "$WORK/$1.log" "$WORK/$1.cap" "$WORK/$1.out" "$3" ||
    die "itg-send ($1): $(tail -n 3 "$WORK/$1.out")"
  stop_recv || die "itg-recv ($1) did not exit 0"
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

# tap_all PROTO FILE [IFACE NETNS]: captures every packet of PROTO (udp
# or tcp) on IFACE (default lo) in network namespace NETNS (default this
# one), each record with its destination port (wiretap -d), for at most
# a minute or until stop_taps; waits until the capture runs.
TAPS=""
tap_all() {
  build_tool wiretap
  # ip netns exec runs wiretap in its own process: its pid is wiretap's.
  ${4:+ip netns exec "$4"} "$WIRETAP" -p "$1" -d "${3:-lo}" 0 60 "$2" 2>"$2.err" &
  PIDS="$PIDS $!"
  TAPS="$TAPS $!"
  wait_until 10 grep -qs ready "$2.err" || die "wiretap did not start: $(cat "$2.err")"
}

# stop_taps: ends the captures, every packet they saw written (a packet
# that was received has passed them: loopback hands a packet to the taps
# before it delivers it).
stop_taps() {
  for p in $TAPS; do kill -TERM "$p" 2>/dev/null; done
  for p in $TAPS; do wait "$p"; done
  TAPS=""
}

# taps_whole FILE...: every capture FILE (its wiretap's FILE.err) ended
# with no packet dropped by the kernel for want of room.
taps_whole() {
  for f in "$@"; do
    grep -q "kernel drops 0$" "$f.err" || return 1
  done
}
