#!/bin/sh
# needs: root (raw ICMP sockets, a network namespace), install (iputils-ping; d-itg: ITGSend, ITGDec, from ports/debian/setup.sh)
# itg-recv receives ICMP flows, in a network namespace of its own, with a
# `ping -c` running beside them all the while: itg-send -T ICMP 15 and
# -T ICMP 8 (whose echo requests the kernel answers on the same loopback,
# with the same body and identifier), then D-ITG's ITGSend -T ICMP (type 8
# too; its messages leave their identifier unset). Beside itg-send, a
# flood of forged messages of type 15 naming its flows (their ids and
# identifiers, from their address, without their tokens) and of messages
# with a wrong checksum. itg-dec counts exactly what each sender sent,
# loss 0: no echo reply, no ping message, no forged message, no message of
# another flow is counted, and itg-recv counts none as malformed. Then an
# itg-recv without the privilege (setpriv, user nobody) refuses itg-send's
# and ITGSend's ICMP flows alone, with the reason, and serves a UDP flow
# of the same itg-send script. ITGSend failing twice on its own
# skips its case, saying so; anything itg-recv gets wrong fails.
BUILD=$1
. "$(dirname "$0")/lib.sh"

command -v ping >/dev/null ||
  die "ping is missing: ports/debian/setup.sh installs iputils-ping"

NS="itgicmpr$$"
ns_add "$NS"
cd "$WORK" || die "cd $WORK"
RECV_WRAP="ip netns exec $NS"
start_recv "$WORK/recv.log"

# ping_start: 100 echo requests to the namespace's loopback, 20 ms apart
# (2 s, longer than each sender's run), answered by its kernel.
ping_start() {
  ip netns exec "$NS" ping -n -q -c 100 -i 0.02 127.0.0.1 \
    >"$WORK/ping.out" 2>&1 &
  PING_PID=$!
  PIDS="$PIDS $PING_PID"
}
# send OUT ARGS...: itg-send ARGS in the namespace, its output in OUT and
# shown, its exit status in st.
send() {
  out=$1
  shift
  nsx "$NS" timeout 60 "$BIN/itg-send" "$@" >"$out" 2>&1
  st=$?
  cat "$out"
}
ping_done() {
  wait "$PING_PID"
  check "the ping beside them sent its 100 echo requests" \
    grep -q "100 packets transmitted, [1-9]" "$WORK/ping.out"
}

# flood.py: 3000 forged messages to 127.0.0.1 over about 1.5 s, type 15,
# code 0, identifier 1 or 2, bodies starting with flow id 1 or 2 then
# random bytes (no flow's token), every third with its checksum wrong.
cat >"$WORK/flood.py" <<'PY'
import os, socket, struct, time
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
for i in range(3000):
    flow = 1 + i % 2
    body = struct.pack("!I", flow) + os.urandom(60)
    m = struct.pack("!BBHHH", 15, 0, 0, flow, i & 0xffff) + body
    c = csum(m) ^ (1 if i % 3 == 0 else 0)
    s.sendto(m[:2] + struct.pack("!H", c) + m[4:], ("127.0.0.1", 0))
    if i % 10 == 9:
        time.sleep(0.005)
PY

# itg-send: two ICMP flows side by side (types 15 and 8), 200 and 150
# messages of 100 and 64 B, at 200 and 150 pkt/s.
ping_start
ip netns exec "$NS" python3 "$WORK/flood.py" >"$WORK/flood.out" 2>&1 &
FLOOD_PID=$!
PIDS="$PIDS $FLOOD_PID"
printf '%s\n' \
  "-a 127.0.0.1 -Sdp $RECV_PORT -T ICMP 15 -C 200 -c 100 -z 200 -s 1" \
  "-a 127.0.0.1 -Sdp $RECV_PORT -T ICMP -C 150 -c 64 -z 150 -s 2" \
  >"$WORK/script.txt"
send "$WORK/send.out" "$WORK/script.txt"
check "itg-send -T ICMP to itg-recv exits 0" [ "$st" -eq 0 ]
check "itg-send: the receiver got each flow's messages" \
  [ "$(grep -c -e '^flow 1: 200 packets.*receiver got 200$' \
    -e '^flow 2: 150 packets.*receiver got 150$' "$WORK/send.out")" -eq 2 ]
ping_done
# Again into the same log, whose ids 1 and 2 are taken: itg-recv numbers
# the flow 3, and itg-send's identifier follows.
send "$WORK/send3.out" -a 127.0.0.1 -Sdp "$RECV_PORT" -T ICMP 15 -C 100 \
  -c 50 -z 50 -s 3
check "itg-send exits 0 again" [ "$st" -eq 0 ]
check "its flow, renumbered 3: the receiver got its 50 messages" \
  grep -q "^flow 3: 50 packets.*receiver got 50$" "$WORK/send3.out"
wait "$FLOOD_PID"
fst=$?
check "the 3000 forged messages were sent $(tail -n 1 "$WORK/flood.out")" \
  [ "$fst" -eq 0 ]

# ITGSend: one flow of type 8, into a log of its own (-x); ITGSend's
# own log says what it sent. Sets DITG to 0 when it went through, 1 when
# D-ITG failed twice on its own (why in $WORK/why).
opened() { grep -c "ICMP port 0 open" "$RECV_OUT"; }
itgsend() {
  rm -f "$WORK/ditg.send.log"
  before=$(opened)
  ping_start
  nsx "$NS" timeout -k 5 60 ITGSend -a 127.0.0.1 -Sdp "$RECV_PORT" \
    -T ICMP -x ditg.recv.log -C 300 -c 120 -z 300 \
    -l "$WORK/ditg.send.log" >"$WORK/ditg.out" 2>&1
  rc=$?
  ping_done
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "ITGSend hung: $(tail -n 1 "$WORK/ditg.out")" >"$WORK/why"
    [ $(($(opened) - before)) -eq 1 ] && return 1
    return 2
  fi
  if [ "$rc" -gt 128 ]; then
    echo "ITGSend crashed ($rc): $(tail -n 1 "$WORK/ditg.out")" >"$WORK/why"
    return 1
  fi
  [ "$rc" -eq 0 ] &&
    grep -q "Finished sending packets of flow ID" "$WORK/ditg.out" &&
    ! grep -qi "error" "$WORK/ditg.out" && return 0
  return 2
}
if command -v ITGSend >/dev/null 2>&1 && command -v ITGDec >/dev/null 2>&1
then
  itgsend
  DITG=$?
  if [ "$DITG" -eq 1 ]; then
    itgsend
    DITG=$?
  fi
  [ "$DITG" -eq 1 ] && echo "  SKIPPED: ITGSend: D-ITG failed twice: $(cat "$WORK/why")"
  [ "$DITG" -eq 2 ] &&
    check "itg-recv serves ITGSend -T ICMP (its output: $(tail -n 1 "$WORK/ditg.out"))" false
else
  echo "  SKIPPED: ITGSend: D-ITG (ITGSend, ITGDec) is not installed"
  DITG=1
fi

stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]
cat "$RECV_OUT"
total=$((400 + 300 * (DITG == 0)))
check "itg-recv took $total messages, none malformed" \
  grep -q "^itg-recv: $total packets, [0-9]* bytes, 0 malformed" "$RECV_OUT"

# itg_field LOG EXPR: a value of itg-dec's JSON report of LOG.
itg_field() {
  "$BIN/itg-dec" --json "$1" >"$1.json" || return 1
  json_field "$1.json" "$2"
}
log="$WORK/recv.log"
check "itg-dec: 3 flows from itg-send" [ "$(itg_field "$log" 'len(r["flows"])')" = 3 ]
check "itg-dec: 400 messages in all, exactly those sent" \
  [ "$(itg_field "$log" 'r["total"]["packets"]')" = 400 ]
check "itg-dec: type 15's flow: 200 messages, 20000 B" \
  [ "$(itg_field "$log" '[(f["packets"], f["bytes"]) for f in r["flows"] if f["flow"] == 1]')" = "[(200, 20000)]" ]
check "itg-dec: type 8's flow: 150 messages, 9600 B (no echo reply)" \
  [ "$(itg_field "$log" '[(f["packets"], f["bytes"]) for f in r["flows"] if f["flow"] == 2]')" = "[(150, 9600)]" ]
check "itg-dec: flow 3: 50 messages, 2500 B" \
  [ "$(itg_field "$log" '[(f["packets"], f["bytes"]) for f in r["flows"] if f["flow"] == 3]')" = "[(50, 2500)]" ]
check "itg-dec: no loss, no duplicate" \
  [ "$(itg_field "$log" '(r["total"]["lost"], r["total"]["duplicates"])')" = "(0, 0)" ]

# Without the privilege: the ICMP flow alone is refused, with the reason.
chmod 755 "$WORK"
mkdir -m 777 "$WORK/nobody"
RECV_WRAP="ip netns exec $NS setpriv --reuid=65534 --regid=65534 --clear-groups"
start_recv "$WORK/nobody/recv.log"
printf '%s\n' "-a 127.0.0.1 -Sdp $RECV_PORT -T ICMP -C 100 -c 100 -z 50" \
  "-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 100 -c 100 -z 50" \
  >"$WORK/nobody.txt"
send "$WORK/nobody.out" "$WORK/nobody.txt"
check "unprivileged itg-recv: itg-send exits 1 (a flow failed)" [ "$st" -eq 1 ]
check "its ICMP flow was refused, with the reason" grep -q \
  "flow 1 failed: refused by the receiver: cannot open the raw ICMP socket (it needs root, or CAP_NET_RAW)" \
  "$WORK/nobody.out"
check "and its UDP flow went through" \
  grep -q "^flow 2: 50 packets.*receiver got 50$" "$WORK/nobody.out"
if command -v ITGSend >/dev/null 2>&1; then
  nsx "$NS" timeout -k 5 60 ITGSend -a 127.0.0.1 -Sdp "$RECV_PORT" \
    -T ICMP -C 100 -c 100 -z 50 >"$WORK/nobody-ditg.out" 2>&1
  refusals() {
    [ "$(grep -c "refused: cannot open the raw ICMP socket (it needs root" \
      "$RECV_OUT")" -eq 2 ]
  }
  check "and ITGSend's ICMP flow is refused, with the reason on itg-recv's side" \
    wait_until 10 refusals
  check "ITGSend says why, as ITGRecv has it say (ERR_MSG_3)" \
    grep -q "To generate ICMP traffic sender and receiver must be root" \
    "$WORK/nobody-ditg.out"
fi
stop_recv
check "unprivileged itg-recv exits 0" [ $? -eq 0 ]
cat "$RECV_OUT"

if [ "$DITG" -eq 0 ]; then
  sent=$(ITGDec "$WORK/ditg.send.log" 2>/dev/null |
    sed -n '/TOTAL RESULTS/,$s/^Total packets *= *\([0-9]*\).*/\1/p' | head -n 1)
  dlog="$WORK/ditg.recv.log"
  check "ITGSend's log says it sent 300 messages ($sent)" [ "$sent" = 300 ]
  got=$(itg_field "$dlog" 'r["total"]["packets"]')
  check "itg-dec counts the messages ITGSend sent ($got of $sent)" \
    [ "$got" = "$sent" ]
  check "of 120 B each, no loss, no duplicate, one flow" \
    [ "$(itg_field "$dlog" '(r["total"]["bytes"], r["total"]["lost"], r["total"]["duplicates"], len(r["flows"]))')" = "(36000, 0, 0, 1)" ]
fi
finish
