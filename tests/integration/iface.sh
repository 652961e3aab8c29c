#!/bin/sh
# itg-recv -i / -Si (D-ITG's): its data ports and its signaling port take
# packets arriving on one interface alone (SO_BINDTODEVICE). Two network
# namespaces this test creates, joined by a veth link: a sender across the
# link is served, one on the receiver's own loopback is not (its
# signaling connection is refused with -Si; with -i alone, its flow opens
# but no packet of it is taken). An interface that does not exist is
# refused at start, naming it; -H (passive mode) is refused with its
# reason. The namespaces go away at the end, failed or not.
# needs: root (network namespaces)
BUILD=$1
. "$(dirname "$0")/lib.sh"

NS_S="itg-is-$$"
NS_R="itg-ir-$$"

ns_add "$NS_S" "$NS_R"
ip link add vis netns "$NS_S" type veth peer name vir netns "$NS_R" ||
  die "veth"
nsx "$NS_S" ip addr add 10.214.1.1/24 dev vis || die "address in S"
nsx "$NS_R" ip addr add 10.214.1.2/24 dev vir || die "address in R"
nsx "$NS_S" ip link set vis up || die "vis up"
nsx "$NS_R" ip link set vir up || die "vir up"

# recv_in OUT OPTIONS...: itg-recv in R, its port in RPORT once listening.
recv_in() {
  out=$1
  shift
  ip netns exec "$NS_R" "$BIN/itg-recv" -Sp 0 "$@" >"$out" 2>&1 &
  RECV_PID=$!
  PIDS="$PIDS $RECV_PID"
  wait_until 10 has_listen_port "$out" sig ||
    die "itg-recv did not listen: $(cat "$out")"
  RPORT=$(listen_port "$out" sig)
}

# got OUT: the packets the receiver got, as itg-send reports them.
got() { sed -n 's/.*receiver got \([0-9]*\).*/\1/p' "$1"; }

recv_in "$WORK/recv1.out" -i vir -Si vir
timeout 30 ip netns exec "$NS_S" "$BIN/itg-send" -a 10.214.1.2 -Sdp "$RPORT" \
  -rp 0 -C 1000 -c 64 -z 100 >"$WORK/send1.out" 2>&1
check "a sender across the link is served" [ $? -eq 0 ]
check "and its 100 packets taken" [ "$(got "$WORK/send1.out")" = 100 ]
timeout 30 ip netns exec "$NS_R" "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RPORT" \
  -rp 0 -C 1000 -c 64 -z 100 >"$WORK/send2.out" 2>&1
check "a sender on loopback is refused with -Si" [ $? -ne 0 ]
check "its signaling connection is refused" grep -qi "refused" "$WORK/send2.out"
kill -TERM "$RECV_PID"
wait "$RECV_PID"
check "itg-recv exits 0" [ $? -eq 0 ]

recv_in "$WORK/recv2.out" -i vir
timeout 30 ip netns exec "$NS_R" "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RPORT" \
  -rp 0 -C 1000 -c 64 -z 100 >"$WORK/send3.out" 2>&1
check "with -i alone, a loopback flow opens" \
  grep -q "flow 1 from .*: UDP port" "$WORK/recv2.out"
timeout 30 ip netns exec "$NS_S" "$BIN/itg-send" -a 10.214.1.2 -Sdp "$RPORT" \
  -rp 0 -C 1000 -c 64 -z 100 >"$WORK/send4.out" 2>&1
check "one across the link is served in full" \
  [ "$(got "$WORK/send4.out")" = 100 ]
kill -TERM "$RECV_PID"
wait "$RECV_PID"
check "itg-recv exits 0 again" [ $? -eq 0 ]
check "it took those 100 packets and none of the loopback flow's" \
  grep -q "^itg-recv: 100 packets," "$WORK/recv2.out"

nsx "$NS_R" "$BIN/itg-recv" -Sp 0 -Si nosuch0 >"$WORK/recv3.out" 2>&1
check "an unknown interface fails the start" [ $? -ne 0 ]
check "naming it" grep -q "interface nosuch0: no such interface" "$WORK/recv3.out"
"$BIN/itg-recv" -H 127.0.0.1 >"$WORK/recv4.out" 2>&1
check "-H exits 2" [ $? -eq 2 ]
check "and says why" grep -q "passive mode .* is not supported" "$WORK/recv4.out"
finish
