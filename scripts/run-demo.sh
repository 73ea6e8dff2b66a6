#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build
# (release preset) and run `lrelu demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
./build/release/tools/lrelu demo
