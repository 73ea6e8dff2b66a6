"""Everyday use of lrelu, type-checked with `mypy --strict` (ctest
python_mypy) against the package's stubs; also run as a script by the same
test's sibling (python_typing_sample), so that what it asserts is true."""
import numpy as np
import numpy.typing as npt
import torch

import lrelu
import lrelu.torch


def activations(x: npt.NDArray[np.float32], alpha: float) -> \
        npt.NDArray[np.float32]:
    y = lrelu.leaky_relu(x, alpha)
    out = np.empty_like(x)
    lrelu.leaky_relu(x, alpha, out=out, threads=1)
    assert out.tobytes() == y.tobytes()
    return y


def gradient(dy: npt.NDArray[np.float64],
             x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return lrelu.leaky_relu_backward(dy, x, 0.2)


def torch_layer(x: torch.Tensor) -> torch.Tensor:
    layer = lrelu.torch.LeakyReLU(0.1)
    y: torch.Tensor = layer(x)
    z = lrelu.torch.leaky_relu(x, 0.1, inplace=False)
    w: torch.Tensor = lrelu.leaky_relu(x, 0.1)
    assert torch.equal(y, z) and torch.equal(z, w)
    kernels: str = lrelu.torch.operator_kernels
    assert kernels in ("compiled", "python")
    return lrelu.torch.leaky_relu_backward(torch.ones_like(x), x, 0.1)


def torch_prelu(x: torch.Tensor) -> torch.Tensor:
    layer = lrelu.torch.PReLU(num_parameters=1, init=0.25)
    weight: torch.nn.Parameter = layer.weight
    y: torch.Tensor = layer(x)
    assert torch.equal(y, lrelu.torch.prelu(x, weight))
    return y


def main() -> None:
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    y = activations(x, 0.5)
    assert y.dtype == np.float32 and y[0] == np.float32(-0.5)
    dx = gradient(np.ones(3), np.array([-1.0, 0.0, 1.0]))
    assert dx.tolist() == [0.2, 1.0, 1.0]
    lrelu.set_threads(0)
    threads: int = lrelu.get_threads()
    targets: list[str] = lrelu.cpu_targets()
    version: str = lrelu.__version__
    assert threads == 0 and targets and version
    assert isinstance(lrelu.ufunc, np.ufunc)
    g = torch_layer(torch.tensor([-2.0, 3.0]))
    assert g.tolist() == [float(np.float32(0.1)), 1.0]
    with torch.no_grad():
        p = torch_prelu(torch.tensor([-2.0, 3.0]))
    assert p.tolist() == [-0.5, 3.0]
    print("typing sample ok")


if __name__ == "__main__":
    main()
