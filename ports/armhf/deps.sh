#!/bin/sh
# Installs the armhf (ARMv7 hard-float) toolchain, qemu-arm and the armhf
# runtime packages of libuv, cmocka and GSL.
exec sh "$(dirname "$0")/../multiarch-deps.sh" armhf arm-linux-gnueabihf
