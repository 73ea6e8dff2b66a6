"""The short paths of lrelu.leaky_relu(x, alpha, out=y): plain NumPy arrays
go straight to the library, plain torch tensors through one C call
(lrelu._lrelu.forward_torch); whatever those refuse must reach the ufunc or
lrelu.torch's checked path and give their answers."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import dtype_params, numpy_dtype


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def x_of(dtype_name, rng, n=600):
    x_bits = np.concatenate([oracle.special_bits(dtype_name)[:400],
                             oracle.random_bits(dtype_name, n, rng)])
    return x_bits, x_bits.view(numpy_dtype(dtype_name))


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_numpy_out_gives_the_oracle_bits(dtype_name, rng):
    x_bits, x = x_of(dtype_name, rng)
    want, any_nan = oracle.forward(x_bits, -0.375, dtype_name)
    y = np.empty_like(x)
    assert lrelu.leaky_relu(x, -0.375, out=y) is y
    oracle.assert_bits(bits(y), want, any_nan, dtype_name, "out=")
    for threads in (1, 2, 0):  # threads= takes the same short path
        y = np.empty_like(x)
        assert lrelu.leaky_relu(x, -0.375, threads=threads, out=y) is y
        oracle.assert_bits(bits(y), want, any_nan, dtype_name,
                           f"out=, threads={threads}")
    z = x.copy()
    assert lrelu.leaky_relu(z, -0.375, out=z) is z
    oracle.assert_bits(bits(z), want, any_nan, dtype_name, "in place")
    strided = np.empty(2 * x.size, x.dtype)[::-2]
    lrelu.leaky_relu(x, -0.375, out=strided)
    oracle.assert_bits(bits(strided), want, any_nan, dtype_name, "strided")


def test_numpy_out_the_library_refuses_is_numpys(rng):
    x = np.linspace(-4, 4, 17)
    want = np.where(x < 0, 0.5 * x, x)
    # Overlap NumPy resolves by copying: out one element behind x.
    b = np.concatenate([[0.0], x])
    lrelu.leaky_relu(b[1:], 0.5, out=b[:-1])
    assert b[:-1].tolist() == want.tolist()
    # Broadcasting x into a larger out, and casting into another dtype.
    wide = np.empty((3, 17))
    lrelu.leaky_relu(x, 0.5, out=wide)
    assert (wide == want).all()
    narrow = np.empty(17, np.float32)
    lrelu.leaky_relu(x, 0.5, out=narrow)
    assert narrow.tolist() == want.astype(np.float32).tolist()
    # A byte-swapped out.
    swapped = np.empty(17, ">f8")
    lrelu.leaky_relu(x, 0.5, out=swapped)
    assert swapped.tolist() == want.tolist()
    # Refusals keep NumPy's errors.
    read_only = np.empty(17)
    read_only.flags.writeable = False
    with pytest.raises(ValueError):
        lrelu.leaky_relu(x, 0.5, out=read_only)
    with pytest.raises(TypeError):
        lrelu.leaky_relu(x, 0.5, out=np.empty(17, np.int64))
    with pytest.raises(ValueError):
        lrelu.leaky_relu(x, 0.5, out=np.empty(5))


def test_torch_short_path_and_its_fallbacks():
    torch = pytest.importorskip("torch")
    import lrelu.torch  # noqa: F401  (registers torch with the extension)
    x = torch.linspace(-4, 4, 24)
    want = torch.where(x < 0, 0.5 * x, x)
    assert lrelu._lrelu.forward_torch(x, torch.empty(3), 0.5, True) is False
    out = torch.empty(24)
    version = out._version
    assert lrelu.leaky_relu(x, 0.5, out=out) is out
    assert torch.equal(out, want) and out._version == version + 1
    # threads= as well: the same C call under the per-call override, which
    # is put back.
    out.zero_()
    version = out._version
    assert lrelu.leaky_relu(x, 0.5, threads=1, out=out) is out
    assert torch.equal(out, want) and out._version == version + 1
    assert lrelu._lrelu.swap_thread_override(-1) == -1
    # Rank 9 (beyond the C call's stack arrays), a strided out, a lazily
    # negated x: the checked path, same answers.
    x9 = x.reshape(2, 3, 2, 2, 1, 1, 1, 1, 1)
    out9 = torch.empty_like(x9)
    lrelu.leaky_relu(x9, 0.5, out=out9)
    assert torch.equal(out9.reshape(24), want)
    assert torch.equal(lrelu.leaky_relu(x9, 0.5).reshape(24), want)
    strided = torch.empty(48)[::2]
    lrelu.leaky_relu(x, 0.5, out=strided)
    assert torch.equal(strided, want)
    negated = torch.complex(torch.zeros(24), -x).conj().imag  # x, lazily
    assert negated.is_neg()
    assert torch.equal(lrelu.leaky_relu(negated, 0.5), want)
    lrelu.leaky_relu(negated, 0.5, out=out)
    assert torch.equal(out, want)
    # Refusals keep lrelu.torch's messages.
    with pytest.raises(TypeError, match="DTYPE_MISMATCH"):
        lrelu.leaky_relu(x, 0.5, out=torch.empty(24, dtype=torch.float64))
    with pytest.raises(ValueError, match="SHAPE_MISMATCH"):
        lrelu.leaky_relu(x, 0.5, out=torch.empty(5))
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        lrelu.leaky_relu(x.requires_grad_(), 0.5, out=out)
    with torch.no_grad():
        lrelu.leaky_relu(x, 0.5, out=out)  # no gradient wanted: allowed
    assert torch.equal(out, want)
