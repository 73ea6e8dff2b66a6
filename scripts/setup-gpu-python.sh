#!/usr/bin/env bash
# Sets up what the WGSL test (tests/gpu/wgsl_test.py) needs on a machine with
# no GPU: Mesa's lavapipe Vulkan driver (a CPU Vulkan device) from Debian and
# PyPI's `wgpu` (wgpu-py; its wheel carries wgpu-native, which includes naga,
# the WGSL validator) in /work/main/.venv.
#
# The venv is shared with other parts of lrelu (nanobind), and NumPy must stay
# Debian's 1.24: the venv sees the system site packages and this script only
# ever adds packages, with NumPy pinned to the installed version.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LRELU_VENV:-$ROOT/.venv}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in mesa-vulkan-drivers libvulkan1; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
numpy_version="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
echo "numpy==$numpy_version" >"$constraints"
"$VENV/bin/python" -m pip install -q -c "$constraints" "wgpu>=0.19,<0.30"
"$VENV/bin/python" -c 'import wgpu, numpy; print("wgpu", wgpu.__version__, "numpy", numpy.__version__)'
