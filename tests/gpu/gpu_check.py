#!/usr/bin/env python3
"""GPU check for scripts/gpu-check.sh: the CUDA kernels (built standalone by
nvcc as cuda_harness.so) swept bit for bit against a NumPy statement of
contract v1, then timed against a device-to-device copy,
torch.nn.functional.leaky_relu and a Triton tl.where kernel.

  gpu_check.py --self-test LIBLRELU   check the NumPy reference against
                                      liblrelu's CPU backend (no GPU needed)
  gpu_check.py --harness SO [--sweep] [--bench] [--max-log2 30]
"""
import argparse
import ctypes
import sys
import time

import numpy as np

F32, F16, BF16, F64 = 1, 2, 3, 4
NAMES = {F32: "float32", F16: "float16", BF16: "bfloat16", F64: "float64"}
BITS = {F32: np.uint32, F16: np.uint16, BF16: np.uint16, F64: np.uint64}
ALPHAS = [0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"), float("nan"),
          -0.0, 1e-30, 3e38]


# ------------------------------------------------------------ reference

def sign_mag_inf(dtype):
    return {F32: (31, 0x7fffffff, 0x7f800000), F16: (15, 0x7fff, 0x7c00),
            BF16: (15, 0x7fff, 0x7f80),
            F64: (63, 0x7fffffffffffffff, 0x7ff0000000000000)}[dtype]


def is_nan(dtype, b):
    _, mag, inf = sign_mag_inf(dtype)
    return (b & BITS[dtype](mag)) > BITS[dtype](inf)


def negative(dtype, b):
    shift, mag, inf = sign_mag_inf(dtype)
    t = BITS[dtype]
    m = b & t(mag)
    return ((b >> t(shift)) == 1) & (m != 0) & (m <= t(inf))


def reference(dtype, v, s, alpha):
    """out = s < 0 ? alpha * v : v on raw bits (contract v1)."""
    with np.errstate(all="ignore"):
        if dtype == F32:
            p = (v.view(np.float32) * np.float32(alpha)).view(np.uint32)
        elif dtype == F16:
            p = (v.view(np.float16).astype(np.float32) * np.float32(alpha)) \
                .astype(np.float16).view(np.uint16)
        elif dtype == BF16:
            u = ((v.astype(np.uint32) << 16).view(np.float32) * np.float32(alpha)).view(np.uint32)
            rne = (u + 0x7fff + ((u >> 16) & 1)) >> 16
            nan = (u & 0x7fffffff) > 0x7f800000
            p = np.where(nan, (u >> 16) | 0x40, rne).astype(np.uint16)
        else:
            p = (v.view(np.float64) * np.float64(alpha)).view(np.uint64)
    return np.where(negative(dtype, s), p, v).astype(BITS[dtype])


def mismatches(dtype, v, s, got, expected):
    """Indices that differ, allowing any NaN where the product made one."""
    ok = (got == expected) | (is_nan(dtype, got) & is_nan(dtype, expected) & negative(dtype, s))
    return np.flatnonzero(~ok)


def specials(dtype):
    if dtype == F32:
        return [0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                0x7f800001, 0xff800001, 1, 0x80000001, 0x807fffff, 0x00800000,
                0x80800000, 0x7f7fffff, 0xff7fffff, 0xbf800000, 0xbe99999a]
    if dtype == F64:
        return [0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000,
                0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000001, 1,
                0x8000000000000001, 0x800fffffffffffff, 0xffefffffffffffff,
                0xbff0000000000000]
    inf = 0x7c00 if dtype == F16 else 0x7f80
    return [0, 0x8000, inf, inf | 0x8000, inf | 0x200, inf | 0x8001, inf | 1, 1,
            0x8001, 0x83ff, 0x807f, 0x0400, 0x8400, inf - 1, (inf - 1) | 0x8000,
            0xbc00, 0xbf80]


def random_bits(dtype, n, rng):
    t = BITS[dtype]
    wide = {F32: np.float32, F16: np.float16, F64: np.float64, BF16: np.float32}[dtype]
    with np.errstate(all="ignore"):  # huge values become inf: fine
        values = (rng.standard_normal(n) * rng.choice([1e-40, 1e-6, 1, 1e4, 1e38], n)).astype(wide)
    bits = values.view(np.uint32 if dtype == BF16 else t)
    if dtype == BF16:
        bits = (bits >> 16).astype(np.uint16)
    bits = bits.copy()
    sp = np.array(specials(dtype), dtype=t)
    pick = rng.random(n) < 0.15
    bits[pick] = sp[rng.integers(0, sp.size, int(pick.sum()))]
    return bits


# ---------------------------------------------------------- self-test

class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


def self_test(library):
    lib = ctypes.CDLL(library)
    lib.lrelu_last_error.restype = ctypes.c_char_p
    lib.lrelu_leaky_relu_backward.argtypes = [
        ctypes.POINTER(Tensor), ctypes.POINTER(Tensor), ctypes.c_double,
        ctypes.c_int, ctypes.POINTER(Tensor), ctypes.c_void_p]
    rng = np.random.default_rng(0)
    checked = 0
    for dtype in NAMES:
        for alpha in ALPHAS:
            v = random_bits(dtype, 5000, rng)
            s = random_bits(dtype, 5000, rng)
            out = np.empty_like(v)
            shape = (ctypes.c_int64 * 1)(v.size)
            t = lambda a: Tensor(a.ctypes.data, dtype, 1, shape, None)
            tv, ts, to = t(v), t(s), t(out)
            status = lib.lrelu_leaky_relu_backward(ctypes.byref(tv), ctypes.byref(ts),
                                                   alpha, 0, ctypes.byref(to), None)
            assert status == 0, lib.lrelu_last_error()
            bad = mismatches(dtype, v, s, out, reference(dtype, v, s, alpha))
            assert bad.size == 0, (NAMES[dtype], alpha, bad[:5])
            checked += v.size
    print(f"self-test: NumPy reference == liblrelu CPU on {checked} elements")


# -------------------------------------------------------------- GPU

class Harness:
    def __init__(self, path):
        import torch
        self.torch = torch
        self.lib = ctypes.CDLL(path)
        self.lib.lrelu_harness_apply.argtypes = [
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_longlong, ctypes.c_double, ctypes.c_int, ctypes.c_void_p]

    def apply(self, dtype, v_ptr, s_ptr, out_ptr, n, alpha, vec4=1):
        stream = self.torch.cuda.current_stream().cuda_stream
        err = self.lib.lrelu_harness_apply(dtype, v_ptr, s_ptr, out_ptr, n, alpha,
                                           vec4, ctypes.c_void_p(stream))
        if err != 0:
            raise RuntimeError(f"launch failed: cudaError {err}")


TORCH_INT = {F32: "int32", F16: "int16", BF16: "int16", F64: "int64"}


def sweep(h):
    torch = h.torch
    rng = np.random.default_rng(1)
    total = 0
    failures = 0
    t0 = time.time()
    for dtype in NAMES:
        t = BITS[dtype]
        elem = np.dtype(t).itemsize
        signed = getattr(np, TORCH_INT[dtype])
        cases = [(n, n % 16, n % 3) for n in range(0, 301)]
        cases += [((1 << 24) + 5, 3, 0), ((1 << 24) + 5, 0, 1)]
        for vec4 in (1, 0):
            for k, (n, offset, phase) in enumerate(cases):
                alpha = ALPHAS[k % len(ALPHAS)]
                gradient = k % 2 == 1
                v = random_bits(dtype, n, rng)
                s = random_bits(dtype, n, rng) if gradient else v
                dv = torch.from_numpy(np.concatenate([np.zeros(16, t), v]).view(signed)).cuda()
                ds = torch.from_numpy(np.concatenate([np.zeros(16, t), s]).view(signed)).cuda()
                dout = torch.full((n + 32,), -1, dtype=getattr(torch, TORCH_INT[dtype]),
                                  device="cuda")
                out_offset = offset + phase  # phase != 0: v, out differ mod 16
                h.apply(dtype, dv.data_ptr() + offset * elem,
                        (ds if gradient else dv).data_ptr() + offset * elem,
                        dout.data_ptr() + out_offset * elem, n, alpha, vec4)
                got = dout.cpu().numpy().view(t)
                result = got[out_offset:out_offset + n]
                guard_ok = np.all(got[:out_offset] == t(-1 & int(np.iinfo(t).max))) and \
                    np.all(got[out_offset + n:] == t(-1 & int(np.iinfo(t).max)))
                # Forward: the kernel reads v as s too (dv at the same offset).
                bad = mismatches(dtype, v, s, result, reference(dtype, v, s, alpha))
                total += n
                if bad.size or not guard_ok:
                    failures += 1
                    if failures <= 10:
                        i = bad[0] if bad.size else -1
                        print(f"MISMATCH {NAMES[dtype]} vec4={vec4} n={n} offset={offset} "
                              f"phase={phase} alpha={alpha} gradient={gradient} "
                              f"first={i} guard_ok={guard_ok}")
        # Every special against every special, every alpha.
        sp = np.array(specials(dtype), dtype=t)
        v = np.repeat(sp, sp.size)
        s = np.tile(sp, sp.size)
        for alpha in ALPHAS:
            dv = torch.from_numpy(v.view(signed).copy()).cuda()
            ds = torch.from_numpy(s.view(signed).copy()).cuda()
            dout = torch.empty_like(dv)
            h.apply(dtype, dv.data_ptr(), ds.data_ptr(), dout.data_ptr(), v.size, alpha)
            got = dout.cpu().numpy().view(t)
            bad = mismatches(dtype, v, s, got, reference(dtype, v, s, alpha))
            total += v.size
            if bad.size:
                failures += 1
                print(f"MISMATCH specials {NAMES[dtype]} alpha={alpha} at {bad[:4]}")
    torch.cuda.synchronize()
    print(f"sweep: {total} elements, {failures} failing cases "
          f"({time.time() - t0:.1f} s)")
    return failures == 0


def bench(h, max_log2):
    torch = h.torch
    import torch.nn.functional as F
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def leaky_relu_kernel(x_ptr, out_ptr, n, slope, BLOCK: tl.constexpr):
            # Seed 003's kernel: tl.where(x >= 0, x, slope * x).
            offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offsets < n
            x = tl.load(x_ptr + offsets, mask=mask)
            tl.store(out_ptr + offsets, tl.where(x >= 0, x, slope * x), mask=mask)

        def triton_leaky(x, out, slope):
            n = x.numel()
            leaky_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, slope, BLOCK=1024)
    except Exception as e:  # no triton
        print(f"triton unavailable: {e}")
        triton_leaky = None

    def timed(fn, nbytes):
        fn()
        torch.cuda.synchronize()
        reps = int(max(5, min(200, 2e10 / max(nbytes, 1) / 50)))
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        ms = start.elapsed_time(stop) / reps
        return nbytes / (ms * 1e6), ms

    torch_dtypes = {F32: torch.float32, F16: torch.float16, BF16: torch.bfloat16,
                    F64: torch.float64}
    alpha = 0.01
    print(f"\n{'dtype':9} {'n':>6} | {'memcpy GB/s':>11} | {'lrelu GB/s':>10} "
          f"{'%copy':>5} | {'torch GB/s':>10} | {'triton GB/s':>11}")
    print("-" * 76)
    for dtype, tdtype in torch_dtypes.items():
        for log2 in range(10, max_log2 + 1, 2):
            n = 1 << log2
            try:
                x = torch.randn(n, dtype=tdtype, device="cuda")
                y = torch.empty_like(x)
            except RuntimeError as e:
                print(f"{NAMES[dtype]:9} 2^{log2:<4} | out of memory ({e})")
                break
            nbytes = 2 * n * x.element_size()
            copy_gbs, _ = timed(lambda: y.copy_(x), nbytes)
            lrelu_gbs, _ = timed(
                lambda: h.apply(dtype, x.data_ptr(), x.data_ptr(), y.data_ptr(), n, alpha),
                nbytes)
            torch_gbs, _ = timed(lambda: F.leaky_relu(x, alpha), nbytes)
            triton_gbs = timed(lambda: triton_leaky(x, y, alpha), nbytes)[0] \
                if triton_leaky else float("nan")
            label = f"2^{log2}"
            print(f"{NAMES[dtype]:9} {label:>6} | {copy_gbs:11.1f} | {lrelu_gbs:10.1f} "
                  f"{100 * lrelu_gbs / copy_gbs:5.0f} | {torch_gbs:10.1f} | {triton_gbs:11.1f}")
            del x, y
            torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--self-test", metavar="LIBLRELU")
    parser.add_argument("--harness", metavar="SO")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--max-log2", type=int, default=30)
    args = parser.parse_args()
    if args.self_test:
        self_test(args.self_test)
    ok = True
    if args.harness:
        h = Harness(args.harness)
        print(f"device: {h.torch.cuda.get_device_name(0)}")
        if args.sweep:
            ok = sweep(h)
        if args.bench:
            bench(h, args.max_log2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
