"""lrelu.leaky_relu (and lrelu.prelu) on dask arrays under dask's threaded
scheduler, its process pool, and a dask.distributed LocalCluster of worker
processes: the graph (which holds lrelu.ufunc) pickles, chunks are kept,
results are the oracle's bits. The cluster is small (2 workers, 1 thread
each) and every wait is bounded."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import has_module, needs_dask

pytestmark = needs_dask
da = pytest.importorskip("dask.array")
import dask  # noqa: E402

ALPHA = -0.3


def lazy_input(dtype):
    bits = oracle.random_values(np.dtype(dtype).name, 40 * 30,
                                np.random.default_rng(21))
    x = bits.view(dtype).reshape(40, 30)
    return x, da.from_array(x, chunks=(16, 7))


def check(y, x, dx):
    assert isinstance(y, da.Array)
    assert y.chunks == dx.chunks and y.dtype == x.dtype
    return y


def assert_oracle_bits(computed, x, alpha):
    name = x.dtype.name
    want, any_nan = oracle.forward(x.view(oracle.uint_type(name)).ravel(),
                                   alpha, name)
    oracle.assert_bits(np.asarray(computed).view(oracle.uint_type(name))
                       .ravel(), want, any_nan, name, "dask")


@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_local_schedulers(scheduler):
    # One compute for every dtype: the process pool starts once.
    inputs = [lazy_input(dtype)
              for dtype in (np.float16, np.float32, np.float64)]
    ys = [check(lrelu.leaky_relu(dx, ALPHA), x, dx) for x, dx in inputs]
    with dask.config.set(scheduler=scheduler, num_workers=2):
        computed = dask.compute(*ys)
    for values, (x, _) in zip(computed, inputs):
        assert_oracle_bits(values, x, ALPHA)


@pytest.mark.skipif(not has_module("distributed"),
                    reason="dask.distributed not installed")
def test_distributed_local_cluster_of_processes():
    from dask.distributed import Client, LocalCluster
    x, dx = lazy_input(np.float32)
    alpha = np.linspace(-1, 1, 30)  # broadcast along the last axis
    y = check(lrelu.leaky_relu(dx, alpha), x, dx)
    z = check(lrelu.leaky_relu(dx, ALPHA), x, dx)
    # PReLU, one slope per row (alpha [40, 1]), also lazy.
    rows = np.linspace(-2, 2, 40).astype(np.float32).reshape(40, 1)
    w = check(lrelu.prelu(dx, rows), x, dx)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, timeout=60) as cluster, \
            Client(cluster, timeout=60) as client:
        futures = client.compute([y, z, w], sync=False)
        y_values, z_values, w_values = (f.result(timeout=120)
                                        for f in futures)
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    assert_oracle_bits(z_values, x, ALPHA)
    for j, a in enumerate(alpha):
        assert_oracle_bits(y_values[:, j], np.ascontiguousarray(x[:, j]), a)
    for i, a in enumerate(rows.ravel()):
        assert_oracle_bits(w_values[i], x[i], float(a))
