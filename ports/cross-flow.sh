#!/bin/sh
# A loopback flow between a cross build's itg-send and itg-recv, both run
# through the target's runner (wine64, qemu-arm, ...): the receiver starts,
# one UDP flow of 2000 packets goes to 127.0.0.1, the sender must report
# them all received, the receiver must stop cleanly on SIGINT, and its log,
# decoded by the target's itg-dec, must hold the 2000 packets with no loss.
# Every wait is bounded. Prints "<target> flow: N passed, M failed".
# The receiver listens on a signaling port the system picks, read from
# the line it prints; the flow asks for data port 0, the receiver's pick.
# Usage: cross-flow.sh TARGET BUILD EXE RUNNER [RUNNER ARGUMENTS...]
#   EXE: the programs' suffix (.exe on Windows, else empty).
target=$1
BUILD=$2
EXE=$3
shift 3
BIN=$BUILD/bin
SUITE="$target flow"
. "$(dirname "$0")/cross-lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/itg-flow.XXXXXX")
RECV_PID=""
PACKETS=2000

cleanup() {
  [ -n "$RECV_PID" ] && kill -9 "$RECV_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# Windows programs end their lines with CR LF.
sig_port() { tr -d '\r' <"$WORK/recv.out" | sed -n 's/^itg-recv: listening sig=//p'; }
listening() { [ -n "$(sig_port)" ]; }
gone() { ! kill -0 "$RECV_PID" 2>/dev/null; }

for p in itg-recv itg-send itg-dec; do
  [ -f "$BIN/$p$EXE" ] || { echo "$target flow: $BIN/$p$EXE is missing" >&2; exit 1; }
done

timeout 300 "$@" "$BIN/itg-recv$EXE" -Sp 0 -l "$WORK/recv.log" \
  >"$WORK/recv.out" 2>&1 &
RECV_PID=$!
# Emulators start slowly (wine makes its prefix the first time).
if ! wait_until 120 listening; then
  echo "$target flow: itg-recv did not listen:" >&2
  cat "$WORK/recv.out" >&2
  exit 1
fi

timeout 180 "$@" "$BIN/itg-send$EXE" -a 127.0.0.1 -Sdp "$(sig_port)" \
  -rp 0 -C 1000 -c 512 -z "$PACKETS" >"$WORK/send.raw" 2>&1
check "itg-send exits 0" [ $? -eq 0 ]
# Windows programs end their lines with CR LF.
tr -d '\r' <"$WORK/send.raw" >"$WORK/send.out"
check "itg-send sent $PACKETS packets" grep -q ": $PACKETS packets," "$WORK/send.out"
check "the receiver got all $PACKETS" grep -q "receiver got $PACKETS\$" \
  "$WORK/send.out"

kill -INT "$RECV_PID"
check "itg-recv stops on SIGINT" wait_until 30 gone
wait "$RECV_PID"
check "itg-recv exits 0" [ $? -eq 0 ]
RECV_PID=""

timeout 120 "$@" "$BIN/itg-dec$EXE" --json "$WORK/recv.log" \
  >"$WORK/recv.json" 2>"$WORK/dec.err"
check "itg-dec reads the receiver's log" [ $? -eq 0 ]
check "the log holds $PACKETS packets, none lost" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["end"]["total"]
sys.exit(not (t["packets"] == int(sys.argv[2]) and t["lost"] == 0))' \
  "$WORK/recv.json" "$PACKETS"

if [ "$failed" -ne 0 ]; then
  for f in send.out recv.out dec.err; do
    echo "---- $f:"
    tail -n 20 "$WORK/$f"
  done
fi
finish
