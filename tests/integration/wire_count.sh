#!/bin/sh
# A constant 10 000 pkt/s flow of 64-byte UDP packets for 3 s. Counted on
# the wire by wiretap (kernel capture, independent of libitg): the
# receiver's log holds exactly the packets that crossed the wire, none is
# lost, and the sender's log agrees. The achieved rate is printed, not
# asserted (timing is the benchmark's business).
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"
tap_send 6 "$WORK/cap.bin" "$WORK/send.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  -C 10000 -c 64 -z 30000 -l "$WORK/send.log"
check "itg-send exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
stop_recv
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]

"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json" || die "itg-dec recv.log"
"$BIN/itg-dec" --json "$WORK/send.log" >"$WORK/send.json" || die "itg-dec send.log"
wire=$(tap_count "$WORK/cap.bin" 64)
python3 "$WIRESTATS" "$WORK/cap.bin" --rate 10000 >"$WORK/wirestats.txt"
echo "  on the wire (information, not a check):"
sed 's/^/    /' "$WORK/wirestats.txt"
check "30000 packets crossed the wire" [ "$wire" -eq 30000 ]
check "the receiver log holds every packet on the wire" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["packets"]')" -eq "$wire" ]
check "no packet lost" [ "$(json_field "$WORK/recv.json" 'r["total"]["lost"]')" -eq 0 ]
check "every packet is 64 bytes" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["bytes"]')" -eq $((wire * 64)) ]
check "the sender log counts the same packets" \
  [ "$(json_field "$WORK/send.json" 'r["total"]["packets"]')" -eq "$wire" ]
check "one-way delays are positive" \
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["end"]["total"]; sys.exit(not (0 < r["delay_min_s"] <= r["delay_avg_s"] <= r["delay_max_s"] < 1))' "$WORK/recv.json"
finish
