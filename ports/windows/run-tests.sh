#!/bin/sh
# Runs the Windows build's unit tests, then a loopback flow between
# itg-send.exe and itg-recv.exe, then itg-agent.exe driven by the native
# itg-ctl (ports/cross-agent.sh), under wine64 with a private prefix in
# BUILD/wine (made on first use; nothing is written to ~/.wine), then
# prints their stripped sizes.
# Usage: run-tests.sh [BUILD]   (default build/windows)
BUILD=${1:-build/windows}
ports=$(dirname "$0")/..

WINE=/usr/lib/wine/wine64
[ -x "$WINE" ] || WINE=$(command -v wine64) || {
  echo "windows: wine64 is not installed (ports/windows/deps.sh installs it)" >&2
  exit 1
}
WINEPREFIX=$(cd "$BUILD" && pwd)/wine
# Quiet, and no offer to install Mono or Gecko: console programs need
# neither.
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "windows: making the wine prefix $WINEPREFIX"
  if ! timeout 300 "$WINE" wineboot --init >"$BUILD/wineboot.log" 2>&1; then
    tail -n 20 "$BUILD/wineboot.log" >&2
    exit 1
  fi
fi

# Wine hands SO_RCVBUF to Linux, which caps it at net.core.rmem_max;
# Windows grants what is asked. The receiver asks for 32 MiB so that a
# busy machine's stalls do not overflow its data sockets: under the cap,
# the tests' receivers (100 flows at once, on a loaded machine) lost
# datagrams in the kernel that Windows would have kept. Lift the cap for
# the run, as Windows has none, and put it back after.
rmem=/proc/sys/net/core/rmem_max
rmem_was=$(cat "$rmem" 2>/dev/null || echo 0)
if [ "$rmem_was" -lt 33554432 ]; then
  if echo 33554432 2>/dev/null >"$rmem"; then
    trap 'echo "$rmem_was" >"$rmem"' EXIT
  else
    echo "windows: cannot raise net.core.rmem_max (not root?): wine's" \
      "receive buffers stay at $rmem_was bytes, and a loaded machine" \
      "may drop datagrams that Windows would keep" >&2
  fi
fi

sh "$ports/../tests/run-unit.sh" "$BUILD" windows "$WINE"
unit=$?
sh "$ports/cross-flow.sh" windows "$BUILD" .exe "$WINE"
flow=$?
# The native itg-ctl drives this build's itg-agent (the native build,
# ITG_NATIVE_BIN, default build/bin, is made first by make test).
sh "$ports/cross-agent.sh" windows "$BUILD" .exe "${ITG_NATIVE_BIN:-build/bin}" "$WINE"
agent=$?
sh "$ports/footprint.sh" windows "$BUILD" .exe x86_64-w64-mingw32-strip
size=$?
[ "$unit" -eq 0 ] && [ "$flow" -eq 0 ] && [ "$agent" -eq 0 ] && [ "$size" -eq 0 ]
