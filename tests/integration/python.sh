#!/bin/sh
# The Python binding against this tree's build: installs what it needs
# (cffi, pytest, ...; already installed is fine), builds the itg package
# against BUILD/lib/libitg.a into BUILD/python (not into site-packages, so
# the plain and the sanitizer builds never replace each other), runs the
# pytest suite and examples/python, and prints one closing line:
# "python: N passed, M failed". With ITG_SAN set (the sanitizer pass of
# make test) the package links the sanitizer runtimes and Python runs with
# the ASan runtime preloaded.
# Usage, from the repository root: sh tests/integration/python.sh BUILD_DIR
# needs: install (pip: cffi, pytest, numpy, scipy, mypy)
set -u
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
PY=${PYTHON:-python3}
TARGET="$BUILD/python"
LOG="$BUILD/python-install.log"
passed=0
failed=0

finish() {
  echo "python: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# pip_install PACKAGE...: into the running Python's environment; on a
# Python whose environment is managed by the OS, with the override pip
# needs there.
pip_install() {
  "$PY" -m pip install -q "$@" >>"$LOG" 2>&1 \
    || "$PY" -m pip install -q --break-system-packages "$@" >>"$LOG" 2>&1
}

mkdir -p "$BUILD"
: >"$LOG"
need=""
for mod in cffi pytest wheel numpy mypy; do
  "$PY" -c "import $mod" 2>/dev/null || need="$need $mod"
done
# The package's licence is an SPDX expression: setuptools reads it from 77.
"$PY" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' \
  2>/dev/null || need="$need setuptools>=77"
if [ -n "$need" ]; then
  echo "installing Python packages:$need"
  # shellcheck disable=SC2086
  pip_install $need || { echo "could not install:$need (see $LOG)"; failed=1; finish; }
fi

san=""
preload=""
if [ -n "${ITG_SAN:-}" ]; then
  san="address,undefined"
  preload=$(${CC:-cc} -print-file-name=libasan.so)
fi

echo "building the itg package against $BUILD/lib/libitg.a"
rm -rf "$TARGET"
# The build needs only what is installed above (no build isolation: no
# download at build time).
if ! ITG_BUILD_DIR="$BUILD" ITG_SANITIZE="$san" "$PY" -m pip install -q \
     --no-build-isolation --no-deps --target "$TARGET" ./bindings/python >>"$LOG" 2>&1; then
  tail -n 30 "$LOG"
  echo "the itg package did not build"
  failed=1
  finish
fi

# run COMMAND...: with the package on the path (and the ASan runtime
# preloaded in the sanitizer pass; Python itself leaks by design).
run() {
  PYTHONPATH="$TARGET" PYTHONDONTWRITEBYTECODE=1 ITG_BIN="$BUILD/bin" \
    LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" "$@"
}

report="$BUILD/python-pytest.xml"
rm -f "$report"
run timeout 100 "$PY" -m pytest -q -p no:cacheprovider --junitxml="$report" \
  bindings/python/tests
counts=$("$PY" -c '
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("0 1")
    sys.exit()
suites = [root] if root.tag == "testsuite" else list(root)
total = sum(int(s.get("tests", 0)) for s in suites)
bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
# A skipped test counts as failed: every test must run here.
print(total - bad - skipped, bad + skipped + (1 if total == 0 else 0))
' "$report")
passed=$((passed + ${counts% *}))
failed=$((failed + ${counts#* }))

if run timeout 20 "$PY" examples/python/loopback.py; then
  echo "ok   examples/python/loopback.py"
  passed=$((passed + 1))
else
  echo "FAIL examples/python/loopback.py"
  failed=$((failed + 1))
fi

# The package's type hints hold in mypy's strictest mode, so a user's own
# checked code can lean on them.
if "$PY" -m mypy --strict --no-incremental --cache-dir=/dev/null \
     bindings/python/itg >"$BUILD/python-mypy.log" 2>&1; then
  echo "ok   mypy --strict bindings/python/itg"
  passed=$((passed + 1))
else
  cat "$BUILD/python-mypy.log"
  echo "FAIL mypy --strict bindings/python/itg"
  failed=$((failed + 1))
fi
finish
