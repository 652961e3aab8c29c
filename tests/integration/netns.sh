#!/bin/sh
# Remote logging across network namespaces: the sender, the receiver and
# the log server each in a namespace of their own that this test creates,
# joined pairwise by veth links on private addresses that exist only inside
# them, the sender-receiver link limited to 50 Mbit/s by tc's tbf. One flow
# ships its sender log (-L) and its receiver log (-X) over TCP: the
# server's two files, decoded together by itg-dec, hold every packet the
# sender sent, none lost (the receiver lets its log go to that server,
# neither loopback nor the sender's, with --log-servers). The namespaces go away at the end, failed or not.
# Needs root (ip netns add); a system that refuses it fails the test.
# needs: root (network namespaces, tc)
BUILD=$1
. "$(dirname "$0")/lib.sh"

NS_S="itg-s-$$"
NS_R="itg-r-$$"
NS_L="itg-l-$$"
LOGD="$WORK/logs"
mkdir -p "$LOGD"
cd "$WORK" || die "cd"

ns_add "$NS_S" "$NS_R" "$NS_L"

# link NS_A ADDR_A NS_B ADDR_B: a veth pair between two namespaces, its
# ends named for the peer (sr: in S towards R), with /24 addresses.
link() {
  ip link add "v$5" netns "$1" type veth peer name "v$6" netns "$3" ||
    die "veth $1 - $3"
  nsx "$1" ip addr add "$2/24" dev "v$5" || die "address $2"
  nsx "$3" ip addr add "$4/24" dev "v$6" || die "address $4"
  nsx "$1" ip link set "v$5" up || die "up v$5"
  nsx "$3" ip link set "v$6" up || die "up v$6"
}
link "$NS_S" 10.213.1.1 "$NS_R" 10.213.1.2 sr rs
link "$NS_S" 10.213.2.1 "$NS_L" 10.213.2.2 sl ls
link "$NS_R" 10.213.3.1 "$NS_L" 10.213.3.2 rl lr
nsx "$NS_S" tc qdisc add dev vsr root tbf rate 50mbit burst 32kbit latency 200ms ||
  die "tc tbf on the sender-receiver link"
check "the link is limited by tbf" \
  sh -c "ip netns exec $NS_S tc qdisc show dev vsr | grep -q 'tbf.*rate 50Mbit'"

ip netns exec "$NS_L" "$BIN/itg-log" -p 0 -d "$LOGD" -A 10.213.0.0/16 \
  >"$WORK/log.out" 2>&1 &
LOG_PID=$!
PIDS="$PIDS $LOG_PID"
ip netns exec "$NS_R" "$BIN/itg-recv" -Sp 0 --log-servers 10.213.3.0/24 \
  >"$WORK/recv.out" 2>&1 &
RECV_PID=$!
PIDS="$PIDS $RECV_PID"
wait_until 10 has_listen_port "$WORK/log.out" tcp ||
  die "itg-log did not listen: $(cat "$WORK/log.out")"
wait_until 10 has_listen_port "$WORK/recv.out" sig ||
  die "itg-recv did not listen: $(cat "$WORK/recv.out")"
log_port=$(listen_port "$WORK/log.out" tcp)

# 4 000 pkt/s of 1000 B: 33 Mbit/s on the wire through the 50 Mbit/s link,
# which also carries what a sender held up by a busy machine catches up
# (at most 5/4 of the rate: 42 Mbit/s) with room to spare; at 5 000 pkt/s
# that was 52 Mbit/s, over the link's rate, and a CI run whose sender was
# late for 14 610 of 15 000 packets lost 507 of them. The link's queue
# (200 ms) holds a debt sent at the flow's end.
softnet_drops() {
  n=0
  for d in $(cut -d' ' -f2 /proc/net/softnet_stat); do n=$((n + 0x$d)); done
  echo "$n"
}
backlog0=$(softnet_drops)
timeout 30 ip netns exec "$NS_S" "$BIN/itg-send" -a 10.213.1.2 \
  -Sdp "$(listen_port "$WORK/recv.out" sig)" -rp 0 -C 4000 -c 1000 -t 3000 \
  -L "10.213.2.2:$log_port" TCP -l tx.log -X "10.213.3.2:$log_port" TCP \
  -x rx.log >"$WORK/send.out" 2>&1
check "the flow succeeds" [ $? -eq 0 ]
cat "$WORK/send.out"
# Where packets were lost, if any were: at the link's tbf, in the kernel's
# backlog before any socket (the whole machine's), or at the receiver's
# socket.
echo "tbf: $(nsx "$NS_S" tc -s qdisc show dev vsr | grep -o 'dropped [0-9]*')"
echo "backlog drops meanwhile: $(($(softnet_drops) - backlog0))"
echo "receiver's UDP: $(nsx "$NS_R" cat /proc/net/snmp |
  awk '/^Udp:/ { if (h) print "InErrors " $4 ", RcvbufErrors " $6; h = 1 }')"
kill -TERM "$RECV_PID"
wait "$RECV_PID"
check "itg-recv exits 0" [ $? -eq 0 ]
kill -TERM "$LOG_PID"
wait "$LOG_PID"
check "itg-log exits 0" [ $? -eq 0 ]
cat "$WORK/log.out"

sent=$(sed -n 's/.*flow [0-9]*: \([0-9]*\) packets.*/\1/p' "$WORK/send.out")
[ -n "$sent" ] || sent=-1
"$BIN/itg-dec" --json "$LOGD/tx.log" "$LOGD/rx.log" >"$WORK/both.json"
check "itg-dec reads the server's files" [ $? -eq 0 ]
got=$(json_field "$WORK/both.json" 'r["total"]["packets"]')
expected=$(json_field "$WORK/both.json" 'r["total"]["expected"]')
lost=$(json_field "$WORK/both.json" 'r["total"]["lost"]')
echo "sent $sent; the server's files: $expected sent, $got received, $lost lost"
check "the sender log holds every packet sent" [ "$expected" = "$sent" ]
check "the receiver log holds every packet sent" [ "$got" = "$sent" ]
check "none lost" [ "$lost" = 0 ]
check "both sessions closed complete" \
  [ "$(grep -c "closed: \(tx\|rx\).log," "$WORK/log.out")" -eq 2 ]
check "nothing spilled" [ -z "$(ls "$WORK"/*.spill 2>/dev/null)" ]
check "the sessions came from the namespaces' own addresses" \
  grep -q "from \[::ffff:10.213.3.1\]:.*receiver" "$WORK/log.out"
finish
