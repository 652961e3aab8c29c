#!/bin/sh
# needs: root (ICMP: a raw socket, in a network namespace), install (d-itg: ITGRecv and ITGDec, from ports/debian/setup.sh)
# itg-send --peer ditg towards D-ITG 2.8.1's own ITGRecv: UDP and TCP flows,
# one-way and round trip, of a few hundred packets, and of D-ITG's shorter
# payload types (-p 1: flow id and sequence; -p 2: no header), and (as
# root) ICMP; ITGDec on
# ITGRecv's log must count the packets and bytes itg-send says it sent,
# none lost (TCP with -p 2: ITGRecv counts its reads, see below).
# D-ITG's programs crash or hang now and then: a case where one of them
# fails (exits early, hangs, or ITGDec cannot read the log) runs once more,
# and is skipped, with a line saying so, if D-ITG fails again. A failure of
# itg-send with ITGRecv alive (an error, or no end within 60 s), or a count
# that differs, is libitg's: it fails the test at once.
BUILD=$1
. "$(dirname "$0")/lib.sh"
NSX=""

for prog in ITGRecv ITGDec; do
  command -v "$prog" >/dev/null ||
    die "$prog is missing: ports/debian/setup.sh installs the d-itg package"
done

# A TCP port free on loopback right now: ITGRecv takes no port 0, so the
# system picks one for a socket that then lets it go.
free_tcp_port() {
  $NSX python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

listening() { $NSX ss -Hltn "sport = :$1" | grep -q .; }
gone() { ! kill -0 "$1" 2>/dev/null; }
up_or_gone() { listening "$1" || gone "$2"; }

same() { [ -n "$1" ] && [ "$1" = "$2" ]; }

# value FILE LABEL: the number after "LABEL =" in the total of ITGDec's
# report (the last such line).
value() {
  sed -n "s/^$2 *= *\([0-9][0-9]*\).*/\1/p" "$1" | tail -n 1
}

# attempt NAME OPTS...: one try of a case. Returns 0 when it ran (its
# checks counted), 2 when D-ITG failed (why in DITG_WHY), 1 when libitg
# did.
attempt() {
  name=$1
  shift
  dir="$WORK/$name.$TRY"
  mkdir -p "$dir"
  port=$(free_tcp_port)
  $NSX ITGRecv -Sp "$port" -l "$dir/recv.log" </dev/null >"$dir/recv.out" 2>&1 &
  rpid=$!
  PIDS="$PIDS $rpid"
  if ! wait_until 10 up_or_gone "$port" "$rpid" || ! listening "$port"; then
    DITG_WHY="ITGRecv did not listen on port $port: $(tail -n 3 "$dir/recv.out")"
    kill -9 "$rpid" 2>/dev/null
    return 2
  fi
  $NSX timeout 60 "$BIN/itg-send" -a 127.0.0.1 -Sdp "$port" --peer ditg -rp 0 \
    "$@" >"$dir/send.out" 2>&1
  src=$?
  if gone "$rpid"; then
    wait "$rpid"
    DITG_WHY="ITGRecv exited (status $?) during the flow: $(tail -n 3 "$dir/recv.out")"
    return 2
  fi
  if [ "$src" -ne 0 ]; then
    echo "  itg-send (status $src) with ITGRecv alive:"
    cat "$dir/send.out"
    kill -9 "$rpid" 2>/dev/null
    return 1
  fi
  kill -INT "$rpid"
  if ! wait_until 10 gone "$rpid"; then
    kill -9 "$rpid" 2>/dev/null
    DITG_WHY="ITGRecv did not exit on SIGINT"
    return 2
  fi
  if ! timeout 30 ITGDec "$dir/recv.log" >"$dir/dec.out" 2>&1; then
    DITG_WHY="ITGDec failed on ITGRecv's log: $(tail -n 3 "$dir/dec.out")"
    return 2
  fi
  # itg-send: "flow 1: N packets, B bytes in ..."
  sent=$(sed -n 's/^flow [0-9]*: \([0-9]*\) packets, \([0-9]*\) bytes.*/\1 \2/p' \
    "$dir/send.out")
  got="$(value "$dir/dec.out" "Total packets") $(value "$dir/dec.out" "Bytes received")"
  echo "  $name: itg-send sent $sent (packets bytes), ITGDec counts $got"
  case " $* " in
  *" TCP -p 2 "*)
    # No header, so no size to cut the stream with: ITGRecv takes each
    # 4-byte read and the read after it for a packet, and counts the
    # second read's bytes alone.
    check "$name: ITGDec's bytes and 4 B a packet make the bytes sent" \
      [ $((${got#* } + 4 * ${got%% *})) -eq "${sent#* }" ] ;;
  *)
    check "$name: ITGDec counts the packets and bytes itg-send sent" \
      same "$sent" "$got" ;;
  esac
  case " $* " in *" rttm "*)
    check "$name: every packet echoed back" \
      same "${sent%% *}" "$(sed -n 's/.*; echoes \([0-9]*\).*/\1/p' "$dir/send.out")"
  esac
  check "$name: ITGDec counts no loss" \
    [ "$(value "$dir/dec.out" "Packets dropped")" = 0 ]
  check "$name: ITGDec sees one flow" \
    [ "$(value "$dir/dec.out" "Number of flows")" = 1 ]
  return 0
}

# run_case NAME OPTS...: a case, tried again once if D-ITG failed.
run_case() {
  TRY=1
  attempt "$@"
  rc=$?
  if [ "$rc" -eq 2 ]; then
    echo "  $1: D-ITG failed ($DITG_WHY); trying once more"
    TRY=2
    attempt "$@"
    rc=$?
  fi
  case $rc in
    1) check "$1: itg-send completes the flow with ITGRecv" false ;;
    2) echo "  skip $1: D-ITG failed twice ($DITG_WHY)" ;;
  esac
}

run_case udp -s 1 -C 200 -c 200 -z 400
run_case tcp -s 2 -T TCP -C 200 -u 40 1200 -z 300
run_case udp-rttm -s 3 -m rttm -C 200 -c 100 -z 300
run_case tcp-rttm -s 4 -T TCP -m rttm -C 200 -c 100 -z 300
run_case udp-p1 -s 5 -p 1 -C 200 -u 8 300 -z 300
run_case tcp-p1 -s 6 -T TCP -p 1 -C 200 -u 12 300 -z 300
run_case udp-p2 -s 7 -p 2 -C 200 -u 4 300 -z 300
run_case tcp-p2 -s 8 -T TCP -p 2 -C 200 -c 100 -z 300
# ICMP: ITGRecv counts every ICMP message of its host (port unreachable
# reports of other programs, echo replies), so the flow runs in a network
# namespace of its own, of type 15 (information request), which the
# kernel does not answer.
ns_add "itgdr$$"
NSX="ip netns exec itgdr$$"
run_case icmp -s 9 -T ICMP 15 -C 200 -u 16 300 -z 300
NSX=""
finish
