# Types of the lrelu package's public entry points (python/lrelu/*.py).
# lrelu.torch has its own stub, torch.pyi.
from typing import Any, Optional, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

from . import _lrelu

__version__: str
contract_version: int
DEFAULT_ALPHA: float
ufunc: np.ufunc

_ScalarT = TypeVar("_ScalarT", bound=np.generic)


class _DLPackTensor(Protocol):
    """A DLPack producer such as a torch tensor (torch in, torch out)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> Any: ...


_TensorT = TypeVar("_TensorT", bound=_DLPackTensor)


# DLPack tensors (torch; a NumPy array is one too, with the same answer): one
# scalar alpha, out= only; a tensor back.
@overload
def leaky_relu(x: _TensorT, alpha: float = ..., *,
               threads: Optional[int] = ...,
               out: Optional[_TensorT] = ...) -> _TensorT: ...
# NumPy arrays: the result has x's dtype (a NumPy scalar for 0-d x, as any
# ufunc gives). ufunc_kwargs: out=, where=, casting=, dtype=, ...
@overload
def leaky_relu(x: npt.NDArray[_ScalarT], alpha: npt.ArrayLike = ..., *,
               threads: Optional[int] = ...,
               **ufunc_kwargs: Any) -> npt.NDArray[_ScalarT]: ...
# Anything else NumPy takes (lists, scalars) or with __array_ufunc__ (dask,
# xarray: the result keeps their type).
@overload
def leaky_relu(x: Any, alpha: npt.ArrayLike = ..., *,
               threads: Optional[int] = ..., **ufunc_kwargs: Any) -> Any: ...


@overload
def leaky_relu_backward(dy: _TensorT, x: _TensorT, alpha: float = ..., *,
                        from_output: bool = ...,
                        threads: Optional[int] = ...,
                        out: Optional[_TensorT] = ...) -> _TensorT: ...
@overload
def leaky_relu_backward(dy: npt.NDArray[_ScalarT], x: npt.ArrayLike,
                        alpha: float = ..., *, from_output: bool = ...,
                        threads: Optional[int] = ...,
                        out: Optional[npt.NDArray[_ScalarT]] = ...
                        ) -> npt.NDArray[_ScalarT]: ...
@overload
def leaky_relu_backward(dy: npt.ArrayLike, x: npt.ArrayLike,
                        alpha: float = ..., *, from_output: bool = ...,
                        threads: Optional[int] = ...,
                        out: Any = ...) -> Any: ...


def cpu_targets() -> list[str]: ...
def get_threads() -> int: ...
def set_threads(threads: int) -> None: ...
