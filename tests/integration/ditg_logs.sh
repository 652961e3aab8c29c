#!/bin/sh
# needs: install (D-ITG 2.8.1's programs, Debian's d-itg: ports/debian/setup.sh)
# itg-dec and D-ITG's ITGDec on each other's logs: ITGSend and ITGRecv run
# a UDP and a TCP flow over loopback, on ports the system picked; itg-dec
# reads their binary logs and ITGDec's text log of them and gives the
# totals ITGDec gives (packets, delays, jitter, bytes, bitrate, loss);
# two senders' flows, both numbered 1, in one ITGRecv log are two flows
# here as in ITGDec, each with ITGDec's figures;
# itg-dec takes ITGDec's options on a hand-made log of two flows and
# writes what ITGDec writes with them, to its printed microsecond;
# ITGDec reads the D-ITG log itg-dec exports from libitg logs (one with
# losses, one of a real itg-send/itg-recv run) and gives itg-dec's totals
# of the originals; a hand-made D-ITG log across midnight keeps its delays,
# dated by --date or by the file's modification time.
# D-ITG's own programs crash or hang at times: a case where they fail (a
# time limit, their exit status, their output) is tried once more, and if
# they fail again it is skipped with a line saying so. What itg-dec does
# is always checked.
BUILD=$1
. "$(dirname "$0")/lib.sh"

DEC="$BIN/itg-dec"
[ -x "$DEC" ] || die "no $DEC"
for p in ITGSend ITGRecv ITGDec; do
  command -v "$p" >/dev/null 2>&1 ||
    die "no $p: install D-ITG (Debian's d-itg; ports/debian/setup.sh)"
done

# compare.py ITGDEC-OUTPUT ITG-DEC-JSON [flows]: ITGDec's totals against
# itg-dec's (its "total"): counts exactly, times to ITGDec's printed
# microsecond; with "flows", each flow's too, in the order found (and the
# totals but the jitter, which ITGDec takes across flows).
cat >"$WORK/compare.py" <<'PY'
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
rep = json.load(open(sys.argv[2]))["end"]
flows = len(sys.argv) > 3
blocks = text[:text.index("TOTAL RESULTS")].split("Flow number:")[1:]
pairs = [("total", text[text.index("TOTAL RESULTS"):], rep["total"])]
if flows:
    if len(blocks) != len(rep["flows"]):
        sys.exit(f"ITGDec shows {len(blocks)} flows, itg-dec {len(rep['flows'])}")
    pairs += [(f"flow {f['flow']}", b, f) for b, f in zip(blocks, rep["flows"])]
bad = []
for name, tot, r in pairs:
    def itgdec(key):
        m = re.search(r"^" + re.escape(key) + r"\s*=\s*(-?[0-9.]+)", tot, re.M)
        return float(m.group(1))
    for key, ours, tol in [
            ("Total packets", r["packets"], 0),
            ("Bytes received", r["bytes"], 0),
            ("Packets dropped", r["lost"], 0),
            ("Total time", r["duration_s"], 1.5e-6),
            ("Minimum delay", r["delay_min_s"], 1.5e-6),
            ("Maximum delay", r["delay_max_s"], 1.5e-6),
            ("Average delay", r["delay_avg_s"], 1.5e-6),
            ("Average jitter", r["jitter_avg_s"], 1.5e-6),
            ("Delay standard deviation", r["delay_std_s"], 1.5e-6),
            ("Average bitrate", r["bitrate_kbps"], 1e-6 + 1e-5 * r["bitrate_kbps"])]:
        if flows and name == "total" and key == "Average jitter":
            continue
        theirs = itgdec(key)
        if abs(theirs - ours) > tol:
            bad.append(f"{name}: {key}: ITGDec {theirs}, itg-dec {ours}")
r = rep["total"]
print("; ".join(bad) if bad else
      f"same totals: {r['packets']} packets, {r['lost']} lost, delay avg "
      f"{r['delay_avg_s']:.6f} s ({len(pairs) - 1} flows compared)")
sys.exit(1 if bad else 0)
PY

# ports PROTO: a free TCP port (signaling) and a free PROTO port (data),
# the system's picks, released for D-ITG, which cannot take port 0.
ports() {
  python3 -c 'import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "UDP" else socket.SOCK_STREAM
for _ in range(100):
    a, b = socket.socket(), socket.socket(type=kind)
    a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
    pa, pb = a.getsockname()[1], b.getsockname()[1]
    a.close(); b.close()
    if pa != pb:
        print(pa, pb); break' "$1"
}

# gone PID: the process has ended (a zombie not yet waited for counts).
gone() {
  [ ! -e "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# listening PORT: something listens on TCP PORT of loopback.
listening() {
  ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

# itgrecv_start PORT OUT [ARGS...]: ITGRecv -Sp PORT ARGS, run in WORK,
# its output in OUT.recv.out and its pid in rpid. Returns 1, the reason in
# $WORK/why, when it does not listen.
itgrecv_start() {
  port=$1
  out=$2
  shift 2
  (cd "$WORK" && exec ITGRecv -Sp "$port" "$@") >"$out.recv.out" 2>&1 &
  rpid=$!
  PIDS="$PIDS $rpid"
  wait_until 10 listening "$port" && return 0
  echo "ITGRecv did not listen on $port: $(tail -n 3 "$out.recv.out")" >"$WORK/why"
  kill -9 "$rpid" 2>/dev/null
  wait "$rpid" 2>/dev/null
  return 1
}

# itgrecv_stop OUT: ends ITGRecv with SIGINT, on which it writes out its
# log, OUT.recv. Returns 1, the reason in $WORK/why, when it did not end;
# else rwhy is "" or what is wrong with its exit status or its log (whole
# 144-byte records).
itgrecv_stop() {
  kill -INT "$rpid" 2>/dev/null
  if ! wait_until 20 gone "$rpid"; then
    kill -9 "$rpid" 2>/dev/null
    wait "$rpid" 2>/dev/null
    echo "ITGRecv did not end on SIGINT" >"$WORK/why"
    return 1
  fi
  wait "$rpid"
  rstatus=$?
  size=$(wc -c <"$1.recv" 2>/dev/null || echo 0)
  rwhy=""
  if [ "$rstatus" -ne 0 ]; then
    rwhy="ITGRecv exit status $rstatus: $(tail -n 3 "$1.recv.out")"
  elif [ "$size" -eq 0 ] || [ $((size % 144)) -ne 0 ]; then
    rwhy="ITGRecv's log holds $size bytes"
  fi
  return 0
}

# ditg_flow PROTO OUT: one D-ITG flow of 300 packets of 100 bytes at 200
# pkt/s over loopback; the logs are OUT.send and OUT.recv. Returns 1, the
# reason in $WORK/why, when D-ITG failed.
ditg_flow() {
  proto=$1
  out=$2
  rm -f "$out.send" "$out.recv"
  set -- $(ports "$proto")
  sig=$1
  data=$2
  itgrecv_start "$sig" "$out" || return 1
  timeout 60 ITGSend -a 127.0.0.1 -Sdp "$sig" -rp "$data" -T "$proto" \
    -C 200 -c 100 -z 300 -l "$out.send" -x "$out.recv" >"$out.send.out" 2>&1
  sstatus=$?
  itgrecv_stop "$out" || return 1
  if [ "$sstatus" -ne 0 ] || ! grep -q "Finished sending" "$out.send.out"; then
    echo "ITGSend exit status $sstatus: $(tail -n 3 "$out.send.out")" >"$WORK/why"
  elif [ -n "$rwhy" ]; then
    echo "$rwhy" >"$WORK/why"
  else
    return 0
  fi
  return 1
}

# ditg_two OUT: two ITGSend at once to one ITGRecv -l OUT.recv, each with
# its flow 1 (300 UDP packets, 200 TCP ones): D-ITG tells them apart by
# source port. Returns 1, the reason in $WORK/why, when D-ITG failed.
ditg_two() {
  out=$1
  rm -f "$out.recv"
  set -- $(python3 -c 'import socket
s = [socket.socket(), socket.socket(type=socket.SOCK_DGRAM), socket.socket()]
for k in s:
    k.bind(("127.0.0.1", 0))
print(*(k.getsockname()[1] for k in s))')
  itgrecv_start "$1" "$out" -l "$out.recv" || return 1
  timeout 60 ITGSend -a 127.0.0.1 -Sdp "$1" -rp "$2" -C 300 -c 100 -z 300 \
    >"$out.send1.out" 2>&1 &
  spid=$!
  timeout 60 ITGSend -a 127.0.0.1 -Sdp "$1" -rp "$3" -T TCP -C 200 -c 60 \
    -z 200 >"$out.send2.out" 2>&1
  s2=$?
  wait "$spid"
  s1=$?
  itgrecv_stop "$out" || return 1
  if [ "$s1" -ne 0 ] || [ "$s2" -ne 0 ]; then
    echo "ITGSend exit status $s1 and $s2" >"$WORK/why"
  elif [ -n "$rwhy" ]; then
    echo "$rwhy" >"$WORK/why"
  else
    return 0
  fi
  return 1
}

# itgdec OUT ARGS...: ITGDec ARGS, its output in OUT; returns 1 (the
# reason in $WORK/why) when it failed.
itgdec() {
  o=$1
  shift
  timeout 30 ITGDec "$@" >"$o" 2>/dev/null
  s=$?
  if [ "$s" -ne 0 ] || ! grep -q "TOTAL RESULTS" "$o"; then
    echo "ITGDec $* exit status $s: $(tail -n 3 "$o")" >"$WORK/why"
    return 1
  fi
}

# itgdec_text LOG TXT: ITGDec LOG -l TXT (its text log, no summary then);
# returns 1 (the reason in $WORK/why) when it failed.
itgdec_text() {
  rm -f "$2"
  timeout 30 ITGDec "$1" -l "$2" >"$2.out" 2>/dev/null
  s=$?
  if [ "$s" -ne 0 ] || ! grep -q "^Flow>" "$2" 2>/dev/null; then
    echo "ITGDec $1 -l $2 exit status $s: $(tail -n 3 "$2.out")" >"$WORK/why"
    return 1
  fi
}

# twice NAME COMMAND...: COMMAND, once more if D-ITG failed; says so and
# returns 1 when it failed both times.
twice() {
  name=$1
  shift
  "$@" && return 0
  echo "  D-ITG failed ($name: $(cat "$WORK/why")); trying once more"
  "$@" && return 0
  echo "  skip: D-ITG failed twice ($name: $(cat "$WORK/why"))"
  return 1
}

# ---- D-ITG's logs through itg-dec -------------------------------------------

for proto in UDP TCP; do
  out="$WORK/ditg-$proto"
  twice "ITGSend/ITGRecv over $proto" ditg_flow "$proto" "$out" || continue
  check "$proto: itg-dec reads ITGRecv's log" \
    sh -c '"$1" --json "$2" >"$3"' sh "$DEC" "$out.recv" "$out.json"
  check "$proto: itg-dec counts ITGRecv's $(($(wc -c <"$out.recv") / 144)) records" \
    [ "$(json_field "$out.json" 'r["total"]["packets"]')" -eq \
      $(($(wc -c <"$out.recv") / 144)) ]
  if twice "ITGDec on the $proto log" itgdec "$out.itgdec" "$out.recv"; then
    check "$proto: itg-dec's totals are ITGDec's" \
      python3 "$WORK/compare.py" "$out.itgdec" "$out.json"
  fi
  # ITGDec's text log of the same records: the same report.
  if twice "ITGDec -l on the $proto log" itgdec_text "$out.recv" "$out.txt"; then
    check "$proto: itg-dec reads ITGDec's text log" \
      sh -c '"$1" --json "$2" >"$3"' sh "$DEC" "$out.txt" "$out.txt.json"
    check "$proto: the text log gives the binary log's totals" \
      python3 -c 'import json, sys
a, b = (json.load(open(p))["end"]["total"] for p in sys.argv[1:3])
for k in ("packets", "bytes", "lost", "delay_min_s", "delay_max_s",
          "delay_avg_s", "jitter_avg_s", "duration_s"):
    assert abs(a[k] - b[k]) <= 1e-6, (k, a[k], b[k])' "$out.json" "$out.txt.json"
  fi
  # The sender's log: its packets, sent with delays of 0 (as ITGDec).
  check "$proto: itg-dec reads ITGSend's log" \
    sh -c '"$1" --json "$2" >"$3"' sh "$DEC" "$out.send" "$out.send.json"
  check "$proto: ITGSend's log gives 300 packets, delays 0" \
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["end"]["total"]
assert r["packets"] == 300 and r["delay_max_s"] == 0, r' "$out.send.json"
  # The D-ITG log exported again is read back the same.
  check "$proto: itg-dec exports the D-ITG log" \
    "$DEC" --export-ditg "$out.again" "$out.recv" >/dev/null
  check "$proto: the exported log has ITGRecv's records and times" \
    python3 -c 'import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
assert len(a) == len(b)
for i in range(0, len(a), 144):
    x, y = a[i:i + 144], b[i:i + 144]
    assert x[:8] == y[:8] and x[16:36] == y[16:36], i
    for o in (128, 136):
        d = struct.unpack("<d", x[o:o + 8])[0] - struct.unpack("<d", y[o:o + 8])[0]
        assert abs(d) < 1e-9, (i, d)' "$out.recv" "$out.again"
done

# Two senders' flows 1 in one receiver's log: two flows here as in ITGDec.
out="$WORK/ditg-two"
if twice "two ITGSend to one ITGRecv" ditg_two "$out"; then
  check "two senders: itg-dec reads ITGRecv's log" \
    sh -c '"$1" --json "$2" >"$3" 2>"$4"' sh "$DEC" "$out.recv" "$out.json" \
    "$out.err"
  check "two senders: the second flow 1 is reported as flow 2, and said" \
    grep -q "D-ITG flow 1 from 127.0.0.1:[0-9]* to 127.0.0.1:[0-9]* is reported as flow 2" \
    "$out.err"
  if twice "ITGDec on the two senders' log" itgdec "$out.itgdec" "$out.recv"; then
    check "two senders: each flow's figures and the totals are ITGDec's" \
      python3 "$WORK/compare.py" "$out.itgdec" "$out.json" flows
  fi
fi

# ---- libitg's logs through ITGDec -------------------------------------------

# A receiver's log of one flow of 200 packets, 5 ms apart, delays 1 to 5
# ms, 50..59 and 120 lost; the flow's end says 200 were sent.
python3 - "$WORK/lossy.log" <<'PY'
import struct, sys
T0, MS = 1700000000000000000, 1000000
with open(sys.argv[1], "wb") as f:
    f.write(b"ITGLOG\r\n" + struct.pack("<HHHHIIq", 1, 0xFEFF, 64, 32, 2, 1, T0)
            + b"testhost".ljust(32, b"\0"))
    for s in range(1, 201):
        if 50 <= s <= 59 or s == 120:
            continue
        tx = T0 + s * 5 * MS
        f.write(struct.pack("<IHHQqq", 4, 300, 0x2, s, tx, tx + (s % 5 + 1) * MS + 7))
    f.write(struct.pack("<IHHQqq", 4, 0, 0x12, 200, T0 + 2000 * MS, 0))
PY
check "itg-dec exports a libitg log for ITGDec" \
  sh -c '"$1" --json --export-ditg "$2" "$3" >"$4"' sh "$DEC" \
  "$WORK/lossy.ditg" "$WORK/lossy.log" "$WORK/lossy.json"
check "the export has one 144-byte record per packet received" \
  [ "$(wc -c <"$WORK/lossy.ditg")" -eq $((189 * 144)) ]
check "itg-dec counts 11 lost" [ "$(json_field "$WORK/lossy.json" 'r["total"]["lost"]')" -eq 11 ]
if twice "ITGDec on the exported log" itgdec "$WORK/lossy.itgdec" "$WORK/lossy.ditg"; then
  check "ITGDec on the export gives itg-dec's totals of the original" \
    python3 "$WORK/compare.py" "$WORK/lossy.itgdec" "$WORK/lossy.json"
  check "ITGDec shows the addresses libitg does not log as 0.0.0.0:0" \
    grep -q "^From 0.0.0.0:0" "$WORK/lossy.itgdec"
fi

# A real itg-send/itg-recv run.
start_recv "$WORK/lib-recv.log"
check "itg-send runs a flow" \
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C 500 -c 80 -z 500 \
  -l "$WORK/lib-send.log" >"$WORK/lib-send.out" 2>&1
check "itg-recv ends cleanly" stop_recv
check "itg-dec exports itg-recv's log" \
  sh -c '"$1" --json --export-ditg "$2" "$3" >"$4"' sh "$DEC" \
  "$WORK/lib.ditg" "$WORK/lib-recv.log" "$WORK/lib.json"
if twice "ITGDec on the exported itg-recv log" itgdec "$WORK/lib.itgdec" "$WORK/lib.ditg"; then
  check "ITGDec on the export gives itg-dec's totals of itg-recv's log" \
    python3 "$WORK/compare.py" "$WORK/lib.itgdec" "$WORK/lib.json"
fi
# The sender's log alone: its packets sent, as ITGSend logs them.
check "itg-dec exports itg-send's log" \
  "$DEC" --export-ditg "$WORK/lib-send.ditg" "$WORK/lib-send.log" >/dev/null
check "the sender's export holds 500 records" \
  [ "$(wc -c <"$WORK/lib-send.ditg")" -eq $((500 * 144)) ]

# ---- midnight ---------------------------------------------------------------

# 100 packets 1 ms apart, 20 ms on the way, the 10th received at midnight
# (D-ITG's layout packed here).
python3 - "$WORK/midnight.log" <<'PY'
import struct, sys
def tod(us):
    return us // 3600000000, us // 60000000 % 60, us // 1000000 % 60 + us % 1000000 / 1e6
with open(sys.argv[1], "wb") as f:
    for i in range(100):
        rx = 86399991000 + i * 1000
        th, tm, ts = tod((rx - 20000) % 86400000000)
        rh, rm, rs = tod(rx % 86400000000)
        f.write(struct.pack("<9I46s46sdd", 1, i + 1, 40000, 5001, th, tm, rh, rm,
                            64, b"10.0.0.1", b"10.0.0.2", ts, rs))
PY
check "itg-dec --date reads a log across midnight" \
  sh -c '"$1" --json --date 2026-11-24 "$2" >"$3"' sh "$DEC" \
  "$WORK/midnight.log" "$WORK/midnight.json"
check "its delays stay 20 ms across midnight" \
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["end"]["total"]
assert r["packets"] == 100 and r["lost"] == 0
assert abs(r["delay_min_s"] - 0.02) < 1e-9 and abs(r["delay_max_s"] - 0.02) < 1e-9, r
assert abs(r["duration_s"] - 0.099) < 1e-9, r' "$WORK/midnight.json"
# Modified five minutes after its last record: dated by that, the first
# record on the day before.
touch -d "2026-11-25 00:05:00 UTC" "$WORK/midnight.log"
check "the same dated by the file's modification time" \
  sh -c '"$1" --json "$2" >"$3"' sh "$DEC" "$WORK/midnight.log" "$WORK/mtime.json"
check "both give the same report" python3 -c 'import json, sys
a, b = (json.load(open(p))["end"] for p in sys.argv[1:])
sys.exit(a != b)' "$WORK/midnight.json" "$WORK/mtime.json"
check "a wrong --date is refused" \
  sh -c '"$1" --date 2026-02-30 "$2" >/dev/null 2>&1; [ $? -eq 2 ]' sh "$DEC" "$WORK/midnight.log"

# ---- ITGDec's options --------------------------------------------------------

# A receiver's log of two flows (the second losing packets, alone and in
# runs), its send times 0.5 s off, and the sender's log with the right
# ones (ITGSend's: received when sent), for -r. No time falls on an
# interval's edge, where ITGDec and itg-dec could round a packet apart.
python3 - "$WORK/opt.log" "$WORK/opt-send.log" <<'PY'
import struct, sys
def rec(fid, seq, sp, dp, tx, rx, size, src, dst):
    th, tm = int(tx // 3600), int(tx % 3600 // 60)
    rh, rm = int(rx // 3600), int(rx % 3600 // 60)
    return struct.pack("<9I46s46s2d", fid, seq, sp, dp, th, tm, rh, rm, size,
                       src.encode(), dst.encode(), tx - th * 3600 - tm * 60,
                       rx - rh * 3600 - rm * 60)
base = 10 * 3600 + 20 * 60 + 30.0
recv, send = b"", b""
for i in range(1, 201):
    t = base + i * 0.0101 + 0.000037
    recv += rec(1, i, 5000, 6000, t + 0.5, t + 0.0012 + i % 7 * 0.00013,
                100 + i % 50, "10.0.0.1", "10.0.0.2")
    send += rec(1, i, 5000, 6000, t, t, 100 + i % 50, "10.0.0.1", "10.0.0.2")
    send += rec(2, i, 5001, 6001, t + 0.003, t + 0.003, 512, "10.0.0.3", "10.0.0.2")
    if i % 13 not in (0, 1) and not 50 <= i <= 53:
        recv += rec(2, i, 5001, 6001, t + 0.503, t + 0.005 + i % 5 * 0.0002,
                    512, "10.0.0.3", "10.0.0.2")
open(sys.argv[1], "wb").write(recv)
open(sys.argv[2], "wb").write(send)
PY

# same.py A B [binary]: the same lines (or D-ITG records) in A and B, a
# word or field that differs only as numbers within ITGDec's printed
# microsecond; ITGDec's version lines on stdout are passed over.
cat >"$WORK/same.py" <<'PY'
import re, struct, sys
def items(path):
    data = open(path, "rb").read()
    if len(sys.argv) > 3:
        return [[*struct.unpack_from("<9I", data, o),
                 data[o + 36:o + 82].split(b"\0")[0],
                 data[o + 82:o + 128].split(b"\0")[0],
                 *struct.unpack_from("<2d", data, o + 128)]
                for o in range(0, len(data), 144)]
    return [re.split(r"[\s>:/]+", l.strip())
            for l in data.decode().split("\n") if l.strip() and
            not l.startswith(("ITGDec version", "Compile-time"))]
a, b = items(sys.argv[1]), items(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{sys.argv[1]}: {len(a)} lines, {sys.argv[2]}: {len(b)}")
for n, (x, y) in enumerate(zip(a, b), 1):
    if len(x) != len(y):
        sys.exit(f"line {n}: {x} against {y}")
    for u, v in zip(x, y):
        if u == v:
            continue
        try:
            if abs(float(u) - float(v)) <= 1.5e-6:
                continue
        except (TypeError, ValueError):
            pass
        sys.exit(f"line {n}: {u!r} against {v!r}\n{x}\n{y}")
print(f"{len(a)} lines alike")
PY

# itgdec_in DIR FILE ARGS...: ITGDec ARGS run in DIR, which must write FILE
# there (its stdout in DIR/stdout); returns 1 (the reason in $WORK/why)
# when it failed.
itgdec_in() {
  d=$1 f=$2
  shift 2
  rm -f "$d/$f"
  (cd "$d" && timeout 30 ITGDec "$@" >stdout 2>/dev/null)
  s=$?
  if [ "$s" -ne 0 ] || [ ! -s "$d/$f" ]; then
    echo "ITGDec $* exit status $s, $f $(ls -l "$d/$f" 2>&1)" >"$WORK/why"
    return 1
  fi
}

# opt NAME FILE ARGS... [-- binary]: ITGDec and itg-dec with ARGS on the same
# log, each in a folder of its own; FILE of each alike.
opt() {
  name=$1 f=$2
  shift 2
  bin=
  if [ "$f" = "-b" ]; then
    bin=binary f=$1
    shift
  fi
  rm -rf "$WORK/ref" "$WORK/ours"
  mkdir "$WORK/ref" "$WORK/ours"
  cp "$WORK/opt.log" "$WORK/opt-send.log" "$WORK/ref/"
  cp "$WORK/opt.log" "$WORK/opt-send.log" "$WORK/ours/"
  (cd "$WORK/ours" && "$DEC" "$@" >stdout 2>stderr)
  s=$?
  check "$name: itg-dec $* exits 0" [ "$s" -eq 0 ]
  [ "$s" -eq 0 ] || cat "$WORK/ours/stderr"
  if twice "ITGDec $*" itgdec_in "$WORK/ref" "$f" "$@"; then
    check "$name: $f is ITGDec's" \
      python3 "$WORK/same.py" "$WORK/ref/$f" "$WORK/ours/$f" $bin
  fi
}

opt "-l" t.txt opt.log -l t.txt
opt "-o" o.txt opt.log -o o.txt
opt "-P" stdout opt.log -P
opt "-I" stdout opt.log -I
opt "-x" eachdelay.dat opt.log -x
opt "-x" eachjitter.dat opt.log -x
opt "-x NAME" eachjitter_run.dat opt.log -x run
# -i: no summary (ITGDec prints only its banner); -w: nothing at all
opt "-i" eachdelay_q.dat opt.log -x q -i
check "-i: no summary" [ ! -s "$WORK/ours/stdout" ]
opt "-w" delay.dat opt.log -w -d 100
opt "-d" delay.dat opt.log -d 100
opt "-j FILE" j.dat opt.log -j 150 j.dat
opt "-b" bitrate.dat opt.log -b 100
opt "-p" packetloss.dat opt.log -p 70
opt "-c" combined_stats.dat opt.log -c 250
opt "-s" -b 2-10.0.0.3-10.0.0.2.log.dat opt.log -s
opt "-s SUFFIX" -b 1-10.0.0.1-10.0.0.2.x.dat opt.log -s x
opt "-r" -b reconstructed.dat opt.log -r opt-send.log
opt "-r FILE" -b both.dat opt.log -r opt-send.log both.dat
opt "-f 1" delay.dat opt.log -f 1 -d 100
opt "-f t" -b 1-127.0.0.1-127.0.0.1.log.dat opt.log -f t -s
opt "-f t" delay.dat opt.log -f t -d 100
# -t: ITGDec's text log of it, read as text (-c: ITGDec names the flows of
# a text log with the addresses' padding, itg-dec without), the summary
# with -v.
if twice "ITGDec -l on the options' log" itgdec_text "$WORK/opt.log" "$WORK/opt.txt"; then
  opt "-t" combined_stats.dat "$WORK/opt.txt" -t -c 100 -v
  check "-t -v: the summary too" grep -q "Total packets" "$WORK/ours/stdout"
fi
check "-t on a binary log is refused" \
  sh -c '"$1" "$2" -t >/dev/null 2>&1; [ $? -eq 2 ]' sh "$DEC" "$WORK/opt.log"
if twice "ITGDec on the options' log" itgdec "$WORK/opt.itgdec" "$WORK/opt.log" -f 1; then
  "$DEC" --json "$WORK/opt.log" -f 1 >"$WORK/opt.json"
  check "-f 1: the totals are ITGDec's" \
    python3 "$WORK/compare.py" "$WORK/opt.itgdec" "$WORK/opt.json" flows
fi

# ---- damage -----------------------------------------------------------------

head -c $((10 * 144 + 50)) "$WORK/midnight.log" >"$WORK/cut.log"
"$DEC" --date 2026-11-24 "$WORK/cut.log" >"$WORK/cut.out" 2>"$WORK/cut.err"
check "a cut D-ITG log exits 3" [ $? -eq 3 ]
check "and says where it was cut" grep -q "cut short at byte 1440" "$WORK/cut.err"
finish
