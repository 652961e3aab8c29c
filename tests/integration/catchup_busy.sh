#!/bin/sh
# A flow asking more than the machine can send (-C 10000000) beside a
# 1 000 pkt/s flow of the same sender, stopped for 300 ms (SIGSTOP, then
# SIGCONT) while wiretap records the slow flow's departures: the fast flow
# keeps the sending thread busy throughout, and must not take it from the
# slow one, which sends all its departures within its duration.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
# The receiver's log holds records past its header: the flows are sending.
sending() { [ "$(wc -c <"$1")" -gt 68 ]; }
start_recv "$WORK/recv.log"
tries=0
while :; do
  TAP_PORT=$(free_udp_port)
  start_tap "$TAP_PORT" 60 "$WORK/slow.cap"
  cat >"$WORK/flows.txt" <<EOF
-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 10000000 -c 64 -t 3000
-a 127.0.0.1 -Sdp $RECV_PORT -rp $TAP_PORT -C 1000 -c 64 -t 3000
EOF
  "$BIN/itg-send" -F "$WORK/flows.txt" >"$WORK/send.out" 2>&1 &
  SEND_PID=$!
  PIDS="$PIDS $SEND_PID"
  wait_until 20 sending "$WORK/recv.log" || die "the flows did not start: $(cat "$WORK/send.out")"
  kill -STOP "$SEND_PID"
  sleep 0.3
  kill -CONT "$SEND_PID"
  wait "$SEND_PID"
  st=$?
  kill "$TAP_PID"
  wait "$TAP_PID"
  tries=$((tries + 1))
  [ "$st" -ne 0 ] && [ "$tries" -lt 5 ] && data_port_taken "$WORK/send.out" || break
done
[ "$st" -eq 0 ] || die "itg-send: $(cat "$WORK/send.out")"
stop_recv || die "itg-recv did not exit 0"
sed 's/^/  /' "$WORK/send.out"
# The slow flow on the wire: packets, the largest gap (ms).
PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
import wirestats
ts = np.sort(wirestats.load(sys.argv[1])["ts"].astype(np.int64))
print(len(ts), np.diff(ts).max() / 1e6)' "$WORK/slow.cap" >"$WORK/wire.txt" ||
  die "wirestats"
read -r n gap <"$WORK/wire.txt"
echo "  slow flow on the wire: $n packets, largest gap $gap ms"
sent=$(sed -n 's/^flow 2: \([0-9]*\) packets.*/\1/p' "$WORK/send.out")
check "3000 packets of the slow flow on the wire" [ "$n" -eq 3000 ]
check "the slow flow's summary counts 3000 sent (${sent:-none})" [ "${sent:-0}" -eq 3000 ]
check "the stop shows on the wire (a gap of 250 ms or more)" \
  python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 250)' "$gap"
finish
