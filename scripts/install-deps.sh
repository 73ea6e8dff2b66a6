#!/usr/bin/env bash
# Installs everything lrelu needs to build and test on Debian 12, as root or
# through sudo. Idempotent; safe to re-run.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # the compiler cache scripts/run-tests.sh shares between its builds
  ccache
  # libraries
  libhwy-dev libpthreadpool-dev nlohmann-json3-dev libcli11-dev libssl-dev
  # the CLI keeps a replaced output's ACL and user xattrs
  libacl1-dev libattr1-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # PReLU's exact dalpha oracle in tests/prelu (GMP integers)
  libgmp-dev
  # Python: tests, the package, cross-checks
  python3 python3-dev python3-venv python3-pip python3-numpy python3-pytest
  python3-jsonschema python3-onnx python3-torch python3-xarray python3-dask
  # libtorch's headers for lrelu's compiled torch operators (python/
  # torch_ops.cmake): the same libtorch 1.13 as python3-torch
  libtorch-dev
  # OpenCL on the CPU
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  # WGSL test on a CPU Vulkan device (lavapipe); wgpu itself comes from PyPI
  # through scripts/setup-gpu-python.sh
  mesa-vulkan-drivers libvulkan1
  # js/ in headless Chromium (WebGPU on SwiftShader), its screenshot check and
  # the TypeScript declarations check
  chromium python3-pil node-typescript

  # MATLAB-compatible MEX files, built with mkoctfile --mex and tested with
  # octave-cli (107 packages, about 290 MB installed, 2.5 min)
  octave liboctave-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
