#!/usr/bin/env python3
"""The WGSL templates, rendered by liblrelu (lrelu_kernel_source), run on a
WebGPU adapter through wgpu-py (wgpu-native; Mesa lavapipe on a machine
without a GPU) and compared bit for bit with liblrelu's CPU backend.

Run directly (ctest does): exits 77 (skipped) when wgpu or an adapter is
missing. LRELU_LIBRARY names liblrelu.so (default: build-gpu/src/).
"""
import ctypes
import os
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "contract"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bits as contract_bits  # noqa: E402  pylint: disable=wrong-import-position
import wgsl_harness  # noqa: E402  pylint: disable=wrong-import-position
FLOAT32, FLOAT16 = 1, 2
ALPHAS = [0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"), float("nan"),
          -0.0, 1e-30, 3e38]
WORKGROUP = 64


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


def load_library():
    path = os.environ.get("LRELU_LIBRARY", str(ROOT / "build-gpu/src/liblrelu.so"))
    lib = ctypes.CDLL(path)
    lib.lrelu_kernel_source.argtypes = [
        ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32,
        ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
    lib.lrelu_last_error.restype = ctypes.c_char_p
    lib.lrelu_leaky_relu.argtypes = [ctypes.POINTER(Tensor), ctypes.c_double,
                                     ctypes.POINTER(Tensor), ctypes.c_void_p]
    lib.lrelu_leaky_relu_backward.argtypes = [
        ctypes.POINTER(Tensor), ctypes.POINTER(Tensor), ctypes.c_double,
        ctypes.c_int, ctypes.POINTER(Tensor), ctypes.c_void_p]
    return lib


LIB = load_library()


def render(dtype, variant, workgroup=WORKGROUP):
    length = ctypes.c_size_t()
    args = [b"wgsl", dtype, variant.encode(), workgroup]
    assert LIB.lrelu_kernel_source(*args, None, 0, ctypes.byref(length)) == 0
    buffer = ctypes.create_string_buffer(length.value + 1)
    status = LIB.lrelu_kernel_source(*args, buffer, len(buffer), ctypes.byref(length))
    assert status == 0, LIB.lrelu_last_error()
    return buffer.value.decode()


def cpu_oracle(dtype, v, s, alpha, gradient):
    """liblrelu's CPU backend (itself tested against the reference)."""
    out = np.empty_like(v)
    shape = (ctypes.c_int64 * 1)(v.size)
    t = lambda a: Tensor(a.ctypes.data, dtype, 1, shape, None)
    tv, ts, to = t(v), t(s), t(out)
    if gradient:
        status = LIB.lrelu_leaky_relu_backward(ctypes.byref(tv), ctypes.byref(ts),
                                               alpha, 0, ctypes.byref(to), None)
    else:
        status = LIB.lrelu_leaky_relu(ctypes.byref(tv), alpha, ctypes.byref(to), None)
    assert status == 0, LIB.lrelu_last_error()
    return out


def specials(dtype):
    """The special values of the one Python dtype table (contract/bits.py)."""
    return contract_bits.special_bits({FLOAT32: "float32", FLOAT16: "float16"}[dtype])


def random_bits(dtype, n, rng):
    bits_type = np.uint32 if dtype == FLOAT32 else np.uint16
    ordinary = rng.standard_normal(n).astype(np.float32 if dtype == FLOAT32 else np.float16)
    bits = ordinary.view(bits_type).copy()
    special = specials(dtype)
    pick = rng.random(n) < 0.2
    bits[pick] = special[rng.integers(0, special.size, pick.sum())]
    return bits


def check(dtype, v, s, got, expected, alpha):
    """Bit-exact, except that a NaN the product makes may be any NaN."""
    if dtype == FLOAT32:
        nan = lambda b: (b & 0x7fffffff) > 0x7f800000
    else:
        nan = lambda b: (b & 0x7fff) > 0x7c00
    same = got == expected
    either_nan = nan(got) & nan(expected) & (got != v)
    bad = np.flatnonzero(~(same | either_nan))
    if bad.size:
        i = bad[0]
        width = 8 if dtype == FLOAT32 else 4
        raise AssertionError(
            f"{bad.size} mismatches; first at {i}: v={int(v[i]):0{width}x} "
            f"s={int(s[i]):0{width}x} expected {int(expected[i]):0{width}x} "
            f"got {int(got[i]):0{width}x} (alpha {alpha})")


def integer_multiply_only(code):
    """The shader with the float path of the multiply switched off, so the
    integer multiply (what runs for subnormals, inf and zero) is tested on
    every product, normal ones included."""
    out = code
    for name, result in (("lrelu_float_exact", "bool"), ("lrelu_float_exact4", "vec4<bool>")):
        head = f"fn {name}("
        if head not in code:
            continue
        out = out.replace(head, f"fn {name}_unused(")
        signature = code[code.index(head):code.index("{", code.index(head))]
        out += f"\n{signature}{{\n  return {result}(false);\n}}\n"
    assert "lrelu_float_exact_unused(" in out, "lrelu_float_exact moved"
    return out


class Runner:
    def __init__(self):
        import wgpu
        self.wgpu = wgpu
        self.adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        if self.adapter is None:
            raise RuntimeError("no WebGPU adapter")
        self.device = self.adapter.request_device_sync()
        self.pipelines = {}

    def pipeline(self, dtype, variant, entry, integer_only=False):
        key = (dtype, variant, entry, integer_only)
        if key not in self.pipelines:
            code = render(dtype, variant)
            if integer_only:
                code = integer_multiply_only(code)
            module = self.device.create_shader_module(code=code)
            self.pipelines[key] = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": entry})
        return self.pipelines[key]

    def run(self, dtype, variant, v, s, alpha, gradient, integer_only=False):
        wgpu = self.wgpu
        n = v.size
        # Elements per storage word (see the templates).
        lanes = 4 if variant == "vec4" else (2 if dtype == FLOAT16 else 1)
        units = -(-n // lanes)
        padded = units * lanes  # whole vectors
        def storage(bits, fill=None):
            data = np.zeros(padded + 2, dtype=bits.dtype)  # +2: 4-byte sizes
            data[:n] = bits
            if fill is not None:
                data[n:] = fill
            return self.device.create_buffer_with_data(
                data=data.tobytes(),
                usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
        size = padded * v.itemsize
        size += (-size) % 4
        sentinel = v.dtype.type(0xa5a5a5a5 & (0xffffffff if v.itemsize == 4 else 0xffff))
        bv, bs = storage(v), storage(s)
        bout = storage(np.full(n, sentinel, dtype=v.dtype), fill=sentinel)
        params = np.zeros(4, dtype=np.uint32)
        params[0] = np.array([alpha], dtype=np.float32).view(np.uint32)[0]
        params[1] = n
        bp = self.device.create_buffer_with_data(data=params.tobytes(),
                                                 usage=wgpu.BufferUsage.UNIFORM)
        entry = "backward" if gradient else "forward"
        pipeline = self.pipeline(dtype, variant, entry, integer_only)
        bindings = [(0, bv, size), (2, bout, size), (3, bp, 16)]
        if gradient:
            bindings.append((1, bs, size))
        group = self.device.create_bind_group(
            layout=pipeline.get_bind_group_layout(0),
            entries=[{"binding": b, "resource": {"buffer": buf, "offset": 0, "size": sz}}
                     for b, buf, sz in bindings])
        raw = wgsl_harness.dispatch(self.device, pipeline, group, units, WORKGROUP,
                                    bout, v.dtype)
        # Lanes past n of the last vector keep their old contents.
        assert np.all(raw[n:padded] == sentinel), "padding lanes of out changed"
        return raw[:n].copy()


runner = wgsl_harness.runner_fixture(Runner)


def dtypes(runner):
    return [FLOAT32, FLOAT16]  # float16 needs no shader-f16: integer code


@pytest.mark.parametrize("variant", ["scalar", "vec4"])
@pytest.mark.parametrize("gradient", [False, True])
def test_specials_every_alpha(runner, variant, gradient):
    for dtype in dtypes(runner):
        sp = specials(dtype)
        v = np.repeat(sp, sp.size)
        s = np.tile(sp, sp.size) if gradient else v
        for alpha in ALPHAS:
            got = runner.run(dtype, variant, v, s, alpha, gradient)
            check(dtype, v, s, got, cpu_oracle(dtype, v, s, alpha, gradient), alpha)


@pytest.mark.parametrize("variant", ["scalar", "vec4"])
def test_sizes(runner, variant):
    rng = np.random.default_rng(1)
    for dtype in dtypes(runner):
        for n in list(range(1, 70)) + [255, 256, 257, 1000, (1 << 20) + 3]:
            gradient = n % 3 == 1
            alpha = ALPHAS[n % len(ALPHAS)]
            v = random_bits(dtype, n, rng)
            s = random_bits(dtype, n, rng) if gradient else v
            got = runner.run(dtype, variant, v, s, alpha, gradient)
            check(dtype, v, s, got, cpu_oracle(dtype, v, s, alpha, gradient), alpha)


@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT16])
def test_integer_multiply_on_every_product(runner, dtype):
    """lrelu_mul_int alone against the CPU: random bits of every class."""
    rng = np.random.default_rng(3)
    n = 1 << 18
    if dtype == FLOAT32:
        v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        v[: n // 4] = random_bits(dtype, n, rng)[: n // 4]
    else:
        v = np.arange(1 << 16, dtype=np.uint16)  # every pattern
    for alpha in ALPHAS + [1e-40, -3.3e-39, 1.17e-38, 0.7]:
        for gradient in (False, True):
            s = np.flip(v).copy() if gradient else v
            got = runner.run(dtype, "vec4", v, s, alpha, gradient,
                             integer_only=True)
            check(dtype, v, s, got, cpu_oracle(dtype, v, s, alpha, gradient), alpha)


def test_two_dimensional_dispatch(runner):
    """More than 65535 workgroups: the y dimension of the grid is used."""
    rng = np.random.default_rng(2)
    n = 65535 * WORKGROUP + 1000
    v = random_bits(FLOAT32, n, rng)
    got = runner.run(FLOAT32, "scalar", v, v, -0.5, False)
    check(FLOAT32, v, v, got, cpu_oracle(FLOAT32, v, v, -0.5, False), -0.5)


def main():
    return wgsl_harness.main("wgsl_test", __file__, Runner)


if __name__ == "__main__":
    sys.exit(main())
