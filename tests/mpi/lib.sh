# Shared by the shell tests of itg-mpi (tests/mpi/*.sh): sourced, with
# BUILD set and MPIRUN (mpirun and its options) exported by run.sh. The
# helpers of the integration tests (check, finish, die, wait_until,
# build_tool, WIRETAP, WORK) come with it.
. "$(dirname "$0")/../integration/lib.sh"
[ -n "$MPIRUN" ] || die "MPIRUN is not set: run the test through tests/mpi/run.sh"
ITG_MPI="$BIN/itg-mpi"
[ -x "$ITG_MPI" ] || die "no $ITG_MPI (make tests builds it where mpicc is)"
# The tools' Python modules (logrecs).
PYTHONPATH="$TOOLS${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

# tap_all PROTO FILE [IFACE NETNS]: captures every packet of PROTO (udp
# or tcp) on IFACE (default lo) in network namespace NETNS (default this
# one), each record with its destination port (wiretap -d), for at most
# a minute or until stop_taps; waits until the capture runs.
TAPS=""
tap_all() {
  build_tool wiretap
  # ip netns exec runs wiretap in its own process: its pid is wiretap's.
  ${4:+ip netns exec "$4"} "$WIRETAP" -p "$1" -d "${3:-lo}" 0 60 "$2" 2>"$2.err" &
  PIDS="$PIDS $!"
  TAPS="$TAPS $!"
  wait_until 10 grep -qs ready "$2.err" || die "wiretap did not start: $(cat "$2.err")"
}

# stop_taps: ends the captures, every packet they saw written (a packet
# that was received has passed them: loopback hands a packet to the taps
# before it delivers it).
stop_taps() {
  for p in $TAPS; do kill -TERM "$p" 2>/dev/null; done
  for p in $TAPS; do wait "$p"; done
  TAPS=""
}

# taps_whole FILE...: every capture FILE (its wiretap's FILE.err) ended
# with no packet dropped by the kernel for want of room.
taps_whole() {
  for f in "$@"; do
    grep -q "kernel drops 0$" "$f.err" || return 1
  done
}
