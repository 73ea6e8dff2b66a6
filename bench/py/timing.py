"""Paired timing against the np.copyto baseline, as in the C++ harness.

Each variant is timed in batches of about `batch_s`, paired with the
baseline on the same memory, alternating which of the two goes first; each
pair of rounds gives one estimate (the geometric mean of its two ratios) and
a cell is the median estimate. `~` marks an interquartile range above 20%
of the median.
"""
import math
import statistics
import time

perf = time.perf_counter


class Timed:
    """A callable taking the call number, with its batch size."""

    def __init__(self, fn):
        self.fn = fn
        self.calls = 0
        self.batch = 1

    def run_batch(self):
        """Seconds per call over one batch."""
        fn, start_call, batch = self.fn, self.calls, self.batch
        t0 = perf()
        for i in range(start_call, start_call + batch):
            fn(i)
        t1 = perf()
        self.calls += batch
        return (t1 - t0) / batch

    def calibrate(self, batch_s):
        """Best of three attempts, each growing the batch to batch_s / 4."""
        best = math.inf
        for _ in range(3):
            self.batch = 1
            while True:
                per_call = self.run_batch()
                long_enough = per_call * self.batch >= batch_s / 4
                if long_enough or self.batch >= 1 << 22:
                    best = min(best, per_call)
                    break
                self.batch *= 4
        self.batch = max(1, int(batch_s / best))


def quantile(values, q):
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def time_group(base, variants, rounds):
    """Times `variants` (Timed) against `base`: one dict per variant."""
    ratios = [[] for _ in variants]
    times = [[] for _ in variants]
    for r in range(rounds):
        for i, v in enumerate(variants):
            base.fn(base.calls)  # untimed: y back to a copy of x, caches warm
            base.calls += 1
            if r % 2 == 0:
                tb = base.run_batch()
                tv = v.run_batch()
            else:
                tv = v.run_batch()
                tb = base.run_batch()
            ratios[i].append(tv / tb)
            times[i].append(tv)
    cells = []
    for i, v in enumerate(variants):
        est = [math.sqrt(ratios[i][k] * ratios[i][k + 1])
               for k in range(0, len(ratios[i]) - 1, 2)]
        med = statistics.median(est)
        q1, q3 = quantile(est, 0.25), quantile(est, 0.75)
        cells.append({
            'ratio_to_memcpy': med,
            'ratio_q1': q1,
            'ratio_q3': q3,
            'noisy': (q3 - q1) > 0.2 * med,
            'median_ns': 1e9 * statistics.median(times[i]),
            'calls_per_batch': v.batch,
        })
    return cells
