#!/bin/sh
# D-ITG's own sender against itg-recv: ITGSend 2.8.1 (the d-itg package,
# which ports/debian/setup.sh installs) opens a UDP and a TCP flow, and
# a round-trip one, each naming its receiver log (-x), then a script of a
# UDP and a TCP flow side by side on one signaling connection (into
# itg-recv's own log), and flows of D-ITG's payload types 1 and 2, which
# itg-recv refuses with the reason; itg-dec's count, bytes and loss must match what
# ITGSend's own log (read by ITGDec) says it sent. ITGSend sometimes
# crashes or hangs on its own: such a run (a crash, or a hang after
# itg-recv opened its flows) is tried once more, then that case is
# skipped with a line saying D-ITG failed; anything itg-recv or itg-dec
# gets wrong fails, a hang of ITGSend whose flows itg-recv did not open
# too.
# needs: install (d-itg: ITGSend, ITGDec, from ports/debian/setup.sh; skipped without)
BUILD=$1
. "$(dirname "$0")/lib.sh"

if ! command -v ITGSend >/dev/null 2>&1 || ! command -v ITGDec >/dev/null 2>&1; then
  echo "ditg_send: skipped: D-ITG (ITGSend, ITGDec) is not installed"
  exit 0
fi

cd "$WORK" || die "cd $WORK"
start_recv "$WORK/recv.log"

# opened: how many flows itg-recv has said it opened so far.
opened() { grep -c "port [0-9]* .*open" "$RECV_OUT"; }

# itgsend NAME FLOWS ARGS...: one ITGSend run, bounded in time, logging
# to NAME.send.log. Returns 0 if it exits 0 having finished its FLOWS
# flows with no error; 1 if D-ITG failed on its own: it crashed, or it
# hung once itg-recv had opened all its flows; 2 if itg-recv let it down:
# it hung with flows itg-recv never opened, or it stopped with an error
# (the receiver's refusal).
itgsend() {
  name=$1
  flows=$2
  shift 2
  rm -f "$WORK/$name.send.log"
  before=$(opened)
  timeout -k 5 60 ITGSend "$@" -l "$WORK/$name.send.log" \
    >"$WORK/$name.out" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    [ $(($(opened) - before)) -eq "$flows" ] && return 1
    return 2
  fi
  [ "$rc" -gt 128 ] && return 1
  [ "$rc" -eq 0 ] &&
    [ "$(grep -c "Finished sending packets of flow ID" "$WORK/$name.out")" \
      -eq "$flows" ] &&
    ! grep -qi "error" "$WORK/$name.out" && return 0
  return 2
}

# ditg_field LOG LABEL: a value of ITGDec's total summary of LOG.
ditg_field() {
  ITGDec "$1" 2>/dev/null | sed -n "/TOTAL RESULTS/,\$s/^$2 *= *\([0-9.]*\).*/\1/p" |
    head -n 1
}

# itg_field LOG EXPR: a value of itg-dec's JSON report of LOG.
itg_field() {
  "$BIN/itg-dec" --json "$1" >"$1.json" || return 1
  json_field "$1.json" "$2"
}

# send_case NAME FLOWS ARGS...: runs ITGSend, again if D-ITG failed on
# its own; returns 0 when it went through. A second failure of D-ITG's
# skips the case, saying so; a failure of itg-recv's fails it.
send_case() {
  name=$1
  flows=$2
  shift 2
  itgsend "$name" "$flows" "$@"
  rc=$?
  if [ "$rc" -eq 1 ]; then
    itgsend "$name" "$flows" "$@"
    rc=$?
  fi
  case $rc in
  0) return 0 ;;
  1) echo "  SKIPPED: $name: D-ITG failed twice (ITGSend: $(tail -n 1 "$WORK/$name.out"))" ;;
  *) check "$name: itg-recv serves ITGSend (its output: $(tail -n 1 "$WORK/$name.out"))" false ;;
  esac
  return 1
}

# check_case NAME PACKETS FLOWS RECV_LOG: checks itg-recv's log RECV_LOG
# (read once itg-recv has stopped, every log closed) against ITGSend's.
check_case() {
  name=$1
  packets=$2
  flows=$3
  recv_log=$4
  sent=$(ditg_field "$WORK/$name.send.log" "Total packets")
  sent_bytes=$(ditg_field "$WORK/$name.send.log" "Bytes received")
  check "$name: ITGSend's log says it sent $packets packets ($sent)" [ "$sent" = "$packets" ]
  got=$(itg_field "$recv_log" 'r["total"]["packets"]')
  got_bytes=$(itg_field "$recv_log" 'r["total"]["bytes"]')
  lost=$(itg_field "$recv_log" 'r["total"]["lost"]')
  got_flows=$(itg_field "$recv_log" 'len(r["flows"])')
  check "$name: itg-dec counts the packets ITGSend sent ($got of $sent)" [ "$got" = "$sent" ]
  check "$name: and their bytes ($got_bytes of $sent_bytes)" [ "$got_bytes" = "$sent_bytes" ]
  check "$name: and no loss ($lost)" [ "$lost" = "0" ]
  check "$name: in $flows flows ($got_flows)" [ "$got_flows" = "$flows" ]
}

to="-a 127.0.0.1 -Sdp $RECV_PORT -rp 0"
# shellcheck disable=SC2086
send_case udp 1 $to -x udp.recv.log -C 500 -c 200 -z 300
udp=$?
# shellcheck disable=SC2086
send_case tcp 1 $to -x tcp.recv.log -T TCP -C 500 -c 200 -z 300
tcp=$?
# shellcheck disable=SC2086
send_case rtt 1 $to -x rtt.recv.log -m rttm -C 400 -c 100 -z 200
rtt=$?
printf '%s\n' "$to -C 400 -c 120 -z 300" "$to -T TCP -C 400 -c 80 -z 200" \
  >"$WORK/script.txt"
send_case script 2 "$WORK/script.txt"
script=$?
# D-ITG's shorter payloads carry no send time: itg-recv refuses them and
# says why (ITGSend, which has no message for it, prints its bind error).
for p in 1 2; do
  # shellcheck disable=SC2086
  timeout -k 5 30 ITGSend $to -p $p -C 100 -c 100 -z 20 \
    >"$WORK/p$p.out" 2>&1
  check "ITGSend -p $p: itg-recv says why it refuses the flow" \
    wait_until 10 grep -q "refused: D-ITG flow: -p $p (.*) is refused: .*only -p 0 carries" "$RECV_OUT"
done

stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]
[ "$udp" -eq 0 ] && check_case udp 300 1 "$WORK/udp.recv.log"
[ "$tcp" -eq 0 ] && check_case tcp 300 1 "$WORK/tcp.recv.log"
[ "$rtt" -eq 0 ] && check_case rtt 200 1 "$WORK/rtt.recv.log"
[ "$script" -eq 0 ] && check_case script 500 2 "$WORK/recv.log"
# The flows of the runs that went through, each ended as D-ITG closes one.
ran=$(((udp == 0) + (tcp == 0) + (rtt == 0) + 2 * (script == 0)))
check "itg-recv reported the end of each of the $ran flows" \
  [ "$(grep -c 'ended (closed by its sender' "$RECV_OUT")" -eq "$ran" ]
finish
