#!/usr/bin/env bash
# The long tests (ctest label `long`; not part of CI):
#   scripts/run-long-tests.sh
# - every float32 bit pattern through every runnable SIMD target, forward
#   and gradient, two alphas; 10^9 random float64 the same way
#   (long_sweep_test, 2 threads);
# - a float16 tensor of 2^31 + 1027 elements (8 GiB of RAM for x and y);
# - `lrelu apply` on a 3 GiB .npy file under ulimit -v 1 GiB (3 + 3 GiB of
#   disk in $TMPDIR, default /tmp).
# Builds the release preset. LRELU_LONG_QUICK=1 sweeps a small fraction, to
# check the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LRELU_LONG_BUILD_DIR:-build/release}
jobs=${LRELU_JOBS:-2}
cmake --preset release -B "$build" >/dev/null
cmake --build "$build" -j "$jobs" --target long_sweep_test long_npy_file_test lrelu_cli
log="$build/long-tests.log"
start=$(date +%s)
set +e
ctest --test-dir "$build" -L long --output-on-failure -V >"$log" 2>&1
status=$?
set -e
# The tests print their own timings; show those and ctest's verdicts.
grep -E '^[0-9]+: (float32|float64|lrelu apply)|Test +#|tests passed|tests failed' "$log" || true
echo "== long tests: $(( $(date +%s) - start )) s (full log: $log)"
exit "$status"
