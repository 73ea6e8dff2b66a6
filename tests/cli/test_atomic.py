"""The output of `lrelu apply` appears all at once or not at all: any signal
that ends the tool, at any moment, leaves the old output (or, if the rename
already happened, the complete new one) and no temporary file, and the tool
ends promptly whatever it was doing. Every wait is bounded (a hang fails the
test); no test measures time."""
import os
import resource
import signal
import subprocess
import time

import numpy as np
import pytest

from cli_util import (assert_bit_exact, listing, npy_bytes, sparse_npy,
                      temp_files, wait_for_temp)

OLD = b"previous contents of y"
# 1 GiB of float32 zeros, a hole on disk: long enough to be interrupted.
BIG = 256 << 20
HANG_GUARD = 60  # seconds; only a hang comes near it

FATAL = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
         signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGPIPE,
         signal.SIGXCPU, signal.SIGVTALRM, signal.SIGPROF, signal.SIGPWR,
         signal.SIGSYS, signal.SIGRTMIN, signal.SIGRTMAX]


def no_core_dump():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start(lrelu_path, src, out, *extra, preexec_fn=no_core_dump):
    return subprocess.Popen([lrelu_path, "apply", src, "-o", out, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=preexec_fn)


def finish(process):
    """Waits for the tool (bounded); returns stderr."""
    try:
        _, stderr = process.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("lrelu apply did not end")
    return stderr.decode()


def check_outcome(process, sig, folder, x_elements=BIG):
    stderr = finish(process)
    assert listing(folder) == ["x.npy", "y.npy"], stderr
    out = folder / "y.npy"
    if process.returncode == 0:  # the signal came after the rename
        y = np.load(out, mmap_mode="r")
        assert y.shape == (x_elements,)
    else:
        assert process.returncode == -sig, stderr
        assert out.read_bytes() == OLD


@pytest.mark.parametrize("sig", FATAL, ids=lambda s: s.name)
def test_signal_mid_write_leaves_no_trace(lrelu_path, tmp_path, sig):
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    sparse_npy(src, BIG)
    out.write_bytes(OLD)
    process = start(lrelu_path, src, out, "--threads", "1")
    wait_for_temp(tmp_path, process)
    process.send_signal(sig)
    check_outcome(process, sig, tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT],
                         ids=lambda s: s.name)
@pytest.mark.parametrize("phase", ["starting", "writing", "later",
                                   "computing"])
def test_terminal_signals_in_every_phase(lrelu_path, tmp_path, sig, phase):
    """SIGTERM and SIGINT end the tool while it loads, opens and reads the
    header, streams (read, compute, write) and computes with several
    threads on the slow reference variant."""
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    sparse_npy(src, BIG)
    out.write_bytes(OLD)
    extra = (["--variant", "reference", "--threads", "2"]
             if phase == "computing" else [])
    process = start(lrelu_path, src, out, *extra)
    if phase != "starting":
        wait_for_temp(tmp_path, process)
    if phase in ("later", "computing"):
        time.sleep(0.3)
    process.send_signal(sig)
    check_outcome(process, sig, tmp_path)


def test_cpu_time_limit_removes_the_temp_file(lrelu_path, tmp_path):
    """SIGXCPU from `ulimit -t` (RLIMIT_CPU) ends the tool cleanly."""
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    sparse_npy(src, 4 * BIG)  # 4 GiB: far more than one CPU second

    def limit_cpu():
        no_core_dump()
        resource.setrlimit(resource.RLIMIT_CPU, (1, 30))

    out.write_bytes(OLD)
    process = start(lrelu_path, src, out, "--variant", "reference",
                    "--threads", "1", preexec_fn=limit_cpu)
    check_outcome(process, signal.SIGXCPU, tmp_path, 4 * BIG)
    assert process.returncode == -signal.SIGXCPU


def test_file_size_signal_is_ignored(lrelu_path, tmp_path):
    """SIGXFSZ is ignored (a file size limit is a write error with a
    message, see test_errors.py): the tool goes on until SIGTERM."""
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    sparse_npy(src, BIG)
    out.write_bytes(OLD)
    process = start(lrelu_path, src, out)
    wait_for_temp(tmp_path, process)
    process.send_signal(signal.SIGXFSZ)
    process.send_signal(signal.SIGTERM)
    check_outcome(process, signal.SIGTERM, tmp_path)


def test_nohup_ignored_signal_stays_ignored(lrelu_path, tmp_path):
    """A SIGHUP ignored by the parent (nohup) does not stop the tool."""
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    src.write_bytes(npy_bytes(x))

    def ignore_hup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    result = subprocess.run([lrelu_path, "apply", src, "-o", out],
                            preexec_fn=ignore_hup, capture_output=True,
                            timeout=HANG_GUARD)
    assert result.returncode == 0
    assert_bit_exact(x, np.load(out), "0.01")


@pytest.mark.parametrize("writer", [False, True], ids=["no-writer", "writer"])
def test_fifo_input_is_refused_at_once(lrelu_path, tmp_path, writer):
    """A FIFO as input never blocks: it is refused by name. If the tool
    still waited, SIGTERM must end it (it used to be blocked)."""
    fifo, out = tmp_path / "x.npy", tmp_path / "y.npy"
    os.mkfifo(fifo)
    process = start(lrelu_path, fifo, out)
    keep_open = os.open(fifo, os.O_RDWR) if writer else None
    try:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
        stderr = finish(process)
    finally:
        if keep_open is not None:
            os.close(keep_open)
    assert process.returncode == 1, stderr
    assert "is not a regular file but a pipe (FIFO)" in stderr
    assert listing(tmp_path) == ["x.npy"]
