"""`lrelu apply --alpha-file A.npy` (PReLU): outputs compared bit for bit
with a numpy oracle per element (alpha broadcast by ONNX's rule), over
dtypes, byte orders, memory orders and broadcast patterns; bad alpha files
are refused without an output."""
import os

import numpy as np
import pytest

from cli_util import UINT, native_bits, npy_bytes, run

CASES = [  # (x shape, alpha shape)
    ((2, 4, 3, 5), (4, 1, 1)),  # NCHW per channel
    ((2, 3, 5, 4), (4,)),       # NHWC per channel
    ((3, 4), (3, 4)),           # one alpha per element
    ((7,), ()),                 # a scalar alpha
]


def expected(x, alpha):
    """Bits of y and the any-NaN mask, element by element."""
    size = x.dtype.itemsize
    ftype = {2: np.float16, 4: np.float32, 8: np.float64}[size]
    xv = native_bits(x).view(ftype)
    av = np.broadcast_to(native_bits(alpha).view(
        {2: np.float16, 4: np.float32, 8: np.float64}[alpha.dtype.itemsize]),
        x.shape)
    with np.errstate(all="ignore"):
        if size == 8:
            product = av.astype(np.float64) * xv
        elif size == 4:
            product = av.astype(np.float32) * xv
        else:
            product = (xv.astype(np.float32) *
                       av.astype(np.float32)).astype(np.float16)
        negative = xv < 0
    bits = np.where(negative, product.view(UINT[size]), xv.view(UINT[size]))
    return bits, negative & np.isnan(product)


@pytest.mark.parametrize("descr", ["<f2", "<f4", ">f4", "<f8"])
@pytest.mark.parametrize("x_shape,alpha_shape", CASES)
@pytest.mark.parametrize("fortran", [False, True])
def test_alpha_file(lrelu_path, tmp_path, descr, x_shape, alpha_shape,
                    fortran):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape).astype(descr)
    alpha = rng.uniform(-1, 1, alpha_shape).astype(descr.replace(">", "<"))
    src, a_path, out = (str(tmp_path / n) for n in ("x.npy", "a.npy", "y.npy"))
    with open(src, "wb") as f:
        f.write(npy_bytes(x, fortran=fortran))
    with open(a_path, "wb") as f:
        f.write(npy_bytes(alpha))
    result = run(lrelu_path, "apply", src, "-o", out, "--alpha-file", a_path)
    assert result.returncode == 0, result.stderr
    y = np.load(out)
    assert y.dtype == x.dtype and y.shape == x.shape
    bits, any_nan = expected(x, alpha)
    got = native_bits(y)
    ok = np.where(any_nan, np.isnan(y.astype(np.float64)), got == bits)
    assert ok.all()


def test_float64_alpha_for_float32_data(lrelu_path, tmp_path):
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    alpha = np.array([0.1, 0.2, 0.3])[:, None]  # float64, [3, 1]
    src, a_path, out = (str(tmp_path / n) for n in ("x.npy", "a.npy", "y.npy"))
    np.save(src, x)
    np.save(a_path, alpha)
    result = run(lrelu_path, "apply", src, "-o", out, "--alpha-file", a_path)
    assert result.returncode == 0, result.stderr
    want = np.where(x < 0, x * alpha.astype(np.float32), x)
    assert np.array_equal(np.load(out).view(np.uint32), want.view(np.uint32))


def test_alpha_that_does_not_broadcast_is_refused(lrelu_path, tmp_path):
    src, a_path, out = (str(tmp_path / n) for n in ("x.npy", "a.npy", "y.npy"))
    np.save(src, np.zeros((2, 3), np.float32))
    np.save(a_path, np.zeros(2, np.float32))
    result = run(lrelu_path, "apply", src, "-o", out, "--alpha-file", a_path)
    assert result.returncode != 0
    assert "broadcast" in result.stderr
    assert not os.path.exists(out)
