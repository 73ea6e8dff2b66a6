"""lrelu.torch.PReLU as the torch operator lrelu::prelu: TorchScript (with
save and load), torch.jit.trace (loaded in a fresh process), torch.fx, and
the gradient through each, against lrelu.prelu / prelu_backward on NumPy
copies (the oracle-checked package calls); ONNX export is in
onnx_export_check.py. Runs with the compiled and the Python kernels."""
import io

import numpy as np
import pytest

import lrelu
from lrelu_pytest_support import (check_torch_load_in_fresh_process,
                                  needs_torch)

torch = pytest.importorskip("torch")
pytestmark = needs_torch

import lrelu.torch as lrelu_torch  # noqa: E402


def network(channels=4):
    torch.manual_seed(7)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, channels, 3),
                              lrelu_torch.PReLU(channels))
    with torch.no_grad():
        net[1].weight.copy_(torch.linspace(-0.5, 1.5, channels))
    return net


def expected(net, x):
    """y and the weight's gradient of sum(y * g) by the NumPy package."""
    with torch.no_grad():
        h = net[0](x).numpy()
    alpha = net[1].weight.detach().numpy().reshape(-1, 1, 1)
    y = lrelu.prelu(h, alpha)
    g = np.cos(np.arange(y.size, dtype=np.float32)).reshape(y.shape)
    _, dalpha = lrelu.prelu_backward(g, h, alpha)
    return y, g, dalpha.reshape(-1)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32),
                                                 b.view(np.uint32))


def check_module(module, net, x, label):
    y_want, g, dalpha_want = expected(net, x)
    net.zero_grad()
    y = module(x)
    assert same_bits(y.detach().numpy(), y_want), label
    (y * torch.from_numpy(g)).sum().backward()
    assert same_bits(net[1].weight.grad.numpy(), dalpha_want), label


def test_script_records_the_operator_saves_and_loads():
    net = network()
    x = torch.randn(2, 3, 9, 9)
    scripted = torch.jit.script(net)
    assert "lrelu::prelu" in str(scripted.inlined_graph)
    check_module(scripted, net, x, "script")
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    with torch.no_grad():
        assert torch.equal(loaded(x), net(x))


def test_trace_records_the_operator_and_loads_in_a_fresh_process(tmp_path):
    net = network()
    x = torch.randn(2, 3, 9, 9)
    traced = torch.jit.trace(net, x)
    assert "lrelu::prelu" in str(traced.inlined_graph)
    other = torch.randn(3, 3, 7, 7)  # not frozen into a constant
    with torch.no_grad():
        assert torch.equal(traced(other), net(other))
    check_module(traced, net, x, "trace")
    with torch.no_grad():
        want = net(other)
    check_torch_load_in_fresh_process(traced, other, want, tmp_path)


def test_fx_symbolic_trace():
    net = network()
    graph_module = torch.fx.symbolic_trace(net)
    targets = [n.target for n in graph_module.graph.nodes
               if n.op == "call_function"]
    assert torch.ops.lrelu.prelu in targets
    check_module(graph_module, net, torch.randn(2, 3, 9, 9), "fx")


def test_operators_directly():
    net = network()
    x = torch.randn(2, 3, 9, 9)
    with torch.no_grad():
        h = net[0](x)
    weight = net[1].weight.detach()
    y_want, g, dalpha_want = expected(net, x)
    assert same_bits(torch.ops.lrelu.prelu(h, weight).numpy(), y_want)
    dx, dweight = torch.ops.lrelu.prelu_backward(torch.from_numpy(g), h,
                                                  weight)
    dx_want, _ = lrelu.prelu_backward(g, h.numpy(),
                                      weight.numpy().reshape(-1, 1, 1))
    assert same_bits(dx.numpy(), dx_want)
    assert same_bits(dweight.numpy(), dalpha_want)
    # Gradient through the operator, as autograd records it.
    hv = h.clone().requires_grad_()
    wv = weight.clone().requires_grad_()
    torch.ops.lrelu.prelu(hv, wv).mul(torch.from_numpy(g)).sum().backward()
    assert same_bits(hv.grad.numpy(), dx_want)
    assert same_bits(wv.grad.numpy(), dalpha_want)


def test_operator_refuses_a_weight_that_does_not_fit():
    with pytest.raises((ValueError, RuntimeError), match="parameters"):
        torch.ops.lrelu.prelu(torch.zeros(2, 3, 4), torch.ones(5))


def test_operator_kernels_are_registered_for_this_mode():
    assert lrelu_torch.operator_kernels in ("compiled", "python")
    assert hasattr(torch.ops.lrelu, "prelu")
    assert hasattr(torch.ops.lrelu, "prelu_backward")
