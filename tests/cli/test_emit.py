"""`lrelu emit`: kernel source for WGSL, OpenCL and CUDA."""
import pytest

from cli_util import run

SHORT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16",
         "float64": "f64"}


@pytest.mark.parametrize("target", ["opencl", "cuda"])
@pytest.mark.parametrize("dtype", list(SHORT))
@pytest.mark.parametrize("variant", ["scalar", "vec4"])
def test_opencl_and_cuda(lrelu_path, target, dtype, variant):
    result = run(lrelu_path, "emit", "--target", target, "--dtype", dtype,
                 "--variant", variant)
    assert result.returncode == 0 and result.stderr == ""
    name = f"lrelu_{SHORT[dtype]}_{variant}"
    assert name + "(" in result.stdout
    if target == "cuda":
        assert f'extern "C" __global__ void {name}(' in result.stdout
    else:
        assert f"kernel void {name}(" in result.stdout


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("variant", ["scalar", "vec4"])
def test_wgsl(lrelu_path, dtype, variant):
    result = run(lrelu_path, "emit", "--target", "wgsl", "--dtype", dtype,
                 "--variant", variant, "--workgroup-size", "64")
    assert result.returncode == 0 and result.stderr == ""
    assert "fn forward(" in result.stdout and "fn backward(" in result.stdout
    assert "@workgroup_size(64)" in result.stdout


@pytest.mark.parametrize("target", ["opencl", "cuda", "wgsl"])
@pytest.mark.parametrize("dtype", list(SHORT))
def test_prelu(lrelu_path, target, dtype):
    """--variant prelu: PReLU's forward kernel (wgsl: float32, float16)."""
    result = run(lrelu_path, "emit", "--target", target, "--dtype", dtype,
                 "--variant", "prelu")
    if target == "wgsl" and dtype in ("bfloat16", "float64"):
        assert result.returncode != 0 and "float32 and float16" in result.stderr
        return
    assert result.returncode == 0 and result.stderr == ""
    if target == "wgsl":
        assert "fn forward(" in result.stdout and "fn prelu_word(" in result.stdout
    else:
        assert f"lrelu_prelu_{SHORT[dtype]}(" in result.stdout


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_prelu_vec4(lrelu_path, dtype):
    """--variant prelu-vec4: the four-element WGSL template; OpenCL and CUDA
    refuse it and name the variant they take."""
    result = run(lrelu_path, "emit", "--target", "wgsl", "--dtype", dtype,
                 "--variant", "prelu-vec4")
    assert result.returncode == 0 and result.stderr == ""
    word = "vec4<u32>" if dtype == "float32" else "vec2<u32>"
    assert f"fn prelu_word4(w: {word}" in result.stdout
    assert "fn prelu_word(" not in result.stdout
    for target in ("opencl", "cuda"):
        result = run(lrelu_path, "emit", "--target", target, "--dtype", dtype,
                     "--variant", "prelu-vec4")
        assert result.returncode == 1 and "takes variant prelu" in result.stderr
        assert result.stdout == ""


def test_defaults_and_output_file(lrelu_path, tmp_path):
    stdout = run(lrelu_path, "emit", "--target", "opencl").stdout
    assert "lrelu_f32_vec4(" in stdout  # float32, vec4
    out = tmp_path / "k.cl"
    result = run(lrelu_path, "emit", "--target", "opencl", "-o", out)
    assert result.returncode == 0 and result.stdout == ""
    assert out.read_text() == stdout


@pytest.mark.parametrize("args,returncode", [
    (["--target", "metal"], 2), ([], 2), (["--target", "wgsl", "--dtype",
                                           "int8"], 2),
    (["--target", "wgsl", "--variant", "vec8"], 2),
    (["--target", "wgsl", "--dtype", "float64"], 1),
    (["--target", "wgsl", "--workgroup-size", "1000"], 1),
    (["--target", "cuda", "-o", "/nonexistent/k.cu"], 1),
])
def test_errors(lrelu_path, args, returncode):
    result = run(lrelu_path, "emit", *args)
    assert result.returncode == returncode
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lrelu: error: ")
