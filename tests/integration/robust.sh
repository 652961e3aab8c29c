#!/bin/sh
# Bad input changes nothing else: 5 000 random datagrams thrown at the data
# port during a flow leave that flow's log complete and the receiver serves
# the next sender; a sender killed mid-flow leaves the receiver with every
# packet that crossed the wire, still serving others.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"

# 1. Garbage during a flow, to the data port the receiver opened for it.
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 2000 -c 100 -z 6000 \
  >"$WORK/send1.out" 2>&1 &
SEND_PID=$!
PIDS="$PIDS $SEND_PID"
data_port() { sed -n 's/.*: UDP port \([0-9]*\) open$/\1/p' "$RECV_OUT" | head -n 1; }
has_data_port() { [ -n "$(data_port)" ]; }
wait_until 10 has_data_port || die "no flow started"
python3 - "$(data_port)" <<'PY'
import random, socket, sys
rnd = random.Random(7)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(5000):
    n = rnd.randrange(0, 200)
    s.sendto(bytes(rnd.randrange(256) for _ in range(n)), ("127.0.0.1", int(sys.argv[1])))
PY
wait "$SEND_PID"
check "the flow under attack completes" [ $? -eq 0 ]
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 1000 -c 100 -z 500 \
  >"$WORK/send2.out" 2>&1
check "the next sender is served" [ $? -eq 0 ]

# 2. A sender killed mid-flow, its packets counted on the wire: its data
# port one free a moment ago (another, should another program take it).
half_sent() { [ "$(tap_count "$WORK/cap.bin")" -ge 1 ] && [ "$(stat -c %s "$WORK/cap.bin")" -ge 16000 ]; }
sent_or_ended() { half_sent || ! kill -0 "$SEND_PID" 2>/dev/null; }
tries=0
while :; do
  port=$(free_udp_port)
  start_tap "$port" 8 "$WORK/cap.bin"
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp "$port" -C 1000 -c 80 \
    -t 20000 >"$WORK/send3.out" 2>&1 &
  SEND_PID=$!
  PIDS="$PIDS $SEND_PID"
  wait_until 10 sent_or_ended && half_sent && break
  tries=$((tries + 1))
  [ "$tries" -lt 5 ] && data_port_taken "$WORK/send3.out" ||
    die "the third flow never got going"
  kill "$TAP_PID"
  wait "$TAP_PID"
done
kill -9 "$SEND_PID"
wait "$SEND_PID" 2>/dev/null
check "itg-recv survives the killed sender" kill -0 "$RECV_PID"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 1000 -c 100 -z 300 \
  >"$WORK/send4.out" 2>&1
check "a sender after the killed one is served" [ $? -eq 0 ]
wait "$TAP_PID"
stop_recv
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]

"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json" || die "itg-dec"
python3 - "$WORK/recv.json" "$(tap_count "$WORK/cap.bin" 80)" >"$WORK/flows.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["end"]
by_bytes = {f["bytes"] // max(f["packets"], 1): f for f in r["flows"]}
wire = int(sys.argv[2])
print(len(r["flows"]))
print(by_bytes[100]["packets"] if 100 in by_bytes else -1)
print(by_bytes[80]["packets"] if 80 in by_bytes else -1, wire)
PY
cat "$WORK/flows.txt"
check "four flows in the log" [ "$(sed -n 1p "$WORK/flows.txt")" -eq 4 ]
check "the killed sender's packets are all logged" \
  sh -c '[ "$(sed -n 3p "$1" | cut -d" " -f1)" -eq "$(sed -n 3p "$1" | cut -d" " -f2)" ]' _ "$WORK/flows.txt"
check "no packet lost in the attacked flow" python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["end"]
f=[f for f in r["flows"] if f["packets"]==6000]
sys.exit(not (len(f)==1 and f[0]["lost"]==0))' "$WORK/recv.json"
check "the receiver counted the garbage" grep -q "malformed" "$RECV_OUT"
finish
