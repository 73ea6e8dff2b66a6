"""Per-call cost of lrelu on small torch tensors against F.leaky_relu.

The work on 10 elements is nothing: what is timed is the Python, dispatch
and allocation around it (the issue's goal: lrelu at most 2x F.leaky_relu).
Rounds alternate the callers so that load on the machine hits them alike;
the median over rounds is reported, in microseconds per call.

    PYTHONPATH=build/ci/python .venv/bin/python bench/py/torch_call_overhead.py
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import lrelu
import lrelu.torch


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


def per_call_us(function, calls, clock):
    start = clock()
    for _ in range(calls):
        function()
    return (clock() - start) / calls * 1e6


def cases(elements):
    x = torch.randn(elements)
    xg = torch.randn(elements, requires_grad=True)
    out = torch.empty(elements)

    def backward(function):
        def run():
            function(xg, 0.1).sum().backward()
        return run

    return {
        "forward": {
            "F.leaky_relu": lambda: F.leaky_relu(x, 0.1),
            "lrelu.torch.leaky_relu": lambda: lrelu.torch.leaky_relu(x, 0.1),
            "lrelu.leaky_relu": lambda: lrelu.leaky_relu(x, 0.1),
            "torch.ops.lrelu.leaky_relu":
                lambda: torch.ops.lrelu.leaky_relu(x, 0.1),
        },
        "out=": {
            # F.leaky_relu has no out=; the ATen function behind it does.
            "F.leaky_relu": lambda: torch._C._nn.leaky_relu(x, 0.1, out=out),
            "lrelu.leaky_relu": lambda: lrelu.leaky_relu(x, 0.1, out=out),
        },
        "forward+backward (autograd)": {
            "F.leaky_relu": backward(F.leaky_relu),
            "lrelu.torch.leaky_relu": backward(lrelu.torch.leaky_relu),
        },
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=10)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="cpu: this thread's CPU time, steadier on a "
                        "loaded machine")
    args = parser.parse_args()
    torch.set_num_threads(1)
    for group, callers in cases(args.elements).items():
        times = {name: [] for name in callers}
        for _ in range(args.rounds):
            for name, function in callers.items():
                times[name].append(
                    per_call_us(function, args.calls, CLOCKS[args.clock]))
        base = statistics.median(times["F.leaky_relu"])
        print(f"{group} ({args.elements} elements, {args.clock} time, "
              f"median of {args.rounds} rounds x {args.calls} calls):")
        for name, values in times.items():
            median = statistics.median(values)
            print(f"  {name:30s} {median:7.2f} us  {median / base:5.2f}x")


if __name__ == "__main__":
    main()
