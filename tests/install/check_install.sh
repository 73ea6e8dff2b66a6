#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds a consumer
# with find_package(lrelu) (shared and static) and with pkg-config, and runs
# them. Usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/lrelu" || { echo "CLI not installed"; exit 1; }
cmake -S "$source/tests/install" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DQUICKSTART="$source/examples/quickstart.cc" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/consumer"
"$work/consumer/consumer_static"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" \
  c++ -std=c++17 "$source/examples/quickstart.cc" -o "$work/pc" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs lrelu)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc"
echo "install check: ok"
