#!/bin/sh
# itg-mpi's clock correction against a clock moved by a known amount:
# rank 1 sends to rank 2 (UDP and TCP, 2 s) with its real-time clock
# moved +0.25 s by libfaketime (the monotonic clock, on which sending is
# scheduled, left alone: FAKETIME_DONT_FAKE_MONOTONIC), so its packets
# carry send times 0.25 s ahead. The receiver's clock is left true: its
# records take the kernel's receive stamps, which libfaketime does not
# move, so only a sender's clock can be faked this way. libfaketime
# 0.9.10 also moves the timeout of a timed wait on a condition variable
# of the monotonic clock (libuv's) by default, which with the monotonic
# clock left alone puts it in the past: every timed wait would return at
# once (the flows stopped before they start). FAKETIME_FORCE_MONOTONIC_FIX=0
# turns that off. The offset reported is what takes the rank's clock to
# rank 0's (itg_mpi_clock): -0.25 s for a clock 0.25 s ahead. The ranks
# share one host, whose ranks itg-mpi otherwise takes as reading one clock:
# --clock-per-rank measures each. Three runs of the
# same experiment: unmoved; moved; moved with --no-clock-correction:
#   - the report's offset of rank 1 is within 50 us of -0.25 s (within
#     its uncertainty of 0 in the unmoved run);
#   - corrected, each flow's median one-way delay is within 1 ms of the
#     unmoved run's, and its mean under 10 ms;
#   - raw, the median is the unmoved run's less 0.25 s, within 1 ms.
# Medians, for a TCP segment sent again under load (some 100 ms late)
# moves a mean by as much as the 1 ms looked for.
# needs: install (libfaketime)
BUILD=$1
. "$(dirname "$0")/lib.sh"

FAKETIME_LIB=$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketime\.so\.1$' | head -n 1)
[ -n "$FAKETIME_LIB" ] && [ -f "$FAKETIME_LIB" ] || die "no libfaketime (make setup installs it)"

cat >"$WORK/owd.exp" <<'EXP'
@1  -a @2  -T UDP -C 500 -c 256 -t 2000
@1  -a @2  -T TCP -C 100 -c 512 -t 2000
EXP

# run NAME [FAKETIME [itg-mpi options]]: one run of 3 ranks, rank 1's
# clock moved by FAKETIME seconds if given; its JSON in WORK/NAME.json.
run() {
  name=$1
  shift
  fake=""
  if [ $# -gt 0 ]; then
    fake="env LD_PRELOAD=$FAKETIME_LIB FAKETIME=$1 FAKETIME_DONT_FAKE_MONOTONIC=1
      FAKETIME_FORCE_MONOTONIC_FIX=0"
    shift
  fi
  opts="--json --clock-per-rank -L $WORK/$name.logs --spill-dir $WORK $*"
  # shellcheck disable=SC2086
  timeout -k 5 60 $MPIRUN -np 1 "$ITG_MPI" $opts "$WORK/owd.exp" : \
    -np 1 $fake "$ITG_MPI" $opts "$WORK/owd.exp" : \
    -np 1 "$ITG_MPI" $opts "$WORK/owd.exp" >"$WORK/$name.json" 2>"$WORK/$name.err"
  st=$?
  sed 's/^/    /' "$WORK/$name.err"
  check "$name: itg-mpi exits 0" [ "$st" -eq 0 ]
}
run plain
run moved +0.25
run raw +0.25 --no-clock-correction

python3 - "$WORK" >"$WORK/cmp.txt" 2>&1 <<'PY'
import json, sys
d = sys.argv[1]
runs = {n: json.load(open("%s/%s.json" % (d, n))) for n in ("plain", "moved", "raw")}
for n, r in runs.items():
    k = r["ranks"][1]
    print("%s: rank 1 offset %+.6f s +- %.1f us; clock_correction %s"
          % (n, k["offset_s"], k["uncertainty_s"] * 1e6, r["clock_correction"]))
    for f in r["report"]["flows"]:
        print("    flow %d: %d packets, delay median %+.6f s mean %+.6f min %+.6f max %+.6f"
              % (f["flow"], f["packets"], f["delay_p50_s"], f["delay_avg_s"], f["delay_min_s"],
                 f["delay_max_s"]))
plain, moved, raw = (runs[n]["ranks"][1] for n in ("plain", "moved", "raw"))
print("offset", "ok" if abs(moved["offset_s"] + 0.25) <= 50e-6 and abs(raw["offset_s"] + 0.25) <= 50e-6
      and abs(plain["offset_s"]) <= max(plain["uncertainty_s"], 1e-6) else "wrong")
med = {n: {f["flow"]: f["delay_p50_s"] for f in r["report"]["flows"] if f["packets"] > 0}
       for n, r in runs.items()}
mean = {f["flow"]: f["delay_avg_s"] for f in runs["moved"]["report"]["flows"]}
ok_c = ok_r = len(med["plain"]) == 2
for flow, m in med["plain"].items():
    c, w = med["moved"].get(flow), med["raw"].get(flow)
    ok_c = ok_c and c is not None and abs(c - m) <= 1e-3 and abs(mean[flow]) < 10e-3
    ok_r = ok_r and w is not None and abs(w - (m - 0.25)) <= 1e-3
print("corrected", "ok" if ok_c else "wrong")
print("raw", "ok" if ok_r else "wrong")
PY
cat "$WORK/cmp.txt"
check "rank 1's offset found within 50 us of -0.25 s (0 unmoved)" grep -qx "offset ok" "$WORK/cmp.txt"
check "corrected delays: as unmoved (medians within 1 ms), mean under 10 ms" grep -qx "corrected ok" "$WORK/cmp.txt"
check "--no-clock-correction: delays 0.25 s less, within 1 ms" grep -qx "raw ok" "$WORK/cmp.txt"
finish
