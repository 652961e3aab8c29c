#!/bin/sh
# Repeatable experiments: the same seed puts the same sequence of packet
# sizes on the wire twice (seen by wiretap); another seed does not.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"
run() {
  tap_send 4 "$WORK/cap-$1.bin" "$WORK/send-$1.out" -a 127.0.0.1 \
    -Sdp "$RECV_PORT" -C 5000 -u 64 1400 -s "$2" -z 2000 || die "itg-send run $1"
  wait "$TAP_PID"
}
run a 42
run b 42
run c 43
stop_recv

sizes() {
  python3 -c 'import sys
d=open(sys.argv[1],"rb").read()
print(",".join(str(int.from_bytes(d[i+8:i+12],"little")) for i in range(0,len(d),16)))' "$1"
}
sa=$(sizes "$WORK/cap-a.bin")
sb=$(sizes "$WORK/cap-b.bin")
sc=$(sizes "$WORK/cap-c.bin")
check "2000 packets on the wire in each run" [ "$(tap_count "$WORK/cap-a.bin")" -eq 2000 ] 
check "same seed, same sizes on the wire" [ "$sa" = "$sb" ]
check "another seed, other sizes" [ "$sa" != "$sc" ]
check "sizes vary inside [64, 1400]" python3 -c 'import sys
v=[int(x) for x in sys.argv[1].split(",")]
sys.exit(not (min(v) >= 64 and max(v) <= 1400 and len(set(v)) > 500))' "$sa"
finish
