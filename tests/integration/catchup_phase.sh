#!/bin/sh
# Flows spread over their period keep their phases through a hold-up: 20
# flows of 500 pkt/s from one script (started spread, 100 us apart), their
# sender stopped for 200 ms (SIGSTOP, then SIGCONT) while wiretap records
# every departure. Under the default catch-up (law) every flow pays the
# debt at 0.8 of its IDT for about a second; while it does, the flows'
# departures must stay apart on the wire, as they were before the stop:
# from 3 ms to 30 ms after it (the owed departures sent at once, then
# some 17 periods), at least 12 % of the gaps between two departures of
# any flows 50 us or longer. Spread (80 us apart) that is 78 to 80 % on a
# quiet machine, and 22 % at least in 19 runs with one or two busy loops
# on it: each later hold-up moves the flows it delays, by their lateness,
# onto the others. Bunched at one instant each period, one send apart but
# for the period's one gap, it is 5 % at most, busy loops or not.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

# flows PORT: the 20 flows to data port PORT, 1 000 packets each.
flows() {
  script_of 20 "$WORK/flows.txt" "-a 127.0.0.1 -Sdp $RECV_PORT -rp $1 -C 500 -c 64 -z 1000"
  exec "$BIN/itg-send" -F "$WORK/flows.txt"
}
send_stopped phase 0.2 flows

# The capture's packets, its largest gap (ms, the stop), and the share
# (%) of gaps between departures of 50 us or longer over the 200 ms
# before the stop and from 3 ms to 30 ms after it.
PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
import wirestats
ts = np.sort(wirestats.load(sys.argv[1])["ts"].astype(np.int64))
g = np.diff(ts)
i = int(np.argmax(g))
stop, resumed = ts[i], ts[i + 1]
def apart(a, b):
    w = ts[(ts >= a) & (ts < b)]
    return 100.0 * float(np.mean(np.diff(w) >= 50000))
print(len(ts), g[i] / 1e6, apart(stop - 200000000, stop),
      apart(resumed + 3000000, resumed + 30000000))' "$WORK/phase.cap" \
  >"$WORK/wire.txt" || die "wirestats"
read -r n stop_ms before after <"$WORK/wire.txt"
echo "  $n packets; stop $stop_ms ms; gaps of 50 us or more: $before % before, $after % after"
check "20 000 packets on the wire" [ "$n" -eq 20000 ]
check "the stop shows on the wire (a gap of 150 ms or more)" at_least "$stop_ms" 150
check "spread before the stop ($before % of gaps 50 us or longer, at least 12 %)" at_least "$before" 12
check "still spread while the debt is paid ($after % of gaps 50 us or longer, at least 12 %)" at_least "$after" 12
check "the moved departures counted" grep -q "catch-up shifted [1-9]" "$WORK/phase.out"
finish
