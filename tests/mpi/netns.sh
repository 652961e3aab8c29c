#!/bin/sh
# A bottleneck link between two network namespaces, for a command to run
# across: the namespaces exist while the command runs and are gone after
# it, whatever ends it (its exit, a failed set-up step, SIGINT, SIGTERM).
#
#   netns.sh [--rate RATE] [--burst BYTES] [--limit BYTES] -- COMMAND...
#   netns.sh tbf   (from within COMMAND) prints "sent N dropped M": the
#                  packets the bottleneck has passed and dropped so far
#
# Three namespaces, named with this script's pid so that runs side by
# side do not meet:
#
#   itg-s-PID  10.214.1.1 (vsr) ---- (vrs) 10.214.1.2  itg-r-PID
#   itg-d-PID  10.214.2.1 (vdr) ---- (vrd) 10.214.2.2  itg-r-PID
#
# itg-r-PID routes between the two links; the sender side S reaches the
# destination side D (and back) through it. Its egress towards D (vrd)
# is the bottleneck for UDP: tc's tbf at RATE (default 10mbit) with a
# bucket of BURST bytes (default 4000) and a queue of LIMIT bytes
# (default 12000); what does not fit is dropped there and nowhere else.
# Other packets (TCP) and the way back, D to S, have no limit.
#
# Packets are watched where they arrive, which is what a packet socket
# sees of every packet whatever its qdisc: a capture on vrs in R sees
# every packet S sent towards D before the bottleneck, a capture on vdr
# in D every packet that crossed it; their difference is tbf's drops, the
# "dropped" count of qdisc 10: (the tbf) in `tc -s qdisc show dev vrd`
# in R. IPv6 is off on the links and the neighbours are fixed entries, so
# that no neighbour discovery nor router solicitation meets the flows.
#
# COMMAND runs in the root namespace with these in its environment:
#   NETNS_S, NETNS_R, NETNS_D   the namespaces' names (ip netns exec NAME)
#   NETNS_ADDR_S, NETNS_ADDR_D  the addresses of S and D
#   NETNS_SENT_DEV, NETNS_SENT_NS        vrs in R: captures what S sent
#   NETNS_DELIVERED_DEV, NETNS_DELIVERED_NS  vdr in D: what reached D
#   NETNS_TBF_DEV, NETNS_TBF_NS  vrd in R: the tbf qdisc
# netns.sh exits with COMMAND's status; 1 if the set-up failed (the
# reason on stderr) or a signal ended it, COMMAND then getting SIGTERM.
# Needs root: ip netns add, tc.
if [ "$1" = tbf ] && [ $# -eq 1 ]; then
  [ -n "$NETNS_TBF_NS" ] || { echo "netns.sh tbf: not within netns.sh" >&2; exit 2; }
  ip netns exec "$NETNS_TBF_NS" tc -s qdisc show dev "$NETNS_TBF_DEV" |
    awk '$1 == "qdisc" { tbf = $2 == "tbf" && $3 == "10:" }
         tbf && $1 == "Sent" { sub(",", "", $7); print "sent", $4, "dropped", $7; n++ }
         END { exit n != 1 }'
  exit
fi

RATE=10mbit
BURST=4000
LIMIT=12000
while [ $# -gt 0 ]; do
  case $1 in
    --rate) RATE=$2; shift 2 ;;
    --burst) BURST=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: netns.sh [--rate RATE] [--burst BYTES] [--limit BYTES] -- COMMAND..." >&2
       exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "netns.sh: no command" >&2; exit 2; }

NETNS_S="itg-s-$$"
NETNS_R="itg-r-$$"
NETNS_D="itg-d-$$"
MADE=""
COMMAND_PID=""

teardown() {
  [ -n "$COMMAND_PID" ] && kill -TERM "-$COMMAND_PID" 2>/dev/null
  for ns in $MADE; do
    # A program left running inside would keep the namespace alive.
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  MADE=""
}
trap teardown EXIT
trap 'exit 1' INT TERM HUP

fail() {
  echo "netns.sh: $*" >&2
  exit 1
}

nsx() {
  ns=$1
  shift
  ip netns exec "$ns" "$@"
}

for ns in "$NETNS_S" "$NETNS_R" "$NETNS_D"; do
  ip netns add "$ns" || fail "cannot create the namespace $ns (root needed)"
  MADE="$MADE $ns"
  nsx "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1 || fail "IPv6 off in $ns"
  nsx "$ns" ip link set lo up || fail "lo up in $ns"
done

# link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: a veth pair, /24 addresses,
# each end knowing the other's hardware address for good.
link() {
  ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" ||
    fail "veth $1 - $4"
  nsx "$1" ip addr add "$3/24" dev "$2" || fail "address $3"
  nsx "$4" ip addr add "$6/24" dev "$5" || fail "address $6"
  nsx "$1" ip link set "$2" up || fail "$2 up"
  nsx "$4" ip link set "$5" up || fail "$5 up"
  mac_a=$(nsx "$1" cat "/sys/class/net/$2/address") || fail "address of $2"
  mac_b=$(nsx "$4" cat "/sys/class/net/$5/address") || fail "address of $5"
  nsx "$1" ip neigh replace "$6" lladdr "$mac_b" dev "$2" nud permanent ||
    fail "neighbour $6"
  nsx "$4" ip neigh replace "$3" lladdr "$mac_a" dev "$5" nud permanent ||
    fail "neighbour $3"
}
NETNS_ADDR_S=10.214.1.1
NETNS_ADDR_D=10.214.2.1
link "$NETNS_S" vsr "$NETNS_ADDR_S" "$NETNS_R" vrs 10.214.1.2
link "$NETNS_D" vdr "$NETNS_ADDR_D" "$NETNS_R" vrd 10.214.2.2
nsx "$NETNS_R" sysctl -qw net.ipv4.ip_forward=1 || fail "forwarding in R"
nsx "$NETNS_S" ip route add default via 10.214.1.2 || fail "route in S"
nsx "$NETNS_D" ip route add default via 10.214.2.2 || fail "route in D"
# UDP alone goes through the bottleneck (class 1:10, the tbf under it);
# the rest, TCP signaling among it, passes beside it (class 1:20), so
# that the tbf's drops are UDP packets only. The classes themselves are
# far above any rate here and shape nothing.
tcr() { nsx "$NETNS_R" tc "$@" || fail "tc $*"; }
tcr qdisc add dev vrd root handle 1: htb default 20
tcr class add dev vrd parent 1: classid 1:10 htb rate 10gbit quantum 1514
tcr class add dev vrd parent 1: classid 1:20 htb rate 10gbit quantum 1514
tcr qdisc add dev vrd parent 1:10 handle 10: tbf rate "$RATE" burst "$BURST" \
  limit "$LIMIT"
tcr filter add dev vrd parent 1: protocol ip prio 1 u32 \
  match ip protocol 17 0xff flowid 1:10

NETNS_SENT_NS=$NETNS_R
NETNS_SENT_DEV=vrs
NETNS_DELIVERED_NS=$NETNS_D
NETNS_DELIVERED_DEV=vdr
NETNS_TBF_NS=$NETNS_R
NETNS_TBF_DEV=vrd
export NETNS_S NETNS_R NETNS_D NETNS_ADDR_S NETNS_ADDR_D NETNS_SENT_NS \
  NETNS_SENT_DEV NETNS_DELIVERED_NS NETNS_DELIVERED_DEV NETNS_TBF_NS \
  NETNS_TBF_DEV
# In the background, so that a signal to this script reaches its trap at
# once rather than when the command ends; in a session and process group
# of its own, whose id is its pid (a background child leads no group, so
# setsid need not fork), so that the trap ends whatever the command
# started.
setsid "$@" &
COMMAND_PID=$!
wait "$COMMAND_PID"
status=$?
COMMAND_PID=""
exit "$status"
