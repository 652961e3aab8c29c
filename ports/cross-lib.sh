# Shared by the cross builds' runs through their runner (cross-flow.sh,
# cross-agent.sh): sourced with SUITE set, the name their closing line
# "SUITE: N passed, M failed" gives.
passed=0
failed=0

# check DESCRIPTION COMMAND...: runs one check and counts it.
check() {
  desc=$1
  shift
  if "$@"; then
    echo "  ok: $desc"
    passed=$((passed + 1))
  else
    echo "  FAILED: $desc"
    failed=$((failed + 1))
  fi
}

finish() {
  echo "$SUITE: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# wait_until SECONDS COMMAND...: polls COMMAND every 100 ms, at most
# SECONDS.
wait_until() {
  limit=$(($1 * 10))
  shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    [ "$i" -ge "$limit" ] && return 1
    sleep 0.1
  done
}
