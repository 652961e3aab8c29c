#!/bin/sh
# Runs the aarch64 build's unit tests, then a loopback flow, then its
# itg-agent driven by the native itg-ctl (ports/cross-agent.sh), under
# qemu-aarch64, then prints the stripped sizes of itg-send and itg-recv.
# Usage: run-tests.sh [BUILD]   (default build/aarch64)
#
# The programs load the multiarch libc6:arm64 that deps.sh brings in (see
# ports/armhf/run-tests.sh for why not qemu's -L).
BUILD=${1:-build/aarch64}
ports=$(dirname "$0")/..
sh "$ports/../tests/run-unit.sh" "$BUILD" aarch64 qemu-aarch64
unit=$?
sh "$ports/cross-flow.sh" aarch64 "$BUILD" "" qemu-aarch64
flow=$?
# The native itg-ctl drives this build's itg-agent (the native build,
# ITG_NATIVE_BIN, default build/bin, is made first by make test).
sh "$ports/cross-agent.sh" aarch64 "$BUILD" "" "${ITG_NATIVE_BIN:-build/bin}" qemu-aarch64
agent=$?
sh "$ports/footprint.sh" aarch64 "$BUILD" "" aarch64-linux-gnu-strip
size=$?
[ "$unit" -eq 0 ] && [ "$flow" -eq 0 ] && [ "$agent" -eq 0 ] && [ "$size" -eq 0 ]
