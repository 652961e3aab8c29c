#!/bin/sh
# One sender, 100 UDP flows at once sharing one data port: the receiver
# serves them all, logs every packet of every flow, and stays under 32 MB
# resident while they run (the memory check is left to the build without
# sanitizers, whose shadow memory makes resident size meaningless).
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv 19140 "$WORK/recv.log"
i=0
: >"$WORK/flows.txt"
while [ $i -lt 100 ]; do
  echo "-a 127.0.0.1 -Sdp 19140 -rp 19141 -C 100 -c 64 -z 300" >>"$WORK/flows.txt"
  i=$((i + 1))
done
"$BIN/itg-send" -F "$WORK/flows.txt" >"$WORK/send.out" 2>&1 &
SEND_PID=$!
PIDS="$PIDS $SEND_PID"
all_up() { [ "$(grep -c "flow .* open" "$WORK/recv-19140.out")" -ge 100 ]; }
wait_until 20 all_up || die "the 100 flows did not all open: $(tail -n 3 "$WORK/recv-19140.out")"
rss_kb=$(awk '/^VmRSS/ {print $2}' /proc/"$RECV_PID"/status)
echo "  itg-recv resident with 100 active flows: $rss_kb kB"
if [ -z "${ITG_SAN:-}" ]; then
  check "under 32 MB resident with 100 flows" [ "$rss_kb" -lt 32768 ]
fi
wait "$SEND_PID"
check "itg-send exits 0" [ $? -eq 0 ]
stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]
"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json" || die "itg-dec"
check "100 flows logged, 300 packets each, none lost" python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
f=r["flows"]
sys.exit(not (len(f)==100 and all(x["packets"]==300 and x["lost"]==0 for x in f) and len({x["flow"] for x in f})==100))' "$WORK/recv.json"
finish
