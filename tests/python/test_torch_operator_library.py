"""Which kernels torch.ops.lrelu runs: the compiled operator library
(lrelu/_torch_ops.so) where it was built against this process's libtorch,
the Python kernels otherwise, and never the library beside another
libtorch."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

from lrelu_pytest_support import needs_torch

torch = pytest.importorskip("torch")
pytestmark = needs_torch

import lrelu.torch as lrelu_torch  # noqa: E402

PACKAGE = pathlib.Path(lrelu_torch.__file__).resolve().parent
LIBRARY = PACKAGE / "_torch_ops.so"


def test_operator_kernels_as_built():
    # ctest says which kernels the build must give (tests/python/
    # CMakeLists.txt), so that a library that fails to load cannot pass
    # unnoticed on the Python kernels.
    want = os.environ.get("LRELU_TEST_TORCH_KERNELS")
    if want is None:
        want = lrelu_torch.operator_kernels
        if want == "compiled":
            assert LIBRARY.exists()
    assert lrelu_torch.operator_kernels == want
    if want == "compiled":
        assert str(LIBRARY) in {line.split(None, 5)[5].strip() for line in
                                open("/proc/self/maps")
                                if len(line.split(None, 5)) == 6}


def run_with_package(package, script, **env):
    environment = dict(os.environ, PYTHONPATH=str(package.parent))
    environment.pop("LRELU_TORCH_OPS", None)
    environment.update(env)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(script)],
                         capture_output=True, text=True, timeout=120,
                         env=environment, cwd=str(package.parent))
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


CHECK = """
    import torch
    import lrelu.torch
    x = torch.tensor([-2.0, 3.0])
    assert torch.ops.lrelu.leaky_relu(x, 0.5).tolist() == [-1.0, 3.0]
    print(lrelu.torch.operator_kernels)
"""


@pytest.mark.skipif(not LIBRARY.exists(),
                    reason="the compiled torch operators were not built")
def test_library_built_for_another_libtorch_is_not_loaded(tmp_path):
    copy = tmp_path / "lrelu"
    shutil.copytree(PACKAGE, copy)
    (copy / "_torch_ops.libtorch").write_text(
        "/nonexistent/libtorch_cpu.so.0\n")
    assert run_with_package(copy, CHECK) == "python"


@pytest.mark.skipif(not LIBRARY.exists(),
                    reason="the compiled torch operators were not built")
def test_python_kernels_on_request():
    assert run_with_package(PACKAGE, CHECK, LRELU_TORCH_OPS="0") == "python"


@pytest.mark.skipif(lrelu_torch.operator_kernels != "compiled",
                    reason="the out= overload is the compiled library's")
def test_compiled_out_overload():
    out_op = torch.ops.lrelu.leaky_relu.out
    x = torch.tensor([-2.0, 3.0, -0.0])
    y = torch.empty(3)
    version = y._version
    assert out_op(x, 0.5, out=y) is y
    assert y.tolist() == [-1.0, 3.0, -0.0] and y._version == version + 1
    assert torch.equal(torch.signbit(y), torch.signbit(x))
    with pytest.raises(TypeError, match="torch.float64"):
        out_op(x, 0.5, out=torch.empty(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="shape"):
        out_op(x, 0.5, out=torch.empty(4))
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        out_op(x.clone().requires_grad_(), 0.5, out=y)
    b = torch.arange(-4.0, 4.0)
    before = b.clone()
    with pytest.raises(ValueError, match="OVERLAP"):
        out_op(b[1:], 0.5, out=b[:-1])
    assert torch.equal(b, before)  # refused before anything was written
    with pytest.raises(TypeError, match="torch.int32"):
        torch.ops.lrelu.leaky_relu(torch.ones(2, dtype=torch.int32), 0.5)
