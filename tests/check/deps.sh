#!/bin/sh
# Fails at once, naming what is missing, when this machine lacks what make
# check builds and runs with: a C compiler, the libuv, GSL and cmocka
# headers and libraries, python3 and nm. Installs nothing: make setup does.
# Usage: deps.sh [CC]
CC=${1:-cc}
missing=""
command -v "${CC%% *}" >/dev/null 2>&1 || missing="$missing C compiler ($CC)"
if [ -z "$missing" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/itg-deps.XXXXXX") || exit 1
  trap 'rm -rf "$tmp"' EXIT
  # has NAME HEADER LIBS...: a program including HEADER links with LIBS.
  has() {
    name=$1
    header=$2
    shift 2
    printf '#include <stddef.h>\n#include <stdarg.h>\n#include <setjmp.h>\n#include <%s>\nint main(void) { return 0; }\n' \
      "$header" >"$tmp/t.c"
    # shellcheck disable=SC2086
    $CC -o "$tmp/t" "$tmp/t.c" "$@" >/dev/null 2>&1 ||
      missing="$missing $name ($header, $*)"
  }
  has libuv uv.h -luv
  has GSL gsl/gsl_rng.h -lgsl -lgslcblas -lm
  has cmocka cmocka.h -lcmocka
fi
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v nm >/dev/null 2>&1 || missing="$missing nm (binutils)"
[ -z "$missing" ] && exit 0
echo "make check: missing:$missing" >&2
echo "make check: run 'make setup' (as root) to install what building and testing need" >&2
exit 1
