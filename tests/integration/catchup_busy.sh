#!/bin/sh
# The default catch-up (law) when the sending thread never waits: a flow
# asking more than the machine can send (-C 10000000) keeps it busy
# beside a 1 000 pkt/s flow, and the sender is stopped for 300 ms (SIGSTOP,
# then SIGCONT) while wiretap records the slow flow's departures. The stop
# is a hold-up of a busy thread, not a late wake-up: the ~300 departures
# it owes are still paid back at the law's pace, none back to back, and
# counted as moved.
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
# The slow flow on the wire: packets, the largest gap (ms), gaps under
# 100 us (the law's pace leaves at least 0.8 of the 1 ms IDT less the
# slack between two of its departures).
PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
import wirestats
ts = np.sort(wirestats.load(sys.argv[1])["ts"].astype(np.int64))
g = np.diff(ts)
print(len(ts), g.max() / 1e6, int((g < 100000).sum()))' "$WORK/slow.cap" >"$WORK/wire.txt" ||
  die "wirestats"
read -r n gap short <"$WORK/wire.txt"
echo "  slow flow on the wire: $n packets, largest gap $gap ms, $short gaps under 100 us"
shifted=$(sed -n 's/^flow 2:.*catch-up shifted \([0-9]*\).*/\1/p' "$WORK/send.out")
check "3000 packets of the slow flow on the wire" [ "$n" -eq 3000 ]
check "the stop shows on the wire (a gap of 250 ms or more)" \
  python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 250)' "$gap"
# The stop owes about 300 departures: sent as owed (burst), they would be
# that many gaps under 100 us. A busy machine adds some of its own (a
# departure held up after it was decided, the next one on time): under
# the fast flow's load, up to 23 were seen. A third of the owed bounds it.
check "no departures back to back after the stop ($short gaps under 100 us <= 100)" \
  [ "$short" -le 100 ]
check "the moved departures counted (shifted ${shifted:-0} >= 150)" \
  [ "${shifted:-0}" -ge 150 ]
finish
