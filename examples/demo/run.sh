#!/bin/sh
# make demo: a receiver and a sender on loopback run the mix in flows.txt
# for 5 seconds, then itg-dec prints the QoS report of both logs.
set -u
BUILD=${1:-build}
BIN="$BUILD/bin"
here=$(dirname "$0")
out=$(mktemp -d "${TMPDIR:-/tmp}/itg-demo.XXXXXX")

# On a signaling port the system picks, named on itg-recv's stdout.
"$BIN/itg-recv" -Sp 0 -l "$out/receiver.log" >"$out/receiver.out" 2>&1 &
recv=$!
trap 'kill -9 $recv 2>/dev/null' EXIT INT TERM
tries=0
sig_port() { sed -n 's/^itg-recv: listening sig=//p' "$out/receiver.out"; }
until [ -n "$(sig_port)" ]; do
  tries=$((tries + 1))
  if [ $tries -ge 250 ] || ! kill -0 $recv 2>/dev/null; then
    echo "demo: itg-recv did not start:" >&2
    cat "$out/receiver.out" >&2
    exit 1
  fi
  sleep 0.02
done

echo "== itg-send: 4 flows for 5 s (VoIP, Poisson, Pareto, TCP bulk) =="
# Each flow to that port, on a data port the receiver's system picks.
sed -e '/^#/b' -e '/^ *$/b' -e "s/^/-Sdp $(sig_port) -rp 0 /" "$here/flows.txt" \
  >"$out/flows.txt"
timeout 60 "$BIN/itg-send" -F "$out/flows.txt" -l "$out/sender.log"
status=$?
kill -TERM $recv
wait $recv
[ $status -eq 0 ] || { echo "demo: itg-send failed ($status)" >&2; exit 1; }

echo
echo "== itg-dec: what the receiver measured (one-way delay, jitter, loss) =="
"$BIN/itg-dec" "$out/receiver.log" || exit 1
echo
echo "== itg-dec --json, totals =="
"$BIN/itg-dec" --json "$out/receiver.log" | python3 -c 'import json,sys; t=json.load(sys.stdin)["end"]["total"]; print(json.dumps(t, indent=1))'
echo
echo "logs kept in $out"
