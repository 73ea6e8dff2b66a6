#!/usr/bin/env python3
"""The CUDA code lrelu ships, inspected without a GPU, and run with one.

  cuda_code_check.py compile --liblrelu SO --nvrtc SO [--cuobjdump EXE]
                             [--objects OBJ ...]
      Compiles lrelu_kernel_source("cuda", every dtype, scalar/vec4) with
      NVRTC under the flags a user may pass (none, --use_fast_math,
      -ftz=true -prec-div=false -fmad=true, both) and checks the PTX: the
      product is mul.rn.f32 / mul.rn.f64, nothing has .ftz, no fma, no
      approximation. With cuobjdump (and nvdisasm beside it), the sm_90
      SASS of those and of the nvcc-built objects (--objects: the backend's
      backend.cu.o, the variant benchmark) has no FMUL.FTZ, no FFMA/DFMA
      and one FMUL or DMUL per kernel.
  cuda_code_check.py run --liblrelu SO
      On a GPU: the same emitted source compiled by NVRTC (CuPy) under each
      flag set, run on random bits full of specials and a subnormal alpha,
      compared bit for bit with the NumPy statement of the contract
      (gpu_check.reference). Exit 3 = not run (no CuPy or no GPU).
NVRTC compiles without a GPU; that is why the first half runs in CI.
"""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

DTYPES = {1: "f32", 2: "f16", 3: "bf16", 4: "f64"}
FLAG_SETS = [
    [],
    ["--use_fast_math"],
    ["-ftz=true", "-prec-div=false", "-prec-sqrt=false", "-fmad=true"],
    ["--use_fast_math", "-ftz=true", "-fmad=true"],
]
NOT_RUN = 3


def kernel_source(lib, dtype, variant):
    length = ctypes.c_size_t(0)
    status = lib.lrelu_kernel_source(b"cuda", dtype, variant.encode(), 0, None,
                                     0, ctypes.byref(length))
    assert status == 0, status
    buf = ctypes.create_string_buffer(length.value + 1)
    status = lib.lrelu_kernel_source(b"cuda", dtype, variant.encode(), 0, buf,
                                     length.value + 1, ctypes.byref(length))
    assert status == 0, status
    return buf.value


class Nvrtc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"{what}: {self.lib.nvrtcGetErrorString(status).decode()}")

    def compile(self, source, options, cubin):
        """Returns (PTX text, cubin bytes or None)."""
        prog = ctypes.c_void_p()
        self.check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source, b"lrelu.cu",
                                               0, None, None), "nvrtcCreateProgram")
        try:
            args = [o.encode() for o in options]
            argv = (ctypes.c_char_p * len(args))(*args)
            status = self.lib.nvrtcCompileProgram(prog, len(args), argv)
            if status != 0:
                size = ctypes.c_size_t()
                self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
                log = ctypes.create_string_buffer(size.value)
                self.lib.nvrtcGetProgramLog(prog, log)
                raise RuntimeError(f"nvrtc {options}: {log.value.decode()}")
            size = ctypes.c_size_t()
            self.check(self.lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "PTX size")
            ptx = ctypes.create_string_buffer(size.value)
            self.check(self.lib.nvrtcGetPTX(prog, ptx), "PTX")
            binary = None
            if cubin:
                self.check(self.lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "CUBIN size")
                data = ctypes.create_string_buffer(size.value)
                self.check(self.lib.nvrtcGetCUBIN(prog, data), "CUBIN")
                binary = data.raw
            return ptx.value.decode(), binary
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


def ptx_problems(ptx, dtype):
    """What in the PTX could change a bit of the result."""
    problems = []
    code = "\n".join(line for line in ptx.splitlines() if not line.strip().startswith("//"))
    for bad in (".ftz", "fma.", ".approx", "mad.f", "mad.rn"):
        if bad in code:
            problems.append(f"has {bad}")
    want = "mul.rn.f64" if dtype == 4 else "mul.rn.f32"
    if want not in code:
        problems.append(f"no {want}")
    for m in re.finditer(r"\bmul(\.[a-z0-9]+)*\.f(32|64)\b", code):
        if not m.group(0).startswith("mul.rn."):
            problems.append(f"float multiply without .rn: {m.group(0)}")
    return problems


def sass_functions(cuobjdump, path):
    """{function name: SASS text} of every sm_90 kernel in an object."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + env.get("PATH", "")
    out = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True,
                         env=env, check=True).stdout
    functions = {}
    arch = None
    name = None
    for line in out.splitlines():
        m = re.search(r"arch = (sm_\d+)", line)
        if m:
            arch = m.group(1)
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = f"{m.group(1)} [{arch or 'cubin'}]"
            functions[name] = ""
        elif name is not None:
            functions[name] += line + "\n"
    return functions


# ptxas materialises constants with "HFMA2.MMA Rd, -RZ, RZ, imm, imm"
# (-0 * 0 + imm: a move on the MMA pipe, no arithmetic on data); the PReLU
# kernels' index code has such moves. Every other HFMA2 stays forbidden.
CONSTANT_MOVE = re.compile(r"HFMA2\.MMA R\d+, -RZ, RZ, [-0-9.e+]+, [-0-9.e+]+ ;")


def sass_problems(text):
    problems = []
    text = CONSTANT_MOVE.sub("constant-move ;", text)
    for bad in (r"\bFMUL\.FTZ", r"\.FTZ\b", r"\bFFMA", r"\bDFMA", r"\bHFMA2", r"\bMUFU"):
        if re.search(bad, text):
            problems.append(f"has {bad.strip(chr(92) + 'b')}")
    if not re.search(r"\b(FMUL|DMUL)\b", text):
        problems.append("no FMUL/DMUL")
    return problems


def compile_check(args):
    lib = ctypes.CDLL(args.liblrelu)
    nvrtc = Nvrtc(args.nvrtc)
    cuobjdump = args.cuobjdump if args.cuobjdump and os.path.exists(args.cuobjdump) else None
    failures = 0
    checked_sass = 0
    tmp = tempfile.mkdtemp(prefix="lrelu-nvrtc-")
    try:
        for dtype, tag in DTYPES.items():
            for variant in ("scalar", "vec4", "prelu"):
                source = kernel_source(lib, dtype, variant)
                for flags in FLAG_SETS:
                    ptx, _ = nvrtc.compile(source, ["-arch=compute_90"] + flags, False)
                    problems = ptx_problems(ptx, dtype)
                    # SASS under the harshest flags only (CI time); the PTX
                    # check above covers every flag set.
                    if cuobjdump and flags is FLAG_SETS[-1]:
                        _, cubin = nvrtc.compile(source, ["-arch=sm_90"] + flags, True)
                        path = os.path.join(tmp, f"{tag}_{variant}.cubin")
                        with open(path, "wb") as f:
                            f.write(cubin)
                        for fn, text in sass_functions(cuobjdump, path).items():
                            problems += [f"SASS {fn}: {p}" for p in sass_problems(text)]
                            checked_sass += 1
                    label = f"nvrtc {tag} {variant} {' '.join(flags) or '(no flags)'}"
                    if problems:
                        failures += 1
                        print(f"FAIL {label}: {'; '.join(problems)}")
                    else:
                        print(f"ok   {label}")
        for obj in args.objects or []:
            if not cuobjdump:
                break
            functions = sass_functions(cuobjdump, obj)
            kernels = {k: v for k, v in functions.items() if "Kernel" in k or "lrelu" in k}
            if not kernels:
                failures += 1
                print(f"FAIL {obj}: no kernels found in the SASS")
            for fn, text in kernels.items():
                checked_sass += 1
                if "CopyKernel" in fn:  # the benchmark's copy: no arithmetic
                    continue
                problems = sass_problems(text)
                if problems:
                    failures += 1
                    print(f"FAIL SASS {os.path.basename(obj)} {fn}: {'; '.join(problems)}")
            print(f"ok   SASS of {len(kernels)} kernels in {os.path.basename(obj)}"
                  if not failures else "")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not cuobjdump:
        print("SASS: not checked (no cuobjdump; pip install nvidia-cuda-cuobjdump "
              "nvidia-cuda-nvdisasm)")
    print(f"cuda_code_check: {len(DTYPES) * 3 * len(FLAG_SETS)} NVRTC builds, "
          f"{checked_sass} SASS functions, {failures} failing")
    return 1 if failures else 0


def run_check(args):
    """On a GPU: NVRTC builds under every flag set, run and compared."""
    try:
        import cupy as cp
        import numpy as np
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as e:  # noqa: BLE001 - any import or driver failure
        print(f"NOT RUN: CuPy with a CUDA device is not available ({e})")
        return NOT_RUN
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gpu_check as g
    lib = ctypes.CDLL(args.liblrelu)
    rng = np.random.default_rng(7)
    failures = 0
    for dtype, tag in DTYPES.items():
        bits = g.BITS[dtype]
        elem = np.dtype(bits).itemsize
        for variant in ("scalar", "vec4"):
            source = kernel_source(lib, dtype, variant).decode()
            for flags in FLAG_SETS:
                module = cp.RawModule(code=source, options=tuple(flags), backend="nvrtc")
                kernel = module.get_function(f"lrelu_{tag}_{variant}")
                for alpha in (1e-40, 0.01, -0.5, 3e38):
                    n = 4099
                    v = g.random_bits(dtype, n, rng)
                    s = g.random_bits(dtype, n, rng)
                    dv, ds = cp.asarray(v), cp.asarray(s)
                    dout = cp.zeros_like(dv)
                    head = 0
                    if variant == "vec4":
                        head = (16 - dout.data.ptr % 16) % 16 // elem
                    a = np.float64(alpha) if dtype == 4 else np.float32(alpha)
                    kernel((64,), (256,), (dv, ds, dout, np.int64(n), np.int64(head), a))
                    got = cp.asnumpy(dout)
                    bad = g.mismatches(dtype, v, s, got, g.reference(dtype, v, s, alpha))
                    if bad.size:
                        failures += 1
                        print(f"FAIL nvrtc-run {tag} {variant} {flags} alpha={alpha}: "
                              f"{bad.size} elements differ, first {bad[0]}")
                print(f"ok   nvrtc-run {tag} {variant} {' '.join(flags) or '(no flags)'}")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["compile", "run"])
    parser.add_argument("--liblrelu", required=True)
    parser.add_argument("--nvrtc")
    parser.add_argument("--cuobjdump")
    parser.add_argument("--objects", nargs="*")
    args = parser.parse_args()
    if args.mode == "compile":
        return compile_check(args)
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main())
