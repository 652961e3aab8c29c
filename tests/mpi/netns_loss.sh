#!/bin/sh
# itg-mpi across a bottleneck: the loss its report shows is the loss on
# the wire. tests/mpi/netns.sh makes a sender side S and a destination
# side D joined through a router R whose way to D passes UDP through a
# tbf of 10 Mbit/s; rank 1 sends from S, to rank 2 in D, a UDP flow of
# 2 000 packets of 1 000 bytes a second for 3 s (16 Mbit/s of payload,
# the tbf drops about a third) and a TCP flow beside it (not shaped).
# Then, for the UDP flow:
#   sent     the packets it sent = its datagrams captured on vrs in R
#            (what S put on the wire);
#   received its receiver's count = its datagrams captured on vdr in D
#            (what crossed the bottleneck);
#   lost     the report's loss (itg-dec over the gathered logs) =
#            sent on the wire - delivered on the wire = the tbf's drops;
# the TCP flow complete, its payload bytes on vdr those it sent.
#
# Placing the ranks: `ip netns exec NS` cannot start a rank of an mpirun
# app context, since a rank reaches mpirun (PMIx) over the loopback of
# the namespace it starts in, and NS's loopback is not the root
# namespace's. So every rank starts in the root namespace, made with
# mpirun's own connections, and itg-mpi's --netns moves a rank's flows
# into its namespace right after MPI_Init (setns), MPI's connections
# staying where they were made: rank 0 (the gatherer) in the root
# namespace, rank 1 --netns S, rank 2 --netns D, one app context each.
# With --net 10.214.0.0/16 each rank takes its namespace's address, so
# the flows go to D's address, through R.
# needs: root (network namespaces, tc, packet capture: wiretap)
if [ -z "$NETNS_S" ]; then
  exec sh "$(dirname "$0")/netns.sh" -- sh "$0" "$@"
fi
BUILD=$1
. "$(dirname "$0")/lib.sh"

cat >"$WORK/loss.exp" <<'EXP'
@1  -a @2  -T UDP -C 2000 -c 1000 -t 3000
@1  -a @2  -T TCP -C 200 -c 512 -t 3000
EXP

tap_all udp "$WORK/sent.bin" "$NETNS_SENT_DEV" "$NETNS_SENT_NS"
tap_all udp "$WORK/delivered.bin" "$NETNS_DELIVERED_DEV" "$NETNS_DELIVERED_NS"
tap_all tcp "$WORK/tcp.bin" "$NETNS_DELIVERED_DEV" "$NETNS_DELIVERED_NS"
opts="--json --net 10.214.0.0/16 -L $WORK/logs --spill-dir $WORK"
# shellcheck disable=SC2086
timeout -k 5 60 $MPIRUN -np 1 "$ITG_MPI" $opts "$WORK/loss.exp" : \
  -np 1 "$ITG_MPI" --netns "$NETNS_S" $opts "$WORK/loss.exp" : \
  -np 1 "$ITG_MPI" --netns "$NETNS_D" $opts "$WORK/loss.exp" \
  >"$WORK/out.json" 2>"$WORK/err.txt"
st=$?
stop_taps
sh "$(dirname "$0")/netns.sh" tbf >"$WORK/tbf.txt" || die "no tbf counts"
echo "itg-mpi exit $st; tbf: $(cat "$WORK/tbf.txt")"
sed 's/^/    /' "$WORK/err.txt" "$WORK"/*.bin.err
check "itg-mpi exits 0" [ "$st" -eq 0 ]
check "the captures missed nothing (kernel drops 0)" \
  taps_whole "$WORK/sent.bin" "$WORK/delivered.bin" "$WORK/tcp.bin"
python3 - "$WORK" >"$WORK/cmp.txt" 2>&1 <<'PY'
import json, sys
import numpy as np

d = sys.argv[1]
rep = json.load(open(d + "/out.json"))
CAP = np.dtype([("ts", "<u8"), ("len", "<u4"), ("head", ">u4"), ("port", "<u4"), ("seq", "<u4")])


def wire(name, f):
    c = np.fromfile("%s/%s.bin" % (d, name), dtype=CAP)
    c = c[c["port"] == f["data_port"]]
    return c[c["head"] == f["flow"]] if name != "tcp" else c


dropped = int(open(d + "/tbf.txt").read().split()[3])
for r in rep["ranks"]:
    print("rank %d address %s" % (r["rank"], r["address"]))
udp, tcp = rep["flows"]
dec = {f["flow"]: f for f in rep["report"]["flows"]}
sent, delivered = len(wire("sent", udp)), len(wire("delivered", udp))
print("udp flow %d to %s port %d: sent %d on the wire %d; received %d on the wire %d;"
      " report lost %d (%.1f%%), on the wire %d, tbf dropped %d"
      % (udp["flow"], udp["receiver"], udp["data_port"], udp["sent"], sent, udp["received"],
         delivered, dec[udp["flow"]]["lost"], dec[udp["flow"]]["loss_pct"], sent - delivered,
         dropped))
print("udp sent", "equal" if udp["sent"] == sent == 6000 else "differ")
print("udp received", "equal" if udp["received"] == delivered == dec[udp["flow"]]["packets"] else "differ")
print("udp lost", "equal" if dec[udp["flow"]]["lost"] == sent - delivered == dropped > 0 else "differ")
t = wire("tcp", tcp)
print("tcp flow %d: %s, sent %d (%d bytes), received %d, %d bytes on vdr; report lost %d"
      % (tcp["flow"], tcp["status"], tcp["sent"], tcp["bytes"], tcp["received"], t["len"].sum(),
         dec[tcp["flow"]]["lost"]))
print("tcp", "complete" if tcp["status"] == "OK" and tcp["sent"] == tcp["received"] > 0
      and tcp["bytes"] == t["len"].sum() and dec[tcp["flow"]]["lost"] == 0 else "incomplete")
PY
cat "$WORK/cmp.txt"
check "ranks 1 and 2 took their namespaces' addresses" \
  sh -c 'grep -qx "rank 1 address $1" "$3" && grep -qx "rank 2 address $2" "$3"' _ \
  "$NETNS_ADDR_S" "$NETNS_ADDR_D" "$WORK/cmp.txt"
check "UDP: sent = datagrams S put on the wire (6000)" grep -qx "udp sent equal" "$WORK/cmp.txt"
check "UDP: received = datagrams that reached D" grep -qx "udp received equal" "$WORK/cmp.txt"
check "UDP: the report's loss = sent - delivered on the wire = tbf's drops" \
  grep -qx "udp lost equal" "$WORK/cmp.txt"
check "TCP beside it: complete, every byte on the wire" grep -qx "tcp complete" "$WORK/cmp.txt"
finish
