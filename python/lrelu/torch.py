"""lrelu for PyTorch: an autograd Function and an nn.Module.

Forward and gradient run in lrelu through DLPack, on the tensors' own memory.
Differences from torch.nn.functional.leaky_relu, all from lrelu's contract
(y = x < 0 ? alpha * x : x; dx = x < 0 ? alpha * dy : dy):

* the gradient at exactly x = 0 (either sign) is dy, where torch (which
  tests x > 0) gives negative_slope * dy;
* at x = -0 with negative_slope < 0, y is -0 (passed through) where torch
  gives +0 (-0 * negative_slope);
* float16 and bfloat16 use alpha rounded to float32, not to the tensor's
  dtype.

inplace=True overwrites x with y and then takes the gradient from y, which
shows x's sign only when alpha > 0: like PyTorch, it refuses a
negative_slope <= 0 when a gradient is needed.
"""
import torch
from torch.autograd.function import once_differentiable

from . import _lrelu

__all__ = ["LeakyReLU", "LeakyReLUFunction", "leaky_relu"]


class LeakyReLUFunction(torch.autograd.Function):
    """apply(x, negative_slope, inplace) -> y."""

    @staticmethod
    def forward(ctx, x, negative_slope, inplace):
        alpha = float(negative_slope)
        ctx.alpha = alpha
        ctx.from_output = bool(inplace)
        if inplace:
            if ctx.needs_input_grad[0] and not alpha > 0:
                raise ValueError(
                    f"lrelu.torch: in-place leaky_relu with negative_slope "
                    f"{alpha} cannot be differentiated: the gradient from the "
                    f"output y needs negative_slope > 0; use inplace=False")
            _lrelu.forward(x.detach(), alpha, x.detach())
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x
        y = torch.empty_like(x)
        _lrelu.forward(x.detach(), alpha, y)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        (s,) = ctx.saved_tensors
        dy = dy.detach()
        dx = torch.empty_like(dy)
        _lrelu.backward(dy, s.detach(), ctx.alpha, ctx.from_output, dx)
        return dx, None, None


def leaky_relu(x, negative_slope=0.01, inplace=False):
    """Like torch.nn.functional.leaky_relu, computed by lrelu."""
    return LeakyReLUFunction.apply(x, negative_slope, inplace)


class LeakyReLU(torch.nn.Module):
    """Like torch.nn.LeakyReLU(negative_slope=0.01, inplace=False), computed
    by lrelu."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, x):
        return leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"
