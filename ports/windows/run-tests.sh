#!/bin/sh
# Runs the Windows build's unit tests, then a loopback flow between
# itg-send.exe and itg-recv.exe, under wine64 with a private prefix in
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

sh "$ports/../tests/run-unit.sh" "$BUILD" windows "$WINE"
unit=$?
sh "$ports/cross-flow.sh" windows "$BUILD" .exe 19410 "$WINE"
flow=$?
sh "$ports/footprint.sh" windows "$BUILD" .exe x86_64-w64-mingw32-strip 19440
size=$?
[ "$unit" -eq 0 ] && [ "$flow" -eq 0 ] && [ "$size" -eq 0 ]
