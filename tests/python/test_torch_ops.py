"""lrelu.torch as torch operators: lazy negation, TorchScript, tracing with
save and load, torch.fx, ONNX export run in ONNX Runtime, double backward,
version counters and in-place identity. Bits are checked against the oracle
(or against torch itself where torch and the contract agree)."""
import io
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import (check_torch_load_in_fresh_process,
                                  has_module, needs_torch)

torch = pytest.importorskip("torch")
pytestmark = needs_torch
import torch.nn.functional as F  # noqa: E402

import lrelu.torch as lrelu_torch  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16,
                "float32": torch.float32, "float64": torch.float64}
INT_OF_SIZE = {2: (torch.int16, np.int16), 4: (torch.int32, np.int32),
               8: (torch.int64, np.int64)}


def tensor_of(x_bits, dtype_name):
    signed = x_bits.view(INT_OF_SIZE[x_bits.dtype.itemsize][1])
    return torch.from_numpy(signed.copy()).view(TORCH_DTYPES[dtype_name])


def bits_of(t, dtype_name):
    as_int = t.contiguous().view(INT_OF_SIZE[t.element_size()][0])
    return as_int.numpy().view(oracle.uint_type(dtype_name))


def check(t, x_bits, alpha, dtype_name, context):
    want, any_nan = oracle.forward(x_bits, alpha, dtype_name)
    oracle.assert_bits(bits_of(t, dtype_name), want, any_nan, dtype_name,
                       context)


def sample_bits(dtype_name, n=500):
    rng = np.random.default_rng(3)
    special = oracle.special_bits(dtype_name)
    if special.size > 1000:
        special = special[::16]  # every class of 16-bit value, 4096 of them
    return np.concatenate([special,
                           oracle.random_values(dtype_name, n, rng)])


# Lazy conjugation and negation.

def test_lazy_negation_of_the_issue():
    im = torch.tensor([1 + 2j]).conj().imag
    assert im.is_neg()
    want = np.array([-2.0], np.float32).view(np.uint32)
    for y in (lrelu.leaky_relu(im, .1), lrelu_torch.leaky_relu(im, .1),
              torch.ops.lrelu.leaky_relu(im, .1)):
        check(y, want, .1, "float32", "lazy negation")
        assert torch.equal(y, F.leaky_relu(im, .1))


def test_lazy_negation_in_the_gradient_and_outputs():
    im = torch.tensor([1 + 2j, 1 - 3j]).conj().imag  # [-2, 3], lazily
    dy = torch.tensor([1 - 1j, 1 + 4j]).conj().imag  # [1, -4], lazily
    assert im.is_neg() and dy.is_neg()
    dx = lrelu.leaky_relu_backward(dy, im, 0.5)
    assert dx.tolist() == [0.5, -4.0]
    with pytest.raises(ValueError, match="lazy negation"):
        lrelu.leaky_relu(torch.ones(2), 0.5, out=im)
    with pytest.raises(ValueError, match="lazy negation"):
        lrelu_torch.leaky_relu(im, 0.5, inplace=True)


def test_complex_is_refused():
    with pytest.raises(TypeError, match="complex"):
        lrelu.leaky_relu(torch.tensor([1 + 2j]), 0.5)


# The operators: bits for every dtype, through the dispatcher.

@pytest.mark.parametrize("dtype_name", oracle.DTYPES)
@pytest.mark.parametrize("alpha", [0.01, -0.5, 0.0, 3e38])
def test_operator_bits(dtype_name, alpha):
    x_bits = sample_bits(dtype_name)
    x = tensor_of(x_bits, dtype_name)
    check(torch.ops.lrelu.leaky_relu(x, alpha), x_bits, alpha, dtype_name,
          "lrelu::leaky_relu")
    t = x.clone()
    assert torch.ops.lrelu.leaky_relu_(t, alpha) is t
    check(t, x_bits, alpha, dtype_name, "lrelu::leaky_relu_")
    dy_bits = oracle.random_bits(dtype_name, x_bits.size,
                                 np.random.default_rng(4))
    dx = torch.ops.lrelu.leaky_relu_backward(tensor_of(dy_bits, dtype_name),
                                             x, alpha, False)
    want, any_nan = oracle.backward(dy_bits, x_bits, alpha, dtype_name)
    oracle.assert_bits(bits_of(dx, dtype_name), want, any_nan, dtype_name,
                       "lrelu::leaky_relu_backward")


# TorchScript, tracing, fx.

def network(inplace=False):
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(6, 5), lrelu_torch.LeakyReLU(0.2, inplace=inplace),
        torch.nn.Linear(5, 4), lrelu_torch.LeakyReLU(-0.5))


def reference_network(net):
    """The same network with lrelu's layers evaluated by the oracle."""
    def run(x):
        for layer in net:
            if isinstance(layer, lrelu_torch.LeakyReLU):
                x_bits = bits_of(x, "float32")
                want = oracle.forward(x_bits, layer.negative_slope,
                                      "float32")[0]
                x = tensor_of(want, "float32").reshape(x.shape)
            else:
                x = layer(x)
        return x
    return run


@pytest.mark.parametrize("inplace", [False, True])
def test_script_save_load(inplace):
    net = network(inplace)
    x = torch.randn(3, 6)
    with torch.no_grad():
        want = reference_network(net)(x)
        scripted = torch.jit.script(net)
        assert "lrelu::leaky_relu" in str(scripted.inlined_graph)
        assert torch.equal(scripted(x), want)
        buffer = io.BytesIO()
        torch.jit.save(scripted, buffer)
        buffer.seek(0)
        assert torch.equal(torch.jit.load(buffer)(x), want)


def test_script_function_and_gradient():
    @torch.jit.script
    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.lrelu.leaky_relu(x, 0.25).sum()

    @torch.jit.script
    def g(x: torch.Tensor) -> torch.Tensor:
        y = lrelu_torch.leaky_relu(x, 0.25)
        return lrelu_torch.leaky_relu_backward(torch.ones_like(y), x, 0.25)

    x = torch.tensor([-2.0, 3.0, -0.0], requires_grad=True)
    f(x).backward()
    assert x.grad.tolist() == [0.25, 1.0, 1.0]
    assert "lrelu::leaky_relu_backward" in str(g.inlined_graph)
    assert g(x.detach()).tolist() == [0.25, 1.0, 1.0]


def test_trace_save_load_in_a_fresh_process(tmp_path):
    net = network()
    x = torch.randn(4, 6)
    with torch.no_grad():
        traced = torch.jit.trace(net, x)
        want = reference_network(net)(x)
    assert "lrelu::leaky_relu" in str(traced.inlined_graph)
    # Tracing must not freeze the result into a constant.
    other = torch.randn(4, 6)
    with torch.no_grad():
        assert torch.equal(traced(other), reference_network(net)(other))
        assert torch.equal(traced(x), want)
    check_torch_load_in_fresh_process(traced, x, want, tmp_path)


def test_fx_symbolic_trace():
    net = network()
    graph_module = torch.fx.symbolic_trace(net)
    targets = [n.target for n in graph_module.graph.nodes
               if n.op == "call_function"]
    assert torch.ops.lrelu.leaky_relu in targets
    x = torch.randn(2, 6)
    with torch.no_grad():
        assert torch.equal(graph_module(x), reference_network(net)(x))


def test_fx_symbolic_trace_of_lrelu_leaky_relu():
    def f(x):
        return lrelu.leaky_relu(x + 1.0, 0.3)

    graph_module = torch.fx.symbolic_trace(f)
    assert torch.ops.lrelu.leaky_relu in [n.target for n in
                                          graph_module.graph.nodes]
    x = torch.randn(6)
    assert torch.equal(graph_module(x), lrelu.leaky_relu(x + 1.0, 0.3))


def test_tracing_lrelu_leaky_relu_records_the_operator():
    def f(x):
        return lrelu.leaky_relu(x * 2.0, 0.3)

    x = torch.randn(5)
    traced = torch.jit.trace(f, x)
    other = torch.randn(5)
    assert torch.equal(traced(other), lrelu.leaky_relu(other * 2.0, 0.3))


def test_tracing_refuses_writes_it_cannot_see():
    out = torch.empty(5)

    def into_out(x):
        return lrelu.leaky_relu(x, 0.3, out=out)

    with pytest.raises(RuntimeError, match="cannot be traced"):
        torch.jit.trace(into_out, torch.randn(5))

    def gradient(x):
        return lrelu.leaky_relu_backward(torch.ones_like(x), x, 0.3)

    traced = torch.jit.trace(gradient, torch.randn(5))
    other = torch.tensor([-1.0, 2.0, -3.0, 0.0, 5.0])
    assert traced(other).tolist() == [float(np.float32(0.3)), 1.0,
                                      float(np.float32(0.3)), 1.0, 1.0]


@pytest.mark.skipif(not (has_module("onnx") and has_module("onnxruntime")),
                    reason="onnx and onnxruntime not installed")
def test_onnx_export_runs_in_onnxruntime():
    # A fresh process: onnx must be imported before torch (torch 1.13
    # registers its own copy of onnx's protobuf messages).
    run = subprocess.run(
        [sys.executable, str(HERE / "onnx_export_check.py")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(HERE)] + sys.path)})
    assert run.returncode == 0, run.stdout + run.stderr


# Double backward.

@pytest.mark.parametrize("slope", [0.01, 0.2, -0.5, 1.5, 0.0])
def test_gradgradcheck(slope):
    g = torch.Generator().manual_seed(9)
    x = torch.randn(4, 5, generator=g, dtype=torch.float64)
    x = torch.where(x.abs() < 0.1, x + 0.3, x).requires_grad_()
    assert torch.autograd.gradgradcheck(
        lambda t: lrelu_torch.leaky_relu(t, slope), (x,))
    assert torch.autograd.gradgradcheck(
        lambda t: torch.ops.lrelu.leaky_relu(t, slope), (x,))


def test_gradient_of_the_gradient_matches_torch():
    x = torch.tensor([-2.0, -0.5, 1.0, 3.0], dtype=torch.float64,
                     requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64,
                     requires_grad=True)
    grads = []
    for fn in (lrelu_torch.leaky_relu, F.leaky_relu):
        (gx,) = torch.autograd.grad((fn(x * w, 0.1) ** 2).sum(), x,
                                    create_graph=True)
        grads.append(torch.autograd.grad(gx.sum(), w))
    assert torch.equal(grads[0][0], grads[1][0])


def critic(activation):
    torch.manual_seed(1)
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16), activation, torch.nn.Linear(16, 1)).double()


def test_wgan_gp_step():
    # One gradient-penalty training step of a critic, as WGAN-GP takes it,
    # with lrelu's layer and with torch's: the same updated weights.
    real = torch.randn(32, 8, dtype=torch.float64,
                       generator=torch.Generator().manual_seed(2))
    fake = real.flip(0) * 0.5 + 0.1
    results = []
    for activation in (lrelu_torch.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2)):
        net = critic(activation)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        eps = torch.linspace(0, 1, 32, dtype=torch.float64)[:, None]
        mixed = (eps * real + (1 - eps) * fake).requires_grad_()
        (grad,) = torch.autograd.grad(net(mixed).sum(), mixed,
                                      create_graph=True)
        penalty = ((grad.norm(dim=1) - 1) ** 2).mean()
        loss = net(fake).mean() - net(real).mean() + 10 * penalty
        opt.zero_grad()
        loss.backward()
        assert net[0].weight.grad.abs().sum() > 0
        opt.step()
        results.append([p.detach().clone() for p in net.parameters()])
    for ours, theirs in zip(*results):
        assert torch.equal(ours, theirs)


# Version counters and in-place identity.

def test_out_bumps_the_version_counter():
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3)
    w = (a * b).sum()
    version = b._version
    lrelu.leaky_relu(b, .5, out=b)
    assert b._version == version + 1
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        w.backward()


def test_backward_out_bumps_the_version_counter():
    dy = torch.ones(3)
    version = dy._version
    lrelu.leaky_relu_backward(dy, -torch.ones(3), 0.5, out=dy)
    assert dy._version == version + 1 and dy.tolist() == [0.5] * 3


@pytest.mark.parametrize("grad", [False, True])
def test_inplace_is_the_same_object_and_bumps_the_version(grad):
    leaf = torch.tensor([-2.0, 3.0], requires_grad=grad)
    for call in (lambda t: lrelu_torch.leaky_relu(t, 0.5, inplace=True),
                 lambda t: torch.ops.lrelu.leaky_relu_(t, 0.5),
                 lambda t: lrelu_torch.LeakyReLU(0.5, True)(t)):
        t = leaf * 1.0
        version = t._version
        assert call(t) is t
        assert t._version > version
        assert t.tolist() == [-1.0, 3.0]
        if grad:
            t.sum().backward()
            assert leaf.grad.tolist() == [0.5, 1.0]
            leaf.grad = None


def test_inplace_on_a_tensor_saved_for_backward_is_caught():
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3)
    w = (a * b).sum()
    lrelu_torch.leaky_relu(b, 0.5, inplace=True)
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        w.backward()


def test_inference_tensor_write_refused_before_anything_is_written():
    with torch.inference_mode():
        t = torch.tensor([-2.0, 3.0])
    for write in (lambda: lrelu.leaky_relu(t, 0.5, out=t),
                  lambda: lrelu_torch.leaky_relu(t, 0.5, inplace=True)):
        with pytest.raises(RuntimeError, match="[Ii]nference"):
            write()
        assert t.tolist() == [-2.0, 3.0]
    with torch.inference_mode():
        assert lrelu_torch.leaky_relu(t, 0.5, inplace=True) is t
    assert t.tolist() == [-1.0, 3.0]
