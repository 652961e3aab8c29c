#!/bin/sh
# needs: root (packet capture: wiretap), install (D-ITG 2.8.1's programs, Debian's d-itg: ports/debian/setup.sh)
# libitg's D-ITG models against D-ITG's own ITGSend on the wire (wiretap,
# ITGSend -> ITGRecv over loopback on ports the system picked): every
# VoIP codec, with RTP and with CRTP and -VAD, puts packets of the same
# size on the wire from ITGSend as from itg-send --wire ditg; ITGSend's
# CSi sizes pass the test libitg's pass (D-ITG's table); ITGSend's -B
# off periods follow their law as libitg's do (its on periods and rate
# are printed: D-ITG waits out the IDT that crosses an on period's end,
# and its pacing falls short); -s fixes ITGSend's draws, so that only its
# timing varies from run to run. D-ITG's programs crash or hang at times: a
# case where they fail is tried once more, then skipped with a line
# saying so. --small ditg sends a normal size law's draws below D-ITG's
# 16-byte header at 16 B, as ITGSend does; the default rule draws them
# again.
BUILD=$1
. "$(dirname "$0")/lib.sh"
LAWS="$TOOLS/ditg_laws.py"

for p in ITGSend ITGRecv; do
  command -v "$p" >/dev/null 2>&1 ||
    die "no $p: install D-ITG (Debian's d-itg; ports/debian/setup.sh)"
done

# listening PORT: something listens on TCP PORT of loopback.
listening() { ss -ltnH "sport = :$1" 2>/dev/null | grep -q .; }

# ditg_once SECONDS CAPTURE OUT [ITGSend options]: ITGRecv on a free
# signaling port, ITGSend to a free data port captured by wiretap for
# SECONDS. Returns 1, the reason in $WORK/why, when D-ITG failed.
ditg_once() {
  secs=$1
  cap=$2
  out=$3
  shift 3
  sig=$(free_tcp_port)
  data=$(free_udp_port)
  (cd "$WORK" && exec ITGRecv -Sp "$sig") >"$out.recv" 2>&1 &
  rpid=$!
  PIDS="$PIDS $rpid"
  if ! wait_until 10 listening "$sig"; then
    echo "ITGRecv did not listen on $sig: $(tail -n 2 "$out.recv")" >"$WORK/why"
    kill -9 "$rpid" 2>/dev/null
    wait "$rpid" 2>/dev/null
    return 1
  fi
  start_tap "$data" "$secs" "$cap"
  timeout 60 ITGSend -a 127.0.0.1 -Sdp "$sig" -rp "$data" "$@" >"$out" 2>&1
  st=$?
  wait "$TAP_PID"
  kill -9 "$rpid" 2>/dev/null
  wait "$rpid" 2>/dev/null
  if [ "$st" -ne 0 ] || ! grep -q "Finished sending" "$out"; then
    echo "ITGSend exit status $st: $(tail -n 2 "$out")" >"$WORK/why"
    return 1
  fi
  return 0
}

# ditg SECONDS CAPTURE OUT [ITGSend options]: ditg_once, and once more if
# D-ITG failed. Returns 1 (the reason in $WORK/why) if it failed twice.
ditg() {
  ditg_once "$@" || ditg_once "$@"
}

# one_size CAPTURE: the payload size of every packet of a capture, or
# "mixed" (or "none").
one_size() {
  python3 -c 'import sys
sys.path.insert(0, sys.argv[2]); import wirestats
s = set(int(x) for x in wirestats.load(sys.argv[1])["len"])
print(s.pop() if len(s) == 1 else "mixed" if s else "none")' "$1" "$TOOLS"
}

# small_sizes CAPTURE: "SHARE MIN": the share of a capture's packets of
# 16 payload bytes, and the smallest payload.
small_sizes() {
  python3 -c 'import sys
sys.path.insert(0, sys.argv[2]); import wirestats
n = wirestats.load(sys.argv[1])["len"].astype(int)
print("%.4f %d" % ((n == 16).mean(), n.min()) if len(n) else "0 0")' \
    "$1" "$TOOLS"
}

# in_band SHARE LOW HIGH: LOW <= SHARE <= HIGH.
in_band() {
  python3 -c 'import sys; sys.exit(not float(sys.argv[2]) <= float(sys.argv[1]) <= float(sys.argv[3]))' "$@"
}

start_recv "$WORK/recv.log"
skipped=0

# Normal sizes of mean 30 B and deviation 25 B: a share
# Phi((16 - 30) / 25) = 0.288 of the draws fall below 16 B; over 500
# packets the share at 16 B lies within five standard deviations, 0.19 to
# 0.39, under D-ITG's rule, and near 0.01 under the default one (the
# draws in [16, 16.5) B).
tap_send 4 "$WORK/sm.bin" "$WORK/sm.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  --wire ditg --small ditg -n 30 25 -s 11 -C 500 -z 500
check "itg-send --small ditg exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
set -- $(small_sizes "$WORK/sm.bin")
echo "  --small ditg: $1 of the packets at 16 B, smallest $2 B"
check "--small ditg: D-ITG's share of packets at its 16-byte header" \
  in_band "$1" 0.19 0.39
check "--small ditg: no packet below 16 B" [ "$2" -eq 16 ]
tap_send 4 "$WORK/rd.bin" "$WORK/rd.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
  --wire ditg -n 30 25 -s 11 -C 500 -z 500
check "itg-send --small redraw exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
set -- $(small_sizes "$WORK/rd.bin")
echo "  --small redraw (default): $1 of the packets at 16 B, smallest $2 B"
check "--small redraw: the draws below 16 B drawn again" in_band "$1" 0 0.05
if ditg 4 "$WORK/dsm.bin" "$WORK/dsm.out" -n 30 25 -C 500 -z 500; then
  set -- $(small_sizes "$WORK/dsm.bin")
  echo "  ITGSend: $1 of the packets at 16 B, smallest $2 B"
  check "ITGSend's share of packets at 16 B, as --small ditg's" \
    in_band "$1" 0.19 0.39
else
  echo "  skipped: ITGSend -n 30 25: D-ITG failed twice: $(cat "$WORK/why")"
  skipped=$((skipped + 1))
fi
for codec in G.711.1 G.711.2 G.729.2 G.729.3 G.723.1; do
  for variant in RTP CRTP-VAD; do
    case "$variant" in
      RTP) sub="-h RTP" ;;
      *) sub="-h CRTP -VAD" ;;
    esac
    name="$codec $variant"
    # D-ITG's VoIP takes every word after it as its own: last on the line.
    if ! ditg 2 "$WORK/d.bin" "$WORK/d.out" -z 20 VoIP -x "$codec" $sub; then
      echo "  skipped: $name: D-ITG failed twice: $(cat "$WORK/why")"
      skipped=$((skipped + 1))
      continue
    fi
    theirs=$(one_size "$WORK/d.bin")
    tap_send 2 "$WORK/o.bin" "$WORK/o.out" -a 127.0.0.1 -Sdp "$RECV_PORT" \
      --wire ditg -z 20 VoIP -x "$codec" $sub
    check "itg-send VoIP $name exits 0" [ $? -eq 0 ]
    wait "$TAP_PID"
    ours=$(one_size "$WORK/o.bin")
    echo "  $name: ITGSend $theirs B, itg-send $ours B"
    check "VoIP $name: the same size as ITGSend's" [ "$theirs" = "$ours" ]
  done
done
stop_recv

if ditg 6 "$WORK/csi.bin" "$WORK/csi.out" -s 0.25 -z 100 CSi; then
  check "ITGSend's CSi sizes follow D-ITG's table, as itg-send's" \
    python3 "$LAWS" sizes "$WORK/csi.bin" cs-idle
else
  echo "  skipped: CSi: D-ITG failed twice: $(cat "$WORK/why")"
  skipped=$((skipped + 1))
fi

if ditg 9 "$WORK/onoff.bin" "$WORK/onoff.out" -s 0.25 -C 1000 -c 100 -t 6000 \
  -B E 40 U 40 120; then
  python3 "$LAWS" onoff "$WORK/onoff.bin" 1 20 exp:40 uniform:40,120 \
    >"$WORK/onoff.txt"
  echo "  ITGSend -B (information):"
  sed 's/^FAILED:/not met:/; s/^/    /' "$WORK/onoff.txt"
  check "ITGSend's off periods follow their law, as itg-send's" \
    grep -q "^ok: off periods follow" "$WORK/onoff.txt"
else
  echo "  skipped: -B: D-ITG failed twice: $(cat "$WORK/why")"
  skipped=$((skipped + 1))
fi
echo "  D-ITG comparisons skipped: $skipped"
finish
