#!/bin/sh
# A cross build's itg-agent, run through the target's runner (wine64,
# qemu-arm, ...), driven by the native itg-ctl beside a native itg-agent,
# on loopback: flows from the target's agent to the native one, back, and
# to itself (TCP), released at one instant. itg-ctl must exit 0 with every
# flow OK and sent = received, the receivers' logs it fetched (one of them
# from the target's agent) holding every packet; the target's agent must
# stop cleanly on SIGINT. Every wait is bounded; ports are picked by the
# system. Prints "<target> agent: N passed, M failed".
# Usage: cross-agent.sh TARGET BUILD EXE NATIVE_BIN RUNNER [RUNNER ARGUMENTS...]
#   EXE: the programs' suffix (.exe on Windows, else empty); NATIVE_BIN:
#   the native build's programs (itg-ctl, itg-agent).
target=$1
BUILD=$2
EXE=$3
NATIVE=$4
shift 4
BIN=$(cd "$BUILD" && pwd)/bin
SUITE="$target agent"
. "$(dirname "$0")/cross-lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/itg-agent.XXXXXX")
AGENT_PID=""
NATIVE_PID=""

cleanup() {
  [ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null
  [ -n "$NATIVE_PID" ] && kill -9 "$NATIVE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# ctl_port FILE: the control port of an agent's listening line (Windows
# programs end their lines with CR LF).
ctl_port() { tr -d '\r' <"$1" | sed -n 's/^itg-agent: listening ctl=\([0-9]*\).*/\1/p'; }
listening() { [ -n "$(ctl_port "$1")" ]; }
gone() { ! kill -0 "$AGENT_PID" 2>/dev/null; }

[ -f "$BIN/itg-agent$EXE" ] || { echo "$target agent: $BIN/itg-agent$EXE is missing" >&2; exit 1; }
for p in itg-ctl itg-agent; do
  [ -x "$NATIVE/$p" ] || { echo "$target agent: $NATIVE/$p is missing (build natively first)" >&2; exit 1; }
done

printf 'the token of cross-agent.sh, 32 bytes or more\n' >"$WORK/token"
mkdir -p "$WORK/target" "$WORK/native"
# The target's agent is given paths relative to its working directory:
# wine maps them as they are, where an absolute Unix path would not be.
(cd "$WORK" && exec timeout 300 "$@" "$BIN/itg-agent$EXE" --listen 127.0.0.1:0 \
  -Sp 0 --token-file token --log-dir target >agent.out 2>&1) &
AGENT_PID=$!
"$NATIVE/itg-agent" --listen 127.0.0.1:0 -Sp 0 --token-file "$WORK/token" \
  --log-dir "$WORK/native" >"$WORK/native.out" 2>&1 &
NATIVE_PID=$!
# Emulators start slowly (wine makes its prefix the first time).
if ! wait_until 120 listening "$WORK/agent.out" || ! wait_until 10 listening "$WORK/native.out"; then
  echo "$target agent: an agent did not listen:" >&2
  cat "$WORK/agent.out" "$WORK/native.out" >&2
  exit 1
fi

cat >"$WORK/cross.exp" <<'EXP'
@T  -a @N  -T UDP -C 500 -c 256 -z 1000
@N  -a @T  -T UDP -C 500 -c 512 -z 1000
@T  -a @T  -T TCP -C 200 -c 1024 -z 400
EXP
timeout 180 "$NATIVE/itg-ctl" --token-file "$WORK/token" \
  --agent "T=127.0.0.1:$(ctl_port "$WORK/agent.out")" \
  --agent "N=127.0.0.1:$(ctl_port "$WORK/native.out")" --json -L "$WORK/logs" \
  "$WORK/cross.exp" >"$WORK/ctl.json" 2>"$WORK/ctl.err"
check "itg-ctl exits 0" [ $? -eq 0 ]
check "every flow OK, sent = received; the fetched logs hold every packet" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for f in r["flows"]:
    print("    flow %d agent %d -> %d: %s, sent %d, received %d" % (f["flow"], f["sender_agent"],
          f["receiver_agent"], f["status"], f["sent"], f["received"]))
sent = sum(f["sent"] for f in r["flows"])
got = r["report"]["total"]["packets"] if r["report"] else -1
print("    the fetched logs: %d packets of %d sent" % (got, sent))
sys.exit(not (sent == 2400 and got == sent and all(
    f["status"] == "OK" and f["sent"] == f["received"] for f in r["flows"])))' "$WORK/ctl.json"

kill -INT "$AGENT_PID"
check "the $target agent stops on SIGINT" wait_until 30 gone
wait "$AGENT_PID"
check "the $target agent exits 0" [ $? -eq 0 ]
AGENT_PID=""

if [ "$failed" -ne 0 ]; then
  for f in ctl.err agent.out native.out; do
    echo "---- $f:"
    tail -n 20 "$WORK/$f"
  done
fi
finish
