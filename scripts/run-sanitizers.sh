#!/usr/bin/env bash
# The ctest suite under sanitizers, for CI:
#   scripts/run-sanitizers.sh [asan|tsan|all|ci]   (default: all)
# ci = the whole suite under asan, and under tsan only the concurrency
# tests (runtime_test, stress_test: what TSan is for), which fits a CI run.
# asan = AddressSanitizer + UndefinedBehaviorSanitizer, tsan =
# ThreadSanitizer (CMakePresets.json). Configures the preset (benchmarks,
# CUDA and the Python package off: they are not what is being checked, and
# an instrumented library cannot be loaded into an uninstrumented Python),
# builds it with 2 jobs and runs ctest with the test preset's environment
# (ASAN_OPTIONS, LSAN_OPTIONS with tests/sanitizers/lsan.supp, UBSAN_OPTIONS,
# TSAN_OPTIONS). They compile fewer Highway targets: no AVX3 without
# AVX-512, no SSSE3, under TSan no SSE4 (cmake/Sanitizers.cmake says why;
# release builds compile and test every target). The sanitizer presets compile
# with -O1 -g1 (line tables: file:line in every report), the optimisation
# ASan recommends; -O2 -g took ~1.6x the compile time (CLI11 under UBSan:
# 93 s vs 41 s CPU for tools/cmd_info.cc), most of CI's sanitizer stage.
#
# TSan and lrelu's own pool: the pool (src/cpu/thread_pool.cc) is lrelu's
# own C++ (std::thread, atomics, condition variables), so TSan sees every
# hand-over; `ci` still runs only the concurrency tests under TSan, to keep
# CI's time (`all` runs everything).
#
# Excluded: label `long` (not built under sanitizers anyway), tests that
# load liblrelu into Python (wgsl_test, python_tests) and pure-Python checks
# of the contract files that run no lrelu code (contract_files,
# contract_torch). The CLI end-to-end tests (cli_e2e, cli_e2e_apply) do run: pytest only
# starts the instrumented lrelu binary, which is what is being checked.
# Build folder: build/<preset> (the preset's own), or the printf pattern in
# $LRELU_SANITIZER_BUILD_DIR with %s for the preset (e.g. build-%s2).
set -euo pipefail
cd "$(dirname "$0")/.."

which=${1:-all}
subset_tsan=false
case "$which" in
  asan) presets=(asan) ;;
  tsan) presets=(tsan) ;;
  all) presets=(asan tsan) ;;
  ci) presets=(asan tsan); subset_tsan=true ;;
  *) echo "usage: $0 [asan|tsan|all|ci]" >&2; exit 2 ;;
esac
pattern=${LRELU_SANITIZER_BUILD_DIR:-build/%s}
jobs=${LRELU_JOBS:-2}
# Label `python` where they are defined; the name list covers trees that do
# not label them yet.
python_tests='^(wgsl_test|wgsl_prelu_test|python_tests|contract_files|contract_torch)$'
# The concurrency tests: caller pools, lrelu's own pool, tiling.
tsan_subset='^(Stress|Runtime|Tiling)\.'

status=0
for preset in "${presets[@]}"; do
  # shellcheck disable=SC2059  # the pattern is the caller's format string
  dir=$(printf "$pattern" "$preset")
  start=$(date +%s)
  echo "== $preset: configure and build in $dir"
  cmake --preset "$preset" -B "$dir" -DLRELU_BUILD_BENCH=OFF \
        -DLRELU_WITH_CUDA=OFF -DLRELU_BUILD_PYTHON=OFF >/dev/null
  select=(--label-exclude 'long|python' --exclude-regex "$python_tests")
  if [ "$preset" = tsan ] && $subset_tsan; then
    cmake --build "$dir" -j "$jobs" --target runtime_test stress_test
    select=(--tests-regex "$tsan_subset")
  else
    cmake --build "$dir" -j "$jobs"
  fi
  built=$(date +%s)
  echo "== $preset: ctest"
  # The test presets' environment, set here because `ctest --preset` always
  # uses the preset's own binaryDir.
  if ! env ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
         LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0" \
         UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
         TSAN_OPTIONS="halt_on_error=1" \
         ctest --test-dir "$dir" -j "$jobs" --output-on-failure "${select[@]}"; then
    status=1
  fi
  end=$(date +%s)
  echo "== $preset: build $((built - start)) s, tests $((end - built)) s"
done
exit $status
