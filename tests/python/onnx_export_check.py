"""torch.onnx.export of a network with lrelu.torch.LeakyReLU, run in ONNX
Runtime: the graph has its input and LeakyRelu nodes (not a constant), and
ONNX Runtime's LeakyRelu gives lrelu's bits on float32, except that it
quiets signalling NaNs (a NaN still, with the quiet bit set). Likewise
lrelu.torch.PReLU as one PRelu node.

A script, run by test_torch_ops.py in a fresh process: onnx must be imported
before torch, which registers its own copy of onnx's protobuf messages.
Exit status 0 when every check passes.
"""
import os
import sys
import tempfile

import numpy as np
import onnx  # noqa: F401  (before torch)
import onnxruntime
import torch

import lrelu.torch
import lrelu_oracle as oracle

SLOPES = (0.01, -0.5, 0.2)


class Applied(torch.nn.Module):
    """The autograd Function called directly (a prim::PythonOp when
    traced), or lrelu.leaky_relu on a torch tensor."""

    def __init__(self, slope, how):
        super().__init__()
        self.slope = slope
        self.how = how

    def forward(self, x):
        if self.how == "function":
            return lrelu.torch.LeakyReLUFunction.apply(x, self.slope, False)
        return lrelu.leaky_relu(x, self.slope)


def models(slope):
    for inplace in (False, True):
        yield f"module-inplace-{inplace}", torch.nn.Sequential(
            torch.nn.Identity(),
            lrelu.torch.LeakyReLU(slope, inplace=inplace))
    for how in ("function", "lrelu.leaky_relu"):
        yield how, Applied(slope, how)


def main():
    x_bits = np.concatenate([
        oracle.special_bits("float32"),
        oracle.random_values("float32", 4000, np.random.default_rng(12))])
    with tempfile.TemporaryDirectory() as folder:
        for slope in SLOPES:
            for name, model in models(slope):
                path = os.path.join(folder, f"model-{slope}-{name}.onnx")
                torch.onnx.export(model, torch.randn(7), path,
                                  input_names=["x"], output_names=["y"],
                                  dynamic_axes={"x": {0: "n"}})
                graph = onnx.load(path).graph
                ops = [node.op_type for node in graph.node]
                assert ops == ["LeakyRelu"], (name, ops)
                assert [i.name for i in graph.input] == ["x"], name
                alpha = graph.node[0].attribute[0]
                assert alpha.name == "alpha"
                assert alpha.f == np.float32(slope), alpha.f
                session = onnxruntime.InferenceSession(
                    path, providers=["CPUExecutionProvider"])
                (y,) = session.run(None, {"x": x_bits.view(np.float32)})
                want, any_nan = oracle.forward(x_bits, slope, "float32")
                y_bits = y.view(np.uint32)
                # Signalling NaNs come back quieted.
                signalling = (np.isnan(x_bits.view(np.float32))
                              & (x_bits & 0x00400000 == 0))
                assert np.isnan(y[signalling]).all()
                assert (y_bits[signalling] == want[signalling] | 0x00400000).all()
                keep = ~signalling
                oracle.assert_bits(y_bits[keep], want[keep], any_nan[keep],
                                   "float32", f"onnxruntime slope={slope}")
        check_prelu(folder)
    print("onnx export checked")
    return 0


def check_prelu(folder):
    """lrelu.torch.PReLU exports as one PRelu node (its weight an
    initializer of shape [C, 1, 1]); ONNX Runtime's PRelu, one float32
    multiply, gives lrelu's bits on ordinary values."""
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Identity(), lrelu.torch.PReLU(3))
    with torch.no_grad():
        model[1].weight.copy_(torch.tensor([0.1, -0.7, 1.3]))
    path = os.path.join(folder, "prelu.onnx")
    x = torch.randn(2, 3, 4, 5)
    torch.onnx.export(model, x, path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "n"}})
    graph = onnx.load(path).graph
    ops = [node.op_type for node in graph.node]
    assert ops == ["PRelu"], ops
    session = onnxruntime.InferenceSession(
        path, providers=["CPUExecutionProvider"])
    values = oracle.random_values("float32", 5 * 3 * 4 * 5,
                                  np.random.default_rng(13))
    x = values.view(np.float32).reshape(5, 3, 4, 5)
    (y,) = session.run(None, {"x": x})
    want = lrelu.prelu(x, np.float32([0.1, -0.7, 1.3]).reshape(3, 1, 1))
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))
    with torch.no_grad():
        assert np.array_equal(model(torch.from_numpy(x)).numpy().view(
            np.uint32), want.view(np.uint32))


if __name__ == "__main__":
    sys.exit(main())
