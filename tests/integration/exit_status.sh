#!/bin/sh
# itg-send's exit status says how its run ended: 0 every flow sent what it
# was asked, 2 a usage error with nothing sent, and 128 + the signal when
# SIGINT or SIGTERM cut the flows short, after printing what they sent.
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log"

"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 2000 -c 100 -z 50 \
  >"$WORK/ok.out" 2>&1
check "a flow that sends all it was asked exits 0" [ $? -eq 0 ]

"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -C 2000 -q0 >"$WORK/bad.out" 2>&1
check "a wrong option exits 2" [ $? -eq 2 ]

"$BIN/itg-send" --start staggered -a 127.0.0.1 -Sdp "$RECV_PORT" -C 2000 \
  >"$WORK/start.out" 2>&1
check "a wrong --start exits 2, naming the modes" sh -c \
  '[ $0 -eq 2 ] && grep -q "is not spread or together" "$1"' $? "$WORK/start.out"

# log_grew FILE: the sender log holds more than its first block, so packets
# are leaving.
log_grew() { [ -f "$1" ] && [ "$(wc -c <"$1")" -gt 8192 ]; }

# stopped SIGNAL STATUS: a 60 s flow stopped by SIGNAL once it is sending
# exits STATUS, having printed its counts and said what stopped it.
stopped() {
  out="$WORK/$1.out"
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 2000 -c 100 \
    -t 60000 -l "$WORK/$1.log" -q 1 >"$out" 2>&1 &
  pid=$!
  wait_until 30 log_grew "$WORK/$1.log" || die "itg-send sent nothing: $(cat "$out")"
  kill "-$1" "$pid"
  wait "$pid"
  st=$?
  cat "$out"
  check "$1 mid-flow exits $2" [ "$st" -eq "$2" ]
  check "after printing the packets sent" grep -q "^flow [0-9]*: [1-9][0-9]* packets" "$out"
  check "and saying what stopped it" grep -q "stopped by SIG$1 before the flows' end" "$out"
}
stopped INT 130
stopped TERM 143
check "itg-recv exits 0 on SIGTERM" stop_recv
finish
