"""Backends in `lrelu info` and `lrelu apply --backend`: OpenCL results are
bit-identical to the CPU's; CUDA is refused with one line."""
import json
import os

import numpy as np
import pytest

from cli_util import make_input, npy_bytes, run


def backends(lrelu):
    info = json.loads(run(lrelu, "info", "--json").stdout)
    return {b["name"]: b for b in info["backends"]}


def test_info_lists_every_backend(lrelu_path):
    found = backends(lrelu_path)
    assert list(found) == ["cpu", "cuda", "opencl"]
    assert found["cpu"]["available"] and found["cpu"]["built"]
    for b in found.values():
        assert set(b) == {"name", "built", "available", "device_count",
                          "devices", "unavailable_reason"}
        assert b["device_count"] == len(b["devices"])
        assert b["available"] == (b["device_count"] > 0)
        assert (b["unavailable_reason"] == "") == b["available"]
    text = run(lrelu_path, "info").stdout
    for b in found.values():
        line = next(l for l in text.splitlines()
                    if l.split()[:1] == [b["name"]])
        if b["available"]:
            assert b["devices"][0] in line
        else:
            assert b["unavailable_reason"] in line


def test_help_lists_the_new_commands(lrelu_path):
    result = run(lrelu_path)
    for word in ["bench", "emit", "test"]:
        assert word in result.stdout


@pytest.mark.parametrize("dtype", ["<f2", ">f4", "<f8"])
@pytest.mark.parametrize("variant", ["auto", "scalar", "vec4"])
def test_apply_opencl_matches_cpu(lrelu_path, tmp_path, dtype, variant):
    if not backends(lrelu_path)["opencl"]["available"]:
        pytest.skip("no OpenCL device")
    x = make_input(dtype, (3, 100003), seed=7)
    src = tmp_path / "x.npy"
    src.write_bytes(npy_bytes(x))
    # A cache of its own: PoCL prints the compiler's warnings only when it
    # builds, so a kernel cached by an earlier run would hide them.
    env = dict(os.environ, POCL_CACHE_DIR=str(tmp_path / "pocl"))
    for alpha in ["0.2", "-0.5", "nan"]:
        cpu = run(lrelu_path, "apply", src, "-o", tmp_path / "cpu.npy",
                  "--alpha", alpha)
        assert cpu.returncode == 0, cpu.stderr
        ocl = run(lrelu_path, "apply", src, "-o", tmp_path / "ocl.npy",
                  "--alpha", alpha, "--backend", "opencl", "--device", "0",
                  "--variant", variant, env=env)
        assert ocl.returncode == 0 and ocl.stderr == "", ocl.stderr
        expected = (tmp_path / "cpu.npy").read_bytes()
        got = (tmp_path / "ocl.npy").read_bytes()
        if alpha == "nan":  # products are "any NaN": compare as NaN there
            e, g = np.load(tmp_path / "cpu.npy"), np.load(tmp_path / "ocl.npy")
            assert np.array_equal(e, g, equal_nan=True)
        else:
            assert got == expected


def error_line(result, returncode):
    assert result.returncode == returncode, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lrelu: error: "), lines
    return lines[0]


def test_apply_cuda_is_refused(lrelu_path, tmp_path):
    src = tmp_path / "x.npy"
    src.write_bytes(npy_bytes(np.arange(-3, 4, dtype=np.float32)))
    cuda = backends(lrelu_path)["cuda"]
    result = run(lrelu_path, "apply", src, "-o", tmp_path / "y.npy",
                 "--backend", "cuda")
    if cuda["available"]:
        line = error_line(result, 2)
        assert "--backend cuda needs device memory; use the C API or Python" \
            in line
    else:
        line = error_line(result, 1)
        assert cuda["unavailable_reason"] in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


@pytest.mark.parametrize("args,returncode", [
    (["--backend", "gpu"], 2), (["--backend", ""], 2),
    (["--device", "x"], 2), (["--device", "-1"], 2),
    (["--backend", "opencl", "--device", "99"], 1),
    (["--backend", "opencl", "--variant", "contiguous"], 1),
])
def test_apply_bad_backend_options(lrelu_path, tmp_path, args, returncode):
    if "opencl" in args and not backends(lrelu_path)["opencl"]["available"]:
        pytest.skip("no OpenCL device")
    src = tmp_path / "x.npy"
    src.write_bytes(npy_bytes(np.arange(-3, 4, dtype=np.float32)))
    error_line(run(lrelu_path, "apply", src, "-o", tmp_path / "y.npy", *args),
               returncode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
