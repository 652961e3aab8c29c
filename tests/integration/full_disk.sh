#!/bin/sh
# Logs on a full disk: a 256 KiB tmpfs (mounting it needs root; without,
# the test says so and passes). itg-send says while it runs which file
# cannot be written, why and how many records are lost, and exits 1; so
# does itg-recv for its -l log. itg-log, its directory full, ends the
# session with the records it wrote whole and acknowledged: those plus the
# sender's spill file are every packet, each once, and no empty file is
# left behind.
# needs: root (mounts a tmpfs; skipped without)
BUILD=$1
. "$(dirname "$0")/lib.sh"

FULL="$WORK/full"
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=256k tmpfs "$FULL" 2>/dev/null; then
  echo "skipped: cannot mount a tmpfs on $FULL (run as root)"
  finish
fi
# The tmpfs goes before the directory it is mounted on.
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; umount "$FULL"
  rm -rf "$WORK"' EXIT INT TERM
cd "$WORK" || die "cd"

# records FILE...: packet records (whole ones), distinct (flow, seq) among
# them, and all whole records, over the files.
records() {
  PYTHONPATH="$TOOLS" python3 - "$@" <<'PY'
import sys
from logrecs import records
seen, packets, whole = set(), 0, 0
for path in sys.argv[1:]:
    for flow, size, flags, seq in records(path):
        whole += 1
        if not flags & 0x30:
            packets += 1
            seen.add((flow, seq))
print(packets, len(seen), whole)
PY
}

alive() { kill -0 "$1" 2>/dev/null; }
said() { grep -q "$1" "$2"; }

start_recv "$WORK/recv.log"

# 1. The sender log on the full disk: told while the flow runs.
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 20000 -c 100 -t 4000 \
  -l "$FULL/send.log" --json >"$WORK/send1.json" 2>"$WORK/send1.err" &
SEND_PID=$!
PIDS="$PIDS $SEND_PID"
wait_until 10 said "cannot write the sender log" "$WORK/send1.err"
check "itg-send tells of the full disk while it runs" alive "$SEND_PID"
wait "$SEND_PID"
check "itg-send exits 1 when its log failed" [ $? -eq 1 ]
cat "$WORK/send1.err"
check "the message names the file and the cause" \
  said "cannot write the sender log $FULL/send.log: no space left on device: [0-9]* records lost so far" "$WORK/send1.err"
lost=$(sed -n 's/.*sender log .*: \([0-9]*\) records lost: no space left on device/\1/p' "$WORK/send1.err")
set -- $(records "$FULL/send.log")
sent=$(json_field "$WORK/send1.json" 'r["flows"][0]["packets"]')
echo "sent $sent; the file holds $3 records, $lost lost"
check "the flow itself went on" [ "$sent" -eq 80000 ]
check "records in the file plus records lost are every record" \
  [ $(($3 + lost)) -ge "$sent" ] && [ "$3" -gt 0 ]
check "the JSON report's log: the failure and the records lost" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
log = d["end"]["log"]
sys.exit(not (log["error"] == "ENOSPC" and log["lost"] == int(sys.argv[2]) and
              any("records lost: no space left on device" in e for e in d["errors"])))' \
  "$WORK/send1.json" "$lost"
rm -f "$FULL"/*

# 2. itg-log with its directory on the full disk: what it acknowledged is
# in its file, the rest in the sender's spill file, nothing twice.
start_log "$FULL"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 20000 -c 100 -t 3000 \
  -L "127.0.0.1:$LOG_PORT" TCP -l full.log >"$WORK/send2.out" 2>&1
check "the flow logged to a full server succeeds" [ $? -eq 0 ]
kill -TERM "$LOG_PID"
wait "$LOG_PID"
cat "$LOG_OUT"
sent=$(sed -n 's/.*flow [0-9]*: \([0-9]*\) packets.*/\1/p' "$WORK/send2.out")
spill=$(ls "$WORK"/full.log.*.spill 2>/dev/null)
set -- $(records "$FULL"/full.log* $spill)
echo "sent $sent; packet records $1, distinct $2 (files: $(ls "$FULL" | tr '\n' ' ') $spill)"
check "itg-log says why the session ended" \
  said "cannot write the file: no space left on device" "$LOG_OUT"
check "a spill file was written" [ -n "$spill" ]
check "server file plus spill hold every packet" [ "$2" -eq "$sent" ]
check "and none twice" [ "$1" -eq "$2" ]
n=$(sed -n 's/.*ended incomplete: full.log.incomplete, \([0-9]*\) records.*/\1/p' "$LOG_OUT")
set -- $(records "$FULL/full.log.incomplete")
check "itg-log counts the records its file holds" [ "$n" = "$3" ]
check "no empty file left behind" [ -z "$(find "$FULL" -type f -size -65c)" ]
rm -f "$FULL"/*

# 3. itg-recv's own log on the full disk: told at once, exit 1 at the end.
stop_recv
start_recv "$FULL/recv.log"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 20000 -c 100 -t 1000 \
  >"$WORK/send3.out" 2>&1
check "the flow to a receiver with a full log succeeds" [ $? -eq 0 ]
check "itg-recv tells of the full disk while it runs" \
  said "cannot write the receiver log $FULL/recv.log: no space left on device" "$RECV_OUT"
stop_recv
check "itg-recv exits 1 when a log failed" [ $? -eq 1 ]
cat "$RECV_OUT"
finish
