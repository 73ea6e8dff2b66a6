#!/usr/bin/env bash
# Installs the peers the benchmark harness compares lrelu against: oneDNN,
# XNNPACK, Eigen (Debian), matplotlib for the plot (Debian, seen by
# /usr/bin/python3), and ONNX Runtime (PyPI, into the project's venv).
# Idempotent. Run as root or through sudo.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  libdnnl-dev                     # oneDNN 2.6
  ocl-icd-opencl-dev              # oneDNN's CMake config asks for OpenCL
  libxnnpack-dev libpthreadpool-dev
  libeigen3-dev
  python3-matplotlib python3-onnx
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-peers: apt installing ${missing[*]}"
  $SUDO apt-get update -qq
  # Without --no-install-recommends matplotlib pulls in GTK and Qt.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# ONNX Runtime from PyPI. The venv sees Debian's numpy 1.24 and torch 1.13
# (--system-site-packages); 1.16-1.19 are built against NumPy 1.x, and the
# constraint keeps pip from pulling NumPy 2, which would break torch 1.13.
VENV="$ROOT/.venv"
if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
if ! "$VENV/bin/python" -c 'import onnxruntime' 2>/dev/null; then
  echo "setup-peers: pip installing onnxruntime into $VENV"
  CONSTRAINTS="$(mktemp)"
  trap 'rm -f "$CONSTRAINTS"' EXIT
  echo 'numpy<2' >"$CONSTRAINTS"
  "$VENV/bin/python" -m pip install -q -c "$CONSTRAINTS" 'onnxruntime>=1.16,<1.20'
fi
"$VENV/bin/python" -c 'import numpy, onnxruntime, onnx; print("setup-peers: numpy", numpy.__version__, "onnxruntime", onnxruntime.__version__, "onnx", onnx.__version__)'
