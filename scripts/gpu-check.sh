#!/usr/bin/env bash
# The device check for a machine with an NVIDIA GPU (H200-class; Python with
# torch and triton installed; no internet needed). Under 5 minutes:
#   1. builds the CUDA kernels standalone for sm_90 (tests/gpu/cuda_harness.cu)
#   2. builds lrelu with CUDA for sm_90 and runs the GPU tests (cuda_test
#      and friends) -- skipped, not failed, when lrelu's CPU dependencies
#      (Highway, pthreadpool, GoogleTest, nlohmann-json) are missing there
#   3. sweeps the kernels bit for bit against the NumPy statement of the
#      contract (itself checked against liblrelu's CPU backend on CI)
#   4. times lrelu CUDA against a device-to-device copy,
#      torch.nn.functional.leaky_relu and Triton tl.where, 1 Ki .. 1 Gi
#      elements in each dtype, and prints one table.
# Usage: scripts/gpu-check.sh [--max-log2 N]   (default 30 = 1 Gi elements)
# Output also goes to $OUT (or out/gpu-check/) as gpu-check.log.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAX_LOG2=30
if [ "${1:-}" = "--max-log2" ]; then MAX_LOG2="$2"; fi
DEST="${OUT:-$ROOT/out/gpu-check}"
mkdir -p "$DEST"
LOG="$DEST/gpu-check.log"
exec > >(tee "$LOG") 2>&1
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
PY="${PYTHON:-$(command -v python3 || command -v python)}"
JOBS="$(nproc 2>/dev/null || echo 4)"
ARCH="${LRELU_CUDA_ARCH:-90}"
declare -A RESULT
start=$SECONDS
step() { echo; echo "=== $* ($((SECONDS - start)) s)"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi not found"
"$NVCC" --version | tail -2
"$PY" -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "numpy", numpy.__version__, "gpu", torch.cuda.is_available())'

step "1. kernels standalone for sm_$ARCH"
if timeout 180 "$NVCC" -O3 -std=c++17 -arch="sm_$ARCH" -fmad=false -ftz=false \
     -prec-div=true -Xcompiler -fPIC -shared "$ROOT/tests/gpu/cuda_harness.cu" \
     -o "$DEST/cuda_harness.so"; then
  RESULT[harness]=PASS
else
  RESULT[harness]=FAIL
fi

step "2. lrelu with CUDA (sm_$ARCH) and its GPU tests"
BUILD="$ROOT/build-gpu-check"
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if timeout 120 cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
     -DLRELU_WITH_CUDA=ON -DLRELU_BUILD_CONTRACT=OFF -DLRELU_BUILD_BENCH=OFF \
     -DLRELU_BUILD_TOOLS=OFF -DLRELU_BUILD_PYTHON=OFF >"$DEST/configure.log" 2>&1; then
  if timeout 240 cmake --build "$BUILD" -j "$JOBS" --target cuda_test \
       backend_select_test kernel_source_test >"$DEST/build.log" 2>&1; then
    ok=PASS
    for t in backend_select_test kernel_source_test cuda_test; do
      timeout 180 "$BUILD/tests/gpu/$t" --gtest_brief=1 || ok=FAIL
    done
    RESULT[library]=$ok
  else
    tail -20 "$DEST/build.log"
    RESULT[library]=FAIL
  fi
else
  echo "configure failed (dependencies missing?); last lines of configure.log:"
  tail -5 "$DEST/configure.log"
  RESULT[library]="SKIPPED (configure failed; see configure.log)"
fi

if [ "${RESULT[harness]}" = PASS ]; then
  step "3. bit-exact sweep on the GPU"
  if timeout 150 "$PY" "$ROOT/tests/gpu/gpu_check.py" --harness "$DEST/cuda_harness.so" --sweep; then
    RESULT[sweep]=PASS
  else
    RESULT[sweep]=FAIL
  fi
  step "4. throughput (GB/s = 2 x bytes of x per call / time)"
  if timeout 180 "$PY" "$ROOT/tests/gpu/gpu_check.py" --harness "$DEST/cuda_harness.so" \
       --bench --max-log2 "$MAX_LOG2"; then
    RESULT[bench]=PASS
  else
    RESULT[bench]=FAIL
  fi
fi

step "summary"
status=0
for k in harness library sweep bench; do
  printf '  %-8s %s\n' "$k" "${RESULT[$k]:-not run}"
  case "${RESULT[$k]:-not run}" in PASS|SKIPPED*) ;; *) status=1 ;; esac
done
echo "total $((SECONDS - start)) s; log: $LOG"
exit $status
