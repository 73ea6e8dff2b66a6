#!/usr/bin/env python3
"""Python half of scripts/gpu-check.sh: liblrelu's CUDA backend called from
Python on caller-owned device memory (torch tensors), and timed against
torch and Triton. contract/bits.py, the NumPy statement of contract v1, is
the oracle; `self-test` checks it against liblrelu's CPU backend (no GPU
needed, CI).

  gpu_check.py self-test LIBLRELU
  gpu_check.py interop LIBLRELU      torch tensors, streams, in place,
                                     misaligned refusal (exit 3: not run)
  gpu_check.py contract LIBLRELU     the contract's cases on the CUDA backend
  gpu_check.py bench LIBLRELU --csv F [--min-log2 20] [--max-log2 30]
                                     torch F.leaky_relu and its gradient,
                                     Triton, torch copy_, liblrelu via ctypes
Bundled shared libraries (LRELU_BUNDLE_LIB, a folder) are loaded first by
absolute path, so the process needs no LD_LIBRARY_PATH (torch keeps its own).
"""
import argparse
import ctypes
import glob
import os
import sys

import numpy as np

# The one Python dtype table and oracle (contract/bits.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "contract"))
import bits  # noqa: E402  pylint: disable=wrong-import-position

F32, F16, BF16, F64 = 1, 2, 3, 4
NAMES = bits.NAMES
BITS = {tag: bits.utype(name) for tag, name in NAMES.items()}
ALPHAS = [0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"), float("nan"),
          -0.0, 1e-30, 3e38]


# ------------------------------------------------------------ reference
# The oracle, the bit tests and the special values are contract/bits.py's.

def is_nan(dtype, b):
    return bits.is_nan_bits(b, NAMES[dtype])


def reference(dtype, v, s, alpha):
    """out = s < 0 ? alpha * v : v on raw bits (contract v1)."""
    return bits.backward(v, s, alpha, NAMES[dtype])[0]


def mismatches(dtype, v, s, got, expected):
    """Indices that differ, allowing any NaN where the product made one."""
    del v  # the allowance depends on s and the oracle's result only
    return bits.mismatches(s, expected, got, NAMES[dtype])


def specials(dtype):
    return bits.special_bits(NAMES[dtype]).tolist()


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


# ------------------------------------------------------------ liblrelu

NOT_RUN = 3
CUDA = 1
STATUS_UNSUPPORTED_VARIANT = 10


class Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("threads", ctypes.c_size_t),
                ("thread_pool", ctypes.c_void_p), ("variant", ctypes.c_char_p),
                ("cpu_target", ctypes.c_char_p), ("backend", ctypes.c_int),
                ("stream", ctypes.c_void_p), ("device", ctypes.c_int32)]


def load_lrelu(path):
    folder = os.environ.get("LRELU_BUNDLE_LIB")
    if folder:
        # Dependencies first (by soname order of need), liblrelu last.
        for dep in sorted(glob.glob(os.path.join(folder, "*.so*"))):
            if "liblrelu" not in os.path.basename(dep):
                try:
                    ctypes.CDLL(dep, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass  # one that needs another: retried by the loader
    lib = ctypes.CDLL(path)
    lib.lrelu_last_error.restype = ctypes.c_char_p
    lib.lrelu_leaky_relu.argtypes = [ctypes.POINTER(Tensor), ctypes.c_double,
                                     ctypes.POINTER(Tensor), ctypes.POINTER(Options)]
    lib.lrelu_leaky_relu_backward.argtypes = [
        ctypes.POINTER(Tensor), ctypes.POINTER(Tensor), ctypes.c_double,
        ctypes.c_int, ctypes.POINTER(Tensor), ctypes.POINTER(Options)]
    return lib


class Lrelu:
    """liblrelu's CUDA backend on raw device pointers."""

    def __init__(self, path):
        self.lib = load_lrelu(path)
        self.options = Options()
        self.lib.lrelu_options_init(ctypes.byref(self.options))
        self.options.backend = CUDA

    def call(self, dtype, n, v_ptr, s_ptr, out_ptr, alpha, gradient, stream=0,
             variant=None):
        shape = (ctypes.c_int64 * 1)(n)
        self.options.stream = stream
        self.options.variant = variant
        t = [Tensor(p, dtype, 1, shape, None) for p in (v_ptr, s_ptr, out_ptr)]
        if gradient:
            return self.lib.lrelu_leaky_relu_backward(ctypes.byref(t[0]), ctypes.byref(t[1]),
                                                      alpha, 0, ctypes.byref(t[2]),
                                                      ctypes.byref(self.options))
        return self.lib.lrelu_leaky_relu(ctypes.byref(t[0]), alpha, ctypes.byref(t[2]),
                                         ctypes.byref(self.options))

    def error(self):
        return self.lib.lrelu_last_error().decode()


def cuda_torch():
    try:
        import torch
        if torch.cuda.is_available():
            return torch
        print("NOT RUN: torch is there but sees no CUDA device")
    except ImportError as e:
        print(f"NOT RUN: no torch ({e})")
    return None


TORCH_INT = {F32: "int32", F16: "int16", BF16: "int16", F64: "int64"}


def interop(path):
    """Caller-owned device memory from torch: every dtype, forward and
    gradient, torch's current stream and a side stream, in place on a view
    with a storage offset, and an element-misaligned pointer refused with
    torch's context still usable afterwards."""
    torch = cuda_torch()
    if torch is None:
        return NOT_RUN
    lr = Lrelu(path)
    rng = np.random.default_rng(5)
    failures = 0

    def to_dev(bits, dtype):
        return torch.from_numpy(bits.view(getattr(np, TORCH_INT[dtype])).copy()).cuda()

    side = torch.cuda.Stream()
    for dtype in NAMES:
        t = BITS[dtype]
        for gradient in (False, True):
            for stream in (torch.cuda.current_stream(), side):
                for alpha in (0.01, 1e-40, -0.5):
                    n = 1_000_003
                    v = random_bits(dtype, n, rng)
                    s = random_bits(dtype, n, rng) if gradient else v
                    dv, ds = to_dev(v, dtype), to_dev(s, dtype)
                    out = torch.empty_like(dv)
                    stream.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(stream):
                        status = lr.call(dtype, n, dv.data_ptr(),
                                         (ds if gradient else dv).data_ptr(),
                                         out.data_ptr(), alpha, gradient,
                                         stream.cuda_stream)
                    stream.synchronize()
                    got = out.cpu().numpy().view(t)
                    bad = mismatches(dtype, v, s, got, reference(dtype, v, s, alpha)) \
                        if status == 0 else np.array([0])
                    if status != 0 or bad.size:
                        failures += 1
                        print(f"FAIL interop {NAMES[dtype]} gradient={gradient} alpha={alpha} "
                              f"status={status} {lr.error() if status else bad[:4]}")
            # In place on x[1:] (element-aligned, not 16-byte aligned).
            n = 300_001
            v = random_bits(dtype, n + 1, rng)
            dv = to_dev(v, dtype)
            view = dv[1:]
            status = lr.call(dtype, n, view.data_ptr(), view.data_ptr(), view.data_ptr(),
                             0.2, False)
            torch.cuda.synchronize()
            got = dv.cpu().numpy().view(t)
            bad = mismatches(dtype, v[1:], v[1:], got[1:], reference(dtype, v[1:], v[1:], 0.2))
            if status != 0 or bad.size or got[0] != v[0]:
                failures += 1
                print(f"FAIL interop in place {NAMES[dtype]} status={status}")
        # Half an element off: refused at planning, nothing launched.
        elem = np.dtype(t).itemsize
        raw = torch.zeros(4096, dtype=torch.uint8, device="cuda")
        status = lr.call(dtype, 1000, raw.data_ptr() + elem // 2, raw.data_ptr() + elem // 2,
                         raw.data_ptr() + 2048, 0.1, False)
        message = lr.error()
        if status != STATUS_UNSUPPORTED_VARIANT or "element-aligned" not in message:
            failures += 1
            print(f"FAIL misaligned {NAMES[dtype]}: status {status}: {message}")
        torch.cuda.synchronize()  # raises if the context were broken
        if int((raw + 1).sum().item()) != 4096:
            failures += 1
            print("FAIL torch's context after the refusal")
    print(f"interop: {failures} failures (torch {torch.__version__}, "
          f"{torch.cuda.get_device_name(0)})")
    return 1 if failures else 0


# -------------------------------------------------------------- contract

CUDA_VARIANTS = (None, b"vec4", b"scalar")


def contract(path, test_json):
    """The contract's cases (contract/v1/test.json) through liblrelu's CUDA
    backend on torch device memory: every variant (auto, vec4, scalar), in
    place and not, expected bits compared (any NaN where `anynan` says),
    expected refusals checked. `lrelu test --backend cuda` cannot do this:
    the CLI has host memory only."""
    import json
    torch = cuda_torch()
    if torch is None:
        return NOT_RUN
    lr = Lrelu(path)
    by_name = {"float32": F32, "float16": F16, "bfloat16": BF16, "float64": F64}
    cases = json.load(open(test_json))["cases"]
    failures = runs = 0
    for case in cases:
        dtype = by_name[case["dtype"]]
        t = BITS[dtype]
        alpha_attr = case["attributes"].get("alpha")
        alpha = 0.01 if alpha_attr is None else \
            float(np.array([int(alpha_attr["f64"], 16)], np.uint64).view(np.float64)[0])
        gradient = case["op"] == "backward"
        source = 1 if case["attributes"].get("grad_source") == "y" else 0
        ins = case["inputs"]
        v = np.array([int(h, 16) for h in (ins["dy"] if gradient else ins["x"])], t)
        s = np.array([int(h, 16) for h in (ins.get("y", ins.get("x")) if gradient
                                          else ins["x"])], t)
        out_name = "dx" if gradient else "y"
        for variant in CUDA_VARIANTS:
            for in_place in (False, True):
                runs += 1
                dv = torch.from_numpy(v.view(getattr(np, TORCH_INT[dtype])).copy()).cuda()
                ds = torch.from_numpy(s.view(getattr(np, TORCH_INT[dtype])).copy()).cuda()
                dout = dv if in_place else torch.empty_like(dv)
                n = v.size
                if n == 0:
                    continue
                lr.options.variant = variant
                shape = (ctypes.c_int64 * 1)(n)
                tv, ts, to = (Tensor(x.data_ptr(), dtype, 1, shape, None)
                              for x in (dv, ds, dout))
                if gradient:
                    status = lr.lib.lrelu_leaky_relu_backward(
                        ctypes.byref(tv), ctypes.byref(ts), alpha, source, ctypes.byref(to),
                        ctypes.byref(lr.options))
                else:
                    status = lr.lib.lrelu_leaky_relu(ctypes.byref(tv), alpha,
                                                     ctypes.byref(to), ctypes.byref(lr.options))
                torch.cuda.synchronize()
                if "expected_error" in case:
                    if status != 9:  # LRELU_STATUS_INVALID_ALPHA
                        failures += 1
                        if failures <= 20:
                            print(f"FAIL {case['id']}: status {status}, expected a refusal")
                    continue
                if status != 0:
                    failures += 1
                    if failures <= 20:
                        print(f"FAIL {case['id']} variant={variant} in_place={in_place}: "
                              f"status {status}: {lr.error()}")
                    continue
                got = dout.cpu().numpy().view(t)
                want = np.array([int(h, 16) for h in case["expected"][out_name]], t)
                ok = got == want
                for i in case.get("anynan", {}).get(out_name, []):
                    ok[i] = bool(is_nan(dtype, got[i:i + 1])[0])
                if not ok.all():
                    failures += 1
                    if failures <= 20:
                        print(f"FAIL {case['id']} variant={variant} in_place={in_place}: "
                              f"{int((~ok).sum())} elements differ")
    lr.options.variant = None
    print(f"contract on cuda: {len(cases)} cases x 6 configurations ({runs} runs), "
          f"{failures} failing")
    return 1 if failures else 0


# ----------------------------------------------------------------- bench

def triton_kernels():
    try:
        import triton
        import triton.language as tl
    except ImportError as e:
        print(f"NOT RUN: triton ({e})")
        return None

    @triton.jit
    def forward_kernel(x_ptr, out_ptr, n, slope, BLOCK: tl.constexpr):
        # Seed 003's kernel: tl.where(x >= 0, x, slope * x).
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, tl.where(x >= 0, x, slope * x), mask=mask)

    @triton.jit
    def gradient_kernel(dy_ptr, x_ptr, out_ptr, n, slope, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        dy = tl.load(dy_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, tl.where(x >= 0, dy, slope * dy), mask=mask)

    def forward(x, out, slope):
        n = x.numel()
        forward_kernel[(triton.cdiv(n, 1024),)](x, out, n, slope, BLOCK=1024)

    def gradient(dy, x, out, slope):
        n = x.numel()
        gradient_kernel[(triton.cdiv(n, 1024),)](dy, x, out, n, slope, BLOCK=1024)

    return forward, gradient


def bench(path, csv_path, min_log2, max_log2, reps):
    torch = cuda_torch()
    if torch is None:
        return NOT_RUN
    import torch.nn.functional as F
    lr = Lrelu(path)
    tri = triton_kernels()
    torch_dtypes = {F32: torch.float32, F16: torch.float16, BF16: torch.bfloat16,
                    F64: torch.float64}
    pool_bytes = 8 << 30  # per operand; consecutive calls rotate through it
    pools = [torch.empty(pool_bytes, dtype=torch.uint8, device="cuda") for _ in range(3)]
    rows = []
    failures = 0

    def timed(fn):
        fn(0)
        torch.cuda.synchronize()
        times = []
        for k in range(reps):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(k)
            stop.record()
            stop.synchronize()
            times.append(1000.0 * start.elapsed_time(stop))
        times.sort()
        return times[len(times) // 2], times[0]

    for dtype, tdtype in torch_dtypes.items():
        elem = torch.tensor([], dtype=tdtype).element_size()
        for p in pools[:2]:  # random values of both signs
            chunk = torch.randn(1 << 24, dtype=tdtype, device="cuda").view(torch.uint8)
            for at in range(0, pool_bytes, chunk.numel()):
                p[at:at + chunk.numel()].copy_(chunk[:pool_bytes - at])
        for gradient in (False, True):
            pass_name = "gradient" if gradient else "forward"
            streams = 3 if gradient else 2
            for log2 in range(min_log2, max_log2 + 1):
                n = 1 << log2
                nbytes = n * elem
                if nbytes > pool_bytes:
                    break
                slots = pool_bytes // nbytes

                def view(i, k):
                    at = (k % slots) * nbytes
                    return pools[i][at:at + nbytes].view(tdtype)

                moved = streams * nbytes
                results = []
                med, mn = timed(lambda k: view(2, k).copy_(view(0, k)))
                copy_gbps = 2 * nbytes / med / 1e3
                results.append(("torch_copy", "copy_", med, mn, copy_gbps))
                if gradient:
                    fn = lambda k: torch.ops.aten.leaky_relu_backward(
                        view(1, k), view(0, k), 0.01, False)
                else:
                    fn = lambda k: F.leaky_relu(view(0, k), 0.01)
                med, mn = timed(fn)
                results.append(("torch", "aten" if gradient else "F.leaky_relu", med, mn,
                                moved / med / 1e3))
                if tri is not None:
                    if gradient:
                        fn = lambda k: tri[1](view(1, k), view(0, k), view(2, k), 0.01)
                    else:
                        fn = lambda k: tri[0](view(0, k), view(2, k), 0.01)
                    med, mn = timed(fn)
                    results.append(("triton", "tl.where", med, mn, moved / med / 1e3))
                stream = torch.cuda.current_stream().cuda_stream
                status = []

                def library(k):
                    x = view(0, k)
                    status.append(lr.call(
                        dtype, n, (view(1, k) if gradient else x).data_ptr(), x.data_ptr(),
                        view(2, k).data_ptr(), 0.01, gradient, stream))
                med, mn = timed(library)
                if any(status):
                    failures += 1
                    print(f"FAIL library call: {lr.error()}")
                results.append(("lrelu_library_py", "auto", med, mn, moved / med / 1e3))
                for impl, variant, med, mn, gbps in results:
                    rows.append(f"{NAMES[dtype]},{pass_name},{log2},{n},{impl},{variant},"
                                f"{med:.2f},{mn:.2f},{gbps:.1f},{gbps / copy_gbps:.4f}")
            print(f"bench {NAMES[dtype]} done")
    with open(csv_path, "w") as f:
        f.write("dtype,pass,log2n,n,impl,variant,median_us,min_us,gbps,ratio_torch_copy\n")
        f.write("\n".join(rows) + "\n")
    if tri is None:
        print("triton: NOT RUN")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["self-test", "interop", "contract", "bench"])
    parser.add_argument("liblrelu")
    parser.add_argument("--csv")
    parser.add_argument("--min-log2", type=int, default=20)
    parser.add_argument("--max-log2", type=int, default=30)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    if args.mode == "self-test":
        self_test(args.liblrelu)
        return 0
    if args.mode == "interop":
        return interop(args.liblrelu)
    if args.mode == "contract":
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        return contract(args.liblrelu, os.path.join(root, "contract", "v1", "test.json"))
    return bench(args.liblrelu, args.csv, args.min_log2, args.max_log2, max(5, args.reps))


if __name__ == "__main__":
    sys.exit(main())
