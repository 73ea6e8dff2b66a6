#!/usr/bin/env bash
# Fuzzing, bounded in time:
#   scripts/run-fuzzers.sh [seconds-per-target] [target...]
# Builds the `fuzz` preset (clang 14, libFuzzer, ASan + UBSan; needs
# libclang-rt-14-dev), runs each target for the given seconds (default 60)
# starting from its committed corpus (tests/fuzz/corpus/<name>/), then
# replays the corpus and the crash regressions (tests/fuzz/regressions/
# <name>/, which fail until their bug is fixed) once through ctest (label
# `fuzz`). New inputs go to
# <build>/fuzz-work/<target>/ (not into the repository); a crash leaves
# <build>/fuzz-artifacts/<target>/crash-* and makes the script fail: copy
# that file into tests/fuzz/regressions/<name>/ once it is fixed.
# Targets: npy_header_fuzzer contract_fuzzer api_fuzzer prelu_fuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(npy_header_fuzzer contract_fuzzer api_fuzzer prelu_fuzzer)
fi
build=${LRELU_FUZZ_BUILD_DIR:-build/fuzz}
jobs=${LRELU_JOBS:-2}

cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=""
for target in "${targets[@]}"; do
  name=${target%_fuzzer}
  work="$build/fuzz-work/$target"
  artifacts="$build/fuzz-artifacts/$target"
  log="$build/fuzz-work/$target.log"
  mkdir -p "$work" "$artifacts"
  echo "== $target: ${seconds} s"
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" \
        -print_final_stats=1 -timeout=25 -rss_limit_mb=4096 \
        -artifact_prefix="$artifacts/" "$work" "tests/fuzz/corpus/$name" \
        >"$log" 2>&1; then
    status=1
    echo "!! $target failed; see $log and $artifacts/" >&2
    tail -n 40 "$log" >&2
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  summary+=$(printf '%-20s %12s runs %8s exec/s  %s' "$target" "${runs:-?}" \
                    "${rate:-?}" "$cov")$'\n'
done
echo "== replaying the corpora"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
if ! ctest --test-dir "$build" -L fuzz --output-on-failure; then status=1; fi
echo "== summary (${seconds} s per target)"
printf '%s' "$summary"
exit $status
