"""The output of `lrelu apply` appears all at once or not at all: a signal
in the middle of writing leaves the old output (or, if the rename already
happened, the complete new one) and no temporary file."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from cli_util import assert_bit_exact, listing, npy_bytes

OLD = b"previous contents of y"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_mid_write_leaves_no_trace(lrelu_path, tmp_path, sig):
    x = np.linspace(-1, 1, 24 << 20, dtype=np.float32)  # 96 MiB: many chunks
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    src.write_bytes(npy_bytes(x))
    out.write_bytes(OLD)
    process = subprocess.Popen(
        [lrelu_path, "apply", src, "-o", out, "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait until the temporary file exists, then interrupt.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        if any(name.startswith(".y.npy.lrelu-") for name in os.listdir(tmp_path)):
            break
        time.sleep(0.0005)
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=30)
    if process.returncode == 0:
        pytest.skip("the tool finished before the signal arrived")
    assert process.returncode == -sig, stderr
    assert listing(tmp_path) == ["x.npy", "y.npy"]
    if out.read_bytes() != OLD:  # the signal came after the rename
        assert_bit_exact(x, np.load(out), "0.01")


def test_nohup_ignored_signal_stays_ignored(lrelu_path, tmp_path):
    """A SIGHUP ignored by the parent (nohup) does not stop the tool."""
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    src.write_bytes(npy_bytes(x))

    def ignore_hup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    result = subprocess.run([lrelu_path, "apply", src, "-o", out],
                            preexec_fn=ignore_hup, capture_output=True)
    assert result.returncode == 0
    assert_bit_exact(x, np.load(out), "0.01")
