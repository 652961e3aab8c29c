#!/bin/sh
# needs: root (network namespaces, each with its fixed port: D-ITG's log port 9001), install (d-itg: ITGSend, ITGRecv, ITGDec, ITGLog, from ports/debian/setup.sh; skipped without)
# D-ITG's log clients against itg-log, in a namespace of their own where
# itg-log holds D-ITG's log port (fixed port: 9001): ITGSend ships its
# sender log with -L over UDP and over TCP, and has ITGRecv ship the
# receiver log with -X (and so do itg-recv, asked by ITGSend -X, and
# ITGRecv asked by itg-send --peer ditg -X); the file itg-log writes of
# each is a D-ITG log whose packets itg-dec and ITGDec both count as the
# ones ITGSend sent, and itg-log's closing line says so, nothing missing. Then itg-send ships its sender log to ITGLog
# (--log-peer ditg), over UDP and TCP, in a second namespace: ITGDec
# counts in ITGLog's file the packets itg-send sent. ITGSend sometimes
# crashes or hangs on its own: a run that crashes, or hangs after itg-log
# closed its session, is tried once more, then skipped with a line saying
# D-ITG failed; a hang before, or a wrong count, fails.
BUILD=$1
. "$(dirname "$0")/lib.sh"

for p in ITGSend ITGRecv ITGDec ITGLog; do
  if ! command -v "$p" >/dev/null 2>&1; then
    echo "ditg_logserver: skipped: D-ITG ($p) is not installed"
    exit 0
  fi
done

NS=itgdl$$
ns_add "$NS"
cd "$WORK" || die "cd $WORK"
mkdir logs || die "mkdir logs"
: >"$WORK/log.out"
: >"$WORK/recv.out"
: >"$WORK/recv1.out"

# fixed port: ITGSend and ITGRecv reach their log server on no other
nsx "$NS" "$BIN/itg-log" -p 9001 -d "$WORK/logs" >"$WORK/log.out" 2>&1 & # fixed port: D-ITG's
PIDS="$PIDS $!"
wait_until 10 has_listen_port "$WORK/log.out" tcp ||
  die "itg-log did not listen: $(cat "$WORK/log.out")"

# start_itgrecv: ITGRecv in the namespace, waited for until it listens.
start_itgrecv() {
  nsx "$NS" ITGRecv >"$WORK/itgrecv.out" 2>&1 &
  ITGRECV_PID=$!
  PIDS="$PIDS $ITGRECV_PID"
  wait_until 10 grep -q "Press Ctrl-C" "$WORK/itgrecv.out" ||
    die "ITGRecv did not start: $(cat "$WORK/itgrecv.out")"
}
start_itgrecv

# closed NAME: itg-log's line saying the session of file NAME closed.
closed() { grep "session [0-9]* closed: $1," "$WORK/log.out"; }

# itgsend NAME ARGS...: one ITGSend run, bounded in time. Returns 0 if it
# finished its flow and itg-log closed the session of logs/NAME; 1 if
# D-ITG failed on its own (it crashed, or it hung with the session closed;
# ITGRecv is started again); 2 if itg-log let it down.
itgsend() {
  name=$1
  shift
  timeout -k 5 60 ip netns exec "$NS" ITGSend "$@" >"$WORK/$name.out" 2>&1
  rc=$?
  wait_until 5 closed "$name" >/dev/null
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || [ "$rc" -gt 128 ]; then
    kill -0 "$ITGRECV_PID" 2>/dev/null || start_itgrecv
    [ "$rc" -gt 128 ] && [ "$rc" -ne 137 ] && return 1
    closed "$name" >/dev/null && return 1
    return 2
  fi
  [ "$rc" -eq 0 ] && grep -q "Finished sending packets of flow ID" \
    "$WORK/$name.out" && closed "$name" >/dev/null && return 0
  kill -0 "$ITGRECV_PID" 2>/dev/null || start_itgrecv
  return 2
}

# ditg_field LOG LABEL: a value of ITGDec's total summary of LOG.
ditg_field() {
  ITGDec "$1" 2>/dev/null | sed -n "/TOTAL RESULTS/,\$s/^$2 *= *\([0-9.]*\).*/\1/p" |
    head -n 1
}

# log_case NAME PACKETS ARGS...: ITGSend ARGS (again if D-ITG failed on
# its own), then logs/NAME judged: PACKETS records by itg-dec and by
# ITGDec, and itg-log's closing line.
log_case() {
  name=$1
  packets=$2
  shift 2
  itgsend "$name" "$@"
  rc=$?
  if [ "$rc" -eq 1 ]; then
    itgsend "$name" "$@"
    rc=$?
  fi
  case $rc in
  0) ;;
  1)
    echo "  SKIPPED: $name: D-ITG failed twice (ITGSend: $(tail -n 1 "$WORK/$name.out"))"
    return
    ;;
  *)
    check "$name: itg-log serves ITGSend (its output: $(tail -n 1 "$WORK/$name.out"); itg-log: $(tail -n 2 "$WORK/log.out"))" false
    return
    ;;
  esac
  log="$WORK/logs/$name"
  "$BIN/itg-dec" --json "$log" >"$log.json"
  check "$name: itg-dec reads itg-log's file" [ $? -eq 0 ]
  got=$(json_field "$log.json" 'r["total"]["packets"]')
  theirs=$(ditg_field "$log" "Total packets")
  check "$name: itg-dec counts the $packets packets ITGSend sent ($got)" [ "$got" = "$packets" ]
  check "$name: ITGDec counts them too ($theirs)" [ "$theirs" = "$packets" ]
  check "$name: itg-log closed the session with $packets records, none missing" \
    grep -q "closed: $name, $packets records, 0 missing" "$WORK/log.out"
}

to="-a 127.0.0.1 -C 200 -c 100 -z 300"
# shellcheck disable=SC2086
log_case udp.log 300 $to -l udp.log -L 127.0.0.1 UDP
# shellcheck disable=SC2086
log_case tcp.log 300 $to -T TCP -l tcp.log -L 127.0.0.1 TCP
# D-ITG's default name is a path (/tmp/ITGSend.log): its last part is
# the file's name in itg-log's directory, never the path.
# shellcheck disable=SC2086
log_case ITGSend.log 300 $to -L 127.0.0.1 TCP
# ITGRecv ships the receiver log ITGSend -X asks of it: the session is
# ITGRecv's, named by -x.
# shellcheck disable=SC2086
log_case recvx.log 300 $to -x recvx.log -X 127.0.0.1 UDP

# ITGSend -X to itg-recv: itg-recv ships the receiver log to itg-log in
# D-ITG's protocol, as ITGRecv does.
nsx "$NS" "$BIN/itg-recv" -Sp 0 >"$WORK/recv1.out" 2>&1 &
PIDS="$PIDS $!"
wait_until 10 has_listen_port "$WORK/recv1.out" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv1.out")"
# shellcheck disable=SC2086
log_case viarecv.log 300 $to -Sdp "$(listen_port "$WORK/recv1.out" sig)" \
  -x viarecv.log -X 127.0.0.1 UDP

# itg-send --peer ditg to ITGRecv, asking with -X for the receiver log at
# itg-log: ITGRecv ships it, in D-ITG's protocol.
timeout -k 5 60 ip netns exec "$NS" "$BIN/itg-send" --peer ditg \
  -a 127.0.0.1 -C 200 -c 100 -z 300 -x xpass.log -X 127.0.0.1 UDP \
  >"$WORK/xpass.out" 2>&1
rc=$?
if ! kill -0 "$ITGRECV_PID" 2>/dev/null; then
  echo "  SKIPPED: xpass.log: D-ITG failed (ITGRecv died: $(tail -n 1 "$WORK/itgrecv.out"))"
else
  check "xpass.log: itg-send --peer ditg -X exits 0 ($(tail -n 1 "$WORK/xpass.out"))" [ "$rc" -eq 0 ]
  wait_until 10 closed xpass.log >/dev/null
  check "xpass.log: ITGRecv shipped the 300 packets' log to itg-log" \
    grep -q "closed: xpass.log, 300 records, 0 missing" "$WORK/log.out"
fi

# itg-send towards D-ITG's ITGLog (--log-peer ditg), in a namespace of
# its own where ITGLog holds its fixed port: 9001, to an itg-recv there: ITGLog's
# file holds, by ITGDec's count, the packets itg-send says it sent.
NS2=itgdl2$$
ns_add "$NS2"
nsx "$NS2" ITGLog >"$WORK/itglog.out" 2>&1 &
PIDS="$PIDS $!"
wait_until 10 grep -q "Press Ctrl-C" "$WORK/itglog.out" ||
  die "ITGLog did not start: $(cat "$WORK/itglog.out")"
nsx "$NS2" "$BIN/itg-recv" -Sp 0 >"$WORK/recv.out" 2>&1 &
PIDS="$PIDS $!"
wait_until 10 has_listen_port "$WORK/recv.out" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv.out")"
RECV_PORT=$(listen_port "$WORK/recv.out" sig)

# itglog_ended N: ITGLog has closed N sessions' files.
ITGLOG_N=0
itglog_ended() {
  [ "$(grep -c "Data transmission ended" "$WORK/itglog.out")" -ge "$1" ]
}

# itglog_case NAME ARGS...: itg-send ARGS shipping its log to ITGLog as
# WORK/NAME; ITGDec counts in it the packets itg-send sent. An ITGLog
# that died (D-ITG's own failure) skips the case.
itglog_case() {
  name=$1
  shift
  timeout -k 5 60 ip netns exec "$NS2" "$BIN/itg-send" -a 127.0.0.1 \
    -Sdp "$RECV_PORT" "$@" --log-peer ditg -l "$WORK/$name" \
    >"$WORK/$name.out" 2>&1
  rc=$?
  if ! grep -q "Press Ctrl-C" "$WORK/itglog.out" ||
    grep -q "ERROR" "$WORK/itglog.out"; then
    echo "  SKIPPED: $name: D-ITG failed (ITGLog: $(tail -n 1 "$WORK/itglog.out"))"
    return
  fi
  check "$name: itg-send ships its log to ITGLog and exits 0 ($(tail -n 1 "$WORK/$name.out"))" [ "$rc" -eq 0 ]
  sent=$(sed -n 's/^flow 1: \([0-9]*\) packets.*/\1/p' "$WORK/$name.out")
  ITGLOG_N=$((ITGLOG_N + 1))
  wait_until 10 itglog_ended "$ITGLOG_N"
  theirs=$(ditg_field "$WORK/$name" "Total packets")
  check "$name: ITGDec counts in ITGLog's file the $sent packets itg-send sent ($theirs)" \
    [ -n "$sent" ] && [ "$theirs" = "$sent" ]
}
itglog_case itglog-udp.log -C 200 -c 100 -z 300 -L 127.0.0.1 UDP
itglog_case itglog-tcp.log -C 200 -c 100 -z 300 -T TCP -L 127.0.0.1 TCP

finish
