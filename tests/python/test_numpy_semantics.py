"""The ufunc follows NumPy's rules where NumPy users rely on them: x alone
picks the result dtype, outputs that overlap inputs give NumPy's answer,
accumulate, pickling, dtype=bfloat16, and threads= checked."""
import pickle

import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import dtype_params, needs_bfloat16, numpy_dtype


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def expected(x, alpha):
    """The oracle's y for x (any layout) and alpha broadcast against it."""
    x = np.asarray(x)
    name = x.dtype.name
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), x.shape)
    x_bits = bits(np.ascontiguousarray(x)).reshape(-1)
    # The oracle's arithmetic is elementwise: one alpha per element works.
    out = oracle.forward(x_bits, alpha.reshape(-1), name)[0]
    return out.view(x.dtype).reshape(x.shape)


def assert_same(actual, want):
    assert actual.dtype == want.dtype and actual.shape == want.shape
    np.testing.assert_array_equal(bits(actual), bits(want))


# x alone selects the loop: y has x's dtype whatever alpha is.

ALPHAS_OF_EVERY_KIND = [
    0.1, np.float64(0.1), np.float32(0.1), np.float16(0.1), 2,
    np.array(0.1), np.array(0.1, np.float16), np.array([0.1, 0.2]),
    np.array([0.1, 0.2], np.float16), np.array([0.1, 0.2], np.float32),
    np.array([0.1, 0.2], np.longdouble), np.array([1, 2], np.int8),
]


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("alpha", ALPHAS_OF_EVERY_KIND,
                         ids=lambda a: f"{type(a).__name__}-"
                         f"{np.asarray(a).dtype}-{np.ndim(a)}d")
@pytest.mark.parametrize("x_kind", ["0d", "scalar", "2-vector"])
def test_result_dtype_is_x_dtype(dtype_name, alpha, x_kind):
    dtype = numpy_dtype(dtype_name)
    if x_kind == "0d":
        x = np.array(-1.2345678, dtype)
    elif x_kind == "scalar":
        x = np.array(-1.2345678, dtype)[()]
    else:
        x = np.array([-1.2345678, 3.0], dtype)
    y = lrelu.leaky_relu(x, alpha)
    assert y.dtype == dtype
    alpha64 = np.asarray(alpha).astype(np.float64)
    assert_same(np.asarray(y), expected(np.broadcast_to(x, np.shape(y)),
                                        alpha64))


def test_the_float16_wrong_answer_of_the_issue():
    y = lrelu.leaky_relu(np.float32(-1.2345678), np.array([.1, .2]))
    assert y.dtype == np.float32
    assert_same(y, expected(np.full(2, -1.2345678, np.float32), [.1, .2]))


@pytest.mark.parametrize("x", [-1.2345678, np.float64(-1.2345678),
                               np.array(-1.2345678)])
def test_python_float_and_0d_float64_x_stay_float64(x):
    y = lrelu.leaky_relu(x, np.array([.1, .2], np.float16))
    assert y.dtype == np.float64
    alpha = np.array([.1, .2], np.float16).astype(np.float64)
    assert_same(y, expected(np.full(2, -1.2345678), alpha))


def test_alpha_that_cannot_cast_to_float64_is_refused():
    with pytest.raises(TypeError, match="complex128"):
        lrelu.leaky_relu(np.ones(2, np.float32), np.array([1j, 2j]))


def test_signature_naming_other_loops_is_refused():
    with pytest.raises(TypeError, match="no loop for signature"):
        lrelu.ufunc(np.ones(2), 0.5, signature=("f", "f", "f"))
    with pytest.raises(TypeError, match="no loop for signature"):
        lrelu.leaky_relu(np.ones(2), 0.5, dtype=np.int32)


@needs_bfloat16
@pytest.mark.parametrize("source", ["float32", "bfloat16", "float64"])
def test_dtype_bfloat16(source, rng):
    bf16 = numpy_dtype("bfloat16")
    x = (rng.standard_normal(50) * 3).astype(numpy_dtype(source))
    casting = "unsafe" if source == "float64" else "same_kind"
    y = lrelu.leaky_relu(x, 0.3, dtype=bf16, casting=casting)
    assert y.dtype == bf16
    assert_same(y, expected(x.astype(bf16), 0.3))


@needs_bfloat16
def test_byte_swapped_bfloat16(rng):
    bf16 = numpy_dtype("bfloat16")
    x = (rng.standard_normal(40) * 3).astype(bf16)
    swapped = x.astype(bf16.newbyteorder())
    assert not swapped.dtype.isnative
    assert_same(lrelu.leaky_relu(swapped, -0.5), expected(x, -0.5))


# Outputs that overlap inputs: as if the inputs were copied first.

def numpy_answer(x, alpha):
    """What an ordinary NumPy ufunc gives: x read in full first."""
    return expected(x.copy(), alpha)


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("case", [
    "out-behind", "out-ahead", "out-behind-far", "out-ahead-far",
    "reversed", "interleaved", "interleaved-reversed", "two-columns",
    "column-into-row-of-transpose"])
def test_overlapping_out(dtype_name, case, rng):
    n = 3000  # beyond one 4 KiB buffer block and NumPy's GIL threshold
    base = oracle.random_values(dtype_name, 2 * n, rng).view(
        numpy_dtype(dtype_name))
    square = base[:2500].reshape(50, 50)
    views = {
        "out-behind": (base[1:], base[:-1]),
        "out-ahead": (base[:-1], base[1:]),
        "out-behind-far": (base[700:], base[:-700]),
        "out-ahead-far": (base[:-700], base[700:]),
        "reversed": (base[::-1], base),
        "interleaved": (base[1::2], base[::2]),
        "interleaved-reversed": (base[1::2], base[-2::-2]),
        "two-columns": (base.reshape(-1, 2)[:, 0], base.reshape(-1, 2)[:, 1]),
        "column-into-row-of-transpose": (square[:, 3], square.T[:, 4]),
    }
    x, out = views[case]
    alpha = np.linspace(-1, 1, x.shape[0]) if case == "out-behind" else 0.2
    want = numpy_answer(x, alpha)
    result = lrelu.leaky_relu(x, alpha, out=out)
    assert result is out
    assert_same(out.copy(), want)


def test_issue_example_out_one_behind():
    b = np.arange(-5.0, 5.0)
    want = numpy_answer(b[1:], 0.5)
    lrelu.leaky_relu(b[1:], 0.5, out=b[:-1])
    assert_same(b[:-1], want)


def test_overlap_with_where_and_broadcast_alpha():
    b = np.linspace(-3, 3, 2001)
    mask = np.arange(2000) % 3 != 0
    before = b.copy()
    want = np.where(mask, numpy_answer(b[1:], np.full(2000, 0.25)),
                    before[:-1])
    lrelu.leaky_relu(b[1:], 0.25, out=b[:-1], where=mask)
    assert_same(b[:-1], want)


# accumulate: y[i] = leaky_relu(y[i - 1], alpha[i]), in order. NumPy needs
# one dtype for x, alpha and y there, so only float64 (the 'dd->d' loop)
# accumulates; the others are NumPy's own TypeError.

def accumulate_oracle(a):
    out = a.copy()
    for i in range(1, a.size):
        out[i] = expected(out[i - 1:i], a[i])[0]
    return out


@pytest.mark.parametrize("alphas", [
    [-8.0, 0.5, 0.5, 0.5, 0.25],          # equal consecutive alphas
    [-3.0] + [-0.5] * 40,                 # sign flips at every step
    [-1e30] + [0.5] * 2000 + [2.0, 2.0],  # long runs, past the GIL threshold
    [5.0, 0.5, 0.5, -1.0, -1.0, -1.0],
], ids=["issue", "flips", "long", "positive-start"])
def test_accumulate(alphas):
    a = np.array(alphas)
    assert_same(lrelu.ufunc.accumulate(a), accumulate_oracle(a))
    with pytest.raises(TypeError, match="accumulate"):
        lrelu.ufunc.accumulate(a.astype(np.float32))


# Pickling: the ufunc travels by name.

def test_ufunc_pickles_by_name():
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(lrelu.ufunc, protocol)) is lrelu.ufunc
        assert (pickle.loads(pickle.dumps(lrelu.leaky_relu, protocol))
                is lrelu.leaky_relu)
    assert lrelu._lrelu.leaky_relu is lrelu.ufunc


def test_ufunc_runs_in_a_spawned_process():
    import multiprocessing
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        y = pool.apply(lrelu.ufunc, (x, 0.3))
    assert_same(y, expected(x, 0.3))


# threads=: checked, with messages that name it.

@pytest.mark.parametrize("threads, error", [
    (2 ** 70, ValueError), (-1, ValueError), (True, TypeError),
    (1.5, TypeError), ("2", TypeError), (np.float64(2), TypeError)])
def test_threads_is_checked(threads, error):
    for call in (lambda: lrelu.leaky_relu(np.ones(3), threads=threads),
                 lambda: lrelu.leaky_relu(np.ones(3), 0.5, threads=threads,
                                          out=np.empty(3)),
                 lambda: lrelu.leaky_relu_backward(np.ones(3), np.ones(3),
                                                   threads=threads)):
        with pytest.raises(error, match="threads="):
            call()
    with pytest.raises(error, match="threads="):
        lrelu.set_threads(threads)


def test_threads_accepts_numpy_integers_and_the_largest():
    x = -np.ones(5)
    for threads in (np.int64(2), np.uint8(1), 2 ** 63 - 1, 0):
        assert_same(lrelu.leaky_relu(x, 0.5, threads=threads),
                    expected(x, 0.5))


def test_backward_alpha_array_message_fits_numpy():
    with pytest.raises(TypeError, match="one real scalar alpha") as info:
        lrelu.leaky_relu_backward(np.ones(3), -np.ones(3),
                                  np.array([0.1, 0.2, 0.3]))
    assert "DLPack" not in str(info.value)
    dx = lrelu.leaky_relu_backward(np.ones(3), -np.ones(3), np.array(0.5))
    np.testing.assert_array_equal(dx, [0.5, 0.5, 0.5])
