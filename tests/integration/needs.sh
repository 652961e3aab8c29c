#!/bin/sh
# Every integration script that needs root or installs says so in its
# "# needs:" line, which run.sh (and so make check) selects by: one that
# captures packets (wiretap), makes network namespaces or mounts declares
# root; one that installs packages (pip, apt, Maven) declares install.
BUILD=$1
. "$(dirname "$0")/lib.sh"

here=$(dirname "$0")
root_re='start_tap|tap_send|wiretap|WIRETAP|ip netns|(^|[^[:alnum:]_-])mount[[:space:]]|unshare'
install_re='pip_install|pip install|apt-get|need-debs|(^|[^[:alnum:]_])mvn[[:space:]]'

# declares FILE NEED: whether FILE's "# needs:" line names NEED.
declares() {
  sed -n 's/^# needs: *\([^(]*\).*/\1/p' "$1" | head -n 1 | tr ',' ' ' |
    grep -qw "$2"
}

n=0
for t in "$here"/*.sh; do
  name=$(basename "$t")
  case "$name" in run.sh | lib.sh | needs.sh) continue ;; esac
  n=$((n + 1))
  # The script's commands, not its comments.
  grep -v '^[[:space:]]*#' "$t" >"$WORK/code"
  if grep -Eq "$root_re" "$WORK/code"; then
    check "$name declares root" declares "$t" root
  fi
  if grep -Eq "$install_re" "$WORK/code"; then
    check "$name declares install" declares "$t" install
  fi
done
check "scripts were read ($n)" [ "$n" -gt 10 ]
finish
