# Shared by the shell tests of itg-mpi (tests/mpi/*.sh): sourced, with
# BUILD set and MPIRUN (mpirun and its options) exported by run.sh. The
# helpers of the integration tests (check, finish, die, wait_until,
# build_tool, WIRETAP, WORK, the captures tap_all, stop_taps, taps_whole)
# come with it.
. "$(dirname "$0")/../integration/lib.sh"
[ -n "$MPIRUN" ] || die "MPIRUN is not set: run the test through tests/mpi/run.sh"
ITG_MPI="$BIN/itg-mpi"
[ -x "$ITG_MPI" ] || die "no $ITG_MPI (make tests builds it where mpicc is)"
# The tools' Python modules (logrecs).
PYTHONPATH="$TOOLS${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
