#!/bin/sh
# itg-agent and itg-send --daemon driven by an independent client of the
# protocol (tests/tools/remote_client.py, Python's own HMAC-SHA256): the
# handshake, flows started at an instant towards the agent's own receiver
# and their results; a wrong token, garbage and a network not allowed
# refused, the agent serving on; its option errors; exit 0 on SIGTERM.
BUILD=$1
. "$(dirname "$0")/lib.sh"
CLIENT="python3 $TOOLS/remote_client.py"

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/token"
echo >>"$WORK/token"
printf 'another token\n' >"$WORK/other"

# start_agent NAME PROGRAM... : starts an agent on ports the system picks;
# AGENT_CTL and AGENT_SIG are its ports, AGENT_PID its pid.
start_agent() {
  name=$1
  shift
  AGENT_OUT="$WORK/$name.out"
  "$@" --token-file "$WORK/token" --listen 127.0.0.1:0 -Sp 0 \
    --log-dir "$WORK" -l "$name-send.log" >"$AGENT_OUT" 2>&1 &
  AGENT_PID=$!
  PIDS="$PIDS $AGENT_PID"
  wait_until 10 grep -qs "listening ctl=[0-9]* sig=[0-9]*" "$AGENT_OUT" ||
    die "$name did not listen: $(cat "$AGENT_OUT")"
  AGENT_CTL=$(sed -n 's/.*listening ctl=\([0-9]*\).*/\1/p' "$AGENT_OUT")
  AGENT_SIG=$(sed -n 's/.*listening .*sig=\([0-9]*\).*/\1/p' "$AGENT_OUT")
}

for prog in itg-agent "itg-send --daemon"; do
  name=$(echo "$prog" | tr -d ' -')
  # shellcheck disable=SC2086
  start_agent "$name" "$BIN"/$prog
  $CLIENT 127.0.0.1 "$AGENT_CTL" "$WORK/token" hello >"$WORK/hello" 2>&1
  check "$prog: the handshake, both sides proven" \
    grep -q "^ok libitg .* rx=$AGENT_SIG\$" "$WORK/hello"
  $CLIENT 127.0.0.1 "$AGENT_CTL" "$WORK/other" hello >"$WORK/wrong" 2>&1
  check "$prog: a wrong token is refused" grep -q "^err -23 wrong token" \
    "$WORK/wrong"
  $CLIENT 127.0.0.1 "$AGENT_CTL" "$WORK/token" garbage >"$WORK/garbage" 2>&1
  check "$prog: garbage is refused" grep -q "^closed" "$WORK/garbage"
  $CLIENT 127.0.0.1 "$AGENT_CTL" "$WORK/token" run 200 \
    "-a 127.0.0.1 -rp 0 -Sdp $AGENT_SIG -T UDP -C 500 -c 200 -z 100" \
    "-a 127.0.0.1 -rp 0 -Sdp $AGENT_SIG -T TCP -C 500 -c 100 -z 50" \
    >"$WORK/run" 2>&1
  cat "$WORK/run"
  check "$prog: the flows ran, every packet received" \
    grep -q "^ended flows=2 packets=100,50 received=100,50\$" "$WORK/run"
  check "$prog: its sender log is written" [ -s "$WORK/$name-send.log" ]
  kill -TERM "$AGENT_PID"
  wait "$AGENT_PID"
  check "$prog: exits 0 on SIGTERM" [ $? -eq 0 ]
done

# Only the networks named: 127.0.0.2 alone leaves 127.0.0.1 out.
"$BIN/itg-agent" --token-file "$WORK/token" --listen 127.0.0.1:0 -Sp 0 \
  --allow 127.0.0.2 >"$WORK/allow.out" 2>&1 &
AGENT_PID=$!
PIDS="$PIDS $AGENT_PID"
wait_until 10 grep -qs "listening ctl=" "$WORK/allow.out" || die "no agent"
AGENT_CTL=$(sed -n 's/.*listening ctl=\([0-9]*\).*/\1/p' "$WORK/allow.out")
$CLIENT 127.0.0.1 "$AGENT_CTL" "$WORK/token" hello >"$WORK/na" 2>&1
check "a client from a network not allowed is closed" grep -q "^closed" \
  "$WORK/na"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"

"$BIN/itg-agent" --listen 127.0.0.1:0 >"$WORK/u1" 2>&1
check "no --token-file: usage error (status 2)" [ $? -eq 2 ]
: >"$WORK/empty"
"$BIN/itg-agent" --token-file "$WORK/empty" >"$WORK/u2" 2>&1
check "an empty token file is refused (status 2)" [ $? -eq 2 ]
"$BIN/itg-agent" --token-file "$WORK/token" --allow 10.0.0.300 >"$WORK/u3" 2>&1
check "--allow: a bad network is a usage error" [ $? -eq 2 ]
check "and named" grep -q "10.0.0.300" "$WORK/u3"
finish
