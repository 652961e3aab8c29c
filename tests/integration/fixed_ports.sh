#!/bin/sh
# No test names a fixed port: two runs of the tests on one machine must
# never collide, so receivers and log servers listen on port 0 (the port
# read from the line they print), flows ask for data port 0, and a port
# needed in advance is one the system just picked. This fails on any test
# script, binding test, example or cross-build script that passes a
# non-zero port to -Sp, -Sdp, -rp, --sig-port, --dst-port, itg-log's -p,
# or a binding's port argument, or that names a port of the ranges the
# tests once used (8999, 9000, 9001, 19000-19999). A line that must name
# one (a default checked without binding it, D-ITG's ITGLog, which takes
# no other port) says so with the words "fixed port:" in a comment. The
# unit tests and the fuzzers' seeds, whose ports are message fields and
# option values that nothing binds, are searched for D-ITG's default ports
# only.
BUILD=$1
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || die "no tree"
cd "$ROOT" || die "cd $ROOT"

files=$(find tests/integration tests/accept tests/bench ports examples \
  bindings/python/tests bindings/java/src/test \
  -type f \( -name '*.sh' -o -name '*.py' -o -name '*.java' -o -name '*.c' \
  -o -name '*.txt' \) ! -path tests/integration/fixed_ports.sh | sort)
[ -n "$files" ] || die "no files to check"
units=$({ find tests tests/helpers tests/mpi -maxdepth 1 -type f -name '*.[ch]'
  find tests/fuzz/corpus -type f; } | sort)
[ -n "$units" ] || die "no unit tests to check"

opt='(^|[^[:alnum:]-])(-Sp|-Sdp|-rp|--sig-port|--dst-port)[[:space:]"=]+[1-9]'
log='itg-log[^|;&]*[[:space:]]-p[[:space:]"]+[1-9]'
api='(sig_port|dst_port|port)[[:space:]]*=[[:space:]]*[1-9]|(sigPort|dataPort|port)\([1-9]'
num='(^|[^[:alnum:]._])(8999|9000|9001|19[0-9]{3})($|[^[:alnum:]_])'
dflt='(^|[^[:alnum:]._])(8999|9000|9001)($|[^[:alnum:]_])'
# shellcheck disable=SC2086
{ grep -nE -e "$opt" -e "$log" -e "$api" -e "$num" $files
  grep -anE -e "$dflt" $units; } | grep -v "fixed port:" >"$WORK/found"
echo "  checked $(echo "$files" | wc -l) files and $(echo "$units" | wc -l) unit tests and seeds"
sed 's/^/    /' "$WORK/found"
check "no test names a fixed port" [ ! -s "$WORK/found" ]
finish
