#!/bin/sh
# itg-dec on logs written here by Python in the documented format (no
# sender or receiver involved): the report agrees with the statistics
# Python computes from the same records by the definitions of itg/stats.h;
# sender and receiver logs merge; damaged logs, and logs cut short between
# records (a flow without its end record), are decoded up to the damage
# with exit status 3; a forged sequence number makes no absurd loss; missing files, non-logs and wrong options exit 2; the
# interval series add up.
BUILD=$1
. "$(dirname "$0")/lib.sh"

DEC="$BIN/itg-dec"
[ -x "$DEC" ] || die "no $DEC"

# The log writer and the reference statistics, in Python.
cat >"$WORK/logs.py" <<'PY'
import json, math, struct, sys

T0 = 1700000000000000000
MS = 1000000
RX, TX, RTT, END = 0x2, 0x1, 0x4, 0x10

def header(role):
    h = b"ITGLOG\r\n" + struct.pack("<HHHHIIq", 1, 0xFEFF, 64, 32, role, 1, T0)
    return h + b"testhost".ljust(32, b"\0")

def crc32c(data):
    """CRC-32C bit by bit, apart from the library's."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF

def write_blocks(path, role, recs, per_block, flip=None):
    """A version 2 log: checked header, then blocks of per_block records;
    flip = (byte offset, bit) damages the file afterwards."""
    h = b"ITGLOG\r\n" + struct.pack("<HHHHIIq", 2, 0xFEFF, 68, 32, role, 1, T0)
    h += b"testhost".ljust(32, b"\0")
    data = bytearray(h + struct.pack("<I", crc32c(h)))
    for i in range(0, len(recs), per_block):
        part = recs[i:i + per_block]
        blk = b"ITGB" + struct.pack("<I", len(part))
        blk += b"".join(record(*r) for r in part)
        data += blk + struct.pack("<I", crc32c(blk))
    if flip is not None:
        data[flip[0]] ^= 1 << flip[1]
    with open(path, "wb") as f:
        f.write(data)

def record(flow, size, flags, seq, tx, rx):
    return struct.pack("<IHHQqq", flow, size, flags, seq, tx, rx)

def write(path, role, recs, tail=b""):
    with open(path, "wb") as f:
        f.write(header(role))
        for r in recs:
            f.write(record(*r))
        f.write(tail)

def receiver_records():
    """Flow 1: 100 packets 10 ms apart, delays 1 ms (odd) or 3 ms (even),
    40..44 and 90 lost, 10 arriving twice, 61 after 62; the sender said
    102. Flow 2: 45 of the 50 the sender's log below shows."""
    recs = []
    order = [s for s in range(1, 101) if not (40 <= s <= 44 or s == 90)]
    order.insert(order.index(10) + 1, 10)
    i61 = order.index(61)
    order[i61], order[i61 + 1] = order[i61 + 1], order[i61]
    for s in order:
        tx = T0 + (s - 1) * 10 * MS
        d = MS if s % 2 else 3 * MS
        recs.append((1, 512, RX, s, tx, tx + d + (1000 if s == 61 else 0)))
    recs.append((1, 0, END, 102, T0 + 2000 * MS, 0))
    for s in range(1, 46):
        tx = T0 + s * 20 * MS
        recs.append((2, 100 + s, RX, s, tx, tx + 2 * MS + s * 1000))
    recs.append((2, 0, END | RX, 50, T0 + 2000 * MS, 0))
    return recs

def sender_records():
    return [(2, 100 + s, TX, s, T0 + s * 20 * MS, 0) for s in range(1, 51)] + \
        [(2, 0, END | TX, 50, T0 + 2000 * MS, 0)]

def rtt_records():
    return [(3, 64, TX | RTT, s, T0 + s * MS, T0 + s * MS + 150000 + 10 * s)
            for s in range(1, 21)] + [(3, 0, END | RTT, 20, T0 + 30 * MS, 0)]

def reference(recs):
    """Per-flow statistics straight from the definitions."""
    flows = {}
    sent = {}
    tx_top = {}
    for (flow, size, flags, seq, tx, rx) in recs:
        if flags & END:
            sent[flow] = max(sent.get(flow, 0), seq)
        elif flags & RX:
            flows.setdefault(flow, []).append((seq, size, rx - tx, rx))
        elif flags & TX:
            tx_top[flow] = max(tx_top.get(flow, 0), seq)
    out = {}
    for flow, pk in flows.items():
        d = [p[2] for p in pk]
        n = len(d)
        mean = sum(d) / n
        span = (max(p[3] for p in pk) - min(p[3] for p in pk)) / 1e9
        seqs = [p[0] for p in pk]
        expected = max(sent.get(flow, tx_top.get(flow, 0)), max(seqs))
        distinct = set(seqs)
        missing = [s for s in range(1, expected + 1) if s not in distinct]
        bursts = sum(1 for i, s in enumerate(missing)
                     if i == 0 or missing[i - 1] != s - 1)
        out[flow] = {
            "packets": n, "bytes": sum(p[1] for p in pk),
            "lost": len(missing), "expected": expected,
            "loss_bursts": bursts,
            "duplicates": n - len(distinct),
            "reordered": sum(1 for i, s in enumerate(seqs)
                             if s < max(seqs[:i] or [0]) and s not in seqs[:i]),
            "delay_avg_s": mean / 1e9, "delay_min_s": min(d) / 1e9,
            "delay_max_s": max(d) / 1e9,
            "delay_std_s": math.sqrt(sum((x - mean) ** 2 for x in d) / n) / 1e9,
            "jitter_avg_s": sum(abs(d[i] - d[i - 1]) for i in range(1, n))
                            / (n - 1) / 1e9,
            "bitrate_kbps": sum(p[1] for p in pk) * 8 / 1000 / span,
            "rate_pps": n / span,
        }
    return out

def compare(report, ref):
    """Prints every disagreement; exit status 1 if any."""
    bad = 0
    got = {f["flow"]: f for f in report["flows"]}
    for flow, want in ref.items():
        if flow not in got:
            print("flow %d missing" % flow)
            bad += 1
            continue
        for k, v in want.items():
            g = got[flow][k]
            tol = 1e-6 * abs(v) + (2e-9 if k.endswith("_s") else 0)
            if abs(g - v) > tol:
                print("flow %d %s: got %r, want %r" % (flow, k, g, v))
                bad += 1
    return 1 if bad else 0

cmd = sys.argv[1]
if cmd == "write":
    d = sys.argv[2]
    recv = receiver_records()
    write(d + "/recv.log", 2, recv)
    write(d + "/send.log", 1, sender_records())
    write(d + "/rtt.log", 1, rtt_records())
    write(d + "/empty.log", 2, [])
    write(d + "/cut.log", 2, recv[:30], tail=b"\x01" * 17)
    bad = list(recv[:20]) + [(1, 64, 0x200, 21, T0, T0)] + list(recv[20:])
    write(d + "/corrupt.log", 2, bad)
    write_blocks(d + "/blocks.log", 2, recv, 50)
    # Block 1 starts at 68 + 8 + 50 * 32 + 4 = 1680; a bit of its 10th
    # record, then a bit of the header's host name.
    write_blocks(d + "/flipped.log", 2, recv, 50, flip=(1680 + 8 + 9 * 32 + 2, 5))
    write_blocks(d + "/hflipped.log", 2, recv, 50, flip=(33, 0))
    # Cut short between records: the end records never written.
    write(d + "/nofin.log", 2, [r for r in recv if not r[2] & END])
    with open(d + "/short.log", "wb") as f:
        f.write(header(2)[:20])
    # Forged numbers: the largest there is, and one far beyond the flow.
    forged = list(recv)
    forged.insert(50, (1, 512, RX, 2**64 - 1, T0, T0 + MS))
    forged.insert(70, (1, 512, RX, 2**40, T0, T0 + MS))
    write(d + "/forged.log", 2, forged)
    with open(d + "/text.log", "w") as f:
        f.write("flow 1 seq 1 this is a text file, not a libitg log at all\n" * 3)
elif cmd == "check":
    recs = receiver_records()
    if sys.argv[3] == "merged":
        recs = recs + sender_records()
    sys.exit(compare(json.load(open(sys.argv[2]))["end"], reference(recs)))
PY

python3 "$WORK/logs.py" write "$WORK" || die "cannot write the test logs"

# 1. A receiver log: every statistic as Python computes it.
"$DEC" --json "$WORK/recv.log" >"$WORK/recv.json" 2>"$WORK/err"
check "a clean receiver log decodes with status 0" [ $? -eq 0 ]
check "nothing on stderr for a clean log" [ ! -s "$WORK/err" ]
check "the report matches the reference statistics" \
  python3 "$WORK/logs.py" check "$WORK/recv.json" recv
check "flow 1 counts the loss after its last arrival (102 sent, 95 got, 1 twice)" \
  [ "$(json_field "$WORK/recv.json" '[f["lost"] for f in r["flows"] if f["flow"]==1][0]')" -eq 8 ]
check "the total covers both flows" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["packets"]')" -eq 140 ]
check "the total's lost packets are the flows' sum" \
  [ "$(json_field "$WORK/recv.json" 'r["total"]["lost"] == sum(f["lost"] for f in r["flows"])')" = True ]
check "no NaN or infinity in the JSON" sh -c '! grep -qi "nan\|inf" "$1"' _ "$WORK/recv.json"

# 2. Sender and receiver logs of the same flows merge: flow 2's sender
#    sent 50, the receiver got 45.
"$DEC" --json "$WORK/recv.log" "$WORK/send.log" >"$WORK/merged.json"
check "merged logs decode with status 0" [ $? -eq 0 ]
check "merged: the sender's count gives flow 2 its tail loss" \
  python3 "$WORK/logs.py" check "$WORK/merged.json" merged
check "merged: still one entry per flow" \
  [ "$(json_field "$WORK/merged.json" 'len(r["flows"])')" -eq 2 ]
"$DEC" --json "$WORK/send.log" >"$WORK/send.json"
check "a one-way sender log alone reports packets sent" \
  [ "$(json_field "$WORK/send.json" 'r["total"]["meter"] + str(r["total"]["packets"])')" = sent50 ]

# 3. Round trips are marked as such.
"$DEC" --json "$WORK/rtt.log" >"$WORK/rtt.json"
check "a round-trip log: meter rtt, 20 packets, RTT 150..150.2 us" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["end"]["total"]
ok = t["meter"] == "rtt" and t["packets"] == 20 and \
     abs(t["delay_min_s"] - 150.01e-6) < 1e-9 and abs(t["delay_max_s"] - 150.2e-6) < 1e-9
sys.exit(not ok)' "$WORK/rtt.json"

# 4. The text summary (of the merged logs).
"$DEC" "$WORK/recv.log" "$WORK/send.log" >"$WORK/recv.txt"
check "text: status 0" [ $? -eq 0 ]
check "text: a block per flow" [ "$(grep -c '^Flow number:' "$WORK/recv.txt")" -eq 2 ]
check "text: total packets 140" grep -Eq '^Total packets +=  +140$' "$WORK/recv.txt"
check "text: 13 packets dropped in total (8 + 5)" \
  grep -Eq '^Packets dropped +=  +13 \(' "$WORK/recv.txt"
for label in "Minimum delay" "Maximum delay" "Average delay" "Average jitter" \
  "Delay standard deviation" "Average bitrate" "Average packet rate" \
  "Average loss-burst size" "Median delay (p50)" "99th percentile delay" \
  "Duplicate packets" "Reordered packets" "TOTAL RESULTS"; do
  check "text: '$label'" grep -qF "$label" "$WORK/recv.txt"
done

# 5. Damaged logs: decoded up to the damage, status 3, the place named.
"$DEC" --json "$WORK/cut.log" >"$WORK/cut.json" 2>"$WORK/cut.err"
check "a truncated log exits 3" [ $? -eq 3 ]
check "and says where it stopped (64 + 30*32 = 1024)" \
  grep -qF "cut.log: cut short at byte 1024: a partial record" "$WORK/cut.err"
check "the 30 whole records are reported" \
  [ "$(json_field "$WORK/cut.json" 'r["total"]["packets"]')" -eq 30 ]
"$DEC" --json "$WORK/corrupt.log" >"$WORK/corrupt.json" 2>"$WORK/corrupt.err"
check "a corrupt record exits 3" [ $? -eq 3 ]
check "and names its offset (64 + 20*32 = 704)" \
  grep -qF "corrupt.log: stopped at byte 704: malformed data" "$WORK/corrupt.err"
check "the 20 records before it are reported" \
  [ "$(json_field "$WORK/corrupt.json" 'r["total"]["packets"]')" -eq 20 ]
"$DEC" --json "$WORK/cut.log" "$WORK/send.log" >"$WORK/cut2.json" 2>/dev/null
check "a damaged log does not stop the next one" \
  [ "$(json_field "$WORK/cut2.json" 'len(r["flows"])')" -eq 2 ]
# A full disk stops a writer between whole records: the flows have no end.
"$DEC" --json "$WORK/nofin.log" >"$WORK/nofin.json" 2>"$WORK/nofin.err"
check "a log whose flows have no end record exits 3" [ $? -eq 3 ]
check "and says it was cut short at its end (64 + 140*32 = 4544)" \
  grep -qF "nofin.log: cut short at byte 4544" "$WORK/nofin.err"
check "its 140 records are reported" \
  [ "$(json_field "$WORK/nofin.json" 'r["total"]["packets"]')" -eq 140 ]
# The end records may be in another log given (a log server's log and the
# sender's spill file): then no flow lacks its end.
"$DEC" --json "$WORK/nofin.log" "$WORK/recv.log" >/dev/null 2>"$WORK/err"
check "a flow ended in another log given is not cut short" [ $? -eq 0 ]
"$DEC" --json "$WORK/nofin.log" "$WORK/send.log" >/dev/null 2>"$WORK/err"
check "a flow ended in none of them is" [ $? -eq 3 ]
check "in the log holding it only" sh -c \
  "grep -qF 'nofin.log: cut short' '$WORK/err' && ! grep -qF 'send.log' '$WORK/err'"
"$DEC" "$WORK/short.log" >"$WORK/out" 2>"$WORK/err"
check "a log cut short inside its header exits 3" [ $? -eq 3 ]
check "and says so" grep -qF "short.log: cut short inside its header" "$WORK/err"

# A forged record with the largest sequence number ends (it looped for
# ever) and neither it nor a far one counts as loss: flow 1 still lost 8.
timeout 60 "$DEC" "$WORK/forged.log" >"$WORK/forged.txt" 2>"$WORK/err"
check "a log with forged sequence numbers decodes with status 0" [ $? -eq 0 ]
check "its flow 1 loses 8 of 102, as without them" \
  grep -Eq '^Packets dropped += +8 \(7\.84 %\)$' "$WORK/forged.txt"
check "and the total 13" grep -Eq '^Packets dropped += +13 \(' "$WORK/forged.txt"

# 5b. Version 2 logs: blocks with checksums. Damage in a block is found,
# reported with the block and the records lost, and skipped; a damaged
# header is refused.
"$DEC" --json "$WORK/blocks.log" >"$WORK/blocks.json" 2>"$WORK/err"
check "a version 2 log decodes with status 0" [ $? -eq 0 ]
check "and matches the reference statistics" \
  python3 "$WORK/logs.py" check "$WORK/blocks.json" recv
"$DEC" --json "$WORK/flipped.log" >"$WORK/flipped.json" 2>"$WORK/flipped.err"
check "one flipped bit in a block exits 3" [ $? -eq 3 ]
check "naming the block, its offset and the records skipped" \
  grep -qF "flipped.log: block 1 at byte 1680 is damaged: 50 records skipped" \
  "$WORK/flipped.err"
check "the blocks around it are decoded (140 packets - 49 of block 1)" \
  [ "$(json_field "$WORK/flipped.json" 'r["total"]["packets"]')" -eq 91 ]
"$DEC" "$WORK/hflipped.log" >"$WORK/out" 2>"$WORK/err"
check "one flipped bit in the header exits 2" [ $? -eq 2 ]
check "and says the header may be damaged" \
  grep -qF "hflipped.log: not a libitg log, or its header is damaged" "$WORK/err"

# 6. What cannot be decoded at all, and wrong options: status 2.
"$DEC" "$WORK/nothere.log" >"$WORK/out" 2>"$WORK/err"
check "a missing file exits 2" [ $? -eq 2 ]
check "and says so" grep -qF "nothere.log: no such file or directory" "$WORK/err"
"$DEC" "$WORK/text.log" >"$WORK/out" 2>"$WORK/err"
check "a file that is not a log exits 2" [ $? -eq 2 ]
check "and says so" grep -qF "text.log: not a libitg log" "$WORK/err"
"$DEC" -Z "$WORK/recv.log" >"$WORK/out" 2>"$WORK/err"
check "a wrong option exits 2" [ $? -eq 2 ]
check "naming it" grep -qF "itg-dec: unknown option '-Z'" "$WORK/err"
check "with the usage" grep -q "^usage: itg-dec" "$WORK/err"
check "and nothing on stdout" [ ! -s "$WORK/out" ]
"$DEC" -d abc "$WORK/recv.log" >"$WORK/out" 2>"$WORK/err"
check "a bad interval exits 2" [ $? -eq 2 ]
"$DEC" >"$WORK/out" 2>"$WORK/err"
check "no log at all exits 2" [ $? -eq 2 ]
"$DEC" --help >"$WORK/out" 2>&1
check "--help exits 0" [ $? -eq 0 ]
check "--help documents exit status 3" grep -q "3 a log was truncated" "$WORK/out"
check "--version prints the version" sh -c '"$1" --version | grep -Eq "^itg-dec .*[0-9]+\.[0-9]+\.[0-9]+"' _ "$DEC"
"$DEC" --json "$WORK/empty.log" >"$WORK/empty.json"
check "a log without records: status 0, zero packets" \
  [ "$(json_field "$WORK/empty.json" 'r["total"]["packets"]')" -eq 0 ]

# 7. Interval series.
"$DEC" -d 100 --csv - "$WORK/recv.log" >"$WORK/delay.csv"
check "-d: status 0" [ $? -eq 0 ]
check "-d: the header names the flows and the total" \
  [ "$(head -n 1 "$WORK/delay.csv")" = "time_s,flow_1,flow_2,total" ]
check "-d: one row per 100 ms over the ~1 s of arrivals" python3 -c '
import sys
rows = open(sys.argv[1]).read().split("\n")[1:-1]
times = [float(r.split(",")[0]) for r in rows]
sys.exit(not (10 <= len(rows) <= 11 and times[0] == 0 and abs(times[1] - 0.1) < 1e-9))' "$WORK/delay.csv"
"$DEC" -p 100 --csv - "$WORK/recv.log" "$WORK/send.log" >"$WORK/loss.csv"
# ITGDec's rule: the numbers a packet skips count as lost in its interval
# and a late packet gives none back, so 62 before 61 adds one to the 13.
check "-p: the losses per interval add up to 13 lost + 1 late" python3 -c '
import sys
rows = open(sys.argv[1]).read().split("\n")[1:-1]
sys.exit(sum(int(r.split(",")[-1]) for r in rows) != 14)' "$WORK/loss.csv"
"$DEC" -b 100 --csv - "$WORK/recv.log" >"$WORK/bitrate.csv"
check "-b: the bitrate per interval adds up to the bytes" python3 -c '
import sys, json
rows = open(sys.argv[1]).read().split("\n")[1:-1]
kbit = sum(float(r.split(",")[-1]) for r in rows) * 0.1
b = json.load(open(sys.argv[2]))["end"]["total"]["bytes"]
sys.exit(abs(kbit * 1000 / 8 - b) > 1e-3)' "$WORK/bitrate.csv" "$WORK/recv.json"
"$DEC" -c 250 --csv "$WORK/all.csv" --json "$WORK/recv.log" >"$WORK/c.json"
check "-c with --csv: status 0" [ $? -eq 0 ]
check "-c with --csv: the JSON report still on stdout" \
  [ "$(json_field "$WORK/c.json" 'r["total"]["packets"]')" -eq 140 ]
check "-c: combined header" \
  [ "$(head -n 1 "$WORK/all.csv")" = "time_s,flow,packets,bytes,lost,delay_avg_s,jitter_avg_s,bitrate_kbps" ]
check "-c: the total rows count every packet" python3 -c '
import sys
rows = [r.split(",") for r in open(sys.argv[1]).read().split("\n")[1:-1]]
sys.exit(sum(int(r[2]) for r in rows if r[1] == "total") != 140)' "$WORK/all.csv"
"$DEC" -d 100 -j 100 --csv - "$WORK/recv.log" >"$WORK/out" 2>"$WORK/err"
check "--csv with two series is refused (status 2)" [ $? -eq 2 ]

# 8. ITGDec's options. The series go to ITGDec's files, named by default
# as ITGDec names them (in the working directory), the summary then only
# with -v; flows are named by addresses libitg does not log: 0.0.0.0.
mkdir "$WORK/itgdec" && cd "$WORK/itgdec" || die "no $WORK/itgdec"
"$DEC" "$WORK/recv.log" -d 100 -j 100 >"$WORK/out" 2>"$WORK/err"
check "-d and -j together: status 0" [ $? -eq 0 ]
check "-d, -j: no summary without -v" [ ! -s "$WORK/out" ]
hdr="Time 1-0.0.0.0-0.0.0.0 2-0.0.0.0-0.0.0.0 Aggregate-Flow"
check "-d: ITGDec's delay.dat, ITGDec's header" [ "$(head -n 1 delay.dat)" = "$hdr" ]
check "-j: ITGDec's jitter.dat, ITGDec's header" [ "$(head -n 1 jitter.dat)" = "$hdr" ]
check "-d: a row per 100 ms: time, each flow, their sum" python3 -c '
import sys
rows = [list(map(float, r.split())) for r in open(sys.argv[1]).read().split("\n")[1:-1]]
sys.exit(not (10 <= len(rows) <= 11 and rows[1][0] == 0.1 and
              all(len(r) == 4 and abs(r[1] + r[2] - r[3]) < 2.5e-6 for r in rows)))' delay.dat
"$DEC" "$WORK/recv.log" -p 100 loss.dat -b 100 -v >"$WORK/out"
check "-v with series: the summary too" grep -q "Total packets" "$WORK/out"
check "-p FILE: the losses in the file named" [ -s loss.dat ]
check "-b: bitrate.dat" [ -s bitrate.dat ]
check "-p: the losses add up to 13 lost + 1 late, as with --csv" python3 -c '
import sys
rows = open(sys.argv[1]).read().split("\n")[1:-1]
sys.exit(sum(float(r.split()[-1]) for r in rows) != 14)' loss.dat
"$DEC" "$WORK/recv.log" -c 250
check "-c: combined_stats.dat, five columns, no header" \
  [ "$(awk '{print NF}' combined_stats.dat | sort -u)" = 5 ]
"$DEC" "$WORK/recv.log" -l text.log -o octave.log -P >sizes.out
check "-l: ITGDec's text log, a line per packet (140)" [ "$(wc -l <text.log)" -eq 140 ]
check "-l: the unknown addresses and ports are 0.0.0.0/0" \
  grep -q "^Flow>0001 Seq>      1 Src> *0.0.0.0/0 Dest> *0.0.0.0/0 txTime>" text.log
check "-t: the text log read back gives the 140 packets" \
  [ "$("$DEC" --json -t text.log | json_field /dev/stdin 'r["total"]["packets"]')" -eq 140 ]
check "-o: the Octave log, a line per packet" [ "$(wc -l <octave.log)" -eq 140 ]
check "-o: seq, send h m s, receive h m s, size" \
  [ "$(awk '{print NF}' octave.log | sort -u)" = 8 ]
check "-P: each packet's size, a line each" [ "$(wc -l <sizes.out)" -eq 140 ]
"$DEC" "$WORK/recv.log" -I >gaps.out
check "-I: the times between packets, one fewer than packets" \
  [ "$(wc -l <gaps.out)" -eq 139 ]
"$DEC" "$WORK/recv.log" -s mine
check "-s SUFFIX: a D-ITG log per flow, ITGDec's names" \
  test -s 1-0.0.0.0-0.0.0.0.mine.dat -a -s 2-0.0.0.0-0.0.0.0.mine.dat
check "-s: the two flows' logs hold the 140 packets" [ $(( \
  $("$DEC" --json 1-0.0.0.0-0.0.0.0.mine.dat | json_field /dev/stdin 'r["total"]["packets"]') + \
  $("$DEC" --json 2-0.0.0.0-0.0.0.0.mine.dat | json_field /dev/stdin 'r["total"]["packets"]') )) -eq 140 ]
"$DEC" --json -f 1 "$WORK/recv.log" >f1.json
check "-f 1: only flow 1" [ "$(json_field f1.json '[f["flow"] for f in r["flows"]]')" = "[1]" ]
"$DEC" --json -f t "$WORK/recv.log" >ft.json
check "-f t: every packet in one flow, 1" \
  [ "$(json_field ft.json '[(f["flow"], f["packets"]) for f in r["flows"]]')" = "[(1, 140)]" ]
"$DEC" -t "$WORK/recv.log" >"$WORK/out" 2>"$WORK/err"
check "-t on a libitg log: refused (status 2)" [ $? -eq 2 ]
check "-t: says why" grep -q "not a D-ITG text log" "$WORK/err"
# The sender's log holds flow 2 only: -s wrote flow 2's D-ITG log above.
"$DEC" 2-0.0.0.0-0.0.0.0.mine.dat -r "$WORK/send.log" both.dat --json >r.json
check "-r SENDERLOG FILE: status 0" [ $? -eq 0 ]
check "-r: the totals kept" [ "$(json_field r.json 'r["total"]["packets"]')" -eq 45 ]
check "-r: the combined log holds the receiver's packets, the same delays" \
  [ "$("$DEC" --json both.dat | json_field /dev/stdin '(r["total"]["packets"], r["total"]["delay_avg_s"])')" = \
    "$(json_field r.json '(r["total"]["packets"], r["total"]["delay_avg_s"])')" ]
"$DEC" "$WORK/recv.log" -r "$WORK/empty.log" >"$WORK/out" 2>"$WORK/err"
check "-r with a sender's log that lacks the packets: status 1" [ $? -eq 1 ]
check "-r: says which packet" grep -q "holds no packet 1 of flow 1" "$WORK/err"
cp "$WORK/recv.log" mine.log
"$DEC" mine.log -l mine.log >"$WORK/out" 2>"$WORK/err"
check "an output named as the log is refused (status 2)" [ $? -eq 2 ]
check "the log is kept" cmp -s mine.log "$WORK/recv.log"
cd "$WORK" || die "no $WORK"
finish
