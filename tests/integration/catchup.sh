#!/bin/sh
# The catch-up policies on the wire: an exponential flow (-E 500, 4500
# packets, a fixed seed) whose sender is stopped for 300 ms (SIGSTOP, then
# SIGCONT) while wiretap records every departure. With the default policy
# (law) the gaps below the law's 1st percentile are no more than in the
# same flow sent without a stop (plus sampling noise), the law passes a
# Kolmogorov-Smirnov test, and the schedule is met again: the last packet
# leaves when it does without a stop. burst, the absolute schedule sent
# as it is owed, puts the ~150 owed packets back to back and fails the
# first of these; skip drops them, its sequence numbers still contiguous.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"

# exp_flow PORT: the flow, to data port PORT, under POLICY. Its 4500
# packets end it: -t 30000 is only a bound, far beyond the 9 s they take,
# since skip's dropped departures take time and send nothing (a sanitizer
# build on a busy machine dropped 516, and the default 10 s ended the
# flow at 4409 packets).
exp_flow() {
  exec "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp "$1" -E 500 \
    -c 64 -z 4500 -t 30000 -s 7 --catchup "$POLICY"
}
# run NAME STOP POLICY: one flow, stopped STOP seconds (0: not stopped)
# once it is sending; its capture in NAME.cap, its summary in NAME.out,
# the receiver's log in NAME.log.
run() {
  POLICY=$3
  send_stopped "$1" "$2" exp_flow
  echo "  $1: $(cat "$WORK/$1.out")"
}
run calm 0 law
run law 0.3 law
run burst 0.3 burst
run skip 0.3 skip
"$BIN/itg-dec" --json "$WORK/skip.log" >"$WORK/skip.json" || die "itg-dec"

# wire CAP...: for each capture, its packets, largest gap (ms), gaps below
# the law's 1st percentile (-ln 0.99 x 2 ms = 20.1 us), under 10 us, the
# KS p-value of the gaps against the law, and the span first to last (ns).
wire() {
  PYTHONPATH="$TOOLS" python3 -c 'import sys
import numpy as np
from scipy import stats
import wirestats
for c in sys.argv[1:]:
    r = np.sort(wirestats.load(c), order="ts")
    ts = r["ts"].astype(np.int64)
    g = np.diff(ts)
    p = stats.kstest(g / 1e9, stats.expon(scale=0.002).cdf).pvalue
    print(len(ts), g.max() / 1e6, int((g < -np.log(0.99) * 2e6).sum()),
          int((g < 10000).sum()), p, ts[-1] - ts[0])' "$@"
}
wire "$WORK/calm.cap" "$WORK/law.cap" "$WORK/burst.cap" "$WORK/skip.cap" \
  >"$WORK/wire.txt" || die "wirestats"
echo "  packets, largest gap (ms), gaps < 20.1 us, < 10 us, KS p, span (ns):"
sed 's/^/    /' "$WORK/wire.txt"
read -r n_c max_c q_c u_c p_c span_c <<EOF
$(sed -n 1p "$WORK/wire.txt")
EOF
read -r n_l max_l q_l u_l p_l span_l <<EOF
$(sed -n 2p "$WORK/wire.txt")
EOF
read -r n_b max_b q_b u_b p_b span_b <<EOF
$(sed -n 3p "$WORK/wire.txt")
EOF
read -r n_s max_s q_s u_s p_s span_s <<EOF
$(sed -n 4p "$WORK/wire.txt")
EOF
# The law gives 1 % of 4499 gaps below its 1st percentile, 45 +- 6.7; a
# busy machine adds some of its own (a late departure then one on time),
# which the calm run of the same minute counts. Four standard deviations
# of the larger of the two, and ten more, bound what the stop may add:
# burst's ~150 owed packets back to back are far beyond.
bound=$(python3 -c 'import math,sys; b=max(45,int(sys.argv[1])); print(int(b+4*math.sqrt(b)+10))' "$q_c")
short_ok() { [ "$1" -le "$bound" ]; }
stalled() { at_least "$1" 250; }
check "4500 packets on the wire in each run" eval \
  '[ "$n_c" -eq 4500 ] && [ "$n_l" -eq 4500 ] && [ "$n_b" -eq 4500 ] && [ "$n_s" -eq 4500 ]'
check "the stop shows on the wire (a gap of 250 ms or more)" \
  eval 'stalled "$max_l" && stalled "$max_b" && stalled "$max_s"'
check "burst: the owed packets back to back ($q_b > $bound)" \
  eval '! short_ok "$q_b"'
# field 1|2 RUN: the departures RUN's summary says were shifted (1) or
# skipped (2); it names them only when there are some.
field() {
  v=$(sed -n "s/.*catch-up shifted \([0-9]*\), skipped \([0-9]*\).*/\\$1/p" "$WORK/$2.out")
  echo "${v:-0}"
}
# The debt is paid at 0.2 of an IDT a departure, 400 us on average; a
# machine whose own delays (a sanitizer build on a busy machine) come near
# that leaves no room to pay it, and moves departures without any stop:
# the calm run counts them. Past 10 % of the flow, the law and the mean
# rate are not judged, and the short gaps not against the calm run: such
# a machine makes one run noisier than another a minute later (87 short
# gaps calm, 147 law, in one run of this test, 1406 departures moved
# calm). They are judged against burst's then, the stop paid back to
# back: the law may add no more than half as many.
if [ "$(field 1 calm)" -le 300 ]; then
  check "law: gaps below the 1st percentile $q_l <= $bound" short_ok "$q_l"
  check "law: the gaps pass KS against the law (p $p_l >= 0.01)" \
    at_least "$p_l" 0.01
  check "law: the last packet leaves as without a stop (span within 0.1 %)" \
    python3 -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(not abs(a - b) <= b / 1000)' "$span_l" "$span_c"
else
  echo "  note: this machine moved $(field 1 calm) departures of the calm run;" \
    "the law and the mean rate after the stop are not judged"
  check "law: short gaps added, $((q_l - q_c)), at most half of burst's, $((q_b - q_c))" \
    eval '[ $((2 * (q_l - q_c))) -le $((q_b - q_c)) ]'
fi
check "law: the moved departures counted (shifted $(field 1 law) >= 150)" \
  eval '[ "$(field 1 law)" -ge 150 ] && [ "$(field 2 law)" -eq 0 ]'
check "burst: nothing moved or dropped" \
  eval '! grep -q "catch-up" "$WORK/burst.out"'
check "skip: the owed departures dropped and counted ($(field 2 skip) >= 120)" \
  eval '[ "$(field 2 skip)" -ge 120 ] && [ "$(field 1 skip)" -eq 0 ]'
check "skip: every packet sent logged, none lost (sequence numbers count those sent)" \
  python3 -c 'import json,sys
f=json.load(open(sys.argv[1]))["end"]["flows"]
sys.exit(not (len(f)==1 and f[0]["packets"]==4500 and f[0]["lost"]==0))' "$WORK/skip.json"
finish
