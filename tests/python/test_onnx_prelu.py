"""ONNX conformance for PReLU (contract ai.onnx.PRelu v1): regenerates ONNX's
PRelu node tests with the installed onnx (the venv's pin; the _expanded forms
too when PRelu-16 has a function body) and checks that lrelu.prelu gives
their expected outputs bit for bit (float32: one multiply, as ONNX's
reference np.where(x < 0, x * slope, x))."""
import glob
import os
import subprocess
import sys

import numpy as np
import pytest

import lrelu

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # pylint: disable=wrong-import-position

REGENERATE = r"""
import os, sys, numpy as np
import onnx
if tuple(int(v) for v in onnx.__version__.split(".")[:2]) < (1, 14):
  np.float = float; np.int = int; np.bool = bool; np.object = object
from onnx.backend.test import cmd_tools
os.makedirs(os.path.join(sys.argv[1], "node"), exist_ok=True)
sys.argv = ["cmd_tools", "generate-data", "-o", sys.argv[1], "-t", "PRelu"]
cmd_tools.main()
"""


@pytest.fixture(scope="module")
def node_tests(tmp_path_factory):
    out = tmp_path_factory.mktemp("onnx_prelu")
    # Only onnx runs here: without the sanitizer run's LD_PRELOAD (ASan's
    # allocator) it takes seconds instead of half a minute.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    run = subprocess.run([sys.executable, "-c", REGENERATE, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env, check=False)
    assert run.returncode == 0, run.stdout.decode(errors="replace")[-4000:]
    dirs = sorted(glob.glob(os.path.join(str(out), "node", "test_prelu*")))
    return {os.path.basename(d): d for d in dirs}


def test_the_base_tests_exist(node_tests):
    assert {"test_prelu_example", "test_prelu_broadcast"} <= set(node_tests)


def test_lrelu_prelu_gives_onnx_outputs_bit_for_bit(node_tests):
    checked = 0
    for name, directory in sorted(node_tests.items()):
        for data_set in sorted(glob.glob(os.path.join(directory,
                                                      "test_data_set_*"))):
            def load(f):
                return numpy_helper.to_array(
                    onnx.load_tensor(os.path.join(data_set, f)))
            x, slope, y = load("input_0.pb"), load("input_1.pb"), load(
                "output_0.pb")
            assert x.dtype == slope.dtype == y.dtype == np.float32, name
            got = lrelu.prelu(x, slope)
            np.testing.assert_array_equal(got.view(np.uint32),
                                          y.view(np.uint32), err_msg=name)
            # The gradient's dx is LeakyReLU's rule per element too.
            dx, dalpha = lrelu.prelu_backward(np.ones_like(x), x, slope)
            np.testing.assert_array_equal(
                dx, np.where(x < 0, slope * np.float32(1), np.float32(1)))
            assert dalpha.shape == slope.shape
            checked += 1
    assert checked >= 2
