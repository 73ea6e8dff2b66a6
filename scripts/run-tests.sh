#!/usr/bin/env bash
# Every test on a fresh Debian 12 machine: install what is missing (Debian
# packages, then the Python venv), build the ci preset (release, warnings as
# errors, Python package) and run ctest. This is what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's seconds, so that a slow CI run shows where its time went.
stage() { echo "== run-tests: $1 $((SECONDS - start)) s"; start=$SECONDS; }
start=$SECONDS
./scripts/install-deps.sh
./scripts/setup-python.sh          # nanobind, ml_dtypes into .venv
./scripts/setup-gpu-python.sh      # wgpu (WGSL on lavapipe) into .venv
./scripts/setup-jax-python.sh      # PyPI JAX + NumPy 2 into .venv-jax (lrelu.jax)
stage "install"
# A compiler cache for this run's three Release builds of liblrelu: the ci
# preset's and the two wheels' (scripts/test-wheel.sh: the portable one and
# Debian's pip install of the sdist) compile the same sources with the same
# flags but -Werror, which changes no object and is left out of the hash.
# The wheels build in trees pip unpacks elsewhere, laid out as build/ci is
# (test-wheel.sh), so paths relative to CCACHE_BASEDIR match. CC and CXX
# name the compiler as CMake finds it by default; without them
# scikit-build-core takes Python's (x86_64-linux-gnu-g++, the same g++ under
# another name, which ccache hashes). The cache is this clone's own.
export CCACHE_DIR="$PWD/build/ccache" CCACHE_BASEDIR="$PWD" \
       CCACHE_IGNOREOPTIONS=-Werror CCACHE_MAXSIZE=2G \
       CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
       CC=cc CXX=c++
ccache --zero-stats >/dev/null
preset=ci
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
stage "build"
# python_tests (tests/python on the build tree) is left out: test-wheel.sh
# runs the same suite, with the same NumPy, torch and compiled operators, on
# the package as pip installs it.
ctest --preset "$preset" --label-exclude long --exclude-regex '^python_tests$'
stage "ctest"
# The Python package as users install it: sdist -> wheel with build
# isolation, auditwheel repair (build/wheel/lrelu-*.whl), tests/python
# against the installed wheel with NumPy 1.24 + torch and NumPy 2.x.
./scripts/test-wheel.sh
stage "wheels"
ccache --show-stats
