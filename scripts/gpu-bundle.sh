#!/usr/bin/env bash
# Builds here what scripts/gpu-check.sh runs on a bare GPU machine (NVIDIA
# driver, nvcc, python3 with torch/triton/cupy; no Highway, pthreadpool,
# GoogleTest or nlohmann-json), and copies it into a git-ignored folder that
# the device tool carries along (`carry: [".gpu-bundle"]`, <= 64 MiB):
#
#   .gpu-bundle/bin/  cuda_test, cuda_bench (variant table), targets_test,
#                     strided_test, contiguous_test, lrelu (CLI),
#                     cuda_prelu_test (PReLU forward)
#   .gpu-bundle/lib/  liblrelu.so.* and the shared libraries they need that a
#                     stock Ubuntu may lack (libhwy, libpthreadpool, ...);
#                     glibc and libstdc++ are the host's own (newer there)
#   .gpu-bundle/MANIFEST  what was built, from which commit, sizes
#
# Usage: scripts/gpu-bundle.sh [--build DIR] [--no-build] [--out DIR]
#   --build DIR  a configured build tree with CUDA (default build/ci)
#   --no-build   copy what DIR already has (the ctest dry run uses this)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build/ci"
OUT_DIR="$ROOT/.gpu-bundle"
BUILD_IT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --out) OUT_DIR="$2"; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    *) echo "gpu-bundle: unknown option $1" >&2; exit 2 ;;
  esac
done

# name:path-in-build-tree.
BINARIES=(
  cuda_test:tests/gpu/cuda_test
  cuda_bench:tests/gpu/cuda_bench
  targets_test:tests/targets_test
  strided_test:tests/strided_test
  contiguous_test:tests/contiguous_test
  lrelu_cli:tools/lrelu
  cuda_prelu_test:tests/gpu/cuda_prelu_test
  kernels_test:tests/kernels_test
  lrelu_kernel_limits:bench/lrelu_kernel_limits
  lrelu_small_call:bench/lrelu_small_call
)
if [ "$BUILD_IT" = 1 ]; then
  [ -f "$BUILD/CMakeCache.txt" ] || { echo "gpu-bundle: configure $BUILD first (cmake --preset ci)" >&2; exit 1; }
  grep -q '^CMAKE_CUDA_COMPILER:' "$BUILD/CMakeCache.txt" ||
    { echo "gpu-bundle: $BUILD has no CUDA (nvcc not found at configure time)" >&2; exit 1; }
  targets=(lrelu_shared)
  for entry in "${BINARIES[@]}"; do targets+=("${entry%%:*}"); done
  cmake --build "$BUILD" --target "${targets[@]}"
fi

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR/bin" "$OUT_DIR/lib"
for entry in "${BINARIES[@]}"; do
  name="${entry%%:*}"
  path="$BUILD/${entry#*:}"
  if [ -x "$path" ]; then
    cp "$path" "$OUT_DIR/bin/"
  else
    echo "gpu-bundle: missing $path" >&2
    exit 1
  fi
done
strip --strip-unneeded "$OUT_DIR"/bin/* 2>/dev/null || true
cp -P "$BUILD"/src/liblrelu.so* "$OUT_DIR/lib/"

# The libraries the binaries load, except the C/C++ runtime every Linux
# host has (a newer one there; bundling ours would shadow it).
is_system() {
  case "$1" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*|linux-vdso*) return 0 ;;
    liblrelu.so*) return 0 ;;  # copied above
  esac
  return 1
}
for f in "$OUT_DIR"/bin/* "$OUT_DIR"/lib/liblrelu.so.*.*; do
  [ -f "$f" ] || continue
  ldd "$f" | awk '/=> \//{print $1, $3}' | while read -r soname resolved; do
    if ! is_system "$soname" && [ ! -e "$OUT_DIR/lib/$soname" ]; then
      cp -L "$resolved" "$OUT_DIR/lib/$soname"
    fi
  done
done
strip --strip-unneeded "$OUT_DIR"/lib/*.so* 2>/dev/null || true

{
  echo "commit $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(ldd --version | head -1)"
  echo "cuda architectures $(grep '^CMAKE_CUDA_ARCHITECTURES:' "$BUILD/CMakeCache.txt" | cut -d= -f2)"
  (cd "$OUT_DIR" && du -b bin/* lib/* | awk '{printf "%10d %s\n", $1, $2}')
  echo "total $(du -sb "$OUT_DIR" | cut -f1) bytes"
} > "$OUT_DIR/MANIFEST"
size=$(du -sb "$OUT_DIR" | cut -f1)
echo "gpu-bundle: $OUT_DIR, $((size / 1024 / 1024)) MiB ($(ls "$OUT_DIR/bin" | wc -l) programs, $(ls "$OUT_DIR/lib" | wc -l) libraries)"
if [ "$size" -gt $((48 * 1024 * 1024)) ]; then
  echo "gpu-bundle: over 48 MiB; the device tool carries at most 64 MiB with the tree" >&2
  exit 1
fi
