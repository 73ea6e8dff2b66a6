"""`import lrelu` makes lrelu.torch available on first use without
importing torch before then (a fresh process: this one has torch loaded)."""
import subprocess
import sys

from lrelu_pytest_support import needs_torch

SCRIPT = """
import sys
import numpy as np
import lrelu
lrelu.leaky_relu(np.ones(3), 0.5)
assert "torch" not in sys.modules, "import lrelu imported torch"
layer = lrelu.torch.LeakyReLU(0.2)
assert "torch" in sys.modules
import lrelu.torch
assert lrelu.torch.LeakyReLU is type(layer)
from lrelu import torch as lrelu_torch
assert lrelu_torch is lrelu.torch
try:
    lrelu.no_such_thing
except AttributeError as e:
    assert "no_such_thing" in str(e)
else:
    raise AssertionError("no AttributeError")
print("ok")
"""

@needs_torch
def test_lrelu_torch_is_imported_on_first_use():
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"

def test_import_lrelu_alone_does_not_import_torch():
    run = subprocess.run(
        [sys.executable, "-c",
         "import sys, lrelu; assert 'torch' not in sys.modules"],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
