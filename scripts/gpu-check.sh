#!/usr/bin/env bash
# The device check: one prepared run on a bare NVIDIA machine (H200: driver,
# nvcc, python3 with torch/triton/cupy; none of lrelu's CPU dependencies).
# What it runs was built here by scripts/gpu-bundle.sh into .gpu-bundle/,
# which travels with the working tree (device tool: carry [".gpu-bundle"]).
#
#   cpu_targets    targets_test: exhaustive float16/bfloat16 and random
#                  cases on every SIMD target this CPU runs; AVX3 must run
#                  and pass where the CPU has AVX-512
#   cpu_kernels    kernels_test: every rule on every partial vector of every
#                  target this CPU runs (AVX3 where it has AVX-512)
#   cpu_layouts    strided_test, contiguous_test        (skipped by --quick)
#   cpu_contract   lrelu test --backend cpu --cpu-target all
#   oracle         the NumPy oracle of the Python steps == liblrelu's CPU
#   cuda_library   cuda_test with LRELU_REQUIRE_CUDA=1: every dtype x pass x
#                  variant, sizes 0..300 x heads, in place, subnormal alpha,
#                  misaligned pointers refused, streams, 2^31+77 elements,
#                  the shared matrix on device memory, executors re-bound
#   cuda_prelu     cuda_prelu_test with LRELU_REQUIRE_CUDA=1: PReLU forward,
#                  every dtype x broadcast pattern, layouts, a stream,
#                  executors re-bound
#   cuda_contract  the contract's cases (contract/v1/test.json) on the CUDA
#                  backend, every variant, in place and not (the CLI's
#                  `lrelu test` has host memory only, which CUDA refuses)
#   nvrtc_flags    the emitted source built by NVRTC under --use_fast_math /
#                  -ftz=true, run and compared (CuPy)
#   torch_interop  liblrelu on torch's device memory and streams
#   bench_kernels  cuda_bench: every candidate variant checked, then timed
#                  against cudaMemcpy and a copy kernel, 2^20..2^30
#   bench_cpu      lrelu_kernel_limits (each dtype's kernel next to a copy and
#                  the conversions alone, best target) and lrelu_small_call
#                  (1 Ki calls vs memcpy) on this host's CPU: AVX-512 timings
#                  this project's own machines cannot take
#   bench_peers    torch F.leaky_relu / its gradient, Triton, torch copy_
#
# A step is PASS, FAIL or NOT RUN (with the reason). On a device run, a
# skipped test is a failure, and only torch/triton/cupy being absent may be
# NOT RUN. --no-device (the dry run, also in CI): the CPU steps run, the
# device steps check that they report "no device" and are NOT RUN, and the
# tables are written all the same.
#
# Output (in $OUT, else out/gpu-check/): steps.csv, bench_kernels.csv,
# bench_peers.csv, results.md, gpu-check.log. Exit 0 when no step failed.
#
# Usage: scripts/gpu-check.sh [--no-device] [--quick] [--bundle DIR]
#                             [--max-log2 N] [--budget SECONDS]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUNDLE="$ROOT/.gpu-bundle"
NO_DEVICE=0
QUICK=0
MAX_LOG2=30
BUDGET=400  # seconds for all steps; each step's timeout is cut to fit
while [ $# -gt 0 ]; do
  case "$1" in
    --no-device) NO_DEVICE=1; shift ;;
    --quick) QUICK=1; shift ;;
    --bundle) BUNDLE="$(cd "$2" && pwd)"; shift 2 ;;
    --max-log2) MAX_LOG2="$2"; shift 2 ;;
    --budget) BUDGET="$2"; shift 2 ;;
    *) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
DEST="${OUT:-$ROOT/out/gpu-check}"
mkdir -p "$DEST"
rm -f "$DEST"/steps.csv "$DEST"/bench_kernels.csv "$DEST"/bench_peers.csv "$DEST"/results.md
LOG="$DEST/gpu-check.log"
exec > >(tee "$LOG") 2>&1
PY="${PYTHON:-$(command -v python3 || command -v python)}"
BIN="$BUNDLE/bin"
LIB="$BUNDLE/lib"
LIBLRELU="$(ls "$LIB"/liblrelu.so.*.* 2>/dev/null | head -1)"
export LRELU_BUNDLE_LIB="$LIB" PYTHONUNBUFFERED=1
start=$SECONDS
STATUS=0
echo "step,status,seconds,detail" > "$DEST/steps.csv"

# record STEP STATUS SECONDS DETAIL
record() {
  local detail="${4//,/;}"
  echo "$1,$2,$3,${detail//$'\n'/ }" >> "$DEST/steps.csv"
  printf '>>> %-14s %-8s %4ss  %s\n' "$1" "$2" "$3" "$4"
  [ "$2" = FAIL ] && STATUS=1
  return 0
}
# Seconds a step may take: its own limit, cut to what is left of the budget.
limit() {
  local left=$((BUDGET - (SECONDS - start)))
  [ "$left" -lt 5 ] && left=5
  [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
# run_bin LIMIT CMD...: a bundled program with the bundle's libraries.
run_bin() {
  local t="$1"; shift
  LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout "$(limit "$t")" "$@"
}
# gtest STEP LIMIT BINARY ARGS...: PASS only when it exits 0 and skips
# nothing (SKIP_OK=regex of test names that may skip).
gtest_step() {
  local step="$1" t="$2" bin="$3"; shift 3
  local s0=$SECONDS out rc skipped
  out="$(mktemp)"
  run_bin "$t" "$BIN/$bin" "$@" > "$out" 2>&1
  rc=$?
  grep -vE "^\[ +(RUN|OK) +\]" "$out"
  skipped="$(grep -oE '^\[  SKIPPED \] [A-Za-z0-9_/]+\.[A-Za-z0-9_./]+' "$out" | awk '{print $4}' | sort -u | tr '\n' ' ')"
  rm -f "$out"
  if [ "$rc" != 0 ]; then
    record "$step" FAIL $((SECONDS - s0)) "$bin exit $rc${skipped:+; skipped $skipped}"
  elif [ -n "$skipped" ] && ! echo "$skipped" | tr ' ' '\n' | grep -v '^$' | grep -qvE "${SKIP_OK:-^$}"; then
    record "$step" PASS $((SECONDS - s0)) "$bin passed; skipped only $skipped(${SKIP_WHY:-})"
  elif [ -n "$skipped" ]; then
    record "$step" FAIL $((SECONDS - s0)) "$bin skipped $skipped"
  else
    record "$step" PASS $((SECONDS - s0)) "$bin passed"
  fi
}

echo "=== environment"
[ -f "$BUNDLE/MANIFEST" ] || { echo "no bundle at $BUNDLE: run scripts/gpu-bundle.sh first"; record bundle FAIL 0 "no $BUNDLE/MANIFEST"; }
cat "$BUNDLE/MANIFEST" 2>/dev/null
uname -m
grep -m1 'model name' /proc/cpuinfo; echo "cores: $(nproc)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -3
command -v nvcc >/dev/null && nvcc --version | tail -1
"$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)' 2>&1
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -1
"$PY" -c 'import triton; print("triton", triton.__version__)' 2>&1 | tail -1
"$PY" -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1

echo; echo "=== CPU backend on this host's CPU"
INFO="$(run_bin 30 "$BIN/lrelu" info 2>&1)"
echo "$INFO"
RUNNABLE="$(echo "$INFO" | sed -n 's/^SIMD targets runnable: *//p')"
COMPILED="$(echo "$INFO" | sed -n 's/^SIMD targets compiled: *//p')"
# Highway's AVX3 needs AVX-512 F, VL, DQ and BW.
AVX3_CPU=0
if grep -qw avx512f /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo &&
   grep -qw avx512dq /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo; then AVX3_CPU=1; fi
NOT_RUNNABLE=""
for t in $COMPILED; do echo " $RUNNABLE " | grep -q " $t " || NOT_RUNNABLE="$NOT_RUNNABLE $t"; done
if [ -z "$RUNNABLE" ]; then
  record cpu_targets FAIL 0 "lrelu info failed: $(echo "$INFO" | tail -1)"
elif [ "$AVX3_CPU" = 1 ] && ! echo " $RUNNABLE " | grep -q " AVX3 "; then
  record cpu_targets FAIL 0 "the CPU has AVX-512 but AVX3 is not runnable (runnable: $RUNNABLE)"
else
  # Cases of targets this CPU cannot run skip; any other skip fails.
  SKIP_OK="^$"
  for t in $NOT_RUNNABLE; do SKIP_OK="$SKIP_OK|/$t\$"; done
  SKIP_WHY="not runnable here:$NOT_RUNNABLE; AVX-512 on this CPU: $([ $AVX3_CPU = 1 ] && echo yes || echo no)"
  gtest_step cpu_targets 120 targets_test
  sed -i '$ s/$/ [targets run: '"$RUNNABLE"']/' "$DEST/steps.csv"
  gtest_step cpu_kernels 120 kernels_test
  SKIP_OK="^$"
fi
if [ "$QUICK" = 1 ]; then
  record cpu_layouts "NOT RUN" 0 "--quick (CI runs strided_test and contiguous_test itself)"
else
  gtest_step cpu_layouts 120 strided_test
  gtest_step cpu_layouts 150 contiguous_test
fi
s0=$SECONDS
out="$(run_bin 60 "$BIN/lrelu" test --backend cpu --cpu-target all 2>&1)"; rc=$?
echo "$out" | tail -3
if [ $rc = 0 ] && echo "$out" | grep -qE '^[0-9]+ passed, 0 failed$'; then
  record cpu_contract PASS $((SECONDS - s0)) "$(echo "$out" | tail -2 | head -1) [targets: $RUNNABLE]"
else
  record cpu_contract FAIL $((SECONDS - s0)) "exit $rc: $(echo "$out" | tail -1)"
fi
s0=$SECONDS
# --quick (CI's dry run): short runs, to check that the step works.
BENCH_CPU_ARGS=() SMALL_CALL_ARGS=()
[ "$QUICK" = 1 ] && BENCH_CPU_ARGS=(4096 2) SMALL_CALL_ARGS=(--rounds 3)
{ run_bin 60 "$BIN/lrelu_kernel_limits" "${BENCH_CPU_ARGS[@]}" &&
  run_bin 60 "$BIN/lrelu_small_call" "${SMALL_CALL_ARGS[@]}"; } \
  > "$DEST/bench_cpu.txt" 2>&1; rc=$?
if [ $rc = 0 ]; then
  record bench_cpu PASS $((SECONDS - s0)) "bench_cpu.txt (kernel limits, 1 Ki calls)"
else
  record bench_cpu FAIL $((SECONDS - s0)) "exit $rc: $(tail -1 "$DEST/bench_cpu.txt")"
fi

s0=$SECONDS
# The NumPy oracle the Python steps use, against liblrelu's CPU backend.
if timeout "$(limit 60)" "$PY" "$ROOT/tests/gpu/gpu_check.py" self-test "$LIBLRELU"; then
  record oracle PASS $((SECONDS - s0)) "NumPy statement of the contract == liblrelu CPU"
else
  record oracle FAIL $((SECONDS - s0)) "gpu_check.py self-test"
fi

echo; echo "=== CUDA backend"
if [ "$NO_DEVICE" = 1 ]; then
  # The no-device path must be a clear status; the device tests are not run.
  gtest_step cuda_no_device 60 cuda_test --gtest_filter='CudaTest.*'
  gtest_step cuda_prelu_no_device 60 cuda_prelu_test --gtest_filter='CudaPreluTest.*'
  record cuda_prelu "NOT RUN" 0 "--no-device"
  record cuda_library "NOT RUN" 0 "--no-device"
  s0=$SECONDS
  run_bin 60 "$BIN/cuda_bench" --max-log2 20 --min-log2 20 > /dev/null; rc=$?
  if [ $rc = 3 ]; then
    record bench_kernels "NOT RUN" $((SECONDS - s0)) "--no-device (cuda_bench answered: no device)"
  else
    record bench_kernels FAIL $((SECONDS - s0)) "cuda_bench without a device exited $rc, not 3"
  fi
  for step in cuda_contract nvrtc_flags torch_interop bench_peers; do
    record "$step" "NOT RUN" 0 "--no-device"
  done
else
  export LRELU_REQUIRE_CUDA=1
  gtest_step cuda_library 200 cuda_test
  gtest_step cuda_prelu 60 cuda_prelu_test
  # Python steps: exit 3 = NOT RUN (torch / cupy absent), reason printed.
  py_step() {
    local step="$1" t="$2"; shift 2
    local s0=$SECONDS out rc
    out="$(mktemp)"
    timeout "$(limit "$t")" "$PY" "$@" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    case $rc in
      0) record "$step" PASS $((SECONDS - s0)) "$(grep -vE '^(ok|bench) ' "$out" | tail -1)" ;;
      3) record "$step" "NOT RUN" $((SECONDS - s0)) "$(grep -m1 'NOT RUN' "$out")" ;;
      *) record "$step" FAIL $((SECONDS - s0)) "exit $rc: $(tail -1 "$out")" ;;
    esac
    rm -f "$out"
  }
  py_step cuda_contract 60 "$ROOT/tests/gpu/gpu_check.py" contract "$LIBLRELU"
  py_step nvrtc_flags 90 "$ROOT/tests/gpu/cuda_code_check.py" run --liblrelu "$LIBLRELU"
  py_step torch_interop 90 "$ROOT/tests/gpu/gpu_check.py" interop "$LIBLRELU"
  s0=$SECONDS
  run_bin 180 "$BIN/cuda_bench" --max-log2 "$MAX_LOG2" > "$DEST/bench_kernels.csv"; rc=$?
  case $rc in
    0) record bench_kernels PASS $((SECONDS - s0)) "$(($(wc -l < "$DEST/bench_kernels.csv") - 1)) rows; every variant exact" ;;
    3) record bench_kernels FAIL $((SECONDS - s0)) "no CUDA device" ;;
    *) record bench_kernels FAIL $((SECONDS - s0)) "exit $rc (a variant not exact, a CUDA error, or the time limit)" ;;
  esac
  py_step bench_peers 150 "$ROOT/tests/gpu/gpu_check.py" bench "$LIBLRELU" \
    --csv "$DEST/bench_peers.csv" --max-log2 "$MAX_LOG2"
fi

echo; echo "=== results ($((SECONDS - start)) s)"
"$PY" "$ROOT/tests/gpu/gpu_report.py" "$DEST" || STATUS=1
echo "total $((SECONDS - start)) s; files in $DEST"
exit $STATUS
