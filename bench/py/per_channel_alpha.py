"""Per-channel alpha against a scalar alpha, from Python.

lrelu.leaky_relu(x, alpha_array, out=y) on a 1 Mi-element float32 tensor,
alpha one value per channel (NHWC: along the last axis; NCHW: shape
[C, 1, 1]), next to the same call with one scalar alpha, the raw ufunc with
the same array alpha (NumPy's iterator hands it one row of a channel at a
time) and np.where. The goal: the per-channel call within 1.2x the
scalar one. The two are timed in alternating rounds (the same machine state
for both); the ratio is the median of the rounds' ratios, with quartiles.
Prints a table; no assertion.

  PYTHONPATH=build/ci/python .venv/bin/python bench/py/per_channel_alpha.py
"""
import statistics
import time
import timeit

import numpy as np

import lrelu


def best(fn, repeat=15, number=5):
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def paired(base, run, rounds=31, number=5):
    """Median times of base and run, and the median ratio with quartiles,
    from rounds that time one then the other."""
    b, r = [], []
    for _ in range(rounds):
        for fn, out in ((base, b), (run, r)):
            t = time.perf_counter()
            for _ in range(number):
                fn()
            out.append((time.perf_counter() - t) / number)
    ratios = sorted(y / x for x, y in zip(b, r))
    q = statistics.quantiles(ratios, n=4)
    return statistics.median(b), statistics.median(r), statistics.median(
        ratios), q[0], q[2]


def main():
    rng = np.random.default_rng(0)
    print(f"{'layout':<8}{'C':>5}{'scalar ms':>11}{'per-channel ms':>16}"
          f"{'ratio':>7}{'quartiles':>12}{'ufunc ms':>10}{'np.where ms':>13}")
    for layout in ("NHWC", "NCHW"):
        for channels in (64, 512):
            n = 1 << 20
            if layout == "NHWC":
                shape = (n // channels // 64, 8, 8, channels)
                alpha = rng.uniform(0.01, 0.3, channels)
            else:
                shape = (n // channels // 64, channels, 8, 8)
                alpha = rng.uniform(0.01, 0.3, (channels, 1, 1))
            x = rng.standard_normal(shape).astype(np.float32)
            y = np.empty_like(x)
            scalar, per_channel, ratio, q1, q3 = paired(
                lambda: lrelu.leaky_relu(x, 0.1, out=y),
                lambda: lrelu.leaky_relu(x, alpha, out=y))
            ufunc = best(lambda: lrelu.ufunc(x, alpha, out=y))
            alpha32 = alpha.astype(np.float32)
            where = best(lambda: np.where(x < 0, alpha32 * x, x))
            print(f"{layout:<8}{channels:>5}{scalar * 1e3:>11.3f}"
                  f"{per_channel * 1e3:>16.3f}{ratio:>7.2f}"
                  f"{f'{q1:.2f}-{q3:.2f}':>12}"
                  f"{ufunc * 1e3:>10.3f}"
                  f"{where * 1e3:>13.3f}")


if __name__ == "__main__":
    main()
