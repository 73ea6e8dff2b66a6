"""PReLU against PyTorch: F.prelu forward and its backward
(dx and the weight's gradient) next to lrelu.prelu / prelu_backward on the
same float32 tensors, NCHW per channel, 64 and 512 channels, in cache
(64 Ki elements) and out of cache (16 Mi). Best time of the repetitions,
one thread each (torch.set_num_threads(1), lrelu threads=1) unless
--threads says otherwise. Prints a Markdown table.
    PYTHONPATH=build/ci/python .venv/bin/python bench/prelu/bench_prelu_torch.py
"""
import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F

import lrelu
import lrelu.torch as lt


def best_ms(fn, reps):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lrelu.set_threads(args.threads)  # lrelu.torch calls use the default
    print("| elements | channels | operation | torch ms | lrelu ms |")
    print("|---:|---:|---|---:|---:|")
    for n in (1 << 16, 1 << 24):
        reps = args.reps if n < (1 << 20) else max(3, args.reps // 4)
        for c in (64, 512):
            x = torch.randn(1, c, 1, n // c)
            w = torch.full((c,), 0.25)
            dy = torch.randn_like(x)
            xn, dyn = x.numpy(), dy.numpy()
            an = w.numpy().reshape(c, 1, 1)
            t_f = best_ms(lambda: F.prelu(x, w), reps)
            l_f = best_ms(lambda: lrelu.prelu(xn, an, threads=args.threads),
                          reps)
            print(f"| {n} | {c} | forward | {t_f:.3f} | {l_f:.3f} |")
            xg = x.clone().requires_grad_()
            wg = w.clone().requires_grad_()
            wl = w.clone().requires_grad_()
            xl = x.clone().requires_grad_()

            def torch_backward():
                xg.grad = wg.grad = None
                F.prelu(xg, wg).backward(dy)

            def lrelu_backward():
                xl.grad = wl.grad = None
                lt.prelu(xl, wl).backward(dy)

            t_b = best_ms(torch_backward, reps)
            l_b = best_ms(lrelu_backward, reps)
            print(f"| {n} | {c} | forward+backward (dx, dweight) | "
                  f"{t_b:.3f} | {l_b:.3f} |")
            d_l = best_ms(lambda: lrelu.prelu_backward(
                dyn, xn, an, dx=False, threads=args.threads), reps)
            print(f"| {n} | {c} | dalpha only (lrelu, exact) | - | "
                  f"{d_l:.3f} |")


if __name__ == "__main__":
    main()
