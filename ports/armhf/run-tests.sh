#!/bin/sh
# Runs the armhf build's unit tests, then a loopback flow, then its
# itg-agent driven by the native itg-ctl (ports/cross-agent.sh), under
# qemu-arm, then measures its footprint (stripped sizes; itg-recv's resident memory
# serving 10 flows, under 8 MiB).
# Usage: run-tests.sh [BUILD]   (default build/armhf)
#
# The programs load the multiarch libc6:armhf that deps.sh brings in, the
# same C library as libuv1:armhf and the rest were built against. Not
# qemu's -L /usr/arm-linux-gnueabihf: that loader and C library come from
# the cross toolchain's older build, and mixed with the multiarch
# libraries they crash or hang in threaded code.
BUILD=${1:-build/armhf}
ports=$(dirname "$0")/..
sh "$ports/../tests/run-unit.sh" "$BUILD" armhf qemu-arm
unit=$?
sh "$ports/cross-flow.sh" armhf "$BUILD" "" qemu-arm
flow=$?
# The native itg-ctl drives this build's itg-agent (the native build,
# ITG_NATIVE_BIN, default build/bin, is made first by make test).
sh "$ports/cross-agent.sh" armhf "$BUILD" "" "${ITG_NATIVE_BIN:-build/bin}" qemu-arm
agent=$?
sh "$ports/footprint.sh" armhf "$BUILD" "" arm-linux-gnueabihf-strip qemu-arm
size=$?
[ "$unit" -eq 0 ] && [ "$flow" -eq 0 ] && [ "$agent" -eq 0 ] && [ "$size" -eq 0 ]
