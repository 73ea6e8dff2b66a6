"""End-to-end tests of `lrelu apply`: outputs compared bit for bit with a
numpy oracle over dtypes, byte orders, memory orders, shapes, alphas,
threads, in-place, special values, format versions and streaming."""
import itertools
import os
import stat

import numpy as np
import pytest

from cli_util import ALPHAS, assert_bit_exact, listing, make_input, npy_bytes, run

DTYPES = ["f2", "f4", "f8"]
SHAPES = [(), (0, 3), (1,), (7,), (1001,), (3, 5, 7)]


def apply_and_check(lrelu, folder, x, alpha, *, threads, in_place, version=1,
                    fortran=False, extra=()):
    """Writes x, runs apply, checks y bit for bit and the output header."""
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    src = os.path.join(folder, "x.npy")
    data = npy_bytes(x, version=version, fortran=fortran)
    with open(src, "wb") as f:
        f.write(data)
    if in_place:
        args = ["apply", src, "--in-place"]
        out = src
    else:
        out = os.path.join(folder, "y.npy")
        args = ["apply", src, "-o", out]
    result = run(lrelu, *args, "--alpha", alpha, "--threads", threads, *extra)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""
    if not in_place:
        with open(src, "rb") as f:
            assert f.read() == data, "the input changed"
    with open(out, "rb") as f:
        assert np.lib.format.read_magic(f) == (version, 0)
        # numpy's own header reader (private, but the only one for 3.0).
        shape, fortran_order, dtype = np.lib.format._read_array_header(
            f, (version, 0))
        assert (shape, fortran_order, dtype) == (x.shape, fortran, x.dtype)
        assert f.tell() % 64 == 0  # data aligned as numpy writes it
    y = np.load(out)
    assert_bit_exact(x, y, alpha)
    assert listing(folder) == (["x.npy"] if in_place else ["x.npy", "y.npy"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("byte_order", ["<", ">"])
@pytest.mark.parametrize("fortran", [False, True])
def test_every_shape_and_alpha(lrelu_path, tmp_path, dtype, byte_order, fortran):
    """All shapes x all alphas; threads and in-place cycle through their
    values so that each combination of the outer parameters sees each."""
    cases = itertools.product(SHAPES, ALPHAS)
    for i, (shape, alpha) in enumerate(cases):
        x = make_input(byte_order + dtype, shape, seed=i)
        if fortran:
            x = np.asfortranarray(x)
        apply_and_check(lrelu_path, str(tmp_path), x, alpha,
                        threads=[1, 2, 3][i % 3], in_place=i % 2 == 1,
                        fortran=fortran)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("version", [1, 2, 3])
def test_format_versions(lrelu_path, tmp_path, dtype, version):
    x = make_input(">" + dtype if version == 2 else "<" + dtype, (4, 9), seed=5)
    apply_and_check(lrelu_path, str(tmp_path), x, "0.2", threads=2,
                    in_place=False, version=version, fortran=version == 3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("byte_order", ["<", ">"])
def test_special_values_all_alphas(lrelu_path, tmp_path, dtype, byte_order):
    """Every special value x every alpha, including alphas that make NaN
    (nan, and inf or 0 times -inf) and alphas that underflow."""
    from cli_util import special_values
    native = special_values(dtype)
    x = native.astype(native.dtype.newbyteorder(byte_order))
    for i, alpha in enumerate(ALPHAS + ["1e-40", "1e-320", "0x1p-149", "1e300",
                                        "-1e-3", "3.0000001"]):
        apply_and_check(lrelu_path, str(tmp_path), x, alpha, threads=1 + i % 3,
                        in_place=i % 2 == 0)


def test_threads_zero_and_every_variant_and_target(lrelu_path, tmp_path):
    import json
    info = json.loads(run(lrelu_path, "info", "--json").stdout)
    x = make_input(">f4", (2, 3, 1001), seed=9)
    for variant in ["auto", "reference", "contiguous", "strided"]:
        apply_and_check(lrelu_path, str(tmp_path), x, "0.2", threads=0,
                        in_place=False, extra=["--variant", variant])
    for target in info["cpu_targets_runnable"]:
        for dtype in DTYPES:
            x = make_input("<" + dtype, (1003,), seed=10)
            apply_and_check(lrelu_path, str(tmp_path), x, "-0.5", threads=2,
                            in_place=True, extra=["--cpu-target", target])


@pytest.mark.parametrize("dtype,byte_order,fortran,in_place", [
    ("f4", ">", False, False),   # 12 MB: two chunks of 8 MiB
    ("f2", "<", True, True),     # 10 MB
    ("f8", "<", False, False),   # 20 MB: three chunks
])
def test_multi_chunk_streaming(lrelu_path, tmp_path, dtype, byte_order,
                               fortran, in_place):
    """Inputs larger than the 8 MiB chunk, with an odd tail."""
    count = {"f2": 5_000_001, "f4": 3_000_001, "f8": 2_500_003}[dtype]
    x = make_input(byte_order + dtype, (count,), seed=3)
    if fortran:
        x = x.reshape((1, count), order="F")
    apply_and_check(lrelu_path, str(tmp_path), x, "0.01", threads=2,
                    in_place=in_place, fortran=fortran)


def test_reads_numpy_written_files(lrelu_path, tmp_path):
    """Files written by np.save itself (whatever header padding numpy uses)."""
    x = np.asfortranarray(make_input("<f4", (6, 7), seed=1))
    src, out = tmp_path / "np.npy", tmp_path / "out.npy"
    np.save(src, x)
    result = run(lrelu_path, "apply", src, "-o", out, "--alpha", "0.2")
    assert result.returncode == 0, result.stderr
    y = np.load(out)
    assert y.flags.f_contiguous and not y.flags.c_contiguous
    assert_bit_exact(x, y, "0.2")


def test_defaults_and_alpha_spellings(lrelu_path, tmp_path):
    x = np.array([-2, -1, 0, 1, 2], np.float32)
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(src, x)
    assert run(lrelu_path, "apply", src, "-o", out).returncode == 0
    assert_bit_exact(x, np.load(out), "0.01")
    for spelling, value in [("0x1.8p-3", "0.1875"), ("2E-1", "0.2"),
                            ("-INF", "-inf"), ("NaN", "nan"), ("1e999", "inf"),
                            (".5", "0.5")]:
        result = run(lrelu_path, "apply", src, "-o", out, "--alpha", spelling)
        assert result.returncode == 0, result.stderr
        assert_bit_exact(x, np.load(out), value)
    result = run(lrelu_path, "apply", src, "-o", out, "--alpha=-3")
    assert result.returncode == 0, result.stderr
    assert_bit_exact(x, np.load(out), "-3")


def test_in_place_through_symlink_keeps_the_link(lrelu_path, tmp_path):
    x = make_input("<f4", (100,), seed=2)
    real, link = tmp_path / "real.npy", tmp_path / "link.npy"
    np.save(real, x)
    os.symlink("real.npy", link)
    result = run(lrelu_path, "apply", link, "--in-place", "--alpha", "0.2")
    assert result.returncode == 0, result.stderr
    assert os.path.islink(link)
    assert_bit_exact(x, np.load(real), "0.2")
    assert listing(tmp_path) == ["link.npy", "real.npy"]


def test_output_through_symlink_replaces_the_target(lrelu_path, tmp_path):
    x = make_input("<f8", (10,), seed=2)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "old.npy", np.zeros(3))
    os.symlink("old.npy", tmp_path / "out.npy")
    result = run(lrelu_path, "apply", tmp_path / "x.npy", "-o",
                 tmp_path / "out.npy")
    assert result.returncode == 0, result.stderr
    assert os.path.islink(tmp_path / "out.npy")
    assert_bit_exact(x, np.load(tmp_path / "old.npy"), "0.01")


def test_permissions_kept_and_new_files_follow_umask(lrelu_path, tmp_path):
    x = make_input("<f4", (10,), seed=2)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", x)
    os.chmod(tmp_path / "y.npy", 0o640)
    assert run(lrelu_path, "apply", tmp_path / "x.npy", "-o",
               tmp_path / "y.npy").returncode == 0
    assert stat.S_IMODE(os.stat(tmp_path / "y.npy").st_mode) == 0o640
    old = os.umask(0o027)
    try:
        assert run(lrelu_path, "apply", tmp_path / "x.npy", "-o",
                   tmp_path / "z.npy").returncode == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "z.npy").st_mode) == 0o640


def test_output_in_another_folder_and_relative_paths(lrelu_path, tmp_path):
    x = make_input(">f2", (3, 4), seed=4)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    np.save(tmp_path / "in" / "x.npy", x)
    result = run(lrelu_path, "apply", "in/x.npy", "-o", "out/y.npy",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert_bit_exact(x, np.load(tmp_path / "out" / "y.npy"), "0.01")
    result = run(lrelu_path, "apply", "x.npy", "-o", "y2.npy",
                 cwd=tmp_path / "in")
    assert result.returncode == 0, result.stderr
    assert listing(tmp_path / "in") == ["x.npy", "y2.npy"]


def test_help_documents_file_names(lrelu_path):
    """`lrelu apply --help` says how to pass a dash-named file and what '-'
    means."""
    result = run(lrelu_path, "apply", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "lrelu apply -o OUT.npy -- -x.npy" in text
    assert "'-' is a file named '-', not stdin or stdout" in text
