#!/bin/sh
# Makes the Windows (x86_64-w64-mingw32) dependencies of libitg: libuv, GSL
# and cmocka have no mingw packages in Debian, so they are built here from
# Debian's own source packages into static libraries under
# build/windows/deps (include/, lib/). Runs once: a stamp file makes later
# runs return at once, until this script or the toolchain file changes.
#
# apt-get source works from a private sources list and a private apt state
# under build/windows/deps-src: nothing is written to the system's apt
# configuration. The cross compiler, wine64, cmake and dpkg-dev are
# installed with apt-get when missing.
#
# Environment: ITG_DEBIAN_MIRROR, ITG_DEBIAN_SECURITY (archive URLs),
# JOBS (parallel make jobs).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/windows/deps
WORK=$ROOT/build/windows/deps-src
STAMP=$OUT/.stamp
HOST=x86_64-w64-mingw32
TOOL_DEBS="gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 wine64 cmake make dpkg-dev"
SOURCES="libuv1 gsl cmocka"

# What the cache is made from: a change to either file makes it again.
recipe() {
  cat "$ROOT/ports/windows/deps.sh" "$ROOT/ports/windows/toolchain.cmake" |
    sha256sum | cut -d' ' -f1
}

# Returns at once when everything is installed.
sh "$ROOT/ports/need-debs.sh" $TOOL_DEBS

[ "$(cat "$STAMP" 2>/dev/null)" = "$(recipe)" ] && exit 0

start=$(date +%s)
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mirror=${ITG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${ITG_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

rm -rf "$WORK" "$OUT"
APT=$WORK/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/parts" \
  "$APT/state" "$WORK/src" "$OUT"
cat >"$APT/sources.list" <<EOF
deb-src [signed-by=$keyring] $mirror $suite main
deb-src [signed-by=$keyring] $mirror $suite-updates main
deb-src [signed-by=$keyring] $security $suite-security main
EOF

# apt-get confined to the private sources list, lists and cache.
apt_private() {
  apt-get -q \
    -o Dir::Etc::SourceList="$APT/sources.list" \
    -o Dir::Etc::SourceParts="$APT/parts" \
    -o Dir::State="$APT/state" \
    -o Dir::State::Lists="$APT/lists" \
    -o Dir::Cache="$APT/cache" \
    -o APT::Sandbox::User=root \
    -o Acquire::Languages=none \
    "$@"
}

# Runs a build step with its output in a log, which is shown on failure.
step() {
  name=$1
  shift
  if ! "$@" >>"$WORK/$name.log" 2>&1; then
    echo "windows deps: $name failed; end of $WORK/$name.log:" >&2
    tail -n 40 "$WORK/$name.log" >&2
    exit 1
  fi
}

echo "windows deps: fetching Debian sources of $SOURCES"
step apt apt_private update
(cd "$WORK/src" && step apt apt_private source $SOURCES)

srcdir() {
  for d in "$WORK/src/$1"-*/; do
    [ -d "$d" ] && { echo "${d%/}"; return 0; }
  done
  echo "windows deps: no unpacked source for $1" >&2
  exit 1
}
UV_SRC=$(srcdir libuv1)
GSL_SRC=$(srcdir gsl)
CMOCKA_SRC=$(srcdir cmocka)

cmake_build() {
  name=$1
  src=$2
  shift 2
  step "$name" cmake -S "$src" -B "$WORK/build-$name" -G "Unix Makefiles" \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/ports/windows/toolchain.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$OUT" \
    -DCMAKE_INSTALL_LIBDIR=lib "$@"
  step "$name" cmake --build "$WORK/build-$name" -j "$JOBS"
  step "$name" cmake --install "$WORK/build-$name"
}

echo "windows deps: building libuv ($(basename "$UV_SRC"))"
cmake_build libuv "$UV_SRC" -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF

# mingw's C99 printf (not msvcrt's, which lacks %zu and friends) in cmocka
# and GSL as in libitg itself, and cmocka's format checks to match it.
ANSI_STDIO=-D__USE_MINGW_ANSI_STDIO=1

echo "windows deps: building cmocka ($(basename "$CMOCKA_SRC"))"
sed -i 's/__format__ (__printf__/__format__ (__gnu_printf__/' \
  "$CMOCKA_SRC/include/cmocka.h"
cmake_build cmocka "$CMOCKA_SRC" -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
  -DUNIT_TESTING=OFF -DCMAKE_C_FLAGS="$ANSI_STDIO"

echo "windows deps: building GSL ($(basename "$GSL_SRC"))"
mkdir -p "$WORK/build-gsl"
(cd "$WORK/build-gsl" && step gsl "$GSL_SRC/configure" --host=$HOST \
  --prefix="$OUT" --disable-shared --enable-static CFLAGS="-O2 $ANSI_STDIO")
# The libraries only: Debian's source leaves out what the manual is built
# from.
sed -i '/^SUBDIRS = /s/ doc$//' "$WORK/build-gsl/Makefile"
step gsl make -C "$WORK/build-gsl" -j "$JOBS"
step gsl make -C "$WORK/build-gsl" install

# Static libraries only, so the test programs run under wine without DLLs
# beside them: drop the DLLs and their import libraries, and give cmocka's
# static library the name -lcmocka finds.
rm -f "$OUT"/bin/*.dll "$OUT"/lib/*.dll.a
mv "$OUT/lib/libcmocka-static.a" "$OUT/lib/libcmocka.a"

for s in $SOURCES; do basename "$(srcdir "$s")"; done >"$OUT/sources.txt"
recipe >"$STAMP"
rm -rf "$WORK"
echo "windows deps: done in $(($(date +%s) - start)) s ($OUT)"
