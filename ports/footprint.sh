#!/bin/sh
# The footprint of a cross build on a small device: the stripped sizes of
# itg-send and itg-recv and, given a qemu-user runner for a 32-bit target,
# the resident memory of itg-recv while it serves 10 flows at once, which
# must stay under 8 MiB. Prints the figures, then
# "<target> footprint: N passed, M failed".
# Usage: footprint.sh TARGET BUILD EXE STRIP [QEMU]
#   EXE: the programs' suffix; STRIP: the target's strip. itg-recv listens
#   on a signaling port the system picks, read from the line it prints;
#   each flow asks for data port 0, the receiver's pick.
#
# Resident memory is the program's own: qemu-user runs a 32-bit guest in
# a 4 GiB window of its address space starting at guest_base (which
# "-d page" logs), so the resident pages of the mappings inside that
# window are the program's (its code, libraries, heap, stacks), and the
# emulator's translation buffers and its own libraries, outside it, are
# left out. Sampled every 100 ms while the flows run; the peak counts.
target=$1
BUILD=$2
EXE=$3
STRIP=$4
QEMU=${5:-}
BIN=$BUILD/bin
FLOWS=10
LIMIT_KIB=8192
WORK=$(mktemp -d "${TMPDIR:-/tmp}/itg-footprint.XXXXXX")
RECV_PID=""
passed=0
failed=0

cleanup() {
  [ -n "$RECV_PID" ] && kill -9 "$RECV_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

count() {
  if [ "$1" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}

for p in itg-send itg-recv; do
  if "$STRIP" -o "$WORK/$p$EXE" "$BIN/$p$EXE"; then
    echo "$target footprint: $p$EXE $(wc -c <"$WORK/$p$EXE") bytes stripped"
    count 0
  else
    echo "$target footprint: cannot strip $BIN/$p$EXE" >&2
    count 1
  fi
done

# The resident KiB of the guest window of qemu process $1, whose log
# names guest_base.
guest_rss_kib() {
  python3 - "$1" "$WORK/qemu.log" <<'EOF'
import re, sys
pid, log = sys.argv[1], sys.argv[2]
base = int(re.search(r"guest_base\s+(0x[0-9a-f]+)", open(log).read()).group(1), 16)
end, kib, inside = base + (1 << 32), 0, False
for line in open("/proc/%s/smaps" % pid):
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
    if m:
        inside = base <= int(m.group(1), 16) and int(m.group(2), 16) <= end
    elif inside and line.startswith("Rss:"):
        kib += int(line.split()[1])
print(kib)
EOF
}

sig_port() { sed -n 's/^itg-recv: listening sig=//p' "$WORK/recv.out"; }
listening() { [ -n "$(sig_port)" ]; }

if [ -n "$QEMU" ]; then
  "$QEMU" -d page -D "$WORK/qemu.log" "$BIN/itg-recv$EXE" -Sp 0 \
    -l "$WORK/recv.log" >"$WORK/recv.out" 2>&1 &
  RECV_PID=$!
  i=0
  while ! listening && [ "$i" -lt 600 ]; do
    i=$((i + 1))
    sleep 0.1
  done
  : >"$WORK/flows"
  f=1
  while [ "$f" -le "$FLOWS" ]; do
    echo "-a 127.0.0.1 -Sdp $(sig_port) -rp 0 -C 200 -c 512 -t 4000" \
      >>"$WORK/flows"
    f=$((f + 1))
  done
  timeout 120 "$QEMU" "$BIN/itg-send$EXE" -F "$WORK/flows" \
    >"$WORK/send.out" 2>&1 &
  SEND_PID=$!
  peak=0
  while kill -0 "$SEND_PID" 2>/dev/null; do
    kib=$(guest_rss_kib "$RECV_PID" 2>/dev/null) || kib=0
    [ "${kib:-0}" -gt "$peak" ] && peak=$kib
    sleep 0.1
  done
  wait "$SEND_PID"
  sent=$?
  served=$(grep -c "receiver got 800\$" "$WORK/send.out")
  echo "$target footprint: itg-recv resident $peak KiB serving $served of" \
    "$FLOWS flows (limit $LIMIT_KIB KiB)"
  if [ "$sent" -eq 0 ] && [ "$served" -eq "$FLOWS" ] && [ "$peak" -gt 0 ] &&
    [ "$peak" -lt "$LIMIT_KIB" ]; then
    count 0
  else
    echo "$target footprint: itg-recv did not serve $FLOWS flows in" \
      "$LIMIT_KIB KiB; itg-send said:" >&2
    tail -n 20 "$WORK/send.out" >&2
    count 1
  fi
fi

echo "$target footprint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
