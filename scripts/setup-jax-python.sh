#!/usr/bin/env bash
# Creates .venv-jax (or the path given as $1): Debian's Python 3 with PyPI's
# JAX and NumPy 2 from python/requirements-jax.txt, isolated from Debian's
# packages. The ci build finds it and builds lrelu's Python package for it
# too (build/ci/python-jax), with the XLA FFI handlers of lrelu.jax; ctest's
# jax_tests runs tests/jax in it. Idempotent; offline once the pins are met.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:-$ROOT/.venv-jax}"
REQUIREMENTS="$ROOT/python/requirements-jax.txt"

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup-jax-python: creating $VENV"
  /usr/bin/python3 -m venv "$VENV"
fi
PYTHON="$VENV/bin/python"

if "$PYTHON" - "$REQUIREMENTS" <<'PY'
import importlib.metadata as metadata
import sys

for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, version = line.split("==")
        try:
            if metadata.version(name) != version:
                sys.exit(1)
        except metadata.PackageNotFoundError:
            sys.exit(1)
PY
then
  echo "setup-jax-python: $VENV is up to date"
  exit 0
fi
echo "setup-jax-python: installing $(grep -v '^#' "$REQUIREMENTS" | xargs)"
"$PYTHON" -m pip install --quiet --disable-pip-version-check \
  --requirement "$REQUIREMENTS"
