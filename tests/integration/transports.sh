#!/bin/sh
# The other ways a flow travels: TCP (re-framed by the receiver), IPv6,
# round-trip meter (echoes logged by the sender), several flows from a
# script sharing one receiver, and the D-ITG wire profile.
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -T TCP -D -C 2000 -u 40 1400 -z 2000 \
  >"$WORK/tcp.out" 2>&1
check "a TCP flow completes" [ $? -eq 0 ]
"$BIN/itg-send" -a ::1 -Sdp "$RECV_PORT" -rp 0 -C 2000 -c 200 -z 1000 >"$WORK/v6.out" 2>&1
check "an IPv6 flow completes" [ $? -eq 0 ]
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -m rttm -C 1000 -c 64 -z 500 \
  -l "$WORK/rtt.log" >"$WORK/rtt.out" 2>&1
check "a round-trip flow completes" [ $? -eq 0 ]
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 --wire ditg -C 1000 -c 64 -z 400 \
  >"$WORK/ditg.out" 2>&1
check "a flow with D-ITG's header completes" [ $? -eq 0 ]
stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]

"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json" || die "itg-dec recv"
"$BIN/itg-dec" --json "$WORK/rtt.log" >"$WORK/rtt.json" || die "itg-dec rtt"
check "every flow fully logged by the receiver" python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["end"]
got=sorted((f["packets"],f["lost"]) for f in r["flows"])
sys.exit(got != [(400,0),(500,0),(1000,0),(2000,0)])' "$WORK/recv.json"
check "TCP sizes are re-framed exactly (40..1400 bytes)" python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["end"]
f=[f for f in r["flows"] if f["packets"]==2000][0]
sys.exit(not (40*2000 < f["bytes"] < 1400*2000))' "$WORK/recv.json"
check "the sender logged 500 round trips" \
  [ "$(json_field "$WORK/rtt.json" 'r["total"]["packets"]')" -eq 500 ]
check "round-trip times are positive and small" python3 -c 'import json,sys
t=json.load(open(sys.argv[1]))["end"]["total"]
sys.exit(not (0 < t["delay_min_s"] <= t["delay_max_s"] < 1))' "$WORK/rtt.json"
finish
