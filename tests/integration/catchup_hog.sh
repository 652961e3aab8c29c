#!/bin/sh
# law beside CPU hogs: a 10 000 pkt/s flow (20 000 packets) shares the
# machine with two busy loops, so the sending thread is descheduled
# often, anywhere: in its wait, between two sends, inside a send. Wherever
# a hold-up falls, law must see it and space the owed departures at its
# pace: no gap on the wire below 0.8 of the interval less the 50 us slack
# (30 us), give or take the send's own jitter. A sending thread that
# measured only its wake-ups sent what fell due during the other hold-ups
# at once: 21 to 343 gaps under 20 us in runs of this test, against 0 to
# 4 since.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
# Two busy loops, each a process of its own that the script kills when it
# ends, and that ends by itself after a minute.
for k in 1 2; do
  python3 -c 'import time
end = time.monotonic() + 60
while time.monotonic() < end:
    pass' &
  PIDS="$PIDS $!"
done
start_recv "$WORK/recv.log"
tap_send 30 "$WORK/flow.cap" "$WORK/send.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  -C 10000 -c 64 -z 20000 -t 30000
st=$?
[ "$st" -eq 0 ] || die "itg-send: $(cat "$WORK/send.out")"
stop_recv || die "itg-recv did not exit 0"
kill "$TAP_PID" 2>/dev/null
wait "$TAP_PID"
sed 's/^/  /' "$WORK/send.out"
# packets, gaps under 20 us, the largest gap (ms)
PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
import wirestats
ts = np.sort(wirestats.load(sys.argv[1])["ts"].astype(np.int64))
g = np.diff(ts)
print(len(ts), int((g < 20000).sum()), g.max() / 1e6)' "$WORK/flow.cap" \
  >"$WORK/wire.txt" || die "wirestats"
read -r n short gap <"$WORK/wire.txt"
echo "  on the wire: $n packets, $short gaps under 20 us, largest gap $gap ms"
check "20000 packets on the wire" [ "$n" -eq 20000 ]
check "at most 10 gaps under 20 us ($short)" [ "$short" -le 10 ]
finish
