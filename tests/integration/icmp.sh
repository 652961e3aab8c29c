#!/bin/sh
# needs: root (a raw ICMP socket, packet capture: wiretap, a network namespace), install (d-itg: ITGRecv, from ports/debian/setup.sh)
# itg-send -T ICMP towards D-ITG's ITGRecv, seen on the wire by wiretap
# (-p icmp) in a network namespace of its own, with a ping running beside
# it: the flow's messages are exactly the packets sent, of its ICMP type
# and code 0, its identifier, sequence numbers 1 to N in order, its size
# after the 8-byte ICMP header, at its rate; the ping's messages are other
# types. D-ITG failing twice on its own skips the test, saying so.
BUILD=$1
. "$(dirname "$0")/lib.sh"

command -v ITGRecv >/dev/null ||
  die "ITGRecv is missing: ports/debian/setup.sh installs the d-itg package"

# ping.py: 20 echo requests to 127.0.0.1, 50 ms apart, as ping sends them
# (the kernel answers each with an echo reply).
cat >"$WORK/ping.py" <<'EOF'
import socket, struct, time
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
for i in range(1, 21):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x7777, i) + bytes(56)
    m = m[:2] + struct.pack("!H", csum(m)) + m[4:]
    s.sendto(m, ("127.0.0.1", 0))
    time.sleep(0.05)
EOF

NS="itgicmp$$"
ns_add "$NS"
build_tool wiretap
listening() { nsx "$NS" ss -Hltn "sport = :$1" | grep -q .; }

# once: ITGRecv and wiretap in the namespace, itg-send (200 messages of
# type 15 and 100 B at 200 pkt/s, flow 1) and a ping beside it.
# Sets ST to itg-send's status, or DITG_FAILED to 1 when D-ITG failed (why
# in $WORK/why).
once() {
  DITG_FAILED=0
  ST=0
  port=$(nsx "$NS" python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
  ip netns exec "$NS" ITGRecv -Sp "$port" -l "$WORK/recv.log" </dev/null \
    >"$WORK/recv.out" 2>&1 &
  rpid=$!
  PIDS="$PIDS $rpid"
  if ! wait_until 10 listening "$port"; then
    echo "ITGRecv did not listen: $(tail -n 2 "$WORK/recv.out")" >"$WORK/why"
    kill -9 "$rpid" 2>/dev/null
    DITG_FAILED=1
    return
  fi
  ip netns exec "$NS" "$WIRETAP" -p icmp -d lo 0 20 "$WORK/cap.bin" \
    2>"$WORK/cap.err" &
  tpid=$!
  PIDS="$PIDS $tpid"
  wait_until 10 grep -qs ready "$WORK/cap.err" || die "wiretap did not start"
  ip netns exec "$NS" python3 "$WORK/ping.py" >"$WORK/ping.out" 2>&1 &
  ppid=$!
  nsx "$NS" timeout 60 "$BIN/itg-send" -a 127.0.0.1 -Sdp "$port" \
    --peer ditg -T ICMP 15 -C 200 -c 100 -z 200 -s 5 >"$WORK/send.out" 2>&1
  ST=$?
  wait "$ppid"
  kill -INT "$tpid"
  wait "$tpid"
  if ! kill -0 "$rpid" 2>/dev/null; then
    echo "ITGRecv exited during the flow: $(tail -n 2 "$WORK/recv.out")" \
      >"$WORK/why"
    DITG_FAILED=1
    return
  fi
  kill -9 "$rpid"
  wait "$rpid" 2>/dev/null
}

once
[ "$DITG_FAILED" -eq 1 ] && once
if [ "$DITG_FAILED" -eq 1 ]; then
  echo "  skipped: D-ITG failed twice: $(cat "$WORK/why")"
  finish
fi
check "itg-send -T ICMP to ITGRecv exits 0" [ "$ST" -eq 0 ]
cat "$WORK/send.out"

# The capture's 24-byte records: time, payload length, 4 bytes, type and
# code, identifier and sequence number.
python3 - "$WORK/cap.bin" >"$WORK/wire.txt" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
recs = [struct.unpack_from("<QI4sII", d, i) for i in range(0, len(d) - 23, 24)]
flow = [r for r in recs if r[3] == 15 << 8]
other = [r for r in recs if r[3] >> 8 != 15]
ids = set(r[4] >> 16 for r in flow)
seqs = [r[4] & 0xffff for r in flow]
sizes = set(r[1] for r in flow)
span = (flow[-1][0] - flow[0][0]) / 1e9 if len(flow) > 1 else 0
rate = (len(flow) - 1) / span if span > 0 else 0
print("flow", len(flow))
print("ids", " ".join("%x" % i for i in sorted(ids)))
print("seqs_in_order", int(seqs == list(range(1, len(flow) + 1))))
print("sizes", " ".join(str(s) for s in sorted(sizes)))
print("rate %.1f" % rate)
print("ping", sum(1 for r in other if r[3] >> 8 in (0, 8)))
print("other", sum(1 for r in other if r[3] >> 8 not in (0, 8)))
EOF
sed 's/^/  wire: /' "$WORK/wire.txt"
field() { sed -n "s/^$1 //p" "$WORK/wire.txt"; }
check "200 messages of type 15, code 0 on the wire" [ "$(field flow)" = 200 ]
check "all with the flow's identifier (its id, 1)" [ "$(field ids)" = 1 ]
check "sequence numbers 1 to 200 in order" [ "$(field seqs_in_order)" = 1 ]
check "every one of 100 B after the ICMP header" [ "$(field sizes)" = 100 ]
check "at 200 pkt/s (within 10 %)" python3 -c \
  'import sys; sys.exit(not 180 <= float(sys.argv[1]) <= 220)' "$(field rate)"
check "the ping's 40 echo messages are types 8 and 0, apart" \
  [ "$(field ping)" = 40 ]
finish
