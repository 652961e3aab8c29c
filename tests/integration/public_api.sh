#!/bin/sh
# The programs use the public API only: their sources include nothing but
# itg.h, itg/*.h and the programs' own programs/cli.h, programs/report.h,
# programs/ditg_out.h, programs/json.h and programs/agent_cli.h (itg-mpi's
# MPI header is itg/mpi.h), and their copies linked against the shared
# library (BUILD/shared-bin; only the public API is visible there) serve a
# flow end to end: itg-log and itg-recv listen, itg-send sends,
# itg-dec reads the receiver's log.
BUILD=$1
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

bad=$(grep -n '#include "' "$SRC"/libitg/programs/*.c "$SRC"/libitg/programs/*.h \
  "$SRC"/libitg/programs/mpi/*.c |
  grep -v '#include "\(itg\.h\|itg/[a-z_]*\.h\|programs/cli\.h\|programs/report\.h\|programs/run_report\.h\|programs/ditg_out\.h\|programs/json\.h\|programs/agent_cli\.h\)"')
check "the programs include only itg.h, itg/*.h and their own cli.h, report.h, run_report.h, ditg_out.h, json.h, agent_cli.h" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad"

for p in itg-send itg-recv itg-log itg-dec itg-agent; do
  check "$p is linked against the shared library" \
    sh -c 'readelf -d "$1" | grep -q "NEEDED.*libitg\.so"' _ "$BUILD/shared-bin/$p"
done

LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
BIN="$BUILD/shared-bin"

mkdir "$WORK/logs" || die "mkdir"
start_log "$WORK/logs"
start_recv "$WORK/recv.log"
check "itg-send sends 200 packets" "$BIN/itg-send" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" -rp 0 -C 2000 -c 100 -z 200
check "itg-recv exits 0 on SIGTERM" stop_recv
check "with its summary" grep -q "^itg-recv: 200 packets" "$RECV_OUT"
kill -TERM "$LOG_PID"
check "itg-log exits 0 on SIGTERM" wait "$LOG_PID"
check "with its summary" grep -q "^itg-log: 0 sessions" "$LOG_OUT"
"$BIN/itg-dec" --json "$WORK/recv.log" >"$WORK/rep.json" ||
  die "itg-dec: $(cat "$WORK/rep.json")"
check "itg-dec counts the 200 packets" \
  [ "$(json_field "$WORK/rep.json" 'r["total"]["packets"]')" = 200 ]
finish
