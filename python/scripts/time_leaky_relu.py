"""Times lrelu.leaky_relu against torch.nn.functional.leaky_relu and NumPy's
np.where(x < 0, alpha * x, x) on float32, allocating and with out=.

Median of repeated runs, per call. Run with the venv's Python and the package
importable, e.g.:
    PYTHONPATH=build-py/python .venv/bin/python \
        python/scripts/time_leaky_relu.py
"""
import argparse
import statistics
import timeit

import numpy as np

import lrelu

ALPHA = 0.01


def median_seconds(statement, number, repeat):
    times = timeit.repeat(statement, number=number, repeat=repeat)
    return statistics.median(times) / number


def numpy_where_out(x, alpha, y):
    # np.where has no out=: copy x, then overwrite the negative elements.
    np.copyto(y, x)
    np.multiply(x, alpha, out=y, where=x < 0)


def cases(n):
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.empty_like(x)
    alpha32 = np.float32(ALPHA)
    rows = [
        ("lrelu.leaky_relu(x)", lambda: lrelu.leaky_relu(x, ALPHA)),
        ("lrelu.leaky_relu(x, out=y)",
         lambda: lrelu.leaky_relu(x, ALPHA, out=y)),
        ("lrelu.leaky_relu(x, threads=1)",
         lambda: lrelu.leaky_relu(x, ALPHA, threads=1)),
        ("lrelu.leaky_relu(x, out=y, threads=1)",
         lambda: lrelu.leaky_relu(x, ALPHA, out=y, threads=1)),
        ("lrelu.ufunc(x, a, out=y)", lambda: lrelu.ufunc(x, ALPHA, out=y)),
        ("np.where(x < 0, a * x, x)", lambda: np.where(x < 0, alpha32 * x, x)),
        ("np.where, out=y", lambda: numpy_where_out(x, alpha32, y)),
        ("np.copyto(y, x) [copy, for scale]", lambda: np.copyto(y, x)),
    ]
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return rows
    t = torch.from_numpy(x.copy())
    ty = torch.empty_like(t)
    rows += [
        ("lrelu.leaky_relu(t) [torch]", lambda: lrelu.leaky_relu(t, ALPHA)),
        ("lrelu.leaky_relu(t, out=ty) [torch]",
         lambda: lrelu.leaky_relu(t, ALPHA, out=ty)),
        ("lrelu.leaky_relu(t, out=ty, threads=1)",
         lambda: lrelu.leaky_relu(t, ALPHA, out=ty, threads=1)),
        ("F.leaky_relu(t)", lambda: F.leaky_relu(t, ALPHA)),
        ("torch._C._nn.leaky_relu(t, out=ty)",
         lambda: torch._C._nn.leaky_relu(t, ALPHA, out=ty)),
    ]
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    try:
        import torch
        torch_threads = torch.get_num_threads()
    except ImportError:
        torch_threads = None
    print(f"lrelu {lrelu.__version__}, targets {lrelu.cpu_targets()}, "
          f"numpy {np.__version__}, torch threads {torch_threads}, "
          f"lrelu hardware threads {lrelu._lrelu.hardware_threads()}")
    for n, number in ((1 << 10, 2000), (1 << 24, 3)):
        print(f"\nfloat32, {n} elements ({n * 4 / 2**20:g} MiB), median of "
              f"{args.repeat} x {number} calls")
        print(f"{'call':40} {'per call':>12} {'GB/s (r+w)':>11}")
        for name, call in cases(n):
            call()  # warm up: first-touch pages, thread pools
            seconds = median_seconds(call, number, args.repeat)
            rate = 2 * n * 4 / seconds / 1e9
            unit = f"{seconds * 1e6:9.2f} us" if seconds < 1e-3 else \
                f"{seconds * 1e3:9.2f} ms"
            print(f"{name:40} {unit:>12} {rate:11.2f}")


if __name__ == "__main__":
    main()
