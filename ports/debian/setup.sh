#!/bin/sh
# Installs what building and testing libitg needs on Debian 12, and returns
# at once when everything is already there. Idempotent; run as root (or
# with sudo available). A package list that fails to update (one
# architecture's index can be flaky) is not fatal: only an install that is
# really needed and fails is.
set -u

need_debs=""
for pkg in build-essential pkg-config libuv1-dev libgsl-dev libcmocka-dev \
           iproute2 python3; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
    || need_debs="$need_debs $pkg"
done

need_py=""
for mod in numpy scipy; do
  python3 -c "import $mod" 2>/dev/null || need_py="$need_py $mod"
done

[ -z "$need_debs" ] && [ -z "$need_py" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ -n "$need_debs" ]; then
  echo "setup: installing Debian packages:$need_debs"
  # An index that fails to refresh is reported but not fatal: the install
  # below decides, using whatever lists are there.
  $SUDO apt-get update -q >/tmp/itg-apt-update.log 2>&1 \
    || echo "setup: apt-get update reported errors (see /tmp/itg-apt-update.log); going on"
  # shellcheck disable=SC2086
  if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $need_debs; then
    echo "setup: failed to install:$need_debs" >&2
    exit 1
  fi
fi

if [ -n "$need_py" ]; then
  echo "setup: installing Python packages:$need_py"
  # shellcheck disable=SC2086
  python3 -m pip install -q $need_py 2>/dev/null \
    || python3 -m pip install -q --break-system-packages $need_py \
    || { echo "setup: failed to install Python packages:$need_py" >&2; exit 1; }
fi
exit 0
