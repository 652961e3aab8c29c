#!/bin/sh
# The C example runs (a receiver and a sender in one process, 2 000 packets,
# none lost), and the README shows exactly that program.
BUILD=$1
. "$(dirname "$0")/lib.sh"

(cd "$WORK" && "$BUILD/examples/quickstart" "$WORK/q.itglog") >"$WORK/out" 2>&1
st=$?
cat "$WORK/out"
check "the C example succeeds" [ "$st" -eq 0 ]
check "it reports 2000 packets" grep -q "^packets 2000, lost 0" "$WORK/out"
awk '/^```c$/ {on=1; next} /^```$/ {on=0} on' README.md >"$WORK/readme.c"
check "README.md shows examples/c/quickstart.c" cmp -s "$WORK/readme.c" examples/c/quickstart.c
finish
