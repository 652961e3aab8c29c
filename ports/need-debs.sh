#!/bin/sh
# Installs whichever of the Debian packages named as arguments (name or
# name:arch) are not installed yet, and returns at once when all are. A
# package list that fails to refresh (one architecture's index can be
# flaky) is reported but not fatal; an install that fails is.
set -u

need=""
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
    || need="$need $pkg"
done
[ -z "$need" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

log=${TMPDIR:-/tmp}/itg-ports-apt-update.log
echo "ports: installing Debian packages:$need"
$SUDO apt-get update -q >"$log" 2>&1 \
  || echo "ports: apt-get update reported errors (see $log); going on"
# shellcheck disable=SC2086
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends $need; then
  echo "ports: failed to install:$need" >&2
  exit 1
fi
exit 0
