# Types of lrelu.torch (python/lrelu/torch.py).
from typing import Any, Optional

import torch

__all__ = ["LeakyReLU", "LeakyReLUFunction", "leaky_relu", "PReLU",
           "PReLUFunction", "prelu"]

# "compiled" (lrelu/_torch_ops.so's C++ kernels) or "python".
operator_kernels: str


class LeakyReLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, negative_slope: float,
                inplace: bool) -> torch.Tensor: ...
    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any: ...


def leaky_relu(x: torch.Tensor, negative_slope: float = 0.01,
               inplace: bool = False) -> torch.Tensor: ...
def leaky_relu_backward(dy: torch.Tensor, s: torch.Tensor,
                        negative_slope: float = 0.01,
                        from_output: bool = False) -> torch.Tensor: ...
def call(x: torch.Tensor, alpha: float, out: Optional[torch.Tensor] = None,
         **ufunc_kwargs: Any) -> torch.Tensor: ...
def call_out(x: torch.Tensor, alpha: float,
             out: torch.Tensor) -> torch.Tensor: ...
def call_backward(dy: torch.Tensor, s: torch.Tensor, alpha: float,
                  from_output: bool,
                  out: Optional[torch.Tensor] = None) -> torch.Tensor: ...


class LeakyReLU(torch.nn.Module):
    negative_slope: float
    inplace: bool

    def __init__(self, negative_slope: float = 0.01,
                 inplace: bool = False) -> None: ...
    def forward(self, x: torch.Tensor) -> torch.Tensor: ...
    def extra_repr(self) -> str: ...


class PReLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor,
                weight: torch.Tensor) -> torch.Tensor: ...
    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any: ...


def prelu(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor: ...


class PReLU(torch.nn.Module):
    num_parameters: int
    init: float
    weight: torch.nn.Parameter

    def __init__(self, num_parameters: int = 1, init: float = 0.25,
                 device: Any = None, dtype: Any = None) -> None: ...
    def reset_parameters(self) -> None: ...
    def forward(self, x: torch.Tensor) -> torch.Tensor: ...
    def extra_repr(self) -> str: ...
