#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds a consumer
# with find_package(lrelu) (shared and static) and with pkg-config, and runs
# them. Usage: check_install.sh BUILD_DIR SOURCE_DIR [WITH_CLI=ON|OFF]
set -euo pipefail
build=$1
source=$2
with_cli=${3:-ON}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
if [ "$with_cli" = ON ]; then
  "$work/prefix/bin/lrelu" info >/dev/null || { echo "installed CLI does not run"; exit 1; }
fi
cmake -S "$source/tests/install" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DQUICKSTART="$source/examples/quickstart.cc" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/consumer"
"$work/consumer/consumer_static"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/contract_consumer" >/dev/null
"$work/consumer/contract_consumer_static" >/dev/null
# liblrelu depends on Highway only: OpenSSL belongs to liblrelu_contract.
if ldd "$work/prefix/lib/liblrelu.so" | grep -E "libcrypto|libssl|pthreadpool|libOpenCL"; then
  echo "installed liblrelu.so links a library it must not"; exit 1
fi
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" \
  c++ -std=c++17 "$source/examples/quickstart.cc" -o "$work/pc" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs lrelu)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc"
c++ -std=c++17 "$source/tests/install/contract_consumer.cc" -o "$work/pc_contract" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs lrelu_contract)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc_contract" >/dev/null
echo "install check: ok"
