#!/bin/sh
# D-ITG's traffic models on the wire (wiretap, fixed seeds): an on/off
# source (-B) whose off periods (the gaps longer than its IDT) and on
# periods follow their laws, at the asked rate within on periods; the
# Quake3, CSa and CSi presets' sizes and IDTs; VoIP's G.711.1 default and
# -VAD size; Telnet's sizes (TCP, from the receiver's log). Where D-ITG
# 2.8.1 is installed, ITGSend's VoIP flow is captured the same way and
# must put the same packets on the wire.
# needs: root (packet capture: wiretap)
BUILD=$1
. "$(dirname "$0")/lib.sh"
LAWS="$TOOLS/ditg_laws.py"

start_recv "$WORK/recv.log"

# On/off: 500 pkt/s in on periods exponential of mean 40 ms, silent for
# off periods uniform in [40, 120] ms; about 50 cycles in 6 s. The gaps
# above 20 ms are the off periods. The rate is read from the median gap,
# which a busy machine may leave in debt for over half the gaps, each
# then short by the catch-up's gentle step (25 us while the flow's
# ordinary lateness is under 75 us): at 2 ms that is 1.25 % of the IDT,
# inside the check's 2 %.
tap_send 8 "$WORK/onoff.bin" "$WORK/onoff.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" -C 500 -c 100 -B E 40 U 40 120 -s 3 -t 6000
check "itg-send on/off exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "on/off periods follow their laws on the wire" \
  python3 "$LAWS" onoff "$WORK/onoff.bin" 2 20 exp:40 uniform:40,120

# Quake3: 60 % exponential IDTs of mean 4.29 ms, 40 % at 10.75 ms; sizes
# normal(64.15, 3.20) B.
tap_send 11 "$WORK/quake.bin" "$WORK/quake.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" Quake3 -s 11 -z 1200 -t 10000
check "itg-send Quake3 exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "Quake3: 1200 packets on the wire" [ "$(tap_count "$WORK/quake.bin")" -eq 1200 ]
check "Quake3 sizes" python3 "$LAWS" sizes "$WORK/quake.bin" quake3
check "Quake3 IDTs" python3 "$LAWS" quake3-idt "$WORK/quake.bin"

# Counter-Strike, active: Student IDTs around 41.7 ms; sizes a mixture of
# two normal laws, drawn again below the 36-byte native header (the note
# says how much).
tap_send 9 "$WORK/csa.bin" "$WORK/csa.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" CSa -s 12 -z 150 -t 7000
check "itg-send CSa exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "CSa: itg-send says what share the header cuts" \
  grep -q "flow 1: size: 22.6 % of the draws of cs-active(B) fall below the 36-byte native header" "$WORK/csa.out"
check "CSa sizes, cut at 36 B" python3 "$LAWS" sizes "$WORK/csa.bin" cs-active 36
check "CSa IDTs" python3 "$LAWS" student-idt "$WORK/csa.bin" 41.6994 0.104821 0.704073

# Counter-Strike, idle: its 27 to 35 B need D-ITG's header.
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" CSi -z 10 >"$WORK/csi-native.out" 2>&1
check "CSi over the native header is refused, naming --wire ditg" \
  grep -q "size: cs-idle draws only values outside .*--wire ditg" "$WORK/csi-native.out"
tap_send 9 "$WORK/csi.bin" "$WORK/csi.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" CSi --wire ditg -s 13 -z 150 -t 7000
check "itg-send CSi --wire ditg exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "CSi sizes" python3 "$LAWS" sizes "$WORK/csi.bin" cs-idle
check "CSi IDTs" python3 "$LAWS" student-idt "$WORK/csi.bin" 41.6858 0.0694393 1.08341

# VoIP: G.711.1 by default (100 pkt/s of 80 + 12 B); -VAD: 52 + 12 B.
tap_send 3 "$WORK/voip.bin" "$WORK/voip.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" VoIP -z 100
check "itg-send VoIP exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "VoIP: 100 packets of 92 B" [ "$(tap_count "$WORK/voip.bin" 92)" -eq 100 ]
check "VoIP: 100 pkt/s" python3 -c 'import sys
sys.path.insert(0, sys.argv[2]); import wirestats
s = wirestats.summarize(wirestats.load(sys.argv[1]))
sys.exit(not abs(s["rate_pps"] - 100) < 2)' "$WORK/voip.bin" "$TOOLS"
tap_send 3 "$WORK/vad.bin" "$WORK/vad.out" -a 127.0.0.1 \
  -Sdp "$RECV_PORT" VoIP -VAD --wire ditg -z 100
check "itg-send VoIP -VAD exits 0" [ $? -eq 0 ]
wait "$TAP_PID"
check "VoIP -VAD: 100 packets of 64 B" [ "$(tap_count "$WORK/vad.bin" 64)" -eq 100 ]

# Telnet over TCP (wiretap captures UDP): the receiver's log of the
# flow's sizes.
stop_recv
check "itg-recv exits 0 on SIGTERM" [ $? -eq 0 ]
start_recv "$WORK/telnet.log"
"$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 Telnet --wire ditg -s 14 \
  -t 6000 >"$WORK/telnet.out" 2>&1
st=$?
cat "$WORK/telnet.out"
check "itg-send Telnet --wire ditg exits 0" [ "$st" -eq 0 ]
stop_recv
check "Telnet sizes: 21 to 35 B, D-ITG's table" python3 -c 'import sys
sys.path.insert(0, sys.argv[2])
import numpy as np
from logrecs import records
import ditg_laws
s = np.array([size for flow, size, flags, seq in records(sys.argv[1]) if not flags & 0x30])
sys.exit(ditg_laws.chisq(s, *ditg_laws.TELNET, "telnet") or len(s) < 500)' \
  "$WORK/telnet.log" "$TOOLS"
finish
