#!/bin/sh
# itg-ctl on loopback, without root: two agents (itg-agent, ports picked
# by the system) named in an agents file run flows both ways: exit 0,
# each flow OK with sent = received, the receivers' logs fetched (-L)
# hold every packet; a second run on the same agents fetches its own logs.
# And what itg-ctl refuses before it connects, exit 2 with a message
# naming the fault: no agent, a bad agent name, a name given twice, a bad
# line of the agents file, a missing token file, an experiment naming an
# agent that is not there.
BUILD=$1
. "$(dirname "$0")/lib.sh"

printf 'the token of ctl.sh, 32 bytes or more\n' >"$WORK/token"

# start_agent NAME: itg-agent on loopback; AGENT_PORT its control port.
start_agent() {
  mkdir -p "$WORK/$1"
  "$BIN/itg-agent" --listen 127.0.0.1:0 -Sp 0 --token-file "$WORK/token" \
    --log-dir "$WORK/$1" >"$WORK/$1.out" 2>&1 &
  PIDS="$PIDS $!"
  wait_until 10 has_listen_port "$WORK/$1.out" ctl ||
    die "itg-agent $1 did not listen: $(cat "$WORK/$1.out")"
  AGENT_PORT=$(listen_port "$WORK/$1.out" ctl)
}
start_agent A
printf '# the agents\nA=127.0.0.1:%s\n\n' "$AGENT_PORT" >"$WORK/agents"
start_agent B
printf '  B = 127.0.0.1:%s   # the other\n' "$AGENT_PORT" >>"$WORK/agents"

cat >"$WORK/both.exp" <<'EXP'
@A  -a @B  -T UDP -C 400 -c 256 -t 1000
@B  -a @A  -T UDP -C 300 -c 512 -t 1000   # back
@A  -a @B  -T TCP -C 100 -c 1024 -t 1000
EXP
# A second run on the same agents, of other counts: its logs are its own,
# not the first run's of the same flow numbers.
cat >"$WORK/again.exp" <<'EXP'
@A  -a @B  -T UDP -C 200 -c 128 -t 500
@B  -a @A  -T TCP -C 100 -c 128 -t 500
EXP

# run_ctl NAME FLOWS: itg-ctl runs WORK/NAME.exp, of FLOWS flows, its logs
# fetched into WORK/NAME.
run_ctl() {
  timeout -k 5 60 "$BIN/itg-ctl" --token-file "$WORK/token" \
    --agents "$WORK/agents" --json -L "$WORK/$1" "$WORK/$1.exp" \
    >"$WORK/$1.json" 2>"$WORK/$1.err"
  st=$?
  sed 's/^/    /' "$WORK/$1.err"
  check "$1: itg-ctl exits 0" [ "$st" -eq 0 ]
  check "$1: every flow OK, sent = received; the fetched logs hold every packet" \
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for f in r["flows"]:
    print("    flow %d agent %d -> %d: %s, sent %d, received %d" % (f["flow"], f["sender_agent"],
          f["receiver_agent"], f["status"], f["sent"], f["received"]))
sent = sum(f["sent"] for f in r["flows"])
print("    the fetched logs: %d packets" % r["report"]["total"]["packets"])
sys.exit(not (len(r["flows"]) == int(sys.argv[2]) and [a["host"] for a in r["agents"]] == ["A", "B"]
              and all(f["status"] == "OK" and f["sent"] > 0 and f["sent"] == f["received"]
                      for f in r["flows"])
              and r["report"]["total"]["packets"] == sent))' "$WORK/$1.json" "$2"
}
run_ctl both 3
run_ctl again 2

# refused RE ARGS...: itg-ctl exits 2 and says RE on stderr.
refused() {
  re=$1
  shift
  "$BIN/itg-ctl" "$@" >"$WORK/refused.out" 2>&1
  st=$?
  sed 's/^/    /' "$WORK/refused.out" | head -n 2
  [ "$st" -eq 2 ] && grep -q "$re" "$WORK/refused.out"
}
T="--token-file $WORK/token"
# shellcheck disable=SC2086
{
  check "no agent" refused "no agent" $T "$WORK/both.exp"
  check "an agent named by a number" refused "'7=127.0.0.1': not NAME" \
    $T --agent 7=127.0.0.1 "$WORK/both.exp"
  check "an agent named twice" refused "agent 'A' given twice" \
    $T --agent A=127.0.0.1 --agent A=127.0.0.2 "$WORK/both.exp"
  printf 'A=127.0.0.1\nB=[::1\n' >"$WORK/bad-agents"
  check "a bad line of the agents file" refused "bad-agents: line 2: agent B" \
    $T --agents "$WORK/bad-agents" "$WORK/both.exp"
  check "a missing token file" refused "token-file $WORK/none" \
    --token-file "$WORK/none" --agent A=127.0.0.1 "$WORK/both.exp"
  check "an experiment naming an agent not given" refused "line 1: @B" \
    $T --agent A=127.0.0.1 "$WORK/both.exp"
}
finish
