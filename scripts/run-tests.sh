#!/usr/bin/env bash
# Every test on a fresh Debian 12 machine: install what is missing (Debian
# packages, then the Python venv), build the ci preset (release, warnings as
# errors, Python package) and run ctest. This is what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
if [ -x scripts/setup-python.sh ]; then ./scripts/setup-python.sh; fi
preset=ci
if [ ! -x .venv/bin/python ]; then preset=release; fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" --label-exclude long
