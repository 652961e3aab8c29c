#!/bin/sh
# Installs the aarch64 (arm64) toolchain, qemu-aarch64 and the arm64
# runtime packages of libuv, cmocka and GSL.
exec sh "$(dirname "$0")/../multiarch-deps.sh" arm64 aarch64-linux-gnu
