#!/usr/bin/env bash
# The Python package under AddressSanitizer + UndefinedBehaviorSanitizer:
# the extension and liblrelu built with the asan preset's flags, loaded into
# Debian's (uninstrumented) Python with libasan preloaded, running the whole
# tests/python suite; its randomized stress (test_stress_random.py: layouts,
# dtypes, overlaps, where=, threads) runs LRELU_STRESS_CASES cases (default
# 3000 here). For CI after scripts/run-sanitizers.sh, whose build/asan
# objects it reuses (only the extension is compiled on top).
#   scripts/run-python-asan.sh            (build folder: $LRELU_ASAN_BUILD_DIR
#                                          or build/asan)
# Leak checking is off: CPython and NumPy keep allocations alive until exit
# by design. PYTHONMALLOC=malloc sends Python's small objects through malloc
# too, so ASan sees them.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LRELU_ASAN_BUILD_DIR:-build/asan}
jobs=${LRELU_JOBS:-2}
start=$(date +%s)
./scripts/setup-python.sh >/dev/null
echo "== python-asan: configure and build the extension in $dir"
cmake --preset asan -B "$dir" -DLRELU_BUILD_PYTHON=ON -DLRELU_BUILD_BENCH=OFF \
      -DLRELU_WITH_CUDA=OFF -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
cmake --build "$dir" -j "$jobs" --target _lrelu lrelu_python
# The compiled torch operators too, where libtorch was found (the suite then
# checks that lrelu.torch runs them).
torch_kernels=python
if cmake --build "$dir" --target help | grep -qE '^(\.\.\. )?lrelu_torch_ops(:|$)'; then
  cmake --build "$dir" -j "$jobs" --target lrelu_torch_ops
  torch_kernels=compiled
fi
built=$(date +%s)
# libstdc++ with libasan: Python itself does not link it, and ASan's
# __cxa_throw interceptor must find the real one when it starts.
preload="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so.6)"
echo "== python-asan: pytest tests/python (LD_PRELOAD=$preload)"
env LD_PRELOAD="$preload" \
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_init_order=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    PYTHONMALLOC=malloc PYTHONDONTWRITEBYTECODE=1 \
    PYTHONPATH="$dir/python" LRELU_TEST_TORCH_KERNELS="$torch_kernels" \
    LRELU_STRESS_CASES="${LRELU_STRESS_CASES:-3000}" \
    .venv/bin/python -m pytest -q -p no:cacheprovider tests/python
end=$(date +%s)
echo "== python-asan: build $((built - start)) s, tests $((end - built)) s"
