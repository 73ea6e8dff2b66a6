#!/usr/bin/env bash
# liblrelu depends on Highway (and the C/C++ runtime) only and exports its C
# ABI only; the contract package's OpenSSL, nlohmann-json and C++ classes
# live in liblrelu_contract. Usage: check_core_library.sh LIBLRELU.so
set -euo pipefail
lib=$1
needed=$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(.*\)\].*/\1/p')
for name in $needed; do
  case $name in
    libhwy.so*|libstdc++.so*|libm.so*|libgcc_s.so*|libc.so*|libdl.so*|libpthread.so*|ld-linux*.so*) ;;
    # A sanitizer build adds its runtime.
    libasan.so*|libubsan.so*|libtsan.so*) ;;
    *) echo "liblrelu needs $name"; exit 1 ;;
  esac
done
# Every defined dynamic symbol is an lrelu_* C function (no C++ names,
# no nlohmann or OpenSSL code).
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^lrelu_' || true)
if [ -n "$bad" ]; then
  echo "liblrelu exports more than its C ABI:"; echo "$bad" | head -20
  exit 1
fi
echo "liblrelu: needs $(echo $needed | tr '\n' ' '); exports $(nm -D --defined-only "$lib" | wc -l) lrelu_* symbols"
