"""Randomized stress of the ufunc and the gradient: random dtypes, ranks,
shapes, strided/reversed/transposed/unaligned/byte-swapped layouts, out=
(new, strided, in place, overlapping the input), where=, broadcast alpha
arrays and thread counts, from several Python threads at once; every result
checked bit for bit against the oracle.

LRELU_STRESS_CASES sets the number of cases (default 300, a few seconds);
scripts/run-python-asan.sh runs many more under ASan + UBSan, where the
point is every memory access of every layout rather than the answers alone.
"""
import concurrent.futures
import os

import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import ALPHAS, HAS_ML_DTYPES, numpy_dtype

CASES = int(os.environ.get("LRELU_STRESS_CASES", "300"))
PYTHON_THREADS = 4
DTYPES = ["float16", "float32", "float64"] + (
    ["bfloat16"] if HAS_ML_DTYPES
    and lrelu._lrelu.bfloat16_unavailable_reason is None else [])


def bits_of(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def native_bits(a):
    """Storage bits of a C-contiguous, native-byte-order copy of a."""
    a = np.ascontiguousarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return bits_of(a).copy()


def random_storage(dtype_name, n, rng):
    """Half special bit patterns (NaNs, infinities, subnormals), half
    ordinary values, as an array of the dtype."""
    raw = oracle.random_bits(dtype_name, n, rng)
    ordinary = oracle.random_values(dtype_name, n, rng)
    mixed = np.where(rng.random(n) < 0.5, raw, ordinary)
    return mixed.view(numpy_dtype(dtype_name))


def random_view(base, rng):
    """A random strided view of base: slices with random steps (negative
    too), maybe a transpose."""
    index = []
    for n in base.shape:
        step = int(rng.choice([1, 1, 2, 3, -1, -2]))
        start = int(rng.integers(0, max(n, 1)))
        index.append(slice(start, None, step) if rng.random() < 0.5
                     else slice(None, None, step))
    view = base[tuple(index)]
    if view.ndim > 1 and rng.random() < 0.4:
        view = view.transpose(rng.permutation(view.ndim))
    return view


def random_x(dtype_name, rng):
    rank = int(rng.integers(0, 5))
    shape = tuple(int(rng.integers(0, 7)) + (1 if rng.random() < 0.8 else 0)
                  for _ in range(rank))
    base_shape = tuple(2 * n + 1 for n in shape)
    base = random_storage(dtype_name, int(np.prod(base_shape)),
                          rng).reshape(base_shape)
    layout = rng.random()
    if layout < 0.15:
        # Unaligned: the same values one byte into a raw buffer.
        raw = np.zeros(base.nbytes + 1, np.uint8)
        moved = raw[1:].view(base.dtype).reshape(base.shape)
        moved[...] = base
        base = moved
    elif layout < 0.3 and dtype_name != "bfloat16":
        base = base.astype(base.dtype.newbyteorder())
    return random_view(base, rng)


def random_alpha(x_shape, rng):
    """A scalar from ALPHAS, or (a quarter of the time) a float64 array that
    broadcasts against x along random axes."""
    if rng.random() < 0.75 or not x_shape:
        return ALPHAS[int(rng.integers(0, len(ALPHAS)))]
    shape = tuple(n if rng.random() < 0.5 else 1 for n in x_shape)
    shape = shape[int(rng.integers(0, len(shape) + 1)):]
    return rng.choice(np.array(ALPHAS), size=shape)


def forward_case(dtype_name, rng):
    x = random_x(dtype_name, rng)
    alpha = random_alpha(x.shape, rng)
    threads = [None, 0, 1, 2, 3][int(rng.integers(0, 5))]
    x_bits = native_bits(x)
    alpha_b = np.broadcast_to(np.asarray(alpha, np.float64), x.shape)
    expected, any_nan = oracle.forward(x_bits, alpha_b, dtype_name)
    context = f"{dtype_name} shape {x.shape} strides {x.strides} alpha {alpha}"
    kind = rng.random()
    if kind < 0.3:
        y = lrelu.leaky_relu(x, alpha, threads=threads)
        assert y.dtype.name == x.dtype.name, context
        oracle.assert_bits(native_bits(y), expected, any_nan, dtype_name,
                           context)
        return
    # out=: a strided view into a larger native buffer, maybe with where=.
    native = numpy_dtype(dtype_name)
    out_base = random_storage(dtype_name, 4 * max(x.size, 1) + 8, rng)
    out = out_base[:2 * x.size:2].reshape(x.shape) if x.size else \
        np.empty(x.shape, native)
    before = native_bits(out)
    kwargs = {"out": out}
    mask = None
    if kind < 0.6:
        mask = rng.random(x.shape) < 0.5
        kwargs["where"] = mask
    lrelu.leaky_relu(x, alpha, threads=threads, **kwargs)
    if mask is not None:
        expected = np.where(mask, expected, before)
        any_nan = any_nan & mask
    oracle.assert_bits(native_bits(out), expected, any_nan, dtype_name,
                       context + (" where=" if mask is not None else ""))


def in_place_case(dtype_name, rng):
    """out= x itself, or out= a view of the same buffer that overlaps x: the
    answer is as if x had been read in full first (NumPy's rule), or a
    clear overlap error that wrote nothing."""
    n = int(rng.integers(1, 200))
    buffer = random_storage(dtype_name, 2 * n + 4, rng)
    shift = int(rng.integers(0, 3))
    step = int(rng.choice([1, 2]))
    x = buffer[shift:shift + step * n:step]
    layout = rng.random()
    if layout < 0.3:
        out = x
    elif layout < 0.6:
        start = int(rng.integers(0, 4))
        out = buffer[start:start + step * n:step]
    else:
        start = int(rng.integers(0, 2))
        out = buffer[start + 1::2][:n] if step == 2 else buffer[start::2][:n]
        if out.size != n:
            out = x
    alpha = ALPHAS[int(rng.integers(0, len(ALPHAS)))]
    x_bits = native_bits(x)
    before = native_bits(buffer)
    expected, any_nan = oracle.forward(x_bits, alpha, dtype_name)
    context = f"{dtype_name} in place, n {n} x {x.__array_interface__} " \
              f"out {out.__array_interface__}"
    try:
        lrelu.leaky_relu(x, alpha, out=out,
                         threads=[None, 1, 2][int(rng.integers(0, 3))])
    except ValueError as error:
        assert "overlap" in str(error).lower(), context
        np.testing.assert_array_equal(native_bits(buffer), before)
        return
    oracle.assert_bits(native_bits(out), expected, any_nan, dtype_name,
                       context)


def backward_case(dtype_name, rng):
    """dx from x with dy a strided view of the same shape (native byte
    order: the gradient takes native arrays)."""
    x = random_x(dtype_name, rng)
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    dy_base = random_storage(dtype_name, 2 * x.size + 1, rng)
    dy = dy_base[:2 * x.size:2].reshape(x.shape)
    alpha = ALPHAS[int(rng.integers(0, len(ALPHAS)))]
    threads = [None, 1, 2][int(rng.integers(0, 3))]
    dx = lrelu.leaky_relu_backward(dy, x, alpha, threads=threads)
    expected, any_nan = oracle.backward(native_bits(dy), native_bits(x),
                                        alpha, dtype_name)
    oracle.assert_bits(native_bits(dx), expected, any_nan, dtype_name,
                       f"{dtype_name} backward shape {x.shape} alpha {alpha}")


def run_cases(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        dtype_name = DTYPES[int(rng.integers(0, len(DTYPES)))]
        kind = rng.random()
        if kind < 0.6:
            forward_case(dtype_name, rng)
        elif kind < 0.85:
            in_place_case(dtype_name, rng)
        else:
            backward_case(dtype_name, rng)


@pytest.mark.parametrize("seed", [20241201])
def test_random_cases_from_several_python_threads(seed):
    per_thread = max(CASES // PYTHON_THREADS, 1)
    with concurrent.futures.ThreadPoolExecutor(PYTHON_THREADS) as pool:
        runs = [pool.submit(run_cases, seed + i, per_thread)
                for i in range(PYTHON_THREADS)]
        for run in runs:
            run.result()
