#!/bin/sh
# needs: install (cmake, from make setup)
# make install honours PREFIX, BINDIR, LIBDIR, INCLUDEDIR, PKGCONFIGDIR,
# CMAKEDIR and MANDIR, and what it installs serves a new C program three
# ways: pkg-config against the shared library (run through the rpath the
# user gives), pkg-config's libitg-static (libitg and libuv inside the
# program, which then runs with no path to the install at all), and CMake's
# find_package(libitg) with both imported targets. Every program has a
# manual page that groff renders without a warning.
BUILD=$1
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
P="$WORK/prefix"
# The sanitizer pass (ITG_SAN) installs its own build, whose archive the
# user's program must then be built with the sanitizers to link.
san=""
[ -n "${ITG_SAN:-}" ] && san="-fsanitize=address,undefined"

make -s -C "$SRC" BUILD="$BUILD" SAN="${ITG_SAN:-}" PREFIX="$P" LIBDIR="$P/lib64" \
  INCLUDEDIR="$P/inc" PKGCONFIGDIR="$P/pc" CMAKEDIR="$P/cm/libitg" \
  MANDIR="$P/man" BINDIR="$P/sbin" install >"$WORK/install.out" 2>&1 ||
  die "make install failed: $(tail -n 20 "$WORK/install.out")"
for f in lib64/libitg.a lib64/libitg.so inc/itg.h inc/itg/sender.h \
  pc/libitg.pc pc/libitg-static.pc cm/libitg/libitg-config.cmake \
  cm/libitg/libitg-config-version.cmake sbin/itg-send sbin/itg-recv; do
  check "installs $f where the directories say" [ -e "$P/$f" ]
done

for p in "$BUILD"/bin/itg-*; do
  name=$(basename "$p")
  page="$P/man/man1/$name.1"
  check "$name has a manual page" [ -s "$page" ]
  groff -man -ww -z "$page" >"$WORK/lint" 2>&1
  check "$name's page renders without warnings" [ ! -s "$WORK/lint" ]
  cat "$WORK/lint"
  # Every option the help lists is in the page.
  "$p" --help | sed -n 's/^  \(-[-A-Za-z]*\).*/\1/p' | sort -u >"$WORK/opts"
  man -l "$page" 2>/dev/null | col -b >"$WORK/page.txt"
  missing=$(while read -r o; do grep -qe "$o" "$WORK/page.txt" || echo "$o"; done <"$WORK/opts")
  check "$name's page holds every option of its --help" [ -z "$missing" ]
  [ -z "$missing" ] || echo "missing: $missing"
done

PKG_CONFIG_PATH="$P/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
ex="$SRC/examples/c/quickstart.c"
# shellcheck disable=SC2046
cc $san "$ex" $(pkg-config --cflags --libs libitg) -Wl,-rpath,"$P/lib64" \
  -o "$WORK/q-shared" 2>"$WORK/cc.err"
check "pkg-config libitg builds the example" [ -x "$WORK/q-shared" ]
cat "$WORK/cc.err"
(cd "$WORK" && ./q-shared q1.itglog) >"$WORK/q1.out" 2>&1
check "which runs against the installed shared library" \
  grep -q "^packets 2000, lost 0" "$WORK/q1.out"
check "and is linked to it" sh -c 'readelf -d "$1" | grep -q "NEEDED.*libitg\.so"' _ "$WORK/q-shared"

# shellcheck disable=SC2046
cc $san "$ex" $(pkg-config --cflags --libs libitg-static) -o "$WORK/q-static" \
  2>"$WORK/cc.err"
check "pkg-config libitg-static builds the example" [ -x "$WORK/q-static" ]
cat "$WORK/cc.err"
check "with libitg inside it" \
  sh -c '! readelf -d "$1" | grep -q "NEEDED.*libitg"' _ "$WORK/q-static"
if pkg-config --exists libuv-static; then
  check "and libuv" sh -c '! readelf -d "$1" | grep -q "NEEDED.*libuv"' _ "$WORK/q-static"
fi
(cd "$WORK" && env -u LD_LIBRARY_PATH ./q-static q2.itglog) >"$WORK/q2.out" 2>&1
check "which runs with no path to the install" \
  grep -q "^packets 2000, lost 0" "$WORK/q2.out"

mkdir "$WORK/cmake" || die "mkdir"
cp "$ex" "$WORK/cmake/" || die "cp"
cat >"$WORK/cmake/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(itguser C)
find_package(libitg 1.0 REQUIRED)
add_executable(q-shared quickstart.c)
target_link_libraries(q-shared PRIVATE libitg::itg)
add_executable(q-static quickstart.c)
target_link_libraries(q-static PRIVATE libitg::itg_static)
CM
(cd "$WORK/cmake" && cmake -S . -B b -DCMAKE_PREFIX_PATH="$P/cm" -DCMAKE_C_FLAGS="$san" &&
  cmake --build b) >"$WORK/cmake.out" 2>&1
check "find_package(libitg) builds against both targets" \
  [ -x "$WORK/cmake/b/q-shared" ] && [ -x "$WORK/cmake/b/q-static" ]
tail -n 20 "$WORK/cmake.out"
(cd "$WORK" && ./cmake/b/q-shared q3.itglog && ./cmake/b/q-static q4.itglog) \
  >"$WORK/q3.out" 2>&1
check "and both run" [ "$(grep -c "^packets 2000, lost 0" "$WORK/q3.out")" -eq 2 ]
(cd "$WORK/cmake" && sed 's/libitg 1.0/libitg 99.0/' CMakeLists.txt >c2 &&
  mkdir v && mv c2 v/CMakeLists.txt && cp quickstart.c v/ &&
  ! cmake -S v -B v/b -DCMAKE_PREFIX_PATH="$P/cm") >/dev/null 2>&1
check "a major version it is not is refused" [ $? -eq 0 ]
finish
