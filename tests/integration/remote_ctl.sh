#!/bin/sh
# itg-ctl drives two agents (itg-agent), each in a network namespace of
# its own that this test creates, itg-ctl itself in the root namespace:
#   - root - A and root - B are veth links (control), A - B a third one
#     the flows cross (each namespace reaches the other's control address
#     over it);
#   - both ways: an experiment of UDP and TCP flows A -> B and B -> A.
#     itg-ctl exits 0; each flow OK, sent = received, a UDP flow's sent =
#     its datagrams captured on the A - B link (wiretap, which owes
#     nothing to libitg), the receivers' logs fetched (-L) hold every
#     packet; the first packets of the flows lie within 1 ms of one
#     another on the wire (one try of 3: a loaded machine may delay one
#     agent now and then);
#   - an agent killed in the middle: A -> A, A -> B and B -> A for 4 s;
#     once B's flow has sent 100 packets (itg-ctl's progress), B gets
#     SIGKILL. itg-ctl names agent B on
#     stderr and exits 1; A's flow to itself is complete (OK, sent =
#     received) and every flow of A is reported; it ends within BOUND s;
#   - a wrong token: both agents refuse it, itg-ctl names both, says why,
#     exits 1 and no flow runs.
# The root namespace may hold other 10.x addresses (another run of this
# test at the same time, or one killed before it could clean up): the
# links take a 10.N.0.0/16 that no address or route of this namespace
# touches, and the test checks that its routes are the ones used.
# needs: root (network namespaces, packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
BOUND=25

# pick_net: NET=10.N, the first N from 200 + PID % 50 on (wrapping in
# 200..254) whose 10.N.0.0/16 no address or route of this namespace
# touches.
pick_net() {
  used=$(ip -4 route show table all | grep -o '10\.[0-9]*\.' | sort -u)
  n=$((200 + $$ % 50))
  tries=0
  while echo "$used" | grep -qx "10\.$n\."; do
    n=$((n < 254 ? n + 1 : 200))
    tries=$((tries + 1))
    [ "$tries" -le 55 ] || die "no free 10.N.0.0/16: $(ip -4 route show table all)"
  done
  NET=10.$n
}
pick_net
echo "links in $NET.0.0/16"

NS_A="itg-ca-$$"
NS_B="itg-cb-$$"
ns_add "$NS_A" "$NS_B"

# veth ROOT_END NS NS_END ROOT_ADDR NS_ADDR: a link from this namespace
# into NS, /24 addresses on both ends.
veth() {
  ip link add "$1" type veth peer name "$3" netns "$2" || die "veth $1"
  ip addr add "$4/24" dev "$1" || die "address $4"
  nsx "$2" ip addr add "$5/24" dev "$3" || die "address $5"
  ip link set "$1" up || die "up $1"
  nsx "$2" ip link set "$3" up || die "up $3"
}
veth "ica$$" "$NS_A" vra "$NET.1.1" "$NET.1.2"
veth "icb$$" "$NS_B" vrb "$NET.2.1" "$NET.2.2"
ip link add vab netns "$NS_A" type veth peer name vba netns "$NS_B" ||
  die "veth A - B"
nsx "$NS_A" ip addr add "$NET.3.1/24" dev vab || die "address $NET.3.1"
nsx "$NS_B" ip addr add "$NET.3.2/24" dev vba || die "address $NET.3.2"
nsx "$NS_A" ip link set vab up || die "up vab"
nsx "$NS_B" ip link set vba up || die "up vba"
# Each agent's address is its control address: the other namespace
# reaches it over the A - B link.
nsx "$NS_A" ip route add "$NET.2.2/32" via "$NET.3.2" || die "route in A"
nsx "$NS_B" ip route add "$NET.1.2/32" via "$NET.3.1" || die "route in B"
# routed ADDR DEV: this namespace reaches ADDR over DEV.
routed() {
  ip -4 route get "$1" | grep -q " dev $2 " ||
    die "$1 is not reached over $2: $(ip -4 route get "$1")"
}
routed "$NET.1.2" "ica$$"
routed "$NET.2.2" "icb$$"

printf 'the token of remote_ctl.sh, 32 bytes or more\n' >"$WORK/token"
printf 'another token entirely, as long as the first\n' >"$WORK/wrong"

# start_agent NS NAME: itg-agent in NS, control and receiver ports picked
# by the system, logs in WORK/NAME; AGENT_PID and AGENT_PORT (control).
start_agent() {
  mkdir -p "$WORK/$2"
  ip netns exec "$1" "$BIN/itg-agent" --listen 0.0.0.0:0 -Sp 0 \
    --token-file "$WORK/token" --allow "$NET.0.0/16" --log-dir "$WORK/$2" \
    >"$WORK/$2.out" 2>&1 &
  AGENT_PID=$!
  PIDS="$PIDS $AGENT_PID"
  wait_until 10 has_listen_port "$WORK/$2.out" ctl ||
    die "itg-agent $2 did not listen: $(cat "$WORK/$2.out")"
  AGENT_PORT=$(listen_port "$WORK/$2.out" ctl)
}
start_agent "$NS_A" A
PID_A=$AGENT_PID
AGENTS="--agent A=$NET.1.2:$AGENT_PORT"
start_agent "$NS_B" B
PID_B=$AGENT_PID
AGENTS="$AGENTS --agent B=$NET.2.2:$AGENT_PORT"

# ---- both ways, on the wire -------------------------------------------------

cat >"$WORK/both.exp" <<'EXP'
@A  -a @B  -T UDP -C 300 -c 256 -t 2000
@B  -a @A  -T UDP -C 200 -c 512 -t 2000
@A  -a @B  -T TCP -C 100 -c 1024 -t 2000
@B  -a @A  -T UDP -E 150 -c 128 -t 2000
EXP

skew_met=0
try=1
while [ "$try" -le 3 ]; do
  dir="$WORK/try$try"
  mkdir -p "$dir"
  # A capture sees the packets a namespace receives: one at each end of
  # the A - B link, each stamped as the other end sends.
  for p in udp tcp; do
    tap_all "$p" "$dir/$p-a.bin" vab "$NS_A"
    tap_all "$p" "$dir/$p-b.bin" vba "$NS_B"
  done
  # shellcheck disable=SC2086
  timeout -k 5 60 "$BIN/itg-ctl" --token-file "$WORK/token" $AGENTS --json \
    --no-progress -L "$dir/logs" "$WORK/both.exp" >"$dir/out.json" \
    2>"$dir/err.txt"
  st=$?
  stop_taps
  echo "try $try: itg-ctl exit $st"
  sed 's/^/    /' "$dir/err.txt" "$dir"/*.bin.err
  check "try $try: itg-ctl exits 0" [ "$st" -eq 0 ]
  whole=0
  taps_whole "$dir"/*.bin && whole=1
  python3 - "$dir" "$whole" >"$dir/cmp.txt" 2>&1 <<'PY'
import json, sys
import numpy as np

d, whole = sys.argv[1], sys.argv[2] == "1"
rep = json.load(open(d + "/out.json"))
CAP = np.dtype([("ts", "<u8"), ("len", "<u4"), ("head", ">u4"), ("port", "<u4"), ("seq", "<u4")])
cap = {p: np.concatenate([np.fromfile("%s/%s-%s.bin" % (d, p, end), dtype=CAP) for end in "ab"])
       for p in ("udp", "tcp")}
ok = True
firsts = []
tcp_ports = set()
for f in rep["flows"]:
    good = f["status"] == "OK" and f["sent"] > 0 and f["received"] == f["sent"]
    udp = cap["udp"][cap["udp"]["port"] == f["data_port"]]
    tcp = cap["tcp"][cap["tcp"]["port"] == f["data_port"]]
    sel = udp if len(udp) else tcp
    if len(udp) and whole:
        good = good and len(udp) == f["sent"]
    if len(sel):
        firsts.append(int(sel["ts"].min()))
    print("    flow %d agent %d -> %d port %d: sent %d received %d, on the wire %d %s"
          % (f["flow"], f["sender_agent"], f["receiver_agent"], f["data_port"], f["sent"],
             f["received"], len(sel), "ok" if good else "DIFFERENT"))
    ok = ok and good
total = rep["report"]["total"]["packets"] if rep["report"] else -1
sent = sum(f["sent"] for f in rep["flows"])
print("    the fetched logs: %d packets received, %d sent" % (total, sent))
print("flows", "complete" if ok and total == sent else "differ")
print("flows on the wire: %d of %d" % (len(firsts), len(rep["flows"])))
print("skew wire_us %.1f itg_ctl_us %.1f" % ((max(firsts) - min(firsts)) / 1e3 if firsts else -1,
                                            rep["start_skew_s"] * 1e6))
PY
  cat "$dir/cmp.txt"
  check "try $try: every flow complete: OK, sent = received = on the wire = logged" \
    grep -qx "flows complete" "$dir/cmp.txt"
  check "try $try: the 4 flows seen on the wire" \
    grep -qx "flows on the wire: 4 of 4" "$dir/cmp.txt"
  if python3 -c 'import sys; sys.exit(not 0 <= float(sys.argv[1]) <= 1000)' \
    "$(sed -n 's/^skew wire_us \([^ ]*\) .*/\1/p' "$dir/cmp.txt")"; then
    skew_met=1
    break
  fi
  try=$((try + 1))
done
check "the first packets on the wire within 1 ms of one another (one try of 3)" \
  [ "$skew_met" -eq 1 ]

# ---- a wrong token -----------------------------------------------------------

# shellcheck disable=SC2086
timeout -k 5 60 "$BIN/itg-ctl" --token-file "$WORK/wrong" $AGENTS --json \
  --no-progress "$WORK/both.exp" >"$WORK/wrong.json" 2>"$WORK/wrong.txt"
st=$?
sed 's/^/    /' "$WORK/wrong.txt"
check "a wrong token: itg-ctl exits 1" [ "$st" -eq 1 ]
check "a wrong token: agent A named, refused" grep -q "agent 0 (A).*refused: wrong token" "$WORK/wrong.txt"
check "a wrong token: agent B named, refused" grep -q "agent 1 (B).*refused: wrong token" "$WORK/wrong.txt"
check "a wrong token: no flow sent a packet" \
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not all(f["sent"] == 0 and f["status"] != "OK" for f in r["flows"]))' "$WORK/wrong.json"

# ---- an agent killed in the middle -------------------------------------------

cat >"$WORK/kill.exp" <<'EXP'
@A  -a @A  -T UDP -C 200 -c 256 -t 4000
@A  -a @B  -T UDP -C 200 -c 256 -t 4000
@B  -a @A  -T UDP -C 200 -c 256 -t 4000
EXP
t0=$(date +%s)
# shellcheck disable=SC2086
timeout -k 5 60 "$BIN/itg-ctl" --token-file "$WORK/token" $AGENTS --json \
  --progress --grace 2000 --timeout 3000 "$WORK/kill.exp" >"$WORK/kill.json" \
  2>"$WORK/kill.txt" &
CTL=$!
PIDS="$PIDS $CTL"
# B's counters, as itg-ctl shows them every second: killed once it sent.
b_sent() { grep -q "B running, [1-9][0-9][0-9]* sent" "$WORK/kill.txt"; }
wait_until 20 b_sent || echo "    agent B never showed a packet sent"
kill -9 "$PID_B"
wait "$CTL"
st=$?
took=$(($(date +%s) - t0))
sed 's/^/    /' "$WORK/kill.txt"
echo "    itg-ctl ended $took s after its start, exit $st"
check "an agent killed: itg-ctl exits 1" [ "$st" -eq 1 ]
check "an agent killed: agent B named" grep -q "agent 1 (B)" "$WORK/kill.txt"
check "an agent killed: itg-ctl ends within $BOUND s" [ "$took" -le "$BOUND" ]
check "an agent killed: A's flows reported, A -> A complete, B's not reported" \
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
f = r["flows"]
print("    ", [(x["flow"], x["reported"], x["status"], x["sent"], x["received"]) for x in f])
sys.exit(not (f[0]["status"] == "OK" and f[0]["sent"] > 0 and f[0]["sent"] == f[0]["received"]
              and f[1]["reported"] and not f[2]["reported"]
              and r["agents"][1]["silent"] and not r["agents"][0]["silent"]))' "$WORK/kill.json"
kill -TERM "$PID_A"
wait "$PID_A"
check "agent A exits 0" [ $? -eq 0 ]
finish
