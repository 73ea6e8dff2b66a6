"""lrelu.torch: the autograd Function and nn.Module, checked with gradcheck
and against torch.nn.functional.leaky_relu, including the two places where
the contract and torch differ on purpose."""
import numpy as np
import pytest

from lrelu_pytest_support import needs_torch

torch = pytest.importorskip("torch")
pytestmark = needs_torch
import torch.nn.functional as F  # noqa: E402

import lrelu.torch as lrelu_torch  # noqa: E402

SLOPES = (0.01, 0.2, -0.5, 1.5, 0.0)


def away_from_zero(shape, dtype, seed):
    """Random values with |x| >= 0.1: finite differences and torch's x > 0
    agree with the contract there."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    x = torch.where(x.abs() < 0.1, torch.sign(x) * 0.1 + x, x)
    x[x == 0] = 0.5
    return x.to(dtype)


@pytest.mark.parametrize("slope", SLOPES)
def test_gradcheck_float64(slope):
    x = away_from_zero((4, 5), torch.float64, 1).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda t: lrelu_torch.leaky_relu(t, slope), (x,), eps=1e-6,
        atol=1e-10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("slope", SLOPES)
def test_matches_torch_forward_and_backward(dtype, slope):
    x = away_from_zero((64, 33), dtype, 2)
    dy = torch.randn(64, 33, dtype=dtype)
    ours = x.clone().requires_grad_()
    theirs = x.clone().requires_grad_()
    y = lrelu_torch.leaky_relu(ours, slope)
    y_torch = F.leaky_relu(theirs, slope)
    assert torch.equal(y, y_torch)
    y.backward(dy)
    y_torch.backward(dy)
    assert torch.equal(ours.grad, theirs.grad)


def test_non_contiguous_and_broadcast_gradients():
    x = away_from_zero((8, 6), torch.float32, 3).t().requires_grad_()
    y = lrelu_torch.leaky_relu(x, 0.2)
    y.sum().backward()  # dy arrives expanded, with stride 0
    assert torch.equal(x.grad, torch.where(x.detach() < 0,
                                           torch.tensor(0.2),
                                           torch.tensor(1.0)))


def test_documented_differences_from_torch():
    # Gradient at exactly zero: 1 (dy) in the contract, negative_slope in
    # torch, which tests x > 0.
    x = torch.tensor([0.0, -0.0], requires_grad=True)
    lrelu_torch.leaky_relu(x, 0.2).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    x_torch = torch.tensor([0.0, -0.0], requires_grad=True)
    F.leaky_relu(x_torch, 0.2).sum().backward()
    assert x_torch.grad.tolist() == [float(np.float32(0.2))] * 2
    # y at x = -0 with a negative slope: -0 passes through; torch gives +0.
    minus_zero = torch.tensor([-0.0])
    y = lrelu_torch.leaky_relu(minus_zero, -0.5)
    assert torch.signbit(y).item()
    assert not torch.signbit(F.leaky_relu(minus_zero, -0.5)).item()


def test_more_documented_differences_from_torch():
    # docs/python.md, "Differences from torch": checked here so that the
    # list stays true for the torch in use.
    zeros = torch.tensor([0.0, -0.0])
    ours = lrelu_torch.leaky_relu(zeros, -0.5)
    assert torch.signbit(ours).tolist() == [False, True]
    assert torch.signbit(F.leaky_relu(zeros, -0.5)).tolist() == [True, False]
    # bfloat16 NaNs: lrelu keeps every NaN's bits; torch 1.13 rewrites them.
    nan_bits = np.array([0x7FC1, 0xFFC0, 0x7F81, 0xFFA5] * 16, np.uint16)
    nans = torch.from_numpy(nan_bits.view(np.int16)).view(torch.bfloat16)
    kept = lrelu_torch.leaky_relu(nans, 0.1).view(torch.int16).numpy()
    assert (kept.view(np.uint16) == nan_bits).all()
    theirs = F.leaky_relu(nans, 0.1).view(torch.int16).numpy()
    assert torch.isnan(F.leaky_relu(nans, 0.1)).all()
    if torch.__version__.startswith("1.13"):
        assert not (theirs.view(np.uint16) == nan_bits).all()
        with pytest.raises(RuntimeError, match="Half"):
            F.leaky_relu(torch.ones(2, dtype=torch.float16), 0.1)
    half = lrelu_torch.leaky_relu(torch.tensor([-2.0, 2.0]).half(), 0.5)
    assert half.tolist() == [-1.0, 2.0]


def test_module():
    module = lrelu_torch.LeakyReLU()
    assert module.negative_slope == 0.01 and not module.inplace
    assert "negative_slope=0.01" in repr(module)
    assert "inplace=True" in repr(lrelu_torch.LeakyReLU(0.1, inplace=True))
    x = away_from_zero((5,), torch.float32, 4)
    assert torch.equal(module(x), torch.nn.LeakyReLU()(x))
    net = torch.nn.Sequential(torch.nn.Linear(4, 3),
                              lrelu_torch.LeakyReLU(0.1))
    net(torch.randn(2, 4)).sum().backward()
    assert net[0].weight.grad is not None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_inplace_matches_torch(dtype):
    x = away_from_zero((20, 7), dtype, 5)
    leaf = x.clone().requires_grad_()
    leaf_torch = x.clone().requires_grad_()
    hidden = leaf * 1.0  # in place on a leaf is refused, as in torch
    hidden_torch = leaf_torch * 1.0
    address = hidden.data_ptr()
    y = lrelu_torch.LeakyReLU(0.2, inplace=True)(hidden)
    y_torch = torch.nn.LeakyReLU(0.2, inplace=True)(hidden_torch)
    assert y is hidden and y.data_ptr() == address
    assert torch.equal(y, y_torch)
    y.sum().backward()
    y_torch.sum().backward()
    assert torch.equal(leaf.grad, leaf_torch.grad)


def test_inplace_slope_rule_follows_torch():
    # torch refuses only negative slopes in place when a gradient is needed.
    x = torch.randn(4, requires_grad=True) * 1.0
    for slope in (-0.1, float("nan")):
        with pytest.raises(ValueError, match="negative_slope"):
            lrelu_torch.leaky_relu(x, slope, inplace=True)
    with pytest.raises(RuntimeError, match="negative slope"):
        F.leaky_relu(x * 1.0, -0.1, inplace=True).sum().backward()
    # slope 0 is allowed, as in torch; the gradient keeps the contract's
    # value at -0 (dy) although y = -0 there as for negative x.
    leaf = torch.tensor([-2.0, -0.0, 0.0, 3.0], requires_grad=True)
    hidden = leaf * 1.0
    y = lrelu_torch.leaky_relu(hidden, 0.0, inplace=True)
    assert y is hidden
    assert y.tolist() == [0.0, 0.0, 0.0, 3.0] and torch.signbit(y[0])
    y.sum().backward()
    assert leaf.grad.tolist() == [0.0, 1.0, 1.0, 1.0]
    with torch.no_grad():
        t = torch.tensor([-2.0, 2.0])
        assert lrelu_torch.leaky_relu(t, -0.5, inplace=True) is t
        assert t.tolist() == [1.0, 2.0]


def test_inplace_on_leaf_is_refused():
    leaf = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        lrelu_torch.leaky_relu(leaf, 0.2, inplace=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_precision_gradients(dtype):
    x = away_from_zero((100,), torch.float32, 6)
    xr = x.to(dtype).requires_grad_()
    lrelu_torch.leaky_relu(xr, 0.1).sum().backward()
    alpha = np.float32(0.1)
    expected = torch.where(xr.detach() < 0,
                           torch.tensor(float(alpha)).to(dtype),
                           torch.tensor(1.0, dtype=dtype))
    assert xr.grad.dtype == dtype
    assert torch.equal(xr.grad, expected)
