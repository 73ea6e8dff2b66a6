"""Shared helpers of the lrelu Python package tests: which optional modules
are installed, skip markers, the alphas and dtypes every test runs.

(Not in conftest.py: `from conftest import` would be ambiguous next to the
other test folders' conftest.py files.)"""
import importlib.util

import numpy as np
import pytest

import lrelu


def has_module(name):
    return importlib.util.find_spec(name) is not None


HAS_TORCH = has_module("torch")
HAS_DASK = has_module("dask")
HAS_XARRAY = has_module("xarray")
HAS_ML_DTYPES = has_module("ml_dtypes")

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch not installed")
needs_dask = pytest.mark.skipif(not HAS_DASK, reason="dask not installed")
needs_xarray = pytest.mark.skipif(not HAS_XARRAY,
                                  reason="xarray not installed")
needs_bfloat16 = pytest.mark.skipif(
    not HAS_ML_DTYPES or lrelu._lrelu.bfloat16_unavailable_reason is not None,
    reason="ml_dtypes not installed or not usable")

# The alphas every bit test runs: the default, ordinary, zero, negative,
# greater than one, infinite, NaN, and one that float32 cannot hold exactly.
ALPHAS = (0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"),
          float("nan"), 0.1, -0.0, 1e-40, 3e38)


def numpy_dtype(dtype_name):
    """The NumPy dtype for a contract dtype name (bfloat16: ml_dtypes)."""
    if dtype_name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype_name)


def dtype_params():
    """The four dtypes as pytest params; bfloat16 needs ml_dtypes."""
    return [pytest.param(name, marks=needs_bfloat16)
            if name == "bfloat16" else name
            for name in ("float16", "bfloat16", "float32", "float64")]


def check_torch_load_in_fresh_process(traced, x, want, folder):
    """Saves a traced or scripted module, loads it in a fresh Python that
    imports lrelu.torch (which registers the operators' kernels), and checks
    that it gives `want` for `x` there."""
    import subprocess
    import sys
    import textwrap

    import torch
    model, data = folder / "traced.pt", folder / "io.pt"
    torch.jit.save(traced, str(model))
    torch.save((x, want), str(data))
    script = textwrap.dedent(f"""
        import torch
        import lrelu.torch  # registers lrelu's operators
        model = torch.jit.load({str(model)!r})
        x, want = torch.load({str(data)!r})
        with torch.no_grad():
            assert torch.equal(model(x), want)
        print("loaded")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "loaded" in run.stdout
