"""Helpers for the CLI end-to-end tests: running the tool, writing .npy files
by hand (every format version), the numpy oracle and bit-exact comparison."""
import os
import subprocess
import sys

import numpy as np

# The one Python dtype table and oracle (contract/bits.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "contract"))
import bits  # noqa: E402  pylint: disable=wrong-import-position

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


# Storage size -> the dtype name the tool's float files hold.
DTYPE_OF_SIZE = {2: "float16", 4: "float32", 8: "float64"}


def parse_alpha(alpha):
    """The float an --alpha text means (decimal or C99 hex)."""
    return float.fromhex(alpha) if "0x" in alpha.lower() else float(alpha)


def oracle(x, alpha):
    """Expected bits of y and the mask of elements where the multiply itself
    produced a NaN (there any NaN is right). Pass-through elements keep the
    raw input bits."""
    name = DTYPE_OF_SIZE[x.dtype.itemsize]
    return bits.forward(native_bits(x), parse_alpha(alpha), name)


def assert_bit_exact(x, y, alpha):
    """y (as loaded from the tool's output) is exactly LeakyReLU(x)."""
    assert y.shape == x.shape and y.dtype == x.dtype
    name = DTYPE_OF_SIZE[x.dtype.itemsize]
    x_bits = native_bits(x)
    expected, _ = oracle(x, alpha)
    got = native_bits(y)
    wrong = bits.mismatches(x_bits, expected, got, name)
    if wrong.size:
        i = np.unravel_index(wrong[0], x.shape)
        raise AssertionError(
            f"alpha {alpha}, dtype {x.dtype.str}, first mismatch at {i}: "
            f"x bits {x_bits[i]:#x} -> y bits {got[i]:#x}, "
            f"expected {expected[i]:#x} ({wrong.size} mismatches)")


def special_values(dtype):
    """Special bit patterns of a float dtype (native), as an array."""
    native = np.dtype(dtype).newbyteorder("=")
    return bits.special_bits(DTYPE_OF_SIZE[native.itemsize]).view(native)


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
