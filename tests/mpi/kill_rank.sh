#!/bin/sh
# A rank killed in the middle of an itg-mpi run: 4 ranks, one UDP flow
# from each of ranks 1-3 for 4 s (1 -> 3, 2 -> 3, 3 -> 1), under mpirun
# --enable-recovery, so that a rank's death does not abort the others.
# Once rank 2's flow is on the wire (20 of its packets captured, found by
# the data port its socket is connected to), rank 2 gets SIGKILL. Then
#   - rank 0 names rank 2, its host and its flow (2) on stderr;
#   - flows 1 and 3 are complete: status OK, sent = received = the
#     datagrams captured = their sender and receiver records in the logs
#     rank 0 gathered; rank 2 is reported not to have ended;
#   - the job ends within BOUND s of its start: the flows' 4 s, the grace
#     (--grace 2000: how long rank 3 waits for the end of the flow that
#     stopped), the silence (--silence 3000: how long rank 0 waits for a
#     rank that says nothing) and 6 s of margin for set-up and a loaded
#     machine. A gatherer that waits for a silence of all ranks at once,
#     not of each rank, still ends within it: the others have ended by
#     then. Open MPI's closing barrier in MPI_Finalize, which the dead
#     rank never reaches, held the others for good, now and then (about
#     1 run in 3), before itg-mpi turned it off.
# mpirun itself exits 0 whatever rank 0 found (its recovery mode), so the
# verdict is read from rank 0's output; it also prints a harmless "PMIX
# ERROR: BAD-PARAM" line.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
BOUND=15

cat >"$WORK/kill.exp" <<'EXP'
@1  -a @3  -T UDP -C 200 -c 256 -t 4000
@2  -a @3  -T UDP -C 200 -c 256 -t 4000
@3  -a @1  -T UDP -C 200 -c 256 -t 4000
EXP

tap_all udp "$WORK/udp.bin"
t0=$(date +%s%N)
# shellcheck disable=SC2086
timeout -k 5 60 $MPIRUN --enable-recovery -x ITG_TEST_RUN="$WORK" -np 4 "$ITG_MPI" --json \
  --grace 2000 --silence 3000 -L "$WORK/logs" --spill-dir "$WORK" "$WORK/kill.exp" \
  >"$WORK/out.json" 2>"$WORK/err.txt" &
JOB=$!
PIDS="$PIDS $JOB"
# Rank 2: the itg-mpi process of this run (ITG_TEST_RUN) whose rank is 2;
# its flow's data port, the remote port of its connected UDP socket; the
# kill once 20 datagrams of flow 2 went to that port.
python3 - "$WORK" "$t0" >"$WORK/kill.txt" 2>&1 <<'PY'
import os, signal, sys, time
import numpy as np

work, t0 = sys.argv[1], int(sys.argv[2])
mark = ("ITG_TEST_RUN=" + work).encode()
CAP = np.dtype([("ts", "<u8"), ("len", "<u4"), ("head", ">u4"), ("port", "<u4"), ("seq", "<u4")])


def rank_pid(rank):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open("/proc/%s/comm" % pid).read().strip() != "itg-mpi":
                continue
            env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if mark in env and ("OMPI_COMM_WORLD_RANK=%d" % rank).encode() in env:
            return int(pid)


def udp_peer_ports(pid):
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = set()
    for table in ("udp", "udp6"):
        for line in open("/proc/%d/net/%s" % (pid, table)).readlines()[1:]:
            f = line.split()
            port = int(f[2].rsplit(":", 1)[1], 16)
            if f[9] in inodes and port:
                ports.add(port)
    return ports


deadline = time.monotonic() + 30
pid, ports, seen = None, set(), 0
while time.monotonic() < deadline:
    try:
        pid = pid or rank_pid(2)
        ports = ports or (udp_peer_ports(pid) if pid else set())
    except OSError:
        pass
    if ports:
        c = np.fromfile(work + "/udp.bin", dtype=CAP)
        seen = int(np.count_nonzero(np.isin(c["port"], list(ports)) & (c["head"] == 2)))
        if seen >= 20:
            break
    time.sleep(0.02)
else:
    sys.exit("rank 2's flow not seen on the wire (pid %s, ports %s, %d packets)" % (pid, ports, seen))
os.kill(pid, signal.SIGKILL)
print("killed rank 2 (pid %d) at %.3f s, %d of its packets seen" % (pid, (time.time_ns() - t0) / 1e9, seen))
PY
kst=$?
wait "$JOB"
st=$?
t1=$(date +%s%N)
stop_taps
cat "$WORK/kill.txt"
elapsed=$(((t1 - t0) / 1000000))
echo "mpirun exit $st after $elapsed ms (bound $BOUND s); rank 0's stderr:"
sed 's/^/    /' "$WORK/err.txt"
check "rank 2 killed once its flow was on the wire" [ "$kst" -eq 0 ]
check "the job ended within $BOUND s" [ "$elapsed" -le $((BOUND * 1000)) ]
check "rank 0 names rank 2, its host and its flow on stderr" python3 -c 'import socket, sys
err = open(sys.argv[1]).read()
lines = [l for l in err.splitlines() if "rank 2" in l]
host = socket.gethostname()
print("    lines naming rank 2:", lines)
sys.exit(not any(host in l for l in lines) or not any("flow 2" in l for l in err.splitlines()))' "$WORK/err.txt"
# A capture that missed packets (its ring overflowed on a loaded machine,
# other programs' traffic on lo filling it too) is no witness: the counts
# are then held against the logs alone.
whole=0
taps_whole "$WORK/udp.bin" && whole=1
python3 - "$WORK" "$whole" >"$WORK/cmp.txt" 2>&1 <<'PY'
import glob, json, sys
import numpy as np
from logrecs import records

d, whole = sys.argv[1], sys.argv[2] == "1"
rep = json.load(open(d + "/out.json"))
CAP = np.dtype([("ts", "<u8"), ("len", "<u4"), ("head", ">u4"), ("port", "<u4"), ("seq", "<u4")])
cap = np.fromfile(d + "/udp.bin", dtype=CAP)
recs = {}
for path in glob.glob(d + "/logs/rank-*.itglog"):
    for flow, size, flags, seq in records(path):
        if flags & 0x30:
            continue
        k = (flow, "tx" if flags & 1 else "rx")
        recs[k] = recs.get(k, 0) + 1
for r in rep["ranks"]:
    print("rank %d: reported %s silent %s error %r records %d"
          % (r["rank"], r["reported"], r["silent"], r["error"], r["records"]))
ok = True
for f in rep["flows"]:
    wire = int(np.count_nonzero((cap["port"] == f["data_port"]) & (cap["head"] == f["flow"])))
    tx, rx = recs.get((f["flow"], "tx"), 0), recs.get((f["flow"], "rx"), 0)
    print("flow %d %d->%d: reported %s status %s sent %d received %d wire %d records tx %d rx %d"
          % (f["flow"], f["sender_rank"], f["receiver_rank"], f["reported"], f["status"],
             f["sent"], f["received"], wire, tx, rx))
    if f["flow"] != 2:
        ok = ok and f["status"] == "OK" and f["sent"] == f["received"] == tx == rx == 800
        ok = ok and (wire == 800 or not whole)
if not whole:
    print("the capture missed packets: the wire not compared")
print("others", "complete" if ok else "incomplete")
r2 = rep["ranks"][2]
print("rank 2", "failed" if r2["silent"] or not r2["reported"] else "ok")
PY
cat "$WORK/cmp.txt"
check "flows 1 and 3 complete: sent = received = wire = records = 800" \
  grep -qx "others complete" "$WORK/cmp.txt"
check "rank 2 reported silent or not reported" grep -qx "rank 2 failed" "$WORK/cmp.txt"
finish
