#!/bin/sh
# -Fp: the payload file's bytes follow each header on the wire as D-ITG
# lays them: running on from packet to packet, a packet finding fewer left
# than its room padded with zeros, the next starting over at the file's
# first byte. Seen by wiretap at two offsets past the 36-byte header; the
# receiver takes every packet. -p 1 and -p 2 towards itg-recv are refused,
# naming -p and --peer ditg, where they go.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

# 100 bytes 1, 2, ..., 100: no zero, so padding shows. A packet of 64
# bytes leaves 28 after the header: the packets start at file offsets 0,
# 28, 56, 84 (16 bytes left, then 12 zeros), 0, 28.
python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes(range(1, 101)))' \
  "$WORK/payload.bin"

# heads CAPTURE: the four captured bytes of each packet, one line each.
heads() {
  python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
for i in range(0, len(d) - 15, 16):
    print(" ".join(str(b) for b in d[i + 12:i + 16]))' "$1"
}

start_recv "$WORK/recv.log"
TAP_OPTS="-n 6 -o 36"
tap_send 10 "$WORK/cap0.bin" "$WORK/send0.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  -C 1000 -c 64 -z 6 -Fp "$WORK/payload.bin"
check "itg-send -Fp exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
heads "$WORK/cap0.bin" >"$WORK/heads0.txt"
printf '%s\n' "1 2 3 4" "29 30 31 32" "57 58 59 60" "85 86 87 88" "1 2 3 4" \
  "29 30 31 32" >"$WORK/want0.txt"
check "each packet's payload starts where the last one's ended" \
  cmp "$WORK/heads0.txt" "$WORK/want0.txt"

TAP_OPTS="-n 6 -o 52"
tap_send 10 "$WORK/cap1.bin" "$WORK/send1.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  -C 1000 -c 64 -z 6 -Fp "$WORK/payload.bin"
check "itg-send -Fp exits 0 again" [ $? -eq 0 ]
wait "$TAP_PID"
heads "$WORK/cap1.bin" >"$WORK/heads1.txt"
printf '%s\n' "17 18 19 20" "45 46 47 48" "73 74 75 76" "0 0 0 0" \
  "17 18 19 20" "45 46 47 48" >"$WORK/want1.txt"
check "the packet past the file's end is padded with zeros" \
  cmp "$WORK/heads1.txt" "$WORK/want1.txt"

# The packet buffers are shared by the flows: a flow without -Fp (80-byte
# packets) sent alongside one with it still carries zeros after its
# header, never the other's file. Both flows go to one data port (a
# receiver's port serves several), captured alone; tried again with
# another port should one be taken.
tries=0
while :; do
  TAP_PORT=$(free_udp_port)
  printf '%s\n' \
    "-a 127.0.0.1 -Sdp $RECV_PORT -rp $TAP_PORT -C 1000 -c 64 -z 50 -Fp $WORK/payload.bin" \
    "-a 127.0.0.1 -Sdp $RECV_PORT -rp $TAP_PORT -C 1000 -c 80 -z 50" >"$WORK/flows.txt"
  TAP_OPTS="-n 100 -o 36"
  start_tap "$TAP_PORT" 10 "$WORK/cap2.bin"
  "$BIN/itg-send" -F "$WORK/flows.txt" >"$WORK/send2.out" 2>&1
  st=$?
  tries=$((tries + 1))
  [ "$st" -ne 0 ] && [ "$tries" -lt 5 ] && data_port_taken "$WORK/send2.out" || break
  kill "$TAP_PID"
  wait "$TAP_PID"
done
check "itg-send runs both flows" [ "$st" -eq 0 ]
wait "$TAP_PID"
check "the flow without -Fp carries zeros only" python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
recs = [d[i:i + 16] for i in range(0, len(d) - 15, 16)]
plain = [r[12:16] for r in recs if int.from_bytes(r[8:12], "little") == 80]
filled = [r[12:16] for r in recs if int.from_bytes(r[8:12], "little") == 64]
sys.exit(not (len(plain) == 50 and len(filled) == 50
              and all(h == bytes(4) for h in plain)
              and any(h != bytes(4) for h in filled)))' "$WORK/cap2.bin"
TAP_OPTS=
stop_recv
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]
"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json" || die "itg-dec"
check "the receiver took all 112 packets" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["packets"]')" -eq 112 ]

for t in 1 2; do
  "$BIN/itg-send" -a 127.0.0.1 -p "$t" -t 100 >"$WORK/out" 2>"$WORK/err"
  check "itg-send -p $t exits 2" [ $? -eq 2 ]
  check "itg-send -p $t says why" grep -q -- "-p $t (.*) goes to D-ITG's ITGRecv only (--peer ditg)" "$WORK/err"
done
: >"$WORK/empty.bin"
"$BIN/itg-send" -a 127.0.0.1 -Fp "$WORK/empty.bin" -t 100 >"$WORK/out" 2>"$WORK/err"
check "an empty payload file is refused" grep -q -- "-Fp: payload file .* is empty" "$WORK/err"
finish
