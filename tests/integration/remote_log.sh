#!/bin/sh
# Remote logging with the programs. At 20 000 pkt/s for 5 s, itg-send
# ships its log (-L) and has itg-recv ship the receiver log (-X) to
# itg-log, both over TCP: each of the server's two files decodes to exactly
# the packets counted on the wire. At 20 000 pkt/s for 3 s: with the log
# server killed (SIGKILL) and restarted mid-run, its files plus the
# sender's spill file hold every packet; over UDP the records written plus
# the gap count are every record shipped, and a killed server's session is
# said to be uncounted.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

LOGD="$WORK/logs"
mkdir -p "$LOGD"
build_tool wiretap
cd "$WORK" || die "cd"

# records FILE...: distinct (flow, seq) of the sender's packet records, all
# records that are packets, and the sum of gap records, over the files.
records() {
  PYTHONPATH="$TOOLS" python3 - "$@" <<'PY'
import sys
from logrecs import records
seen, packets, gaps = set(), 0, 0
for path in sys.argv[1:]:
    for flow, size, flags, seq in records(path):
        if flags & 0x20:
            gaps += seq
        elif not flags & 0x10:
            packets += 1
            seen.add((flow, seq))
print(len(seen), packets, gaps)
PY
}

start_recv "$WORK/recv.log"
start_log "$LOGD"

# 1. Both logs over TCP, against the wire.
tap_send 9 "$WORK/cap1.bin" "$WORK/send1.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  -C 20000 -c 100 -t 5000 -L "127.0.0.1:$LOG_PORT" TCP -l tcp.log \
  -X "127.0.0.1:$LOG_PORT" TCP -x rx.log
check "the flow with both logs shipped succeeds" [ $? -eq 0 ]
wait "$TAP_PID"
wire=$(tap_count "$WORK/cap1.bin" 100)
"$BIN/itg-dec" --json "$LOGD/tcp.log" >"$WORK/tcp.json" || die "itg-dec"
logged=$(json_field "$WORK/tcp.json" 'r["total"]["packets"]')
"$BIN/itg-dec" --json "$LOGD/rx.log" >"$WORK/rx.json" || die "itg-dec rx"
received=$(json_field "$WORK/rx.json" 'r["total"]["packets"]')
echo "wire $wire, server's sender log $logged, server's receiver log $received"
sent=$(sed -n 's/.*flow [0-9]*: \([0-9]*\) packets.*/\1/p' "$WORK/send1.out")
check "the wire carried every packet sent" [ "$wire" -eq "$sent" ]
check "the server's sender log holds exactly the packets on the wire" [ "$wire" -eq "$logged" ]
check "the server's receiver log holds exactly the packets on the wire" [ "$wire" -eq "$received" ]
check "the sender session closed complete" grep -q "closed: tcp.log," "$LOG_OUT"
check "the receiver session closed complete" grep -q "closed: rx.log," "$LOG_OUT"
check "nothing spilled" [ -z "$(ls "$WORK"/*.spill 2>/dev/null)" ]

# kill_mid_run NAME OUT TRANSPORT: one flow at 20 000 pkt/s for 3 s whose
# log goes to the server over TRANSPORT as NAME; once NAME holds 10 000
# records the server is killed (SIGKILL) and started again on the port
# read back, where the sender looks for it. itg-send's stderr goes to OUT,
# its JSON report to OUT.json. Sets SEND_RC.
kill_mid_run() {
  name=$1
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 20000 -c 100 -t 3000 \
    -L "127.0.0.1:$LOG_PORT" "$3" -l "$name" --json >"$2.json" 2>"$2" &
  SEND_PID=$!
  PIDS="$PIDS $SEND_PID"
  grown() { [ -f "$LOGD/$name" ] && [ "$(stat -c %s "$LOGD/$name")" -ge 320000 ]; }
  wait_until 10 grown || die "the session $name never got going"
  kill -9 "$LOG_PID"
  wait "$LOG_PID" 2>/dev/null
  start_log "$LOGD" -p "$LOG_PORT"
  wait "$SEND_PID"
  SEND_RC=$?
}

# 2. The log server killed and restarted mid-run.
kill_mid_run kill.log "$WORK/send2.out" TCP
check "the flow goes on through the server's death" [ "$SEND_RC" -eq 0 ]
kill -TERM "$LOG_PID"
wait "$LOG_PID"
check "itg-log exits 0 on SIGTERM" [ $? -eq 0 ]
sent=$(json_field "$WORK/send2.out.json" 'r["flows"][0]["packets"]')
spill=$(ls "$WORK"/kill.log.*.spill 2>/dev/null)
set -- $(records "$LOGD"/kill.log* $spill)
echo "sent $sent; distinct $1, records $2 (server files + spill: $(ls "$LOGD" | tr '\n' ' ') $spill)"
check "a spill file was written" [ -n "$spill" ]
check "itg-send named the spill file on stderr" \
  grep -q "went to the spill file $(basename "$spill")" "$WORK/send2.out"
check "server files plus spill hold every packet" [ "$1" -eq "$sent" ]
in_spill=$(records $spill | cut -d' ' -f2)
check "the JSON report's log: the spill file and its $in_spill records" python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
log = d["end"]["log"]
sys.exit(not (log["spilled"] == int(sys.argv[3]) and log["lost"] == 0 and
              os.path.basename(log["spill_file"]) == os.path.basename(sys.argv[2]) and
              log["transport"] == "tcp" and log["path"] == "kill.log" and
              any("went to the spill file" in e for e in d["errors"])))' \
  "$WORK/send2.out.json" "$spill" "$in_spill"
start_log "$LOGD"

# udp_run LOG OUT SENDER-OPTIONS...: one flow whose log goes to the server
# over UDP under the name LOG; sets UDP_RC, sent, RECORDS and GAPS.
udp_run() {
  name=$1
  out=$2
  shift 2
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -c 100 "$@" \
    -L "127.0.0.1:$LOG_PORT" UDP -l "$name" >"$out" 2>&1
  UDP_RC=$?
  sent=$(sed -n 's/.*flow [0-9]*: \([0-9]*\) packets.*/\1/p' "$out")
  set -- $(records "$LOGD/$name")
  RECORDS=$2
  GAPS=$3
  echo "sent $sent; records $RECORDS, gaps $GAPS"
}

# 3. UDP: what is written plus what is counted missing is everything.
udp_run udp.log "$WORK/send3.out" -C 20000 -t 3000
check "the UDP-logged flow succeeds" [ "$UDP_RC" -eq 0 ]
check "UDP: records written plus gaps are every packet" [ $((RECORDS + GAPS)) -eq "$sent" ]
check "UDP: the gap count is what the server reported" \
  grep -q "closed: udp.log, [0-9]* records, $GAPS missing" "$LOG_OUT"

# 3b. UDP with the log server killed mid-run and started again: the
# session it had taken datagrams of ends uncounted, and itg-send says so.
kill_mid_run ukill.log "$WORK/send3b.out" UDP
check "the UDP-logged flow goes on through the server's death" [ "$SEND_RC" -eq 0 ]
check "itg-send says the killed server's count is unknown" \
  grep -q "sender log: the log server did not confirm the end of [0-9]* session(s) (UDP)" "$WORK/send3b.out"
check "the JSON report's log counts the unconfirmed session" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["end"]["log"]["unconfirmed"] >= 1 and d["end"]["log"]["transport"] == "udp" and
              any("did not confirm" in e for e in d["errors"])))' "$WORK/send3b.out.json"

# 4. UDP with small batches (-q 4), which gather into shared datagrams:
# still every record written or counted missing.
udp_run udp4.log "$WORK/send4.out" -C 2000 -t 2000 -q 4
check "the UDP-logged flow with -q 4 succeeds" [ "$UDP_RC" -eq 0 ]
check "UDP -q 4: records written plus gaps are every packet" [ $((RECORDS + GAPS)) -eq "$sent" ]

stop_recv

# 5. A receiver log server nobody listens on: the flow goes on, the sender
# is told, and the receiver spills its log (and its JSON report says so).
hold_closed_port
"$BIN/itg-recv" -Sp 0 -a 127.0.0.1 --json >"$WORK/recv5.json" 2>"$WORK/recv5.err" &
RECV_PID=$!
PIDS="$PIDS $RECV_PID"
wait_until 10 has_listen_port "$WORK/recv5.err" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv5.err")"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$(listen_port "$WORK/recv5.err" sig)" -rp 0 \
  -C 1000 -c 100 -z 200 -X "127.0.0.1:$CLOSED_PORT" TCP -x lost.log >"$WORK/send5.out" 2>&1
check "a flow whose receiver log server is down succeeds" [ $? -eq 0 ]
check "and the sender is told" \
  grep -q "the receiver says: its log server 127.0.0.1 port $CLOSED_PORT cannot be reached" "$WORK/send5.out"
check "the receiver says it spilled its log" \
  wait_until 10 grep -q "receiver log: [0-9]* records went to the spill file" "$WORK/recv5.err"
lost=$(ls "$WORK"/lost.log.*.spill 2>/dev/null)
"$BIN/itg-dec" --json $lost >"$WORK/lost.json" 2>/dev/null
check "the spill file holds every packet of the flow" \
  [ "$(json_field "$WORK/lost.json" 'r["total"]["packets"]')" = 200 ]
stop_recv
check "the receiver's JSON report: every record of the spill file, and its name" \
  env PYTHONPATH="$TOOLS" python3 -c '
import json, os, sys
from logrecs import records
f = json.load(open(sys.argv[1]))["end"]["flows"][0]
n = sum(1 for _ in records(sys.argv[2]))
print("  log_spilled", f["log_spilled"], "records in the spill file", n)
sys.exit(not (f["log_spilled"] == n >= 200 and f["log_lost"] == 0 and f["log_missing"] == 0 and
              os.path.basename(f["log_spill_file"]) == os.path.basename(sys.argv[2])))' \
  "$WORK/recv5.json" "$lost"

kill -TERM "$LOG_PID"
wait "$LOG_PID"
finish
