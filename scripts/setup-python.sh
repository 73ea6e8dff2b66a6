#!/usr/bin/env bash
# Creates the virtual environment the lrelu Python package builds and tests
# in: /work/main/.venv by default, or the path given as $1. Debian's Python
# with --system-site-packages, so that Debian's NumPy 1.24 and torch 1.13
# stay the ones in use; pip adds the pinned extras of
# python/requirements-dev.txt, with NumPy held at the installed version.
# Idempotent, and offline once the extras are in: it calls pip only when a
# pin is not met.
#
# Then: cmake ... -DLRELU_BUILD_PYTHON=ON -DPython_EXECUTABLE=<venv>/bin/python
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:-$ROOT/.venv}"
REQUIREMENTS="$ROOT/python/requirements-dev.txt"
SYSTEM_PYTHON=/usr/bin/python3

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup-python: creating $VENV"
  "$SYSTEM_PYTHON" -m venv --system-site-packages "$VENV"
fi
PYTHON="$VENV/bin/python"

# Exit 0 when every "name==version" line is installed at that version.
pins_met() {
  "$PYTHON" - "$REQUIREMENTS" <<'PY'
import importlib.metadata as metadata
import sys

for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, version = line.split("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
PY
}

if pins_met; then
  echo "setup-python: $VENV is up to date"
  exit 0
fi

NUMPY_VERSION="$("$PYTHON" -c 'import numpy; print(numpy.__version__)')"
CONSTRAINTS="$(mktemp)"
trap 'rm -f "$CONSTRAINTS"' EXIT
echo "numpy==$NUMPY_VERSION" > "$CONSTRAINTS"
echo "setup-python: installing $(grep -v '^#' "$REQUIREMENTS" | xargs) (numpy held at $NUMPY_VERSION)"
"$PYTHON" -m pip install --quiet --disable-pip-version-check \
  --constraint "$CONSTRAINTS" --requirement "$REQUIREMENTS"
pins_met || { echo "setup-python: pins still not met" >&2; exit 1; }
