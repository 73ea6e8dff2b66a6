"""Helpers for the CLI end-to-end tests: running the tool, writing .npy files
by hand (every format version), the numpy oracle and bit-exact comparison."""
import os
import subprocess

import numpy as np

# Contract v1 alphas worth testing, as given on the command line.
ALPHAS = ["0.01", "0.2", "0", "-0.5", "1.5", "inf", "-inf", "nan", "-0"]
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def run(lrelu, *args, timeout=60, **kwargs):
    """Runs the tool; returns the CompletedProcess (text output)."""
    return subprocess.run([lrelu, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, **kwargs)


def npy_bytes(x, version=1, fortran=None, descr=None, dict_text=None):
    """A complete .npy file for array `x`, header written by hand.

    fortran: write the data in Fortran order (default: C order).
    descr: override the descr string (default: x.dtype.str).
    dict_text: override the whole header dict text.
    """
    fortran = bool(fortran)
    if dict_text is None:
        descr = descr or x.dtype.str
        shape = repr(tuple(int(d) for d in x.shape))
        dict_text = (f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
                     f"'shape': {shape}, }}")
    header = dict_text.encode("utf-8" if version == 3 else "latin1")
    length_bytes = 2 if version == 1 else 4
    prefix = 6 + 2 + length_bytes
    pad = 64 - (prefix + len(header) + 1) % 64
    header += b" " * pad + b"\n"
    out = b"\x93NUMPY" + bytes([version, 0])
    out += len(header).to_bytes(length_bytes, "little") + header
    return out + x.tobytes(order="F" if fortran else "C")


def native_bits(x):
    """The raw bits of every element of `x` (any byte order) as native
    unsigned integers, in x's shape."""
    size = x.dtype.itemsize
    stored = np.dtype(UINT[size]).newbyteorder(x.dtype.byteorder)
    raw = np.frombuffer(x.tobytes(order="C"), dtype=stored)
    return raw.astype(UINT[size]).reshape(x.shape)


def oracle(x, alpha):
    """Expected bits of y and the mask of elements where the multiply itself
    produced a NaN (there any NaN is right). Pass-through elements keep the
    raw input bits."""
    size = x.dtype.itemsize
    native = native_bits(x).view({2: np.float16, 4: np.float32,
                                  8: np.float64}[size])
    a = float.fromhex(alpha) if "0x" in alpha.lower() else float(alpha)
    with np.errstate(all="ignore"):
        if size == 8:
            product = np.float64(a) * native
        elif size == 4:
            product = np.float32(a) * native
        else:  # float16: compute in float32, round once (RNE) to float16
            product = (native.astype(np.float32) * np.float32(a)).astype(np.float16)
        negative = native < 0
    expected = np.where(negative, product.view(UINT[size]), native.view(UINT[size]))
    return expected, negative & np.isnan(product)


def assert_bit_exact(x, y, alpha):
    """y (as loaded from the tool's output) is exactly LeakyReLU(x)."""
    assert y.shape == x.shape and y.dtype == x.dtype
    expected, produced_nan = oracle(x, alpha)
    got = native_bits(y)
    size = x.dtype.itemsize
    got_float = got.view({2: np.float16, 4: np.float32, 8: np.float64}[size])
    ok = (got == expected) | (produced_nan & np.isnan(got_float))
    if not ok.all():
        bad = np.argwhere(~ok)[0]
        i = tuple(bad)
        raise AssertionError(
            f"alpha {alpha}, dtype {x.dtype.str}, first mismatch at {i}: "
            f"x bits {native_bits(x)[i]:#x} -> y bits {got[i]:#x}, "
            f"expected {expected[i]:#x} ({(~ok).sum()} mismatches)")


def special_values(dtype):
    """Special bit patterns of a float dtype (native), as an array."""
    size = np.dtype(dtype).itemsize
    if size == 2:
        bits = [0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01,
                0xfc01, 0x7d23, 0xfe55, 0x0001, 0x8001, 0x83ff, 0x0400,
                0x8400, 0x7bff, 0xfbff, 0xbc00, 0x3c00, 0xb800]
    elif size == 4:
        bits = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                0xffc00000, 0x7f800001, 0xff800001, 0x7fc12345, 0xffa5a5a5,
                0x00000001, 0x80000001, 0x807fffff, 0x00800000, 0x80800000,
                0x7f7fffff, 0xff7fffff, 0xbf800000, 0x3f800000, 0xc0400000]
    else:
        bits = [0x0, 0x8000000000000000, 0x7ff0000000000000,
                0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
                0x7ff0000000000001, 0xfff0000000000001, 0x7ff8123456789abc,
                0x0000000000000001, 0x8000000000000001, 0x800fffffffffffff,
                0x0010000000000000, 0x8010000000000000, 0x7fefffffffffffff,
                0xffefffffffffffff, 0xbff0000000000000, 0x3ff0000000000000]
    return np.array(bits, dtype=UINT[size]).view(np.dtype(dtype).newbyteorder("="))


def make_input(dtype, shape, seed=0):
    """Values of `dtype` (any byte order) and `shape`: special values first,
    then a random mix of magnitudes and signs, including subnormals."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape, dtype=np.int64))
    native = np.dtype(dtype).newbyteorder("=")
    # Exponents spanning subnormals to near-overflow of each type.
    low, high = {2: (-26, 16), 4: (-152, 127), 8: (-1076, 1023)}[native.itemsize]
    with np.errstate(all="ignore"):
        values = (rng.standard_normal(count) *
                  np.exp2(rng.integers(low, high, count).astype(np.float64))
                  ).astype(native)
    specials = special_values(native)
    n = min(count, len(specials))
    values[:n] = specials[:n]
    rng.shuffle(values)
    # Same bits in the requested byte order (uint conversion keeps values).
    stored = np.dtype(UINT[native.itemsize]).newbyteorder(
        np.dtype(dtype).byteorder)
    return values.view(UINT[native.itemsize]).astype(stored).view(
        dtype).reshape(shape)


def listing(folder):
    return sorted(os.listdir(folder))


def sparse_npy(path, elements, dtype="<f4"):
    """A float .npy file of `elements` zeros whose data is a hole: large
    inputs cost no disk space and read fast."""
    header = npy_bytes(np.zeros(0, np.float32), dict_text=(
        f"{{'descr': '{dtype}', 'fortran_order': False, "
        f"'shape': ({elements},), }}"))
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(len(header) + elements * np.dtype(dtype).itemsize)


def temp_files(folder, out_name="y.npy"):
    """The temporary files of `lrelu apply ... -o folder/out_name`."""
    return [n for n in os.listdir(folder) if n.startswith(f".{out_name}.lrelu-")]


def wait_for_temp(folder, process, out_name="y.npy", timeout=30):
    """Waits until the tool has created its temporary file in `folder` (or
    has ended); returns whether the file appeared."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if temp_files(folder, out_name):
            return True
        time.sleep(0.001)
    return False
