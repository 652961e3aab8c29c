#!/bin/sh
# One sender, 100 UDP flows at once sharing one data port: the receiver
# serves them all, logs every packet of every flow, and stays under 32 MB
# resident while they run (the memory check is left to the build without
# sanitizers, whose shadow memory makes resident size meaningless).
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"
# The shared data port is one free a moment ago; should another program
# take it first, the flows are refused and sent again to another.
all_up() { [ "$(grep -c "UDP port $port open$" "$RECV_OUT")" -ge 100 ]; }
up_or_ended() { all_up || ! kill -0 "$SEND_PID" 2>/dev/null; }
tries=0
while :; do
  port=$(free_udp_port)
  script_of 100 "$WORK/flows.txt" "-a 127.0.0.1 -Sdp $RECV_PORT -rp $port -C 100 -c 64 -z 300"
  "$BIN/itg-send" -F "$WORK/flows.txt" >"$WORK/send.out" 2>&1 &
  SEND_PID=$!
  PIDS="$PIDS $SEND_PID"
  wait_until 20 up_or_ended || die "the 100 flows did not all open: $(tail -n 3 "$RECV_OUT")"
  all_up && break
  tries=$((tries + 1))
  [ "$tries" -lt 5 ] && data_port_taken "$WORK/send.out" ||
    die "the 100 flows did not all open: $(tail -n 3 "$WORK/send.out")"
done
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
r=json.load(open(sys.argv[1]))["end"]
f=r["flows"]
sys.exit(not (len(f)==100 and all(x["packets"]==300 and x["lost"]==0 for x in f) and len({x["flow"] for x in f})==100))' "$WORK/recv.json"
finish
