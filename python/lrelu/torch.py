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

__all__ = ["LeakyReLU", "LeakyReLUFunction", "PReLU", "PReLUFunction",
           "leaky_relu", "prelu"]


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


# --------------------------------------------------------------------------
# PReLU: a learned slope per channel (contract ai.onnx.PRelu v1)
# --------------------------------------------------------------------------

def _alpha_view(weight, x):
    """nn.PReLU's weight (num_parameters,) as an alpha that broadcasts to x:
    [C, 1, ..., 1] over dimension 1 (the channels), or [1]."""
    if weight.numel() == 1:
        return weight.reshape(1)
    if x.dim() < 2 or x.shape[1] != weight.numel():
        raise ValueError(
            f"lrelu.torch.PReLU: {weight.numel()} parameters need an input "
            f"with that many channels in dimension 1; got shape "
            f"{tuple(x.shape)}")
    return weight.reshape((weight.numel(),) + (1,) * (x.dim() - 2))


class PReLUFunction(torch.autograd.Function):
    """apply(x, weight) -> y, weight as torch.nn.PReLU's. The weight's
    gradient is lrelu's exactly rounded dalpha."""

    @staticmethod
    def forward(ctx, x, weight):
        alpha = _alpha_view(weight.detach(), x)
        if alpha.dtype != x.dtype and alpha.dtype != torch.float64:
            alpha = alpha.to(x.dtype)
        x = x.detach().contiguous()
        y = torch.empty_like(x)
        _lrelu.prelu_forward(x, alpha.contiguous(), y)
        ctx.save_for_backward(x, weight)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        alpha = _alpha_view(weight.detach(), x)
        if alpha.dtype != x.dtype and alpha.dtype != torch.float64:
            alpha = alpha.to(x.dtype)
        alpha = alpha.contiguous()
        dy = dy.detach().contiguous()
        dx = torch.empty_like(dy) if ctx.needs_input_grad[0] else None
        dalpha = torch.empty_like(alpha) if ctx.needs_input_grad[1] else None
        if dx is not None or dalpha is not None:
            _lrelu.prelu_backward(dy, x, alpha, dx, dalpha)
        dweight = None
        if dalpha is not None:
            dweight = dalpha.reshape(weight.shape).to(weight.dtype)
        return dx, dweight


def prelu(x, weight):
    """Like torch.nn.functional.prelu, computed by lrelu."""
    return PReLUFunction.apply(x, weight)


class PReLU(torch.nn.Module):
    """Drop-in for torch.nn.PReLU(num_parameters=1, init=0.25): the same
    parameter (`weight`, shape (num_parameters,), state_dict compatible),
    computed by lrelu. Differences from nn.PReLU: LeakyReLU's (see the top
    of this module) per element, and the weight's gradient is the exact sum
    rounded once (PyTorch sums in an order that depends on threads and SIMD
    width, so its last bits vary)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = torch.nn.Parameter(
            torch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.constant_(self.weight, self.init)

    def forward(self, x):
        return prelu(x, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
