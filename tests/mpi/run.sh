#!/bin/sh
# Runs the tests of libitg-mpi (tests/mpi/*.c, built in BUILD/tests/mpi)
# under mpirun, on this host alone, each run within a time limit, and
# prints one closing line: "mpi: N passed, M failed".
#   clock_start  4 ranks: offsets within their uncertainty of 0 and 1 ms,
#                the ranks woken within 1 ms of one another;
#   faketime     3 ranks, two of them with their real-time clock moved by
#                libfaketime (+0.125 s on rank 0, -1.5 s on rank 2): each
#                offset found within its uncertainty and 50 us of the one
#                set, and the start still common;
#   bad_input    2 ranks: refusals on every rank at once;
#   log_gather   4 ranks: ranks 1-3 log 200 000 records each over MPI,
#                rank 0 gathers them: each exactly once, in order, in the
#                gathered file or the rank's spill file, counts agreeing;
#   log_silent   4 ranks, rank 3 making no logger: the gatherer gives it
#                up after its timeout (3 s without a message), naming it;
#   log_idle     3 ranks logging nothing for 3 s halfway: their loggers'
#                keepalives keep the gatherer (timeout 2.5 s) waiting;
#   log_level    2 ranks under MPI_THREAD_SERIALIZED: no MPI logger;
#   log_spill    4 ranks logging while rank 0 does not gather yet: what is
#                not in flight spills (rank 2's spill file failing past
#                its first block), the spilled count the same in the
#                logger, its end marker and its file, none counted twice;
#                rank 3 logging once rank 0 gave it up: its close ends;
#   log_account  3 ranks sending messages by hand: rank 1 malformed ones
#                (the gatherer's gaps, bad messages and spilled counts)
#                and keepalives for 4.5 s, rank 2 a keepalive telling of
#                messages that never came and then nothing: given up after
#                the 3 s timeout while rank 1 goes on;
#   run_refuse   3 ranks: itg_mpi_run refuses a placement, a network with
#                no address, a missing log directory and a setting bad on
#                one rank, alike on every rank, then runs three flows.
# The shell tests of itg-mpi (tests/mpi/*.sh, beside lib.sh and netns.sh),
# each run whole within its time limit (root, for those that say so in
# their "# needs:" line):
#   wire         4 ranks, a mixed experiment captured on lo: packets (UDP)
#                and bytes (TCP) on the wire = records = counts, flow by
#                flow, and the first packets within 1 ms on the wire.
#   netns_loss   3 ranks, the sender in one namespace, the receiver in
#                another, a UDP flow over a tbf bottleneck (netns.sh): the
#                loss reported = sent - delivered on the wire = tbf drops.
#   faketime_owd 3 ranks, the sender's clock moved +0.25 s: its offset
#                found, one-way delays corrected (as unmoved), and off by
#                0.25 s with --no-clock-correction.
#   kill_rank    4 ranks, rank 2 killed during its flow (mpirun
#                --enable-recovery): rank 0 names it and its flow, the
#                other flows complete, the job ends within 15 s.
# With ITG_SAN set (BUILD built with SAN=1, make test's sanitizer pass)
# the ranks keep the sanitizers' reports on but not their leak check (Open
# MPI keeps memory to its end by design), and the two libfaketime tests are
# left out: libfaketime preloaded ahead of the sanitizer's runtime stops it.
# Usage: run.sh [BUILD [NAME...]]   NAME...: only these tests
BUILD=${1:-build}
[ $# -gt 0 ] && shift
ONLY=$*
BIN=$BUILD/tests/mpi
HERE=$(dirname "$0")

if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi: skipped: no mpirun (make setup installs Open MPI)"
  exit 0
fi
# Open MPI refuses root unless told twice; tests run as root in CI.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Open MPI's session files go to a directory of this run, removed after.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/itg-mpi.XXXXXX") || exit 1
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT INT TERM

# More ranks than cores (--oversubscribe); shared memory between the ranks
# (vader) and loopback for mpirun's own connections, no other network; the
# copy through ptrace that vader would try for large messages is off (a
# container may forbid it). A rank waiting for a message polls: it yields
# the core while it does (mpi_yield_when_idle), so on a machine with
# fewer cores than ranks the rank it waits for gets to run.
MPIRUN="mpirun --oversubscribe --mca btl self,vader
  --mca btl_vader_single_copy_mechanism none --mca oob_tcp_if_include lo
  --mca mpi_yield_when_idle 1"
SAN=${ITG_SAN:-}
if [ -n "$SAN" ]; then
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
  export ASAN_OPTIONS
  MPIRUN="$MPIRUN -x ASAN_OPTIONS"
fi
export MPIRUN
LIMIT=120

passed=0
failed=0
failures=""
# run NAME MPIRUN-ARGUMENTS...: one mpirun, its output kept in
# BUILD/tests/mpi/NAME.log and shown.
run() {
  name=$1
  shift
  wanted "$name" || return 0
  # shellcheck disable=SC2086
  if timeout -k 10 "$LIMIT" $MPIRUN "$@" >"$BIN/$name.log" 2>&1; then
    passed=$((passed + 1))
    sed "s/^/  /" "$BIN/$name.log"
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "---- $name failed:"
    tail -n 40 "$BIN/$name.log"
  fi
}

# wanted NAME: NAME is among the tests asked for (all when none was).
wanted() {
  [ -z "$ONLY" ] || echo " $ONLY " | grep -q " $1 "
}

# run_sh NAME LIMIT: the shell test tests/mpi/NAME.sh, at most LIMIT
# seconds; skipped (not counted) without root if its "# needs:" line
# names root.
run_sh() {
  wanted "$1" || return 0
  if [ "$(id -u)" -ne 0 ] && grep -q '^# needs:.*root' "$HERE/$1.sh"; then
    echo "mpi: $1 skipped: needs root"
    return 0
  fi
  if timeout -k 10 "$2" sh "$HERE/$1.sh" "$BUILD" >"$BIN/$1.log" 2>&1; then
    passed=$((passed + 1))
    sed "s/^/  /" "$BIN/$1.log"
  else
    failed=$((failed + 1))
    failures="$failures $1"
    echo "---- $1 failed:"
    tail -n 60 "$BIN/$1.log"
  fi
}

run clock_start -np 4 "$BIN/clock_start"

# libfaketime moves the real-time clock of a rank by a fixed amount, and
# leaves the monotonic clock alone (FAKETIME_DONT_FAKE_MONOTONIC), which
# itg_mpi_start_at sleeps on.
FAKETIME_LIB=$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketime\.so\.1$' | head -n 1)
if [ -n "$SAN" ]; then
  echo "mpi: faketime skipped: libfaketime does not go with the sanitizers"
elif [ -n "$FAKETIME_LIB" ] && [ -f "$FAKETIME_LIB" ]; then
  run faketime \
    -np 1 env LD_PRELOAD="$FAKETIME_LIB" FAKETIME=+0.125 \
      FAKETIME_DONT_FAKE_MONOTONIC=1 \
      "$BIN/clock_start" --ahead 0.125 --offset-max 50000 : \
    -np 1 "$BIN/clock_start" --offset-max 50000 : \
    -np 1 env LD_PRELOAD="$FAKETIME_LIB" FAKETIME=-1.5 \
      FAKETIME_DONT_FAKE_MONOTONIC=1 \
      "$BIN/clock_start" --ahead -1.5 --offset-max 50000
else
  echo "mpi: faketime skipped: no libfaketime (make setup installs it)"
fi

run bad_input -np 2 "$BIN/bad_input"
run log_gather -np 4 "$BIN/log_gather" --records 200000
run log_silent -np 4 "$BIN/log_gather" --records 20000 --silent 3 \
  --timeout-ms 3000
run log_idle -np 3 "$BIN/log_gather" --records 20000 --idle-ms 3000 \
  --timeout-ms 2500
run log_level -np 2 "$BIN/log_gather" --serialized
run log_account -np 3 "$BIN/log_account"
run log_spill -np 4 "$BIN/log_spill"
run run_refuse -np 3 "$BIN/run_refuse"
# Three tries of about 5 s each at most, on a loaded machine.
run_sh wire 150
run_sh netns_loss 90
if [ -z "$SAN" ]; then
  run_sh faketime_owd 90
else
  echo "mpi: faketime_owd skipped: libfaketime does not go with the sanitizers"
fi
run_sh kill_rank 90

echo "mpi: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
