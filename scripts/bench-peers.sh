#!/usr/bin/env bash
# Benchmarks lrelu against the copy limits and its peers (oneDNN, XNNPACK,
# Eigen, a plain loop; PyTorch, NumPy, ONNX Runtime from Python) and writes
# docs/performance.md (docs/performance-amd-zen1.md on a Zen 1 EPYC,
# docs/performance-avx512.md on an Intel CPU with AVX-512,
# docs/performance-amd-avx512.md on an AMD one), its plot and out/bench/*.
#
#   scripts/bench-peers.sh [--quick] [--doc FILE] [harness options, e.g. --sizes contract]
#
# --quick: fewer rounds and shorter batches, no retries (a smoke run, < 2 min).
# --doc FILE: the page to write; by default the run's CPU picks it
# (make_report.py: docs/performance.md or docs/performance-amd-zen1.md
# without AVX-512, docs/performance-avx512.md or
# docs/performance-amd-avx512.md with it), so
# a run on one kind of machine keeps the others' pages.
# Other options go to both harnesses (--sizes, --dtypes, --threads, ...).
# Peers are installed by bench/setup-peers.sh; missing ones are skipped.
# Run on a quiet machine: blocks measured under load are retried and flagged.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT=out/bench
mkdir -p "$OUT"

QUICK=()
ARGS=()
DOC=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=(--quick) ;;
    --doc) DOC=(--doc "$2"); shift ;;
    *) ARGS+=("$1") ;;
  esac
  shift
done
if [ ${#QUICK[@]} -gt 0 ] && [[ " ${ARGS[*]} " != *" --sizes "* ]]; then
  # The quick run keeps one size per cache level but stays clear of DRAM
  # sizes, which take most of a full run.
  ARGS+=(--sizes 1Ki,16Ki,256Ki,4Mi)
fi

echo "== build (release preset)"
if [ ! -f build/release/CMakeCache.txt ]; then cmake --preset release >/dev/null; fi
cmake --build --preset release --target lrelu_bench_peers >"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }

echo "== load: $(uptime)"
echo "== C++ harness"
build/release/bench/lrelu_bench_peers "${QUICK[@]}" "${ARGS[@]}" \
  --out "$OUT/cpp.json" | tee "$OUT/cpp.log"

echo "== Python harness"
PY=.venv/bin/python
[ -x "$PY" ] || PY=/usr/bin/python3
# lrelu's Python package, if a build of it exists (optional peer row).
for dir in build/release/python build/ci/python build-py/python; do
  if ls "$dir"/lrelu/_lrelu*.so >/dev/null 2>&1; then
    export PYTHONPATH="$ROOT/$dir${PYTHONPATH:+:$PYTHONPATH}"
    break
  fi
done
"$PY" bench/py/bench_py.py "${QUICK[@]}" "${ARGS[@]}" --out "$OUT/py.json" |
  tee "$OUT/py.log"

echo "== report"
# matplotlib comes from Debian (python3-matplotlib), which the venv also sees.
COMMAND="scripts/bench-peers.sh${QUICK:+ ${QUICK[*]}}${ARGS:+ ${ARGS[*]}}"
/usr/bin/python3 bench/report/make_report.py --cpp "$OUT/cpp.json" \
  --py "$OUT/py.json" --out-dir "$OUT" "${DOC[@]}" \
  --command "$COMMAND"
echo "== load at the end: $(uptime)"
