"""lrelu.ufunc as a NumPy ufunc: layouts, out=, where=, broadcasting alpha,
dtype=, casting, threads, and the errors for other dtypes."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import dtype_params, numpy_dtype


def random_array(dtype_name, shape, rng):
    n = int(np.prod(shape))
    bits = oracle.random_values(dtype_name, n, rng).reshape(shape)
    return bits.view(numpy_dtype(dtype_name))


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(bits(actual), bits(expected))


def reference(x, alpha):
    """y for x computed from a C-contiguous copy, checked by the oracle."""
    name = "bfloat16" if x.dtype.name == "bfloat16" else x.dtype.name
    x_bits = bits(np.ascontiguousarray(x))
    expected, any_nan = oracle.forward(x_bits, alpha, name)
    assert not any_nan.any()
    return expected.view(x.dtype)


def test_is_a_real_ufunc():
    assert isinstance(lrelu.ufunc, np.ufunc)
    assert lrelu.ufunc.nin == 2 and lrelu.ufunc.nout == 1
    assert lrelu.ufunc.__name__ == "leaky_relu"
    assert lrelu.ufunc.types[:3] == ["ed->e", "fd->f", "dd->d"]


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_python_float_alpha_keeps_x_dtype(dtype_name, rng):
    x = random_array(dtype_name, (7,), rng)
    for alpha in (0.2, np.float64(0.2), np.float32(0.2), 1, np.array(0.2)):
        y = lrelu.ufunc(x, alpha)
        assert y.dtype == x.dtype
        # A float32 alpha widens exactly: float64 x sees float32(0.2).
        assert_same_bits(y, reference(x, float(alpha)))


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("layout", [
    "slice", "reverse", "transpose", "3d-mixed", "broadcast", "unaligned",
    "byte-swapped", "fortran", "column"])
def test_layouts(dtype_name, layout, rng):
    base = random_array(dtype_name, (6, 10, 4), rng)
    if layout == "slice":
        x = base[::2, 1:9:3, ::3]
    elif layout == "reverse":
        x = base[::-1, :, ::-2]
    elif layout == "transpose":
        x = base.transpose(2, 0, 1)
    elif layout == "3d-mixed":
        x = base[1:, ::-3, ::2].transpose(1, 2, 0)
    elif layout == "broadcast":
        x = np.broadcast_to(base[0, :, :1], (3, 10, 4))
    elif layout == "unaligned":
        raw = np.zeros(base.nbytes + 1, np.uint8)
        x = raw[1:].view(base.dtype).reshape(base.shape)
        x[...] = base
        assert not x.flags.aligned
    elif layout == "byte-swapped":
        x = base.astype(base.dtype.newbyteorder())
    elif layout == "fortran":
        x = np.asfortranarray(base)
    else:
        x = base[:, 3, 1]
    y = lrelu.leaky_relu(x, -0.5)
    assert y.shape == x.shape
    native = np.ascontiguousarray(x).astype(x.dtype.newbyteorder("="))
    assert_same_bits(y.astype(y.dtype.newbyteorder("=")),
                     reference(native, -0.5).reshape(x.shape))


def test_strides_that_are_not_whole_elements(rng):
    # A packed record: the float32 field sits 5 bytes apart.
    records = np.zeros(50, dtype=np.dtype([("tag", "u1"), ("x", "<f4")]))
    records["x"] = random_array("float32", (50,), rng)
    x = records["x"]
    assert x.strides[0] == 5
    y = lrelu.leaky_relu(x, 0.3)
    assert_same_bits(y, reference(np.ascontiguousarray(x), 0.3))
    out = np.zeros(50, dtype=records.dtype)
    lrelu.leaky_relu(x, 0.3, out=out["x"])
    assert_same_bits(out["x"].copy(), y)


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_zero_d_and_empty(dtype_name):
    dt = numpy_dtype(dtype_name)
    scalar = lrelu.leaky_relu(np.array(-2.0, dtype=dt), 0.5)
    assert np.ndim(scalar) == 0 and scalar.dtype == dt and scalar == -1.0
    for shape in [(0,), (3, 0, 2), (0, 0)]:
        y = lrelu.leaky_relu(np.empty(shape, dt), 0.5)
        assert y.shape == shape and y.dtype == dt


def test_python_scalars_and_lists():
    assert lrelu.leaky_relu(-2.0, 0.25) == -0.5
    np.testing.assert_array_equal(lrelu.leaky_relu([-4.0, 4.0], 0.5),
                                  [-2.0, 4.0])


def test_out_in_place(rng):
    x = random_array("float32", (40, 3), rng)
    expected = reference(x, 0.2)
    address = x.ctypes.data
    y = lrelu.leaky_relu(x, 0.2, out=x)
    assert y is x and x.ctypes.data == address
    assert_same_bits(x, expected)


def test_out_in_place_on_a_strided_view(rng):
    base = random_array("float64", (8, 9), rng)
    view = base[::2, ::-3]
    expected_view = reference(view, 0.7)
    untouched = base[1::2].copy()
    lrelu.ufunc(view, 0.7, out=view)
    assert_same_bits(view, expected_view)
    assert_same_bits(base[1::2], untouched)


def test_out_overlapping_x_is_handled_by_numpy(rng):
    # NumPy copies a partially overlapping operand first: y is as if x had
    # been read in full before any write.
    x = random_array("float32", (100,), rng)
    expected = reference(x[:-1], 0.2)
    lrelu.leaky_relu(x[:-1], 0.2, out=x[1:])
    assert_same_bits(x[1:], expected)


def test_out_tuple_and_other_array(rng):
    x = random_array("float16", (5, 5), rng)
    out = np.empty_like(x)
    y = lrelu.ufunc(x, 0.2, out=(out,))
    assert y is out
    assert_same_bits(out, reference(x, 0.2))


def test_where_leaves_masked_elements(rng):
    x = random_array("float32", (64,), rng)
    mask = rng.random(64) < 0.5
    out = np.full_like(x, 123.0)
    lrelu.leaky_relu(x, 0.2, out=out, where=mask)
    expected = np.where(mask, reference(x, 0.2), np.float32(123.0))
    assert_same_bits(out, expected)


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_broadcast_alpha_array(dtype_name, rng):
    x = random_array(dtype_name, (30, 8), rng)
    # Runs of equal alpha, NaN runs, -0 and +0 side by side.
    alpha = np.array([0.1, 0.1, 0.2, np.nan, np.nan, -0.0, 0.0, -2.0])
    y = lrelu.leaky_relu(x, alpha)
    assert y.dtype == x.dtype and y.shape == x.shape
    u = oracle.uint_type(dtype_name)
    x_bits = bits(x)
    for j, a in enumerate(alpha):
        expected, any_nan = oracle.forward(x_bits[:, j].copy(), a,
                                           dtype_name)
        oracle.assert_bits(y[:, j].view(u), expected, any_nan, dtype_name,
                           f"column {j} alpha {a}")


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_raw_ufunc_alpha_along_an_outer_axis(dtype_name, rng):
    """lrelu.ufunc itself (leaky_relu would route this to PReLU) with a
    per-channel NCHW alpha: NumPy's loop runs once per plane, the same
    shape each time with its channel's alpha (one-shot calls beside the
    cached plan), and the batch repeats the alphas; then two shapes in
    turn."""
    alpha = np.array([0.1, -2.0, np.nan, 0.0, 0.25, 0.1]).reshape(6, 1, 1)
    u = oracle.uint_type(dtype_name)
    for shape in ((3, 6, 3, 7), (2, 6, 1, 5), (3, 6, 3, 7)):
        x = random_array(dtype_name, shape, rng)
        y = lrelu.ufunc(x, alpha)
        assert y.dtype == x.dtype and y.shape == x.shape
        for n in range(shape[0]):
            for c in range(shape[1]):
                expected, any_nan = oracle.forward(
                    bits(x[n, c]).reshape(-1).copy(), alpha[c, 0, 0],
                    dtype_name)
                oracle.assert_bits(y[n, c].reshape(-1).view(u), expected,
                                   any_nan, dtype_name,
                                   f"{shape} image {n} channel {c}")


def test_alpha_array_per_element_and_float32_alpha(rng):
    x = random_array("float32", (1000,), rng)
    alpha = rng.choice([0.01, 0.3, -1.0], size=1000)
    y = lrelu.leaky_relu(x, alpha)
    expected = np.where(x < 0, alpha.astype(np.float32) * x, x)
    assert_same_bits(y, expected)
    # A float32 alpha array widens to float64 exactly: same result.
    assert_same_bits(lrelu.leaky_relu(x, alpha.astype(np.float32)), expected)


def test_alpha_is_rounded_to_float32_once_not_to_float16():
    # alpha = 0.1 rounded to float16 first would give a different product.
    x = np.array([-3.0], np.float16)
    expected = np.float16(np.float32(0.1) * np.float32(-3.0))
    assert lrelu.leaky_relu(x, 0.1)[0] == expected
    assert expected != np.float16(np.float16(0.1) * np.float16(-3.0))


def test_dtype_argument_selects_the_loop(rng):
    x = random_array("float64", (20,), rng)
    y = lrelu.leaky_relu(x, 0.2, dtype=np.float32)
    assert y.dtype == np.float32
    assert_same_bits(y, reference(x.astype(np.float32), 0.2))
    ints = np.arange(-3, 3)
    y = lrelu.leaky_relu(ints, 0.5, dtype=np.float64)
    np.testing.assert_array_equal(y, [-1.5, -1.0, -0.5, 0.0, 1.0, 2.0])
    y = lrelu.ufunc(x, 0.2, signature=("f", "d", "f"))
    assert y.dtype == np.float32


def test_casting_rules_apply_to_out(rng):
    x = random_array("float64", (4,), rng)
    with pytest.raises(TypeError):
        lrelu.leaky_relu(x, 0.2, out=np.empty(4, np.float32),
                         casting="safe")
    with pytest.raises(TypeError):
        lrelu.leaky_relu(x, 0.2, out=np.empty(4, np.int64))


@pytest.mark.parametrize("x", [
    np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int8),
    np.arange(4, dtype=np.uint64), np.ones(4, dtype=bool),
    np.ones(4, dtype=np.complex64), np.array([1.0, -1.0], dtype=object),
    np.ones(2, dtype=np.longdouble), np.array(["a"]),
], ids=lambda x: x.dtype.name)
def test_other_dtypes_are_type_errors(x):
    with pytest.raises(TypeError):
        lrelu.leaky_relu(x, 0.2)
    with pytest.raises(TypeError):
        lrelu.ufunc(x, 0.2)


def test_int_dtype_error_names_the_contract():
    with pytest.raises(TypeError, match="int32.*float16, bfloat16, float32"):
        lrelu.leaky_relu(np.arange(3, dtype=np.int32))


def test_complex_alpha_is_a_type_error():
    with pytest.raises(TypeError):
        lrelu.leaky_relu(np.ones(3, np.float32), 1j)


def test_threads_do_not_change_bits(rng):
    x = random_array("float32", (1 << 20,), rng)
    expected = lrelu.leaky_relu(x, 0.2, threads=1)
    for threads in (0, 2, 7):
        assert_same_bits(lrelu.leaky_relu(x, 0.2, threads=threads), expected)


def test_threads_setting():
    before = lrelu.get_threads()
    try:
        lrelu.set_threads(3)
        assert lrelu.get_threads() == 3
    finally:
        lrelu.set_threads(before)
    assert lrelu.get_threads() == before
    with pytest.raises(ValueError):
        lrelu.leaky_relu(np.ones(2), threads=-1)
    with pytest.raises(TypeError):
        lrelu.leaky_relu(np.ones(2), threads=1.5)
    with pytest.raises(TypeError):
        lrelu.set_threads(None)


def test_threads_override_is_restored_after_errors():
    assert lrelu._lrelu.swap_thread_override(-1) == -1
    with pytest.raises(TypeError):
        lrelu.leaky_relu(np.arange(3), threads=2)
    assert lrelu._lrelu.swap_thread_override(-1) == -1


def test_package_information():
    assert lrelu.__version__ == "0.1.0" or lrelu.__version__.count(".") == 2
    assert lrelu.contract_version == 1
    targets = lrelu.cpu_targets()
    assert targets and all(isinstance(t, str) for t in targets)
    assert lrelu.DEFAULT_ALPHA == 0.01


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_loops_run_without_the_gil(dtype_name, rng):
    # NumPy keeps the GIL for tiny calls (under 500 elements in 1.24), where
    # releasing it would cost more than the work.
    x = random_array(dtype_name, (10_000,), rng)
    lrelu.leaky_relu(x, 0.2)
    assert lrelu._lrelu.last_loop_held_gil() is False


def test_calls_from_many_python_threads(rng):
    import concurrent.futures
    x = random_array("float32", (1 << 16,), rng)
    expected = reference(x, 0.2)

    def work(threads):
        return [lrelu.leaky_relu(x, 0.2, threads=threads) for _ in range(20)]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for results in pool.map(work, [0, 1, 2, None, 3, 1]):
            for y in results:
                assert_same_bits(y, expected)
