#!/bin/sh
# Live reports and JSON: itg-send -i and itg-recv --interval print a line
# per interval; --json writes one document (start, intervals, end, errors)
# and --json-stream a line a event, whose intervals add up to the end's
# totals; itg-dec --json is the same document around its report, which
# agrees with its text summary, and carries a truncated log's warning.
BUILD=$1
. "$(dirname "$0")/lib.sh"

"$BIN/itg-recv" -Sp 0 -a 127.0.0.1 -l "$WORK/recv.log" --interval 0.2 \
  --json >"$WORK/recv.json" 2>"$WORK/recv.err" &
RECV_PID=$!
PIDS="$PIDS $RECV_PID"
wait_until 10 has_listen_port "$WORK/recv.err" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv.err")"
RECV_PORT=$(listen_port "$WORK/recv.err" sig)

flow="-a 127.0.0.1 -Sdp $RECV_PORT -rp 0 -C 500 -c 100"
# shellcheck disable=SC2086
"$BIN/itg-send" $flow -z 750 -i 0.2 --json >"$WORK/send.json" 2>"$WORK/send.err"
check "itg-send --json exits 0" [ $? -eq 0 ]
# shellcheck disable=SC2086
"$BIN/itg-send" $flow -z 200 -i 0.2 --json-stream >"$WORK/send.jsonl" 2>"$WORK/stream.err"
check "itg-send --json-stream exits 0" [ $? -eq 0 ]
# shellcheck disable=SC2086
"$BIN/itg-send" $flow -z 600 -i 0.3 >"$WORK/lines.out" 2>&1
check "itg-send -i exits 0" [ $? -eq 0 ]
# shellcheck disable=SC2086
"$BIN/itg-send" $flow -z 100 >"$WORK/quiet.out" 2>&1
check "itg-send into a file exits 0" [ $? -eq 0 ]
# On a terminal (script(1) gives it one), progress shows unasked.
if command -v script >/dev/null 2>&1; then
  script -qc "$BIN/itg-send $flow -z 750" /dev/null >"$WORK/tty.out" 2>&1
  check "itg-send on a terminal shows a line a second unasked" \
    grep -q "^\[   0.00- *[0-9.]* s\] flow [0-9]*: [0-9]* packets" "$WORK/tty.out"
fi
for bad in 0.01 nan 1e400 -1 eth0; do
  # shellcheck disable=SC2086
  "$BIN/itg-send" $flow -z 10 -i "$bad" >"$WORK/bad.out" 2>&1
  check "itg-send -i $bad is refused (exit 2), nothing sent" \
    sh -c '[ "$1" -eq 2 ] && grep -q "is not a report interval" "$2"' _ $? "$WORK/bad.out"
done
"$BIN/itg-recv" -Sp 0 --interval x >"$WORK/badr.out" 2>&1
check "itg-recv --interval x is refused (exit 2)" [ $? -eq 2 ]
stop_recv
check "itg-recv --json exits 0 on SIGTERM" [ $? -eq 0 ]
cat "$WORK/lines.out"

check "-i: a line per interval, then the summary" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
iv = [l for l in lines if re.match(r"\[ *[0-9.]+- *[0-9.]+ s\] flow [0-9]+: [0-9]+ packets, [0-9.]+ pkt/s, [0-9.]+ kbit/s, late [0-9]+ ", l)]
total = sum(int(re.search(r"flow [0-9]+: ([0-9]+) packets", l).group(1)) for l in iv)
summ = [l for l in lines if l.startswith("flow ")]
sys.exit(not (len(iv) >= 2 and len(summ) == 1 and total == 600 and
              re.match(r"flow [0-9]+: 600 packets", summ[0])))' "$WORK/lines.out"
check "no interval line unasked when stdout is a file" \
  sh -c '! grep -q "^\[" "$1" && grep -q "^flow [0-9]*: 100 packets" "$1"' _ "$WORK/quiet.out"

cat >"$WORK/judge.py" <<'PY'
import json, sys

def send_doc(path, argv0):
    d = json.load(open(path))
    assert set(d) == {"start", "intervals", "end", "errors"}, set(d)
    s = d["start"]
    for k in ("program", "version", "host", "time", "timestamp", "command",
              "interval_s", "flows"):
        assert k in s, k
    assert s["program"] == "itg-send" and s["command"][0] == argv0
    assert s["interval_s"] == 0.2 and s["flows"][0]["proto"] == "UDP"
    assert s["flows"][0]["dst_port"] > 0
    end = d["end"]
    assert end["total"]["packets"] == 750 == end["flows"][0]["packets"]
    assert end["flows"][0]["status"] == "ok" and end["flows"][0]["received"] == 750
    assert len(d["intervals"]) >= 2
    assert sum(i["total"]["packets"] for i in d["intervals"]) == 750
    assert sum(i["flows"][0]["bytes"] for i in d["intervals"]) == 75000
    assert d["errors"] == []

def send_stream(path):
    ev = [json.loads(l) for l in open(path)]
    kinds = [e["event"] for e in ev]
    assert kinds[0] == "start" and kinds[-1] == "end", kinds
    assert set(kinds[1:-1]) <= {"interval"}, kinds
    assert sum(e["data"]["total"]["packets"] for e in ev[1:-1]) == 200
    assert ev[-1]["data"]["total"]["packets"] == 200

def recv_doc(path, port, tty=0):
    d = json.load(open(path))
    assert set(d) == {"start", "intervals", "end", "errors"}, set(d)
    assert d["start"]["program"] == "itg-recv"
    assert d["start"]["ports"]["sig"] == port
    ends = {(f["peer"], f["flow"], f["port"]): f for f in d["end"]["flows"]}
    assert len(ends) == 4 + tty, ends
    got = {}
    for i in d["intervals"]:
        assert i["end_s"] >= i["start_s"]
        for f in i["flows"]:
            k = (f["peer"], f["flow"], f["port"])
            got[k] = got.get(k, 0) + f["packets"]
            assert f["delay_p99_s"] >= 0 and f["jitter_s"] >= 0
    assert got == {k: f["packets"] for k, f in ends.items()}, (got, ends)
    assert sorted(f["sent"] for f in ends.values()) == \
        sorted([100, 200, 600, 750] + [750] * tty)
    assert d["end"]["total"]["packets"] == sum(got.values())
    return d["end"]["total"]["packets"]

def dec_doc(path, text_path, packets):
    d = json.load(open(path))
    assert set(d) == {"start", "intervals", "end", "errors"}, set(d)
    assert d["start"]["program"] == "itg-dec"
    assert d["start"]["logs"][0]["format"] == "libitg"
    t = d["end"]["total"]
    assert t["packets"] == packets, (t["packets"], packets)
    text = {}
    for line in open(text_path).read().split("TOTAL RESULTS")[1].splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            text[k.strip()] = v.split()[0]
    assert int(text["Total packets"]) == t["packets"]
    assert int(text["Bytes received"]) == t["bytes"]
    assert abs(float(text["Average delay"]) - t["delay_avg_s"]) < 1e-9
    assert abs(float(text["99th percentile delay"]) - t["delay_p99_s"]) < 1e-9
    assert d["errors"] == []

what = sys.argv[1]
if what == "send":
    send_doc(sys.argv[2], sys.argv[3])
elif what == "stream":
    send_stream(sys.argv[2])
elif what == "recv":
    tty = int(sys.argv[4])
    print(recv_doc(sys.argv[2], int(sys.argv[3]), tty))
elif what == "dec":
    dec_doc(sys.argv[2], sys.argv[3], int(sys.argv[4]))
PY
check "itg-send --json: start, intervals adding up to the end, no error" \
  python3 "$WORK/judge.py" send "$WORK/send.json" "$BIN/itg-send"
check "itg-send --json-stream: start, intervals, end, adding up" \
  python3 "$WORK/judge.py" stream "$WORK/send.jsonl"
tty=0
[ -f "$WORK/tty.out" ] && tty=1
recv_packets=$(python3 "$WORK/judge.py" recv "$WORK/recv.json" "$RECV_PORT" "$tty")
check "itg-recv --json: each flow's intervals add up to its end" [ -n "$recv_packets" ]

"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/dec.json"
check "itg-dec --json exits 0" [ $? -eq 0 ]
"$BIN/itg-dec" "$WORK/recv.log" >"$WORK/dec.txt"
check "itg-dec --json agrees with its text and with itg-recv's counts" \
  python3 "$WORK/judge.py" dec "$WORK/dec.json" "$WORK/dec.txt" "${recv_packets:-0}"

# Names are escaped: a log named with a quote, a backslash and a tab.
odd=$(printf 'a"b\\c\td.log')
cp "$WORK/recv.log" "$WORK/$odd" || die "cp"
"$BIN/itg-dec" --json "$WORK/$odd" >"$WORK/odd.json"
check "a name with a quote, a backslash and a tab stays whole in the JSON" \
  python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["start"]["logs"][0]["path"] != sys.argv[2])' \
  "$WORK/odd.json" "$WORK/$odd"

# A log cut short: the warning on stderr is in the document's errors too.
head -c 4000 "$WORK/recv.log" >"$WORK/cut.log"
"$BIN/itg-dec" --json "$WORK/cut.log" >"$WORK/cut.json" 2>"$WORK/cut.err"
check "a truncated log exits 3" [ $? -eq 3 ]
check "its warning is the document's error" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
sys.exit(not (d["errors"] and "cut short" in d["error"] and d["error"] in err))' \
  "$WORK/cut.json" "$WORK/cut.err"
finish
