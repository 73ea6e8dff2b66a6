#!/usr/bin/env python3
"""The WGSL PReLU templates (lrelu_kernel_source(wgsl, dtype, "prelu") and
"prelu-vec4") run on a WebGPU adapter through wgpu-py (Mesa lavapipe here) and compared bit
for bit with the NumPy statement of the contract (one float32 multiply,
RNE to the storage type, x's bits where x is not < 0) and with liblrelu's
CPU backend (lrelu_prelu, itself tested against the reference oracle).

Run directly (ctest does): exits 77 (skipped) without wgpu or an adapter.
"""
import ctypes
import pathlib
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import wgsl_harness  # noqa: E402  (fixture, dispatch, main)
import wgsl_test as base  # noqa: E402  (library, bit generators, check)

FLOAT32, FLOAT16 = base.FLOAT32, base.FLOAT16
LIB = base.LIB
LIB.lrelu_prelu.argtypes = [ctypes.POINTER(base.Tensor)] * 3 + [ctypes.c_void_p]
WORKGROUP = base.WORKGROUP
MAX_DIMS = 8

PATTERNS = [  # x shape, alpha shape (ONNX unidirectional broadcasting)
    ((2, 3, 4, 5), (1,)),
    ((2, 3, 4, 5), ()),
    ((2, 3, 4, 5), (3, 1, 1)),       # NCHW per channel
    ((1, 7, 9, 11), (7, 1, 1)),
    ((2, 4, 5, 3), (3,)),            # NHWC per channel
    ((2, 3, 5, 64), (64,)),
    ((2, 3, 4, 5), (2, 3, 4, 5)),    # full
    ((2, 3, 4, 5), (3, 4, 1)),
    ((2, 3, 4, 5), (4, 1)),
    ((2, 3, 4, 5), (2, 1, 1, 5)),
    ((2, 3, 4, 5), (3, 1, 5)),
    ((37,), (37,)),
    ((37,), (1,)),
    ((1, 6, 1, 7), (6, 1, 1)),
    ((3, 3, 3, 3, 3, 3, 3, 3), (3, 1, 3, 1, 3, 1, 3, 1)),  # 8 dimensions
]


def walk(x_shape, alpha_shape):
    """The memory-order walk of a C-contiguous x over a C-contiguous alpha:
    [(extent, alpha stride)] outermost first, neighbours merged where
    alpha steps over the inner one exactly (as api/prelu_device.cc)."""
    strides, c = [0] * len(alpha_shape), 1
    for j in reversed(range(len(alpha_shape))):
        strides[j] = c if alpha_shape[j] > 1 else 0
        c *= alpha_shape[j]
    aligned = [0] * (len(x_shape) - len(alpha_shape)) + strides
    dims = []
    for extent, stride in zip(x_shape, aligned):
        if extent == 1:
            continue
        if dims and dims[-1][1] == stride * extent:
            dims[-1] = (dims[-1][0] * extent, stride)
        else:
            dims.append((extent, stride))
    return dims or [(1, 0)]


def numpy_oracle(dtype, x, alpha_full):
    """y = x < 0 ? round(f32(x) * f32(alpha)) : x, on bits."""
    if dtype == FLOAT32:
        xf, af = x.view(np.float32), alpha_full.view(np.float32)
        neg = ((x >> 31) == 1) & ((x & 0x7fffffff) - 1 < 0x7f800000)
    else:
        xf = x.view(np.float16).astype(np.float32)
        af = alpha_full.view(np.float16).astype(np.float32)
        neg = ((x >> 15) == 1) & ((x & 0x7fff).astype(np.uint32) - np.uint32(1) < 0x7c00)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        product = (xf * af).astype(np.float32)
        if dtype == FLOAT16:
            product = product.astype(np.float16)
    return np.where(neg, product.view(x.dtype), x)


def cpu_prelu(dtype, x, x_shape, alpha, alpha_shape):
    y = np.empty_like(x)
    xs = (ctypes.c_int64 * max(1, len(x_shape)))(*x_shape)
    as_ = (ctypes.c_int64 * max(1, len(alpha_shape)))(*alpha_shape)
    tx = base.Tensor(x.ctypes.data, dtype, len(x_shape), xs, None)
    ty = base.Tensor(y.ctypes.data, dtype, len(x_shape), xs, None)
    ta = base.Tensor(alpha.ctypes.data, dtype, len(alpha_shape), as_, None)
    status = LIB.lrelu_prelu(ctypes.byref(tx), ctypes.byref(ta), ctypes.byref(ty), None)
    assert status == 0, LIB.lrelu_last_error()
    return y


VARIANTS = ["prelu", "prelu-vec4"]


class Runner(base.Runner):
    def prelu_pipeline(self, dtype, variant):
        key = (dtype, variant)
        if key not in self.pipelines:
            module = self.device.create_shader_module(code=base.render(dtype, variant))
            self.pipelines[key] = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "forward"})
        return self.pipelines[key]

    def prelu(self, dtype, x, alpha, dims, variant="prelu"):
        wgpu = self.wgpu
        n = x.size
        # Elements a word (an invocation's): prelu-vec4 a vec4<u32>
        # (float32) or vec2<u32> (float16) of four.
        lanes = 4 if variant == "prelu-vec4" else 2 if dtype == FLOAT16 else 1
        units = -(-n // lanes)
        def storage(bits, count):
            data = np.zeros(count + 2, dtype=bits.dtype)
            data[:bits.size] = bits
            return self.device.create_buffer_with_data(
                data=data.tobytes(),
                usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC), \
                (count * x.itemsize + 3) // 4 * 4
        sentinel = x.dtype.type(0xa5a5a5a5 & (0xffffffff if x.itemsize == 4 else 0xffff))
        bx, sx = storage(x, units * lanes)
        ba, sa = storage(alpha, alpha.size + (alpha.size % lanes))
        by, sy = storage(np.full(units * lanes, sentinel, dtype=x.dtype), units * lanes)
        params = np.zeros(4 + 4 * MAX_DIMS, dtype=np.uint32)
        params[0], params[1], params[2] = n, len(dims), 0
        for d, (extent, stride) in enumerate(dims):
            params[4 + 4 * d], params[5 + 4 * d] = extent, stride
        bp = self.device.create_buffer_with_data(data=params.tobytes(),
                                                 usage=wgpu.BufferUsage.UNIFORM)
        pipeline = self.prelu_pipeline(dtype, variant)
        group = self.device.create_bind_group(
            layout=pipeline.get_bind_group_layout(0),
            entries=[{"binding": b, "resource": {"buffer": buf, "offset": 0, "size": sz}}
                     for b, buf, sz in ((0, bx, sx), (1, ba, sa), (2, by, sy),
                                        (3, bp, params.nbytes))])
        raw = wgsl_harness.dispatch(self.device, pipeline, group, units, WORKGROUP,
                                    by, x.dtype)
        assert np.all(raw[n:units * lanes] == sentinel), "a lane past n of y changed"
        return raw[:n].copy()


runner = wgsl_harness.runner_fixture(Runner)


def run_case(runner, dtype, x_shape, alpha_shape, rng, variant="prelu"):
    n = int(np.prod(x_shape))
    x = base.random_bits(dtype, n, rng)
    alpha = base.random_bits(dtype, int(np.prod(alpha_shape)), rng)
    alpha_full = np.broadcast_to(alpha.reshape(alpha_shape), x_shape).reshape(-1).copy()
    got = runner.prelu(dtype, x, alpha, walk(x_shape, alpha_shape), variant)
    expected = numpy_oracle(dtype, x, alpha_full)
    base.check(dtype, x, x, got, expected, "per element")
    # liblrelu's CPU backend agrees with the NumPy statement (same NaN rule).
    base.check(dtype, x, x, cpu_prelu(dtype, x, x_shape, alpha, alpha_shape),
               expected, "cpu")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT16])
@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_patterns(runner, dtype, pattern, variant):
    run_case(runner, dtype, pattern[0], pattern[1], np.random.default_rng(len(pattern[0])),
             variant)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT16])
def test_specials_against_special_alphas(runner, dtype, variant):
    """Every special x meets every special alpha (full alpha)."""
    sp = base.specials(dtype)
    x = np.repeat(sp, sp.size)
    alpha = np.tile(sp, sp.size)
    got = runner.prelu(dtype, x, alpha, [(x.size, 1)], variant)
    base.check(dtype, x, x, got, numpy_oracle(dtype, x, alpha), "specials")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT16])
def test_odd_sizes_and_large(runner, dtype, variant):
    """Extents of 1 to 63 (prelu-vec4: a word spanning up to four rows or
    planes, its digits carried), counts ending inside a word, and large
    tensors."""
    rng = np.random.default_rng(5)
    for c in (1, 2, 3, 5, 63):
        for hw in (1, 2, 7, 33):
            run_case(runner, dtype, (c, hw), (c, 1), rng, variant)  # NCHW, N = 1
            run_case(runner, dtype, (hw, c), (c,), rng, variant)    # NHWC
    run_case(runner, dtype, (1, 512, 2049), (512, 1), rng, variant)
    run_case(runner, dtype, (1, 16387, 64), (64,), rng, variant)


def main():
    return wgsl_harness.main("wgsl_prelu_test", __file__, Runner)


if __name__ == "__main__":
    sys.exit(main())
