"""lrelu.prelu / prelu_backward (contract ai.onnx.PRelu v1) against the
independent NumPy oracle, dalpha against an exact sum in fractions.Fraction
rounded once, and lrelu.torch.PReLU next to torch.nn.PReLU."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from exact_sums import exact_dalpha
from lrelu_pytest_support import (HAS_ML_DTYPES, dtype_params, needs_torch,
                                  numpy_dtype)

# (x shape, alpha shape): scalar, per channel NCHW and NHWC, rows, full.
PATTERNS = [((2, 3, 4, 5), ()), ((2, 6, 3, 4), (6, 1, 1)),
            ((2, 3, 4, 6), (6,)), ((2, 6, 3, 4), (3, 1)),
            ((3, 4, 5), (3, 4, 5)), ((2, 6, 3, 4), (1, 6, 1, 4))]

def as_array(bits, dtype_name, shape):
    return bits.reshape(shape).view(numpy_dtype(dtype_name))


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("x_shape,alpha_shape", PATTERNS)
def test_forward_and_gradient_match_the_oracles(dtype_name, x_shape,
                                                alpha_shape, rng):
    n = int(np.prod(x_shape))
    na = int(np.prod(alpha_shape, dtype=np.int64))
    x_bits = oracle.random_bits(dtype_name, n, rng)
    alpha_bits = oracle.random_bits(dtype_name, na, rng)
    x = as_array(x_bits, dtype_name, x_shape)
    alpha = as_array(alpha_bits, dtype_name, alpha_shape)
    y = lrelu.prelu(x, alpha)
    with np.errstate(invalid="ignore"):
        alpha_full = np.broadcast_to(
            oracle.to_compute(alpha_bits, dtype_name).reshape(alpha_shape),
            x_shape).astype(np.float64).ravel()
    expected, any_nan = oracle.forward(x_bits, alpha_full, dtype_name)
    oracle.assert_bits(y.view(oracle.uint_type(dtype_name)).ravel(),
                       expected, any_nan, dtype_name, "y")
    # Finite, ordinary values for the sums (specials make them NaN/inf).
    xf = as_array(oracle.random_values(dtype_name, n, rng), dtype_name,
                  x_shape)
    dyf = as_array(oracle.random_values(dtype_name, n, rng, 1e3), dtype_name,
                   x_shape)
    dx, dalpha = lrelu.prelu_backward(dyf, xf, alpha)
    expected, any_nan = oracle.backward(
        dyf.view(oracle.uint_type(dtype_name)).ravel(),
        xf.view(oracle.uint_type(dtype_name)).ravel(), alpha_full, dtype_name)
    oracle.assert_bits(dx.view(oracle.uint_type(dtype_name)).ravel(),
                       expected, any_nan, dtype_name, "dx")
    want = exact_dalpha(xf, dyf, alpha_shape, dtype_name)
    np.testing.assert_array_equal(dalpha.astype(np.float64), want)


def test_dalpha_is_exact_where_float_sums_are_not():
    x = np.array([-1.0, -1.0, -1.0], dtype=np.float32)
    dy = np.array([3e38, 1.0, -3e38], dtype=np.float32)
    _, dalpha = lrelu.prelu_backward(dy, x, np.float32(0.25).reshape(()))
    assert dalpha == np.float32(-1.0)  # naive float32 sums give inf or 0


def test_dalpha_same_bits_for_every_thread_count_and_target(rng):
    x = rng.standard_normal((4, 32, 32, 64)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    alpha = np.full(64, 0.25, dtype=np.float32)
    results = [lrelu.prelu_backward(dy, x, alpha, threads=t)[1]
               for t in (1, 2, 3, 7)]
    for r in results[1:]:
        np.testing.assert_array_equal(r.view(np.uint32),
                                      results[0].view(np.uint32))
    want = exact_dalpha(x[:1], dy[:1], (64,), "float32")  # a smaller check
    _, first = lrelu.prelu_backward(dy[:1], x[:1], alpha)
    np.testing.assert_array_equal(first.astype(np.float64), want)


def test_leaky_relu_with_an_array_alpha_is_the_ufunc_bit_for_bit(rng):
    x = rng.standard_normal((8, 5, 5, 64)).astype(np.float32)
    alpha = rng.uniform(-1, 1, 64)  # float64, one per channel (NHWC)
    y = lrelu.leaky_relu(x, alpha)
    ref = lrelu.ufunc(x, alpha)
    np.testing.assert_array_equal(y.view(np.uint32), ref.view(np.uint32))


@pytest.mark.parametrize("dtype_name", ["float16", "float32", "float64"])
@pytest.mark.parametrize("x_shape,alpha_shape", [((4, 6, 3, 5), (6, 1, 1)),
                                                 ((4, 3, 5, 6), (6,)),
                                                 ((7,), (7,))])
def test_array_alpha_with_out_runs_blockwise_and_in_place(rng, dtype_name,
                                                          x_shape,
                                                          alpha_shape):
    """leaky_relu(x, alpha_array, out=y) takes the PReLU path (y written and
    returned) with the oracle's bits, in place too; the raw ufunc (a PReLU
    call per inner loop when alpha changes every element) gives the same
    bits; out= over alpha goes the ufunc's way and is still right."""
    n = int(np.prod(x_shape))
    x_bits = oracle.random_bits(dtype_name, n, rng)
    x = as_array(x_bits, dtype_name, x_shape)
    alpha = rng.uniform(-1.5, 1.5, alpha_shape)  # float64, as the ufunc's
    expected, any_nan = oracle.forward(
        x_bits, np.broadcast_to(alpha, x_shape).ravel(), dtype_name)
    uint = oracle.uint_type(dtype_name)

    def check(y, what):
        oracle.assert_bits(y.view(uint).ravel(), expected, any_nan,
                           dtype_name, what)

    y = np.empty_like(x)
    assert lrelu.leaky_relu(x, alpha, out=y) is y
    check(y, "out=")
    check(lrelu.ufunc(x, alpha), "ufunc")
    z = x.copy()
    assert lrelu.leaky_relu(z, alpha, out=(z,)) is z
    check(z, "in place")
    if dtype_name == "float64" and x_shape == alpha_shape:
        a = alpha.copy()
        assert lrelu.leaky_relu(x, a, out=a) is a
        check(a, "out= over alpha")


def test_array_alpha_outs_the_library_refuses_go_the_ufunc_way(rng):
    """leaky_relu(x, alpha_array, out=...) tries one PReLU call first; what
    the library refuses before writing (out overlapping x other than
    exactly, another dtype, read-only) is NumPy's ufunc semantics instead:
    the same values as on a copy of x, a cast, or NumPy's error."""
    alpha = rng.uniform(-1.5, 1.5, 6)
    b = rng.standard_normal((5, 6)).astype(np.float32)
    want = lrelu.ufunc(b[1:].copy(), alpha)
    lrelu.leaky_relu(b[1:], alpha, out=b[:-1])  # as if x were copied first
    np.testing.assert_array_equal(b[:-1].view(np.uint32), want.view(np.uint32))
    x = rng.standard_normal((5, 6)).astype(np.float32)
    out64 = np.empty((5, 6))
    assert lrelu.leaky_relu(x, alpha, out=out64) is out64
    np.testing.assert_array_equal(
        out64, lrelu.ufunc(x, alpha).astype(np.float64))
    frozen = np.zeros_like(x)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        lrelu.leaky_relu(x, alpha, out=frozen)
    assert not frozen.any()
    # A float32 alpha for float16 x: rounded from its float64 value, as the
    # ufunc's loop takes it.
    h = rng.standard_normal((3, 6)).astype(np.float16)
    a32 = alpha.astype(np.float32)
    np.testing.assert_array_equal(
        lrelu.leaky_relu(h, a32).view(np.uint16),
        lrelu.ufunc(h, a32.astype(np.float64)).view(np.uint16))


@pytest.mark.parametrize("x_shape,alpha_shape", [
    ((4, 6, 3, 5), (6, 1, 1)), ((4, 3, 5, 6), (6,)), ((7,), (7,)),
    ((2, 3), (1,)), ((2, 3), (2, 1)), ((2, 3), (3, 1)), ((2, 3), (2, 3, 1)),
    ((2, 3), (1, 2, 3)), ((2, 0, 3), (3,)), ((), (1,)), ((5,), ())])
def test_routes_is_onnx_unidirectional_broadcasting(x_shape, alpha_shape):
    """_prelu.routes (leaky_relu's PReLU path) takes exactly the shapes that
    broadcast to x's without growing it, for non-empty x of rank >= 1."""
    from lrelu import _prelu
    x = np.zeros(x_shape, np.float32)
    alpha = np.zeros(alpha_shape)
    try:
        grows = np.broadcast_shapes(x_shape, alpha_shape) != x_shape
    except ValueError:
        grows = True
    want = (len(alpha_shape) <= len(x_shape) and not grows and x.ndim > 0
            and x.size > 0)
    assert _prelu.routes(x, alpha) == want
    assert not _prelu.routes(x.astype(">f4"), alpha)  # byte order
    assert not _prelu.routes(x.astype(np.int32), alpha)


def test_bad_alpha_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="broadcast"):
        lrelu.prelu(np.zeros((2, 3), np.float32), np.zeros(2, np.float32))


@needs_torch
def test_torch_prelu_gradcheck_and_state_dict():
    import torch
    import lrelu.torch as lt

    torch.manual_seed(0)
    m = lt.PReLU(num_parameters=3, init=0.25).double()
    x = torch.randn(2, 3, 4, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, w: lt.prelu(a, w),
                                    (x, m.weight))
    ref = torch.nn.PReLU(num_parameters=3, init=0.5).double()
    m.load_state_dict(ref.state_dict())
    assert torch.equal(m.weight, ref.weight)
    ref.load_state_dict(m.state_dict())
    one = lt.PReLU()  # num_parameters=1, init=0.25
    assert one.weight.shape == (1,) and float(one.weight) == 0.25


@needs_torch
def test_torch_prelu_every_path_gives_the_oracle_bits():
    """lrelu.torch.PReLU's forward pass without a graph (torch.no_grad,
    inference_mode, nothing needing a gradient: the tensors read in one C
    call) and with one (the autograd Function), for x of every dtype
    (float16/bfloat16 x with a float32 weight: converted first, as
    nn.PReLU), contiguous and transposed, with C weights and one: y is
    lrelu.prelu's on NumPy copies (checked against the oracle above), and
    a weight that does not fit x is refused on either path."""
    import torch
    import lrelu.torch as lt

    def to_numpy(t):  # the same bits, C-contiguous
        t = t.detach().contiguous()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(numpy_dtype("bfloat16"))
        return t.numpy()

    dtypes = [torch.float32, torch.float64, torch.float16]
    if HAS_ML_DTYPES and lrelu._lrelu.bfloat16_unavailable_reason is None:
        dtypes.append(torch.bfloat16)
    torch.manual_seed(3)
    for dtype in dtypes:
        wide = torch.float64 if dtype == torch.float64 else torch.float32
        for channels in (6, 1):
            module = lt.PReLU(channels).to(wide)
            with torch.no_grad():
                module.weight.copy_(torch.linspace(-2, 2, channels))
            shape = (channels, 1, 1) if channels > 1 else (1,)
            alpha = to_numpy(module.weight.to(dtype)).reshape(shape)
            base = torch.randn(2, 6, 3, 4).to(dtype)
            base[0, 0, 0, :3] = torch.tensor([-0.0, float("nan"),
                                              float("-inf")])
            for x in (base, base.transpose(2, 3)):
                want = lrelu.prelu(to_numpy(x), alpha)
                got = []
                with torch.no_grad():
                    got.append(module(x))
                with torch.inference_mode():
                    got.append(module(x))
                module.weight.requires_grad_(False)
                got.append(module(x))
                module.weight.requires_grad_(True)
                got.append(module(x.clone().requires_grad_()))
                for k, y in enumerate(got):
                    assert y.dtype == dtype and y.shape == x.shape
                    u = f"u{want.dtype.itemsize}"
                    np.testing.assert_array_equal(
                        to_numpy(y).view(u), want.view(u),
                        err_msg=f"{dtype} {channels} path {k}")
                # The backward pass: x's gradient and the weight's (dalpha
                # in x's dtype, then the weight's).
                dy = ((torch.arange(x.numel()) % 7 - 3) / 4).to(dtype)
                dy = dy.reshape(x.shape)
                xr = x.clone().requires_grad_()
                module.weight.grad = None
                module(xr).backward(dy)
                dx, dalpha = lrelu.prelu_backward(to_numpy(dy), to_numpy(x),
                                                  alpha)
                np.testing.assert_array_equal(
                    to_numpy(xr.grad).view(u), dx.view(u),
                    err_msg=f"{dtype} {channels} dx")
                dweight = torch.from_numpy(
                    np.asarray(dalpha, np.float64).reshape(-1)).to(wide)
                if dtype in (torch.float16, torch.bfloat16):
                    dweight = torch.from_numpy(np.asarray(
                        dalpha.astype(np.float32)).reshape(-1))
                assert torch.equal(module.weight.grad, dweight), (
                    dtype, channels, module.weight.grad, dweight)
    bad = lt.PReLU(5)
    for context in (torch.no_grad(), torch.enable_grad()):
        with context, pytest.raises(ValueError, match="5 parameters"):
            bad(torch.randn(2, 6, 3))


@needs_torch
def test_torch_prelu_trains_a_cnn_like_nn_prelu():
    import torch
    import lrelu.torch as lt

    def net(act_a, act_b):
        torch.manual_seed(1)
        return torch.nn.Sequential(
            torch.nn.Conv2d(1, 4, 3, padding=1), act_a,
            torch.nn.Conv2d(4, 4, 3, padding=1), act_b,
            torch.nn.Flatten(), torch.nn.Linear(4 * 8 * 8, 3))

    ours = net(lt.PReLU(4), lt.PReLU())
    theirs = net(torch.nn.PReLU(4), torch.nn.PReLU())
    theirs.load_state_dict(ours.state_dict())
    gen = torch.Generator().manual_seed(2)
    data = torch.randn(64, 1, 8, 8, generator=gen)
    labels = torch.randint(0, 3, (64,), generator=gen)
    losses = []
    for model in (ours, theirs):
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        history = []
        for _ in range(20):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(data), labels)
            loss.backward()
            opt.step()
            history.append(loss.item())
        losses.append(history)
    # Only the slope gradient's last bits differ (an exact sum against
    # PyTorch's float32 sum), so the losses agree to float32 noise.
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-4)
    assert losses[0][-1] < losses[0][0]


def test_complex_alpha_is_refused_not_truncated():
    """A complex alpha never loses its imaginary part silently: prelu
    refuses it, and leaky_relu leaves it to the ufunc, which refuses it."""
    x = -np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="complex128"):
        lrelu.prelu(x, np.array([1j, 2j, 3j]))
    with pytest.raises(TypeError, match="complex128"):
        lrelu.leaky_relu(x, np.array([1j, 2j, 3j]))


@pytest.mark.parametrize("dtype_name", ["float16", "float32", "float64"])
def test_byte_swapped_operands_give_what_native_ones_give(dtype_name, rng):
    """x, dy and alpha in the other byte order (big-endian data read from a
    file) are read as their values: y and dx in the machine's byte order,
    dalpha in alpha's dtype (not widened to float64 by the order's
    difference), every bit as for the native arrays. Before 2026-12-07 a
    swapped x or dy made lrelu.prelu refuse the y it had made itself, and
    an alpha of the other order than x came back as a float64 dalpha."""
    native = numpy_dtype(dtype_name)
    swapped = native.newbyteorder()
    shape, alpha_shape = (2, 6, 3, 4), (6, 1, 1)
    x = oracle.random_values(dtype_name, 144, rng).view(native).reshape(shape)
    dy = oracle.random_values(dtype_name, 144, rng).view(native).reshape(shape)
    alpha = oracle.random_values(dtype_name, 6, rng).view(native).reshape(
        alpha_shape)
    want_y = lrelu.prelu(x, alpha)
    want_dx, want_da = lrelu.prelu_backward(dy, x, alpha)
    bits = oracle.uint_type(dtype_name)
    for x_order, dy_order, alpha_order in [(swapped, native, native),
                                           (native, swapped, native),
                                           (native, native, swapped),
                                           (swapped, swapped, swapped)]:
        xs, dys, alphas = (x.astype(x_order), dy.astype(dy_order),
                           alpha.astype(alpha_order))
        what = f"x {xs.dtype.str} dy {dys.dtype.str} alpha {alphas.dtype.str}"
        y = lrelu.prelu(xs, alphas)
        dx, da = lrelu.prelu_backward(dys, xs, alphas)
        for got, want in [(y, want_y), (dx, want_dx), (da, want_da)]:
            assert got.dtype == native, what
            np.testing.assert_array_equal(got.view(bits), want.view(bits),
                                          err_msg=what)
        # The routed leaky_relu with an array alpha: the same bits.
        np.testing.assert_array_equal(
            lrelu.leaky_relu(xs, alphas).view(bits), want_y.view(bits),
            err_msg=what)


def test_byte_swapped_zero_dimensional_operands():
    """A 0-d byte-swapped input is read through a native copy of its own
    shape (numpy.ascontiguousarray had made it 1-d: the shapes then
    disagreed, and prelu refused or mis-shaped the call)."""
    be = np.dtype(">f4")
    x, dy, alpha = (np.array(v, be) for v in (-2.0, 3.0, 0.5))
    y = lrelu.prelu(x, alpha)
    dx, dalpha = lrelu.prelu_backward(dy, x, alpha)
    assert y.shape == dx.shape == dalpha.shape == ()
    assert (float(y), float(dx), float(dalpha)) == (-1.0, 1.5, -6.0)
    assert float(lrelu.leaky_relu_backward(dy, x, 0.5)) == 1.5


@needs_torch
@pytest.mark.parametrize("shape,channels", [
    ((), 1), ((5,), 1), ((4, 3), 3), ((4, 3), 1), ((2, 3, 4), 3),
    ((0, 3), 3), ((2, 3, 0), 3), ((3,), 3), ((2, 4, 3), 3), ((4, 3), 4)])
def test_torch_prelu_takes_the_shapes_nn_prelu_takes(shape, channels):
    """lrelu.torch.PReLU next to nn.PReLU on small and edge shapes: where
    torch computes, y, dx and the weight's gradient are the same (a 0-d x
    with one parameter included: its alpha is a scalar, as ONNX's rule
    needs; it was refused until 2026-12-07); where torch refuses (parameters
    that do not match dimension 1), lrelu refuses too."""
    import torch
    import lrelu.torch as lt

    torch.manual_seed(1)
    x = torch.randn(shape, dtype=torch.float64)
    ref = torch.nn.PReLU(num_parameters=channels, init=0.25).double()
    ours = lt.PReLU(num_parameters=channels, init=0.25).double()
    xr = x.clone().requires_grad_(True)
    try:
        yr = ref(xr)
    except RuntimeError:
        with pytest.raises(ValueError, match="parameters"):
            ours(x)
        return
    xo = x.clone().requires_grad_(True)
    yo = ours(xo)
    assert yo.shape == yr.shape and torch.equal(yo, yr)
    dy = torch.randn(yr.shape, dtype=torch.float64)
    yr.backward(dy)
    yo.backward(dy)
    assert torch.equal(xo.grad, xr.grad)
    assert ours.weight.grad.shape == ref.weight.grad.shape
    # torch sums the weight's gradient in float64 (not always exactly
    # rounded); a few terms here: equal up to its rounding.
    torch.testing.assert_close(ours.weight.grad, ref.weight.grad)


@needs_torch
@pytest.mark.parametrize("alpha", [0.5, [0.5, 1.0, 2.0],
                                   np.float32([0.5, 1.0, 2.0]),
                                   np.float64([0.5, 1.0, 2.0]),
                                   np.float16(0.5)])
def test_prelu_of_torch_tensors_takes_what_numpy_arrays_take(alpha):
    """lrelu.prelu and prelu_backward on torch tensors with a number, a
    list or a NumPy alpha (converted as for NumPy x: x's dtype kept,
    anything else as float64), as on NumPy arrays: a number or a list was
    refused for torch x ("not a NumPy array or DLPack tensor") and a NumPy
    alpha in the gradient ("pass out= for DLPack tensors other than
    torch's") until 2026-12-07. dx is a torch tensor, dalpha NumPy like
    the alpha; every bit as the NumPy call's."""
    import torch

    x = torch.linspace(-3, 2, 6, dtype=torch.float32).reshape(2, 3)
    dy = torch.linspace(1, 2, 6, dtype=torch.float32).reshape(2, 3)
    y = lrelu.prelu(x, alpha)
    assert isinstance(y, torch.Tensor)
    np.testing.assert_array_equal(y.numpy(), lrelu.prelu(x.numpy(), alpha))
    dx, dalpha = lrelu.prelu_backward(dy, x, alpha)
    want_dx, want_dalpha = lrelu.prelu_backward(dy.numpy(), x.numpy(), alpha)
    assert isinstance(dx, torch.Tensor) and isinstance(dalpha, np.ndarray)
    np.testing.assert_array_equal(dx.numpy(), want_dx)
    assert dalpha.dtype == want_dalpha.dtype
    np.testing.assert_array_equal(dalpha, want_dalpha)
    with pytest.raises(TypeError, match="complex128"):
        lrelu.prelu(x, np.array([1j, 2j, 3j]))


@needs_torch
def test_prelu_backward_writes_given_torch_outputs():
    """dx= and dalpha= given as torch tensors are written (their truth value
    was taken: 'Boolean value of Tensor with more than one value is
    ambiguous', until 2026-12-07); False skips one."""
    import torch

    x = torch.linspace(-3, 2, 6, dtype=torch.float32).reshape(2, 3)
    dy = torch.linspace(1, 2, 6, dtype=torch.float32).reshape(2, 3)
    alpha = torch.tensor([0.5, 1.0, 2.0])
    want_dx, want_dalpha = lrelu.prelu_backward(dy, x, alpha)
    dx, dalpha = torch.empty(2, 3), torch.empty(3)
    got = lrelu.prelu_backward(dy, x, alpha, dx=dx, dalpha=dalpha)
    assert got[0] is dx and got[1] is dalpha
    assert torch.equal(dx, want_dx) and torch.equal(dalpha, want_dalpha)
    only_dx = lrelu.prelu_backward(dy, x, alpha, dx=torch.empty(2, 3),
                                   dalpha=False)
    assert only_dx[1] is None and torch.equal(only_dx[0], want_dx)
