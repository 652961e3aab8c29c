#!/bin/sh
# A wrong option is reported with the offending word and the usage, exits
# with status 2, and sends nothing; a script file with a bad line names the
# file and the line and sends nothing either. itg-recv's --cpu pins; a
# --log-dir that is not there is refused at start.
BUILD=$1
. "$(dirname "$0")/lib.sh"

start_recv "$WORK/recv.log" --cpu 0 --rcvbuf 8388608

# --cpu 0 pins the receiving thread: one of the receiver's threads may run
# on CPU 0 only (the others keep the process's whole set).
pinned_thread() {
  grep -l "^Cpus_allowed_list:[[:space:]]*0$" /proc/"$RECV_PID"/task/*/status >/dev/null 2>&1
}
check "itg-recv --cpu 0 pins its receiving thread" wait_until 5 pinned_thread

expect_refusal() {
  word=$1
  shift
  "$BIN/itg-send" "$@" >"$WORK/out" 2>"$WORK/err"
  st=$?
  check "itg-send $* exits 2" [ "$st" -eq 2 ]
  check "itg-send $* names '$word'" grep -qF -- "$word" "$WORK/err"
}
expect_refusal "-Q" -a 127.0.0.1 -Sdp "$RECV_PORT" -Q 3
expect_refusal "abc" -a 127.0.0.1 -Sdp "$RECV_PORT" -C abc
expect_refusal "XYZ" -a 127.0.0.1 -Sdp "$RECV_PORT" -T XYZ
expect_refusal "-C" -a 127.0.0.1 -Sdp "$RECV_PORT" -C
check "the usage is shown" grep -qi "usage" "$WORK/err"

printf '%s\n' "-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 100 -z 10" \
  "-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 100 -z 10 -E nope" >"$WORK/flows.txt"
"$BIN/itg-send" -F "$WORK/flows.txt" >"$WORK/out" 2>"$WORK/err"
check "a bad script line exits 2" [ $? -eq 2 ]
check "the bad line is named FILE:2" grep -qF "flows.txt:2" "$WORK/err"

"$BIN/itg-recv" --bogus >"$WORK/out" 2>"$WORK/err"
check "itg-recv rejects a wrong option with status 2" [ $? -eq 2 ]
check "itg-recv names the word" grep -qF -- "--bogus" "$WORK/err"
"$BIN/itg-recv" --cpu -1 >"$WORK/out" 2>"$WORK/err"
check "itg-recv rejects a CPU number below 0" [ $? -eq 2 ]
check "and names the option" grep -qF -- "--cpu" "$WORK/err"
"$BIN/itg-recv" --rcvbuf 100 >"$WORK/out" 2>"$WORK/err"
check "itg-recv rejects a receive buffer below 4096 bytes" [ $? -eq 2 ]
timeout 10 "$BIN/itg-recv" -Sp 0 --log-dir "$WORK/nonexistent" \
  >"$WORK/out" 2>"$WORK/err"
check "itg-recv refuses at start a --log-dir that is not there" [ $? -eq 1 ]
check "and names it" \
  grep -qF -- "--log-dir: '$WORK/nonexistent' is not a directory" "$WORK/err"
"$BIN/itg-recv" --log-servers "10.0.0.0/8, nowhere" >"$WORK/out" 2>"$WORK/err"
check "itg-recv rejects a --log-servers entry that is not a network" [ $? -eq 2 ]
check "and names the entry" grep -qF "'nowhere'" "$WORK/err"
"$BIN/itg-recv" --help >"$WORK/out" 2>&1
check "itg-recv --help shows --log-servers and --allow-privileged-ports" \
  sh -c 'grep -q -- --log-servers "$1" && grep -q -- --allow-privileged-ports "$1"' _ "$WORK/out"
"$BIN/itg-dec" -Z "$WORK/recv.log" >"$WORK/out" 2>"$WORK/err"
check "itg-dec rejects a wrong option with status 2" [ $? -eq 2 ]

hold_closed_port
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$CLOSED_PORT" -C 100 -z 10 >"$WORK/out" 2>"$WORK/err"
check "no receiver at the signaling port: itg-send fails" [ $? -ne 0 ]
check "and says why" grep -qi "refused" "$WORK/err"

stop_recv
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]
"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/recv.json"
check "nothing reached the receiver" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["packets"]')" -eq 0 ]
finish
