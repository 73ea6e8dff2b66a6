"""leaky_relu and prelu through __array_ufunc__: dask arrays stay lazy and
keep their chunks, xarray keeps dims, coords and name; results equal
NumPy's bit for bit."""
import numpy as np
import pytest

import lrelu
from lrelu_pytest_support import needs_dask, needs_xarray


def data(shape=(40, 30, 3, 2), dtype=np.float32):
    rng = np.random.default_rng(11)
    return (rng.standard_normal(shape) * 3).astype(dtype)


def same_bits(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    u = np.dtype(f"u{a.dtype.itemsize}")
    return np.array_equal(a.view(u), b.view(u))


@needs_dask
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_dask_keeps_chunks_and_laziness(dtype):
    import dask.array as da
    x = data(dtype=dtype)
    dx = da.from_array(x, chunks=(16, 10, 3, 1))
    assert dx.npartitions > 1
    y = lrelu.leaky_relu(dx, 0.2)
    assert isinstance(y, da.Array)
    assert y.chunks == dx.chunks and y.dtype == x.dtype
    assert same_bits(y.compute(), lrelu.leaky_relu(x, 0.2))


@needs_dask
def test_dask_with_broadcast_alpha_array():
    import dask.array as da
    x = data((12, 8), np.float64)
    alpha = np.linspace(-1, 1, 8)
    y = lrelu.leaky_relu(da.from_array(x, chunks=(5, 3)), alpha)
    assert same_bits(y.compute(), lrelu.leaky_relu(x, alpha))


@needs_dask
def test_dask_rejects_other_dtypes():
    import dask.array as da
    with pytest.raises(TypeError):
        lrelu.leaky_relu(da.arange(10, chunks=3), 0.2).compute()


@needs_xarray
def test_xarray_keeps_dims_and_coords():
    import xarray as xr
    x = data()
    # MATLAB's dlarray labels 'SSCB': two spatial dims, channel, batch.
    array = xr.DataArray(
        x, dims=("S1", "S2", "C", "B"), name="activations",
        coords={"C": ["r", "g", "b"], "B": [10, 20]})
    y = lrelu.leaky_relu(array, 0.2, threads=1)
    assert isinstance(y, xr.DataArray)
    assert y.dims == ("S1", "S2", "C", "B")
    assert list(y.coords["C"].values) == ["r", "g", "b"]
    assert list(y.coords["B"].values) == [10, 20]
    assert y.name == "activations"
    assert same_bits(y.values, lrelu.leaky_relu(x, 0.2))


@needs_xarray
@needs_dask
def test_xarray_over_dask_stays_lazy():
    import dask.array as da
    import xarray as xr
    x = data((20, 6), np.float32)
    array = xr.DataArray(da.from_array(x, chunks=(7, 3)), dims=("t", "c"))
    y = lrelu.leaky_relu(array, -0.5)
    assert isinstance(y.data, da.Array)
    assert y.chunks == array.chunks
    assert same_bits(y.values, lrelu.leaky_relu(x, -0.5))


@needs_dask
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_prelu_on_dask_stays_lazy_with_the_numpy_bits(dtype):
    """lrelu.prelu of a dask array is lazy (chunks kept) and computes
    prelu's bits on NumPy; per channel NCHW, NHWC and alpha of x's dtype."""
    import dask.array as da
    x = data((6, 3, 5, 4), dtype)
    dx = da.from_array(x, chunks=(2, 2, 5, 3))
    for alpha in (np.array([0.1, -0.5, 2.0]).reshape(3, 1, 1),
                  np.linspace(-1, 1, 4).astype(dtype)):
        y = lrelu.prelu(dx, alpha)
        assert isinstance(y, da.Array)
        assert y.chunks == dx.chunks and y.dtype == x.dtype
        assert same_bits(y.compute(), lrelu.prelu(x, alpha))


@needs_dask
def test_prelu_on_dask_refuses_an_alpha_that_does_not_broadcast():
    import dask.array as da
    dx = da.from_array(data((6, 4), np.float32), chunks=3)
    for alpha in (np.ones(3), np.ones((2, 6, 4)), np.ones((6, 1, 1))):
        with pytest.raises(ValueError, match="does not broadcast to x"):
            lrelu.prelu(dx, alpha)


@needs_xarray
def test_prelu_on_xarray_matches_an_xarray_alpha_by_dim_name():
    """An xarray alpha is matched to x's dims by name, as xarray's own
    arithmetic does, not by position: alpha of dims ("C",) on x of dims
    ("C", "T") (equal sizes, where the positions would silently pick "T")
    and of dims ("T", "C") on the same x give prelu's bits for alpha
    placed by hand; prelu_backward matches dy by name too and returns dx
    like x and dalpha like alpha. Names x lacks and coordinates that differ
    from x's are refused. Positional until 2026-12-07."""
    import xarray as xr
    x = data((4, 4), np.float32)
    coords = {"C": ["a", "b", "c", "d"]}
    xa = xr.DataArray(x, dims=("C", "T"), coords=coords)
    per_channel = np.float32([0.1, 0.2, 0.3, 0.4])
    alpha = xr.DataArray(per_channel, dims=("C",), coords=coords)
    y = lrelu.prelu(xa, alpha)
    assert y.dims == ("C", "T")
    assert same_bits(y.values, lrelu.prelu(x, per_channel.reshape(4, 1)))
    assert same_bits(y.values, xr.where(xa < 0, alpha * xa, xa).values)
    full = data((4, 4), np.float32) / 10
    swapped = xr.DataArray(full.T, dims=("T", "C"), coords=coords)
    assert same_bits(lrelu.prelu(xa, swapped).values, lrelu.prelu(x, full))

    dy = data((4, 4), np.float32)
    dya = xr.DataArray(dy.T, dims=("T", "C"))  # the other order: by name
    dx, dalpha = lrelu.prelu_backward(dya, xa, alpha)
    want_dx, want_dalpha = lrelu.prelu_backward(dy, x,
                                                per_channel.reshape(4, 1))
    assert isinstance(dx, xr.DataArray) and dx.dims == ("C", "T")
    assert same_bits(dx.values, want_dx)
    assert isinstance(dalpha, xr.DataArray) and dalpha.dims == ("C",)
    assert list(dalpha.coords["C"].values) == coords["C"]
    assert same_bits(dalpha.values, want_dalpha.reshape(4))
    _, dfull = lrelu.prelu_backward(dya, xa, swapped)
    assert dfull.dims == ("T", "C")
    assert same_bits(dfull.values, lrelu.prelu_backward(dy, x, full)[1].T)

    with pytest.raises(ValueError, match="lacks"):
        lrelu.prelu(xa, xr.DataArray(per_channel, dims=("K",)))
    with pytest.raises(ValueError, match="coordinate differs"):
        lrelu.prelu(xa, alpha.assign_coords(C=["d", "c", "b", "a"]))


@needs_xarray
def test_prelu_on_xarray_keeps_dims_and_coords():
    import xarray as xr
    x = data((5, 3, 4), np.float32)
    array = xr.DataArray(x, dims=("B", "C", "W"), name="activations",
                         coords={"C": ["r", "g", "b"]})
    alpha = np.float32([0.1, 0.2, 0.3]).reshape(3, 1)
    y = lrelu.prelu(array, alpha)
    assert isinstance(y, xr.DataArray) and y.dims == ("B", "C", "W")
    assert list(y.coords["C"].values) == ["r", "g", "b"]
    assert same_bits(y.values, lrelu.prelu(x, alpha))
