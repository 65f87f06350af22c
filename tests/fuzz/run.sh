#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz/targets.rs (docs/reliability.md).
#
#   tests/fuzz/run.sh build                  build the fuzz binary (stable Rust,
#                                            SanitizerCoverage flags, no nightly)
#   tests/fuzz/run.sh smoke [SECONDS]        every target for SECONDS (10), two at a
#                                            time; any finding fails
#   tests/fuzz/run.sh run TARGET SECONDS [RUNS]
#                                            one target until SECONDS or RUNS executions
#   tests/fuzz/run.sh long                   every target to 10^6 runs or 600 s, one at
#                                            a time (docs/reliability.md, "Runs and findings")
#
# Every run: -rss_limit_mb=512 (and the same malloc limit), -timeout=10 s per input.
# A finding is written to target/fuzz/artifacts/<target>/ and fails the run;
# each becomes a regression test (tests/suite/fuzz_replay.rs).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
HOST=$(rustc -vV | sed -n 's/^host: //p')
BIN=$ROOT/target/$HOST/fuzz/fuzz
OUT=$ROOT/target/fuzz
TARGETS=(layer_table paleo profile li_profile chrome_trace loss_curve runs fit_points
         cluster_text catalog scenario fragment evaluate structure)

build() {
  # The flags cargo-fuzz passes, on the stable toolchain (no sanitizer: the
  # code under test is safe Rust; the checks are panics, overflow, memory, time).
  # --target keeps them off build scripts and proc macros.
  RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing" \
    cargo build --profile fuzz --features fuzz --bin fuzz --target "$HOST"
}

# The seed corpora: the product's own examples and test fixtures, and
# hand-written seeds where those have none of the target's kind.
seeds() {
  local t=$1
  [[ -d tests/fuzz/seeds/$t ]] && echo "tests/fuzz/seeds/$t"
  case $t in
    evaluate|chrome_trace|structure) ;;
    *) echo public/examples; echo tests/fixtures/v1 ;;
  esac
}

# run TARGET SECONDS [RUNS]: prints one line, "target runs seconds rss result".
run() {
  local t=$1 secs=$2 runs=${3:--1}
  local corpus=$OUT/corpus/$t art=$OUT/artifacts/$t log=$OUT/logs/$t.log
  mkdir -p "$corpus" "$art" "$OUT/logs"
  local status=0
  FUZZ_TARGET=$t "$BIN" -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10 \
    -max_total_time="$secs" -runs="$runs" -print_final_stats=1 \
    -artifact_prefix="$art/" "$corpus" $(seeds "$t") > "$log" 2>&1 || status=$?
  local execs rss took
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  if [[ $status -eq 0 ]]; then
    printf '%-13s %10s runs %5s s  peak rss %4s MB  ok\n' "$t" "${execs:-?}" "${took:-$secs}" "${rss:-?}"
  else
    printf '%-13s FAILED (exit %d): see %s and %s\n' "$t" "$status" "$log" "$art"
    grep -m3 -E "panicked|ERROR: libFuzzer" "$log" | sed 's/^/    /'
    return 1
  fi
}

case ${1:-} in
  build) build ;;
  smoke)
    secs=${2:-10}
    [[ -x $BIN ]] || build
    failed=0
    # Two at a time (two cores); each prints its line when done.
    for ((i = 0; i < ${#TARGETS[@]}; i += 2)); do
      pids=()
      for t in "${TARGETS[@]:i:2}"; do run "$t" "$secs" & pids+=($!); done
      for p in "${pids[@]}"; do wait "$p" || failed=1; done
    done
    exit $failed ;;
  run) [[ -x $BIN ]] || build; run "$2" "$3" "${4:--1}" ;;
  long)
    [[ -x $BIN ]] || build
    failed=0
    for t in "${TARGETS[@]}"; do run "$t" 600 1000000 || failed=1; done
    exit $failed ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
