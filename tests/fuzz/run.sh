#!/bin/sh
# The fuzz harnesses' runs (tests/fuzz/fuzz.mk calls this).
#   run.sh have-libfuzzer CC        exit 0 if CC links a libFuzzer program,
#                                   else say how to get one and exit 1
#   run.sh replay BUILD NAME...     each corpus through its replay program
#   run.sh fuzz BUILD SECONDS NAME...  each harness for SECONDS
# A finding fails the run and is named; libFuzzer's crash inputs are kept
# in BUILD/fuzz/findings/.
here=$(dirname "$0")
mode=$1
shift

case "$mode" in
have-libfuzzer)
  cc=$1
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/itg-fuzzcheck.XXXXXX") || exit 1
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$tmp/t.c"
  if "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" \
    >/dev/null 2>&1; then
    rm -rf "$tmp"
    exit 0
  fi
  rm -rf "$tmp"
  echo "fuzz: '$cc' cannot link a libFuzzer program (on Debian 12: apt-get" \
    "install clang libclang-rt-14-dev): fuzzing skipped; the corpora were" \
    "replayed"
  exit 1
  ;;
replay)
  build=$1
  shift
  bad=""
  for name in "$@"; do
    log="$build/fuzz/replay_$name.log"
    # A limit: an input that hangs its harness is a finding too.
    if timeout 300 "$build/fuzz/replay_$name" "$here/corpus/$name" \
      >"$log" 2>&1; then
      echo "fuzz replay $name: $(tail -n 1 "$log")"
    else
      echo "FAIL fuzz replay $name:"
      tail -n 30 "$log"
      bad="$bad $name"
    fi
  done
  [ -z "$bad" ] || { echo "fuzz replay failed:$bad"; exit 1; }
  ;;
fuzz)
  build=$1
  secs=$2
  shift 2
  bad=""
  mkdir -p "$build/fuzz/findings"
  for name in "$@"; do
    new="$build/fuzz/new/$name"
    log="$build/fuzz/fuzz_$name.log"
    mkdir -p "$new"
    # -rss_limit_mb and -timeout: a harness's input that takes memory or
    # time without bound is a finding too.
    if "$build/fuzz/fuzz_$name" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz/findings/$name-" \
      "$new" "$here/corpus/$name" >"$log" 2>&1; then
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
      echo "fuzz $name: ${secs} s, ${runs:-?} runs, no finding"
    else
      echo "FAIL fuzz $name (inputs in $build/fuzz/findings/):"
      grep -E "ERROR|property failed|SUMMARY|Test unit written" "$log" | head -n 20
      bad="$bad $name"
    fi
  done
  [ -z "$bad" ] || { echo "fuzz failed:$bad"; exit 1; }
  ;;
*)
  echo "usage: run.sh have-libfuzzer CC | replay BUILD NAME... |" \
    "fuzz BUILD SECONDS NAME..." >&2
  exit 2
  ;;
esac
