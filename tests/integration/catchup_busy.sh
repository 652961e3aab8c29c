#!/bin/sh
# A flow asking more than the machine can send (-C 10000000) beside a
# 1 000 pkt/s flow of the same sender, stopped for 300 ms (SIGSTOP, then
# SIGCONT) while wiretap records the slow flow's departures: the fast flow
# keeps the sending thread busy throughout, and must not take it from the
# slow one, which sends all its departures within its duration.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
# two_flows PORT: the fast flow, and the slow one to data port PORT.
two_flows() {
  cat >"$WORK/flows.txt" <<EOF
-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 10000000 -c 64 -t 3000
-a 127.0.0.1 -Sdp $RECV_PORT -rp $1 -C 1000 -c 64 -t 3000
EOF
  exec "$BIN/itg-send" -F "$WORK/flows.txt"
}
send_stopped slow 0.3 two_flows
sed 's/^/  /' "$WORK/slow.out"
# The slow flow on the wire: packets, the largest gap (ms).
PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
import wirestats
ts = np.sort(wirestats.load(sys.argv[1])["ts"].astype(np.int64))
print(len(ts), np.diff(ts).max() / 1e6)' "$WORK/slow.cap" >"$WORK/wire.txt" ||
  die "wirestats"
read -r n gap <"$WORK/wire.txt"
echo "  slow flow on the wire: $n packets, largest gap $gap ms"
sent=$(sed -n 's/^flow 2: \([0-9]*\) packets.*/\1/p' "$WORK/slow.out")
check "3000 packets of the slow flow on the wire" [ "$n" -eq 3000 ]
check "the slow flow's summary counts 3000 sent (${sent:-none})" [ "${sent:-0}" -eq 3000 ]
check "the stop shows on the wire (a gap of 250 ms or more)" at_least "$gap" 250
finish
