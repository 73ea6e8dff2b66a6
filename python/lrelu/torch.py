"""lrelu for PyTorch: torch operators, an autograd Function and an nn.Module.

Importing this module registers two operators (and the in-place form of the
first), CPU kernels plus autograd kernels: compiled ones from
lrelu/_torch_ops.so where lrelu was built against the libtorch this process
runs (operator_kernels == "compiled"; a source build with libtorch's
headers, e.g. Debian's libtorch-dev), else Python kernels registered with
torch.library (operator_kernels == "python"):

* ``torch.ops.lrelu.leaky_relu(x, negative_slope=0.01)`` and
  ``torch.ops.lrelu.leaky_relu_(x, negative_slope=0.01)`` (in place);
* ``torch.ops.lrelu.leaky_relu_backward(dy, s, negative_slope, from_output)``
  (s is x, or y when from_output), itself differentiable, so double backward
  works (gradgradcheck, gradient penalties);
* ``torch.ops.lrelu.prelu(x, weight)`` and
  ``torch.ops.lrelu.prelu_backward(dy, x, weight) -> (dx, dweight)``
  (nn.PReLU's weight; the second differentiable once), whose kernels are
  Python ones in both modes;

so that torch.jit.script, torch.jit.trace (and save/load, in a process that
imports lrelu.torch), torch.fx and torch.onnx.export (a LeakyRelu or PRelu
node) see one operator. With the compiled operators, eager calls go straight
to them (the shortest path); with the Python ones, eager calls skip the
dispatcher where nothing needs it and hand the tensors' addresses, shapes
and strides to the library.

Differences from torch.nn.functional.leaky_relu, all from lrelu's contract
(y = x < 0 ? alpha * x : x; dx = x < 0 ? alpha * dy : dy): docs/python.md.

inplace=True overwrites x with y. Its gradient comes from y for
negative_slope > 0; for negative_slope == 0 lrelu keeps a copy of x (y no
longer shows where x < 0); a negative slope is refused when a gradient is
needed, as torch does.
"""
import ctypes
import os

import torch
from torch.onnx import symbolic_helper, symbolic_opset9
from torch.autograd.function import once_differentiable

from . import _api, _lrelu

__all__ = ["LeakyReLU", "LeakyReLUFunction", "PReLU", "PReLUFunction",
           "leaky_relu", "prelu"]

# Looked up once: these run on every small call.
_forward_raw = _lrelu.forward_raw
_forward_torch = _lrelu.forward_torch
_empty_like = torch.empty_like
_tracing_state = torch._C._get_tracing_state
_grad_enabled = torch.is_grad_enabled

_DTYPES = {
    torch.float32: _lrelu.DTYPE_FLOAT32,
    torch.float16: _lrelu.DTYPE_FLOAT16,
    torch.bfloat16: _lrelu.DTYPE_BFLOAT16,
    torch.float64: _lrelu.DTYPE_FLOAT64,
}


_lrelu.set_torch(torch.float32, torch.float16, torch.bfloat16, torch.float64,
                 _tracing_state, _grad_enabled)


def _dtype_code(t, name):
    code = _DTYPES.get(t.dtype)
    if code is None:
        raise TypeError(
            f"lrelu: {name} has dtype {t.dtype}; lrelu computes float16, "
            f"bfloat16, float32 and float64 only (contract v1)")
    if not t.is_cpu:
        raise ValueError(f"lrelu: {name} lives on {t.device}; the lrelu "
                         f"Python package computes on the CPU only")
    return code


def _readable(t):
    # A lazy negation (e.g. the imaginary part of a conjugate view) is a
    # flag, not in memory: materialise it rather than read the wrong sign.
    return t.resolve_neg() if t.is_neg() else t


def _check_writable(t, name):
    # Checked before writing, so that a refusal loses nothing.
    if t.is_inference() and not torch.is_inference_mode_enabled():
        raise RuntimeError(
            f"lrelu: {name} is an inference tensor: torch allows in-place "
            f"updates to it only in InferenceMode")
    if t.is_neg() or t.is_conj():
        raise ValueError(
            f"lrelu: {name} carries torch's lazy negation or conjugation "
            f"bit; writing its memory would not give the values asked for: "
            f"pass a tensor without it (t.resolve_neg())")


def _write(x, alpha, y, name, bump):
    """y = leaky_relu(x) into the existing y (may be x: in place); with bump,
    y's version counter goes up once, as torch's own in-place ops do.

    Checked before anything is written: x's and y's dtype and device, y's
    shape and lazy negation (the conjugate bit exists on complex tensors
    only, which the dtype check refuses)."""
    dtype = x.dtype
    code = _DTYPES.get(dtype) if x.is_cpu else None
    if code is None:
        code = _dtype_code(x, "x")  # raises
    shape = x.shape
    if y is not x:
        if y.dtype is not dtype:
            raise TypeError(f"lrelu: y has dtype {y.dtype} but x has "
                            f"{x.dtype} (LRELU_STATUS_DTYPE_MISMATCH)")
        if not y.is_cpu:
            _dtype_code(y, name)  # raises
        if y.shape != shape:
            raise ValueError(
                f"lrelu: y has shape {tuple(y.shape)} but x has "
                f"{tuple(x.shape)} (LRELU_STATUS_SHAPE_MISMATCH)")
        if y.is_neg():
            _check_writable(y, name)  # raises
        if x.is_neg():
            x = x.resolve_neg()
    elif x.is_neg():
        _check_writable(y, name)  # raises
    if bump:
        # copy_ of a tensor onto itself moves no data (ATen returns at once
        # for the same tensor) but is an in-place op: the dispatcher bumps
        # the version counter, and refuses an inference tensor outside
        # InferenceMode with torch's own error, before lrelu writes. torch
        # 1.13 has no public call that bumps it alone; this is its cheapest
        # in-place op (the lrelu::leaky_relu_ operator would not do: the
        # ADInplaceOrView key falls through for Python-registered ops).
        y.copy_(y)
    _forward_raw(x.data_ptr(), y.data_ptr(), code, shape, x.stride(),
                 y.stride(), alpha)


def _bump_version(t):
    # What torch's own in-place ops do, so that autograd notices the write
    # (see _write).
    t.copy_(t)


def _forward_into(x, alpha, y, y_checked=False):
    """y = leaky_relu(x) into the existing y (may be x: in place)."""
    if y_checked:  # a y fresh from empty_like(x)
        code = _DTYPES.get(x.dtype) if x.is_cpu else None
        if code is None:
            code = _dtype_code(x, "x")  # raises
        if x.is_neg():
            x = x.resolve_neg()
        _forward_raw(x.data_ptr(), y.data_ptr(), code, x.shape, x.stride(),
                     y.stride(), alpha)
    else:
        _write(x, alpha, y, "y", False)


def _backward_into(dy, s, alpha, from_output, dx):
    code = _dtype_code(dy, "dy")
    for t, name in ((s, "y" if from_output else "x"), (dx, "dx")):
        _dtype_code(t, name)
        if t.dtype != dy.dtype:
            raise TypeError(f"lrelu: {name} has dtype {t.dtype} but dy has "
                            f"{dy.dtype} (LRELU_STATUS_DTYPE_MISMATCH)")
    if s.shape != dy.shape or dx.shape != dy.shape:
        raise ValueError(
            f"lrelu: dy has shape {tuple(dy.shape)}, s {tuple(s.shape)}, dx "
            f"{tuple(dx.shape)}: they must be equal "
            f"(LRELU_STATUS_SHAPE_MISMATCH)")
    dy = _readable(dy)
    s = _readable(s)
    _lrelu.backward_raw(dy.data_ptr(), s.data_ptr(), dx.data_ptr(), code,
                        dy.shape, dy.stride(), s.stride(), dx.stride(),
                        alpha, from_output)


# The CPU kernels.

def _forward_kernel(x, negative_slope=0.01):
    y = _empty_like(x)
    _forward_into(x, float(negative_slope), y, y_checked=True)
    return y


def _forward_inplace_kernel(x, negative_slope=0.01):
    _check_writable(x, "x")
    _forward_into(x, float(negative_slope), x)
    return x


def _backward_kernel(dy, s, negative_slope, from_output):
    dx = torch.empty_like(dy)
    _backward_into(dy, s, float(negative_slope), bool(from_output), dx)
    return dx


# Autograd.

def _check_inplace_slope(alpha):
    # torch's rule: the gradient of in-place leaky_relu needs slope >= 0.
    if not alpha >= 0:
        raise ValueError(
            f"lrelu.torch: in-place leaky_relu with negative_slope {alpha} "
            f"cannot be differentiated: y no longer shows where x < 0; use "
            f"inplace=False")


class LeakyReLUFunction(torch.autograd.Function):
    """apply(x, negative_slope, inplace) -> y; differentiable twice."""

    @staticmethod
    def forward(ctx, x, negative_slope, inplace):
        alpha = float(negative_slope)
        ctx.alpha = alpha
        if not inplace:
            ctx.from_output = False
            ctx.save_for_backward(x)
            return _forward_kernel(x, alpha)
        if ctx.needs_input_grad[0]:
            _check_inplace_slope(alpha)
        # From y when alpha > 0; at alpha == 0, y = -0 hides whether x was
        # -0 (gradient dy) or negative (gradient 0): keep x.
        ctx.from_output = alpha > 0
        saved = x if ctx.from_output else x.clone()
        _forward_inplace_kernel(x, alpha)
        ctx.mark_dirty(x)
        ctx.save_for_backward(saved)
        return x

    @staticmethod
    def backward(ctx, dy):
        (s,) = ctx.saved_tensors
        return _backward(dy, s, ctx.alpha, ctx.from_output), None, None

    @staticmethod
    def symbolic(g, x, negative_slope, inplace):
        # ONNX export of a traced apply() (a prim::PythonOp node).
        return g.op("LeakyRelu", x, alpha_f=float(negative_slope))


class _BackwardFunction(torch.autograd.Function):
    """apply(dy, s, negative_slope, from_output) -> dx. Linear in dy with
    the same mask; zero derivative in s (almost everywhere)."""

    @staticmethod
    def forward(ctx, dy, s, negative_slope, from_output):
        ctx.alpha = float(negative_slope)
        ctx.from_output = bool(from_output)
        ctx.save_for_backward(s)
        return _backward_kernel(dy, s, ctx.alpha, ctx.from_output)

    @staticmethod
    def backward(ctx, ddx):
        (s,) = ctx.saved_tensors
        return _backward(ddx, s, ctx.alpha, ctx.from_output), None, None, None


def _needs_grad(*tensors):
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def _backward(dy, s, alpha, from_output):
    if _needs_grad(dy, s):
        return _BackwardFunction.apply(dy, s, alpha, from_output)
    return _backward_kernel(dy, s, alpha, from_output)


def _forward_autograd(x, negative_slope=0.01):
    # What torch.ops.lrelu.leaky_relu runs first: the common case (no
    # gradient) inline, one Python frame.
    if x.requires_grad and _grad_enabled():
        return LeakyReLUFunction.apply(x, negative_slope, False)
    y = _empty_like(x)
    if not _forward_torch(x, y, negative_slope, False, True):
        _forward_into(x, float(negative_slope), y, y_checked=True)
    return y


def _forward_inplace_autograd(x, negative_slope=0.01):
    if x.requires_grad and _grad_enabled():
        return LeakyReLUFunction.apply(x, negative_slope, True)
    alpha = float(negative_slope)
    if not _forward_torch(x, x, alpha, True):
        _write(x, alpha, x, "x", True)
    return x


# The operators: compiled (lrelu/_torch_ops.so) where lrelu was built
# against this process's libtorch, else the Python kernels above.

def _load_compiled_operators():
    """Loads lrelu/_torch_ops.so and hands it the extension's kernel table;
    False (nothing loaded) unless the library was built against the very
    libtorch_cpu this process has mapped: a libtorch is one exact C++ ABI,
    and loading the library beside another torch would load a second
    libtorch. LRELU_TORCH_OPS=0 in the environment keeps the Python
    kernels."""
    here = os.path.dirname(os.path.abspath(__file__))
    library = os.path.join(here, "_torch_ops.so")
    if os.environ.get("LRELU_TORCH_OPS") == "0" or not os.path.exists(
            library):
        return False
    try:
        with open(os.path.join(here, "_torch_ops.libtorch")) as f:
            built_against = f.read().strip()
        with open("/proc/self/maps") as f:
            mapped = {fields[5].rstrip("\n") for fields in
                      (line.split(None, 5) for line in f)
                      if len(fields) == 6}
    except OSError:
        return False
    if built_against not in mapped:
        return False
    attach = ctypes.CDLL(library).lrelu_torch_ops_attach
    attach.argtypes = [ctypes.c_void_p]
    attach.restype = ctypes.c_int
    if attach(_lrelu.torch_kernels()) != 0:
        raise ImportError(f"lrelu.torch: {library} does not match the "
                          f"extension lrelu._lrelu (rebuild the package)")
    return True


#: "compiled" when torch.ops.lrelu runs lrelu/_torch_ops.so's C++ kernels,
#: "python" when it runs the Python kernels of this module.
operator_kernels = "compiled" if _load_compiled_operators() else "python"
_compiled = operator_kernels == "compiled"

if not _compiled:
    _LIBRARY = torch.library.Library("lrelu", "DEF")
    _LIBRARY.define(
        "leaky_relu(Tensor x, float negative_slope=0.01) -> Tensor")
    _LIBRARY.define(
        "leaky_relu_(Tensor(a!) x, float negative_slope=0.01) -> Tensor(a!)")
    _LIBRARY.define("leaky_relu_backward(Tensor dy, Tensor s, float "
                    "negative_slope, bool from_output) -> Tensor")
    _LIBRARY.impl("leaky_relu", _forward_kernel, "CPU")
    _LIBRARY.impl("leaky_relu_", _forward_inplace_kernel, "CPU")
    _LIBRARY.impl("leaky_relu_backward", _backward_kernel, "CPU")
    _LIBRARY.impl("leaky_relu", _forward_autograd, "Autograd")
    _LIBRARY.impl("leaky_relu_", _forward_inplace_autograd, "Autograd")
    _LIBRARY.impl("leaky_relu_backward", _backward, "Autograd")
_op_forward = torch.ops.lrelu.leaky_relu
_op_forward_inplace = torch.ops.lrelu.leaky_relu_
if _compiled:
    # lrelu.leaky_relu(x, out=y) (no Python kernel stands in for it).
    _op_forward_out = torch.ops.lrelu.leaky_relu.out


def _onnx_leaky_relu(g, x, negative_slope):
    slope = symbolic_helper._maybe_get_const(negative_slope, "f")
    return g.op("LeakyRelu", x, alpha_f=slope)


for _name in ("lrelu::leaky_relu", "lrelu::leaky_relu_"):
    torch.onnx.register_custom_op_symbolic(_name, _onnx_leaky_relu, 9)


def _eager(x):
    """x is a plain tensor in eager mode: no tracer, no fx proxy, no tensor
    subclass that would want to see the operator."""
    return type(x) is torch.Tensor and _tracing_state() is None


def leaky_relu(x: torch.Tensor, negative_slope: float = 0.01,
               inplace: bool = False) -> torch.Tensor:
    """Like torch.nn.functional.leaky_relu, computed by lrelu; scriptable
    (torch.jit.script compiles the operator calls only)."""
    if torch.jit.is_scripting():
        if inplace:
            return torch.ops.lrelu.leaky_relu_(x, negative_slope)
        return torch.ops.lrelu.leaky_relu(x, negative_slope)
    else:
        if _compiled or type(x) is not torch.Tensor or \
                _tracing_state() is not None:
            # The compiled operator is the shortest path in eager mode too:
            # its C++ kernels check, bump versions and record autograd.
            if inplace:
                return _op_forward_inplace(x, float(negative_slope))
            return _op_forward(x, float(negative_slope))
        if inplace:
            return _forward_inplace_autograd(x, negative_slope)
        if x.requires_grad and _grad_enabled():
            return LeakyReLUFunction.apply(x, negative_slope, False)
        alpha = float(negative_slope)
        y = _empty_like(x)
        if not _forward_torch(x, y, alpha, False, True):
            _forward_into(x, alpha, y, y_checked=True)
        return y


def _eager_leaky_relu(x, alpha):
    """lrelu.leaky_relu(x, alpha) for x of type torch.Tensor and a float
    alpha: leaky_relu's eager path without its checks for scripting and
    subclasses."""
    if _compiled:
        return _op_forward(x, alpha)
    if _tracing_state() is not None or (x.requires_grad and _grad_enabled()):
        return leaky_relu(x, alpha)
    y = _empty_like(x)
    if not _forward_torch(x, y, alpha, False, True):
        _forward_into(x, alpha, y, y_checked=True)
    return y


def leaky_relu_backward(dy: torch.Tensor, s: torch.Tensor,
                        negative_slope: float = 0.01,
                        from_output: bool = False) -> torch.Tensor:
    """dx = s < 0 ? negative_slope * dy : dy (s is x, or y if from_output),
    differentiable in dy; scriptable."""
    if torch.jit.is_scripting():
        return torch.ops.lrelu.leaky_relu_backward(dy, s, negative_slope,
                                                   from_output)
    else:
        if _compiled or not (_eager(dy) and _eager(s)):
            return torch.ops.lrelu.leaky_relu_backward(
                dy, s, float(negative_slope), bool(from_output))
        return _backward(dy, s, float(negative_slope), bool(from_output))


def _refuse_tracing(what):
    # A write the tracer cannot see would be replayed as a constant.
    if torch._C._get_tracing_state() is not None:
        raise RuntimeError(
            f"lrelu: {what}(out=...) cannot be traced; use the result of "
            f"lrelu.torch.{what}(...) instead")


def call(x, alpha, out=None, **ufunc_kwargs):
    """lrelu.leaky_relu(x, alpha, out=...) for a torch tensor x."""
    if ufunc_kwargs:
        raise TypeError(
            f"lrelu.leaky_relu: {', '.join(sorted(ufunc_kwargs))} work only "
            f"for NumPy arrays and __array_ufunc__ types; DLPack tensors take "
            f"out= only")
    if out is None:
        return leaky_relu(x, alpha)
    return call_out(x, float(alpha), out)


def call_out(x, alpha, out):
    """lrelu.leaky_relu(x, alpha, out=out): x a torch tensor, alpha a
    float."""
    if _tracing_state() is not None:
        _refuse_tracing("leaky_relu")
    if _compiled:
        return _op_forward_out(x, alpha, out=out)
    if (x.requires_grad or out.requires_grad) and _grad_enabled():
        raise RuntimeError(
            "lrelu.leaky_relu(out=...) does not support automatic "
            "differentiation; use lrelu.torch.leaky_relu or detach first")
    # The common case in one C call (no lazy negation, rank <= 8, ...);
    # _write does the same with every check and message.
    if not _forward_torch(x, out, alpha, True):
        _write(x, alpha, out, "out", True)
    return out


def call_backward(dy, s, alpha, from_output, out=None):
    """lrelu.leaky_relu_backward for torch tensors."""
    if not isinstance(s, torch.Tensor):
        raise TypeError(f"lrelu: dy is a torch tensor but "
                        f"{'y' if from_output else 'x'} is a "
                        f"{type(s).__name__}")
    if out is None:
        if torch._C._get_tracing_state() is not None:
            return torch.ops.lrelu.leaky_relu_backward(dy, s, alpha,
                                                       from_output)
        return _backward_kernel(dy.detach(), s.detach(), alpha, from_output)
    _refuse_tracing("leaky_relu_backward")
    if torch.is_grad_enabled() and any(
            t.requires_grad for t in (dy, s, out)):
        raise RuntimeError(
            "lrelu.leaky_relu_backward(out=...) does not support automatic "
            "differentiation; detach first")
    _check_writable(out, "out")
    _backward_into(dy, s, float(alpha), bool(from_output), out)
    _bump_version(out)
    return out


_api._torch_call.tensor_type = torch.Tensor
_api._torch_call.function = call
_api._torch_call.out = call_out
_api._torch_call.leaky_relu = _eager_leaky_relu


class LeakyReLU(torch.nn.Module):
    """Like torch.nn.LeakyReLU(negative_slope=0.01, inplace=False), computed
    by lrelu; scriptable and traceable."""

    negative_slope: float
    inplace: bool

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = float(negative_slope)
        self.inplace = bool(inplace)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


# --------------------------------------------------------------------------
# PReLU: a learned slope per channel (contract ai.onnx.PRelu v1)
# --------------------------------------------------------------------------

def _alpha_view(weight, x):
    """nn.PReLU's weight (num_parameters,) as an alpha that broadcasts to x:
    [C, 1, ..., 1] over dimension 1 (the channels), or [1] (a scalar for a
    0-d x, which nn.PReLU takes too)."""
    if weight.numel() == 1:
        return weight.reshape(1 if x.dim() > 0 else ())
    if x.dim() < 2 or x.shape[1] != weight.numel():
        raise ValueError(
            f"lrelu.torch.PReLU: {weight.numel()} parameters need an input "
            f"with that many channels in dimension 1; got shape "
            f"{tuple(x.shape)}")
    return weight.reshape((weight.numel(),) + (1,) * (x.dim() - 2))


def _prelu_forward(x, weight):
    """(x as computed from, y): PReLU's forward pass for nn.PReLU's weight,
    the tensors read in one C call (prelu_forward_weight), or, where that
    declines (another weight dtype, a weight that does not fit x, tensors
    that are not plain CPU ones), the weight viewed, converted and checked
    here and the tensors passed through DLPack."""
    y = _empty_like(x)
    if _lrelu.prelu_forward_weight(x, weight, y):
        return x, y
    alpha = _alpha_view(weight.detach(), x)
    if alpha.dtype != x.dtype and alpha.dtype != torch.float64:
        alpha = alpha.to(x.dtype)
    x = x.detach().contiguous()
    _lrelu.prelu_forward(x, alpha.contiguous(), y)  # y: any strides
    return x, y


class PReLUFunction(torch.autograd.Function):
    """apply(x, weight) -> y, weight as torch.nn.PReLU's. The weight's
    gradient is lrelu's exactly rounded dalpha."""

    @staticmethod
    def forward(ctx, x, weight):
        x, y = _prelu_forward(x, weight)
        ctx.save_for_backward(x, weight)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        return _prelu_gradients(dy, x, weight, ctx.needs_input_grad[0],
                                ctx.needs_input_grad[1])


def _prelu_gradients(dy, x, weight, want_dx, want_dweight):
    """(dx or None, dweight or None): dx = x < 0 ? weight * dy : dy and the
    weight's gradient, lrelu's exactly rounded dalpha, in the weight's
    shape and dtype; one C call for both where the tensors allow it."""
    dx = _empty_like(x) if want_dx else None
    dweight = _empty_like(weight) if want_dweight else None
    if (dx is None and dweight is None) or _lrelu.prelu_backward_weight(
            dy, x, weight, dx, dweight):
        return dx, dweight
    # The checked path (as _prelu_forward's); dx as above.
    alpha = _alpha_view(weight.detach(), x)
    if alpha.dtype != x.dtype and alpha.dtype != torch.float64:
        alpha = alpha.to(x.dtype)
    alpha = alpha.contiguous()
    dy = dy.detach().contiguous()
    x = x.detach().contiguous()
    dalpha = torch.empty_like(alpha) if want_dweight else None
    if dx is not None or dalpha is not None:
        _lrelu.prelu_backward(dy, x, alpha, dx, dalpha)
    dweight = None
    if dalpha is not None:
        dweight = dalpha.reshape(weight.shape).to(weight.dtype)
    return dx, dweight


# The operators lrelu::prelu and lrelu::prelu_backward (torch.ops.lrelu),
# so that TorchScript, torch.jit.trace, torch.fx and torch.onnx.export see
# one operator rather than a Python function. Their kernels are these
# Python ones in both modes (the compiled library defines the schemas).

def _prelu_kernel(x, weight):
    return _prelu_forward(x, weight)[1]


def _prelu_backward_kernel(dy, x, weight):
    return _prelu_gradients(dy, x, weight, True, True)


def _prelu_autograd(x, weight):
    if _grad_enabled() and (x.requires_grad or weight.requires_grad):
        return PReLUFunction.apply(x, weight)
    return _prelu_kernel(x, weight)


def _prelu_backward_autograd(dy, x, weight):
    # Differentiable once, as PReLUFunction: the gradients carry no graph.
    with torch.no_grad():
        return _prelu_backward_kernel(dy, x, weight)


if _compiled:
    _PRELU_LIBRARY = torch.library.Library("lrelu", "IMPL")
else:
    _PRELU_LIBRARY = _LIBRARY
    _PRELU_LIBRARY.define("prelu(Tensor x, Tensor weight) -> Tensor")
    _PRELU_LIBRARY.define("prelu_backward(Tensor dy, Tensor x, Tensor weight) "
                          "-> (Tensor, Tensor)")
_PRELU_LIBRARY.impl("prelu", _prelu_kernel, "CPU")
_PRELU_LIBRARY.impl("prelu_backward", _prelu_backward_kernel, "CPU")
_PRELU_LIBRARY.impl("prelu", _prelu_autograd, "Autograd")
_PRELU_LIBRARY.impl("prelu_backward", _prelu_backward_autograd, "Autograd")


def _onnx_prelu(g, x, weight):
    # ONNX's PRelu with the weight unsqueezed to [C, 1, ...], as torch
    # exports its own prelu.
    return symbolic_opset9.prelu(g, x, weight)


torch.onnx.register_custom_op_symbolic("lrelu::prelu", _onnx_prelu, 9)


def prelu(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Like torch.nn.functional.prelu, computed by lrelu; scriptable,
    traceable (the operator lrelu::prelu) and exportable to ONNX (PRelu)."""
    if torch.jit.is_scripting():
        return torch.ops.lrelu.prelu(x, weight)
    else:
        if type(x) is not torch.Tensor or _tracing_state() is not None:
            # fx proxies, tensor subclasses and tracers see the operator.
            return torch.ops.lrelu.prelu(x, weight)
        if not _grad_enabled() or not (x.requires_grad
                                       or weight.requires_grad):
            # No graph to record (inference, torch.no_grad): the forward
            # pass alone; autograd.Function's bookkeeping took ~2/3 of a
            # small call.
            return _prelu_forward(x, weight)[1]
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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return prelu(x, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
