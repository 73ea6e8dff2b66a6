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

# pip leaves pins that are already met alone (no index needed then).
"$PYTHON" -m pip install --quiet --disable-pip-version-check \
  --requirement "$REQUIREMENTS"
echo "setup-jax-python: $VENV has $(grep -v '^#' "$REQUIREMENTS" | xargs)"
