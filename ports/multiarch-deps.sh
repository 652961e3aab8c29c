#!/bin/sh
# Installs what a Debian multiarch cross target needs: its gcc, qemu-user
# to run its programs, and the target's own runtime packages of libuv,
# cmocka and GSL beside the native ones (dpkg --add-architecture). GSL's
# -dev package is not multi-arch: the native headers serve (they are the
# same on every architecture) and ports/targets.mk links the target's
# libgsl.so.27 and libgslcblas.so.0 by path. Returns at once when all is
# installed.
# Usage: multiarch-deps.sh DEBIAN_ARCH GCC_TRIPLET (e.g. armhf arm-linux-gnueabihf)
set -eu

arch=$1
triplet=$2
here=$(cd "$(dirname "$0")" && pwd)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
  echo "ports: enabling the $arch architecture in dpkg"
  $SUDO dpkg --add-architecture "$arch"
fi

# The target's C library headers and start files: the cross gcc only
# recommends them, and recommends are not installed. The -cross package
# (architecture all) comes from the native index, which stays whole when
# the foreign one is not (libc6-dev:$arch must match the native
# linux-libc-dev version, which a stale foreign index cannot promise).
sh "$here/need-debs.sh" "gcc-$triplet" qemu-user libuv1-dev libgsl-dev \
  libcmocka-dev "libc6-dev-$arch-cross" "libc6:$arch" "libuv1-dev:$arch" \
  "libcmocka-dev:$arch" "libgsl27:$arch" "libgslcblas0:$arch"
