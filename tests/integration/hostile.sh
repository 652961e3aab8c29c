#!/bin/sh
# itg-recv against peers that hold or break connections, with the signal
# dispositions a shell gives it: round-trip TCP senders killed mid-flow
# while it echoes never kill it (SIGPIPE); its descriptor limit is raised
# to the hard one at start; a flood of idle connections that would exhaust
# its descriptors still leaves room for an honest sender, and it never
# eats into the descriptors it keeps in reserve.
BUILD=$1
. "$(dirname "$0")/lib.sh"

"$BIN/itg-recv" --handshake 0 >/dev/null 2>&1
check "itg-recv refuses --handshake 0 (status 2)" [ $? -eq 2 ]
"$BIN/itg-log" --peer-clients 0 >/dev/null 2>&1
check "itg-log refuses --peer-clients 0 (status 2)" [ $? -eq 2 ]

# A soft limit of 64 under a hard one of 200; 64 are kept in reserve and
# the flood comes from one address, allowed 1 000 connections.
(ulimit -Sn 64 && ulimit -Hn 200 &&
  exec "$BIN/itg-recv" -a 127.0.0.1 -Sp 0 --fd-reserve 64 \
    --peer-conns 1000 >"$WORK/recv.out" 2>&1) &
RECV_PID=$!
PIDS="$PIDS $RECV_PID"
wait_until 10 has_listen_port "$WORK/recv.out" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv.out")"
SIG=$(listen_port "$WORK/recv.out" sig)
check "the descriptor limit is raised to the hard limit" \
  grep -Eq "^Max open files +200 +200 " "/proc/$RECV_PID/limits"

# 1. Round-trip TCP senders killed while their echoes flow: the kernel
# resets a killed sender's connection with echoes unread, and the receiver
# still echoes what it had received (wait_until counts in i: this loop
# counts in k).
k=0
while [ $k -lt 10 ]; do
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$SIG" -rp 0 -T TCP -m rttm -C 50000 -c 1024 \
    -t 20000 >"$WORK/rtt$k.out" 2>&1 &
  SEND_PID=$!
  PIDS="$PIDS $SEND_PID"
  opened() { [ "$(grep -c "round trip) open" "$WORK/recv.out")" -gt "$k" ]; }
  wait_until 10 opened || break
  DPORT=$(grep "round trip) open" "$WORK/recv.out" | sed -n "$((k + 1))p" |
    sed 's/.*TCP port \([0-9]*\) .*/\1/')
  echoing() {
    ss -Htin "sport = :$DPORT" | grep -Eq "bytes_received:[0-9]{5,}"
  }
  wait_until 10 echoing || break
  kill -9 "$SEND_PID"
  wait "$SEND_PID" 2>/dev/null
  k=$((k + 1))
done
if ! kill -0 "$RECV_PID" 2>/dev/null; then
  wait "$RECV_PID"
  die "itg-recv died (exit status $?) after $k killed round-trip senders"
fi
check "itg-recv serves 10 round-trip senders killed as they run" [ $k -eq 10 ]

# 2. 300 idle connections: more than the 200 descriptors.
python3 - "$SIG" "$WORK/flood.ready" <<'PY' &
import socket, sys, time
conns = []
for _ in range(300):
    conns.append(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
open(sys.argv[2], "w").close()
time.sleep(60)
PY
FLOOD_PID=$!
PIDS="$PIDS $FLOOD_PID"
wait_until 20 test -e "$WORK/flood.ready" || die "the flood did not connect"
fds() { ls "/proc/$RECV_PID/fd" | wc -l; }
# Its connections and ports stay within 200 - 64; the process's other
# descriptors (standard streams, the loop's own) take far fewer than 32.
check "itg-recv keeps its reserve of descriptors free ($(fds) open)" \
  [ "$(fds)" -le $((200 - 64 + 32)) ]
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$SIG" -rp 0 -C 1000 -c 100 -z 200 \
  >"$WORK/send.out" 2>&1
check "an honest sender is served during the flood" [ $? -eq 0 ]
kill "$FLOOD_PID"
wait "$FLOOD_PID" 2>/dev/null

kill -TERM "$RECV_PID"
wait "$RECV_PID"
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]
tail -n 2 "$WORK/recv.out"
check "and counts the connections it closed" \
  grep -Eq "[1-9][0-9]* closed \(no flow in time" "$WORK/recv.out"

# 3. Clients that speak neither libitg's signaling nor D-ITG's: one that
# sends nothing goes at the handshake timeout, one that sends another
# protocol at once; itg-recv says so on stderr, one line each.
start_recv "$WORK/unknown.log" --handshake 300
python3 - "$RECV_PORT" <<'PY'
import socket, sys
port = int(sys.argv[1])
silent = socket.create_connection(("127.0.0.1", port))
other = socket.create_connection(("127.0.0.1", port))
other.sendall(b"GET / HTTP/1.0\r\n\r\n")
for s in (silent, other):
    s.settimeout(20)
    while s.recv(4096):  # until itg-recv closes it
        pass
PY
check "clients speaking no known signaling are closed" [ $? -eq 0 ]
dropped() { grep -q "dropped: $1" "$RECV_OUT"; }
check "itg-recv tells the silent client's drop at the handshake timeout" \
  wait_until 10 dropped "no flow opened in time"
check "and the other protocol's at once (its second byte is no version of ours)" \
  wait_until 10 dropped "unsupported signaling protocol version"
stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]
finish
