"""Per-call cost of lrelu on small torch tensors against torch's own call.

The work on 10 elements is nothing: what is timed is the Python, dispatch
and allocation around it (the goal: every way of calling lrelu on torch
tensors at most 2x torch's leaky_relu; and lrelu.leaky_relu(x, out=y) on a
1 Ki float32 NumPy array at most torch's out= call on 1 Ki).

Each round times every row in a short batch right next to a batch of its
torch baseline (alternating which goes first), so that load on the machine
hits both alike; a row's ratio is the median over rounds of its batch time
over the adjacent baseline batch, with the quartiles of those ratios as the
spread. Times are microseconds per call (median over rounds).

    PYTHONPATH=build/ci/python .venv/bin/python bench/py/torch_call_overhead.py
"""
import argparse
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F

import lrelu
import lrelu.torch


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}

# The floor of a torch.library operator with a Python kernel in torch 1.13
# (what torch.ops.lrelu.* cost where lrelu/_torch_ops.so is not loaded): one
# that returns its input.
_PROBE = torch.library.Library("lrelu_bench_probe", "DEF")
_PROBE.define("noop(Tensor x, float negative_slope=0.01) -> Tensor")
_PROBE.impl("noop", lambda x, negative_slope=0.01: x, "CPU")
_PROBE.impl("noop", lambda x, negative_slope=0.01: x, "Autograd")
_PROBE.define("alloc(Tensor x, float negative_slope=0.01) -> Tensor")
_PROBE.impl("alloc", lambda x, negative_slope=0.01: torch.empty_like(x),
            "Autograd")


def batch_us(function, calls, clock):
    start = clock()
    for _ in range(calls):
        function()
    return (clock() - start) / calls * 1e6


def groups(elements):
    """{group: (baseline name, baseline, {row: function})}."""
    x = torch.randn(elements)
    xg = torch.randn(elements, requires_grad=True)
    out = torch.empty(elements)
    # In place with slope 1: the values stay what they are (no drift into
    # subnormals over thousands of calls), the call costs the same.
    t = torch.randn(elements)
    x_np = np.random.default_rng(1).standard_normal(1024).astype(np.float32)
    y_np = np.empty_like(x_np)
    x_1k = torch.from_numpy(x_np.copy())
    out_1k = torch.empty_like(x_1k)

    def backward(function):
        def run():
            function(xg, 0.1).sum().backward()
        return run

    # F.leaky_relu has no out=; the ATen function behind it does.
    aten = torch._C._nn.leaky_relu
    return {
        "forward": ("F.leaky_relu(x)", lambda: F.leaky_relu(x, 0.1), {
            "lrelu.torch.leaky_relu(x)":
                lambda: lrelu.torch.leaky_relu(x, 0.1),
            "lrelu.leaky_relu(x)": lambda: lrelu.leaky_relu(x, 0.1),
            "torch.ops.lrelu.leaky_relu(x)":
                lambda: torch.ops.lrelu.leaky_relu(x, 0.1),
            "(floor: a no-op Python operator)":
                lambda: torch.ops.lrelu_bench_probe.noop(x, 0.1),
            "(floor: an operator that allocates)":
                lambda: torch.ops.lrelu_bench_probe.alloc(x, 0.1),
            "(floor: torch.empty_like(x))": lambda: torch.empty_like(x),
        }),
        "out=": ("leaky_relu(x, out=y)", lambda: aten(x, 0.1, out=out), {
            "lrelu.leaky_relu(x, out=y)":
                lambda: lrelu.leaky_relu(x, 0.1, out=out),
        }),
        "in place": (
            "F.leaky_relu(t, inplace=True)",
            lambda: F.leaky_relu(t, 1.0, inplace=True), {
                "lrelu.leaky_relu(t, out=t)":
                    lambda: lrelu.leaky_relu(t, 1.0, out=t),
                "lrelu.torch.leaky_relu(t, inplace)":
                    lambda: lrelu.torch.leaky_relu(t, 1.0, inplace=True),
                "torch.ops.lrelu.leaky_relu_(t)":
                    lambda: torch.ops.lrelu.leaky_relu_(t, 1.0),
            }),
        "forward+backward (autograd)": (
            "F.leaky_relu", backward(F.leaky_relu), {
                "lrelu.torch.leaky_relu": backward(lrelu.torch.leaky_relu),
                "torch.ops.lrelu.leaky_relu":
                    backward(torch.ops.lrelu.leaky_relu),
            }),
        "NumPy 1 Ki float32, out= (baseline: torch tensor, 1 Ki)": (
            "leaky_relu(t, out=o)", lambda: aten(x_1k, 0.1, out=out_1k), {
                "lrelu.leaky_relu(x, out=y)":
                    lambda: lrelu.leaky_relu(x_np, 0.1, out=y_np),
            }),
    }


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200,
                        help="calls per batch (short batches pair better "
                        "under load)")
    parser.add_argument("--rounds", type=int, default=101)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this thread's CPU time, steadier on a "
                        "loaded machine")
    args = parser.parse_args()
    torch.set_num_threads(1)
    clock = CLOCKS[args.clock]
    print(f"torch {torch.__version__}; torch.ops.lrelu runs "
          f"{lrelu.torch.operator_kernels} kernels")
    for group, (base_name, base, rows) in groups(args.elements).items():
        for function in (base, *rows.values()):
            batch_us(function, args.calls, clock)  # warm up
        base_times = []
        times = {name: [] for name in rows}
        ratios = {name: [] for name in rows}
        for r in range(args.rounds):
            for name, function in rows.items():
                if r % 2:
                    tb = batch_us(base, args.calls, clock)
                    tv = batch_us(function, args.calls, clock)
                else:
                    tv = batch_us(function, args.calls, clock)
                    tb = batch_us(base, args.calls, clock)
                base_times.append(tb)
                times[name].append(tv)
                ratios[name].append(tv / tb)
        print(f"{group} ({args.clock} time, {args.rounds} rounds x "
              f"{args.calls} calls; ratio: median [quartiles]):")
        print(f"  {base_name:36s} {statistics.median(base_times):7.2f} us")
        for name in rows:
            q1, median, q3 = quartiles(ratios[name])
            print(f"  {name:36s} {statistics.median(times[name]):7.2f} us"
                  f"  {median:5.2f}x [{q1:.2f}-{q3:.2f}]")


if __name__ == "__main__":
    main()
