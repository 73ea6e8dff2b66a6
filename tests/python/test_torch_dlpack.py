"""lrelu.leaky_relu and leaky_relu_backward on torch tensors: read through
DLPack without copying, results allocated by torch, bits as the contract
says for every dtype."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import ALPHAS, needs_torch

torch = pytest.importorskip("torch")
pytestmark = needs_torch

TORCH_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
SIGNED = {2: np.int16, 4: np.int32, 8: np.int64}


def tensor_from_bits(bits, dtype_name):
    """A torch tensor holding exactly these storage bits."""
    signed = bits.view(SIGNED[bits.dtype.itemsize])
    return torch.from_numpy(signed.copy()).view(TORCH_DTYPES[dtype_name])


def bits_of(t, dtype_name):
    size = t.element_size()
    as_int = t.contiguous().view({2: torch.int16, 4: torch.int32,
                                  8: torch.int64}[size])
    return as_int.numpy().view(oracle.uint_type(dtype_name))


@pytest.mark.parametrize("dtype_name", oracle.DTYPES)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_forward_bits(dtype_name, alpha):
    rng = np.random.default_rng(7)
    x_bits = np.concatenate([oracle.special_bits(dtype_name),
                             oracle.random_values(dtype_name, 2000, rng)])
    x = tensor_from_bits(x_bits, dtype_name)
    y = lrelu.leaky_relu(x, alpha)
    assert isinstance(y, torch.Tensor)
    assert y.dtype == x.dtype and y.shape == x.shape
    expected, any_nan = oracle.forward(x_bits, alpha, dtype_name)
    oracle.assert_bits(bits_of(y, dtype_name), expected, any_nan, dtype_name,
                       f"torch {dtype_name} alpha={alpha}")


@pytest.mark.parametrize("dtype_name", oracle.DTYPES)
def test_gradient_bits(dtype_name):
    rng = np.random.default_rng(8)
    x_bits = np.concatenate([oracle.special_bits(dtype_name),
                             oracle.random_values(dtype_name, 2000, rng)])
    dy_bits = oracle.random_bits(dtype_name, x_bits.size, rng)
    dx = lrelu.leaky_relu_backward(tensor_from_bits(dy_bits, dtype_name),
                                   tensor_from_bits(x_bits, dtype_name), -0.5)
    assert isinstance(dx, torch.Tensor)
    expected, any_nan = oracle.backward(dy_bits, x_bits, -0.5, dtype_name)
    oracle.assert_bits(bits_of(dx, dtype_name), expected, any_nan,
                       dtype_name, f"torch gradient {dtype_name}")


def test_input_is_read_in_place():
    x = torch.randn(6, 10)
    for view in (x, x[:, 3:], x.t(), x[::2, ::3], x[1].expand(4, 10)):
        assert lrelu._lrelu.data_ptr(view) == view.data_ptr()


def test_result_is_a_new_torch_tensor_written_by_lrelu():
    x = torch.randn(1000)
    y = lrelu.leaky_relu(x, 0.2)
    assert y.data_ptr() != x.data_ptr()
    assert torch.equal(y, torch.where(x < 0, x * 0.2, x))


def test_out_in_place_keeps_the_storage():
    x = torch.randn(64, 64)
    expected = torch.where(x < 0, x * 0.2, x)
    address = x.data_ptr()
    y = lrelu.leaky_relu(x, 0.2, out=x)
    assert y is x and x.data_ptr() == address
    assert torch.equal(x, expected)


def test_out_on_a_strided_view_writes_only_the_view():
    base = torch.randn(8, 8)
    before = base.clone()
    view = base[::2, 1::3]
    lrelu.leaky_relu(view, -0.5, out=view)
    expected = before.clone()
    expected[::2, 1::3] = torch.where(before[::2, 1::3] < 0,
                                      before[::2, 1::3] * -0.5,
                                      before[::2, 1::3])
    assert torch.equal(base, expected)


def test_out_other_tensor():
    x = torch.randn(5, 3, dtype=torch.float64)
    out = torch.empty(5, 3, dtype=torch.float64)
    assert lrelu.leaky_relu(x, 0.5, out=out) is out
    assert torch.equal(out, torch.where(x < 0, x * 0.5, x))


def test_non_contiguous_inputs():
    x = torch.randn(7, 9)
    for view in (x.t(), x[:, ::2], x[2].expand(3, 9), x[1:, 1:]):
        y = lrelu.leaky_relu(view, 0.3)
        assert torch.equal(y, lrelu.leaky_relu(view.contiguous(), 0.3))


def test_zero_d_and_empty():
    y = lrelu.leaky_relu(torch.tensor(-4.0), 0.25)
    assert y.dim() == 0 and y.item() == -1.0
    y = lrelu.leaky_relu(torch.empty(0, 3, dtype=torch.float16))
    assert y.shape == (0, 3) and y.dtype == torch.float16


def test_threads_argument():
    x = torch.randn(1 << 18)
    assert torch.equal(lrelu.leaky_relu(x, 0.2, threads=1),
                       lrelu.leaky_relu(x, 0.2, threads=2))


def test_alpha_scalar_tensor_and_errors():
    x = torch.randn(4)
    assert torch.equal(lrelu.leaky_relu(x, torch.tensor(0.5)),
                       lrelu.leaky_relu(x, 0.5))
    with pytest.raises(TypeError, match="real scalar"):
        lrelu.leaky_relu(x, torch.tensor([0.5, 0.2]))
    with pytest.raises(TypeError, match="out= only"):
        lrelu.leaky_relu(x, 0.5, where=np.ones(4, bool))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool,
                                   torch.complex64, torch.uint8])
def test_other_dtypes_are_type_errors(dtype):
    with pytest.raises(TypeError, match="float16, bfloat16, float32"):
        lrelu.leaky_relu(torch.zeros(3, dtype=dtype))


def test_shape_and_dtype_mismatch_with_out():
    with pytest.raises(ValueError, match="SHAPE_MISMATCH"):
        lrelu.leaky_relu(torch.randn(3), out=torch.empty(4))
    with pytest.raises(TypeError, match="DTYPE_MISMATCH"):
        lrelu.leaky_relu(torch.randn(3),
                         out=torch.empty(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="OVERLAP"):
        base = torch.randn(5)
        lrelu.leaky_relu(base[:4], out=base[1:])


def test_requires_grad_goes_through_autograd():
    x = torch.randn(10, dtype=torch.float64, requires_grad=True)
    y = lrelu.leaky_relu(x, 0.2)
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    assert torch.equal(x.grad, torch.where(x.detach() < 0,
                                           torch.tensor(0.2, dtype=x.dtype),
                                           torch.tensor(1.0, dtype=x.dtype)))
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        lrelu.leaky_relu(x, 0.2, out=torch.empty(10, dtype=torch.float64))
    with torch.no_grad():
        assert not lrelu.leaky_relu(x, 0.2).requires_grad


def test_gradient_out_in_place():
    dy = torch.ones(4)
    x = torch.tensor([-1.0, -0.0, 0.0, 1.0])
    dx = lrelu.leaky_relu_backward(dy, x, 0.5, out=dy)
    assert dx is dy
    assert dy.tolist() == [0.5, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="alpha > 0"):
        lrelu.leaky_relu_backward(torch.ones(2), torch.ones(2), -1.0,
                                  from_output=True)
