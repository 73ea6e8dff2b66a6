"""Leftovers and file metadata of `lrelu apply`'s atomic output: a run killed
by SIGKILL leaves its temporary file, the next run removes it and says so,
while files of live runs stay; a renamed output folder strands nothing; a
replaced output keeps owner, group, mode and set-id bits."""
import fcntl
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import tempfile

import numpy as np
import pytest

from cli_util import (assert_bit_exact, listing, npy_bytes, run, sparse_npy,
                      temp_files, wait_for_temp)

HANG_GUARD = 60
X = np.linspace(-3, 3, 1000, dtype=np.float32)


def dead_pid():
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def write_input(folder):
    (folder / "x.npy").write_bytes(npy_bytes(X))
    return folder / "x.npy"


def test_sigkill_leftover_is_removed_by_the_next_run(lrelu_path, tmp_path):
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    sparse_npy(src, 256 << 20)
    process = subprocess.Popen([lrelu_path, "apply", src, "-o", out],
                               stderr=subprocess.PIPE)
    assert wait_for_temp(tmp_path, process)
    process.kill()
    process.communicate(timeout=HANG_GUARD)
    leftovers = temp_files(tmp_path)
    assert len(leftovers) == 1
    # The name says whose it is.
    assert leftovers[0].startswith(f".y.npy.lrelu-{process.pid}-")

    write_input(tmp_path)  # a small input, for a quick second run
    result = run(lrelu_path, "apply", src, "-o", out, timeout=HANG_GUARD)
    assert result.returncode == 0, result.stderr
    assert listing(tmp_path) == ["x.npy", "y.npy"]
    assert_bit_exact(X, np.load(out), "0.01")
    assert result.stderr == (
        f"lrelu: note: removed '{tmp_path}/{leftovers[0]}', the temporary "
        f"file of an interrupted run (process {process.pid} is gone)\n")


def test_only_stale_temp_files_of_this_output_are_removed(lrelu_path,
                                                          tmp_path):
    src, out = write_input(tmp_path), tmp_path / "y.npy"
    gone = dead_pid()
    stale = f".y.npy.lrelu-{gone}-Ab12Cd"
    kept = [
        f".y.npy.lrelu-{os.getpid()}-Ab12Cd",  # its process is alive
        f".z.npy.lrelu-{gone}-Ab12Cd",         # another output's
        f".y.npy.lrelu-{gone}-Ab12C",          # not our naming
        f".y.npy.lrelu-{gone}-Ab12Cd.bak",
        f".y.npy.lrelu-x{gone}-Ab12Cd",
        ".y.npy.lrelu-Ab12Cd",                 # old naming: no pid to check
        f".y.npy.lrelu-{gone}-LOCKED",         # locked: a live writer
    ]
    for name in [stale, *kept]:
        (tmp_path / name).write_bytes(b"partial output")
    # A writer in another pid namespace: its pid means nothing here, but it
    # holds the lock.
    locked = os.open(tmp_path / kept[-1], os.O_RDONLY)
    fcntl.flock(locked, fcntl.LOCK_EX)
    try:
        result = run(lrelu_path, "apply", src, "-o", out, timeout=HANG_GUARD)
    finally:
        os.close(locked)
    assert result.returncode == 0, result.stderr
    assert sorted(listing(tmp_path)) == sorted(["x.npy", "y.npy", *kept])
    assert f"removed '{tmp_path}/{stale}'" in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("finish", ["complete", "SIGTERM"])
def test_renamed_folder_strands_nothing(lrelu_path, tmp_path, finish):
    """The folder of OUT is renamed while the tool writes: the result (or,
    on SIGTERM, nothing) ends up in the moved folder, no temporary file
    stays anywhere, and the old folder name is not recreated."""
    folder = tmp_path / "out"
    folder.mkdir()
    src = tmp_path / "x.npy"
    elements = 64 << 20
    sparse_npy(src, elements)
    process = subprocess.Popen(
        [lrelu_path, "apply", src, "-o", folder / "y.npy", "--threads", "1"],
        stderr=subprocess.PIPE)
    if not wait_for_temp(folder, process):
        process.communicate(timeout=HANG_GUARD)
        pytest.skip("the tool finished before the folder could be renamed")
    moved = tmp_path / "moved"
    os.rename(folder, moved)
    if finish == "SIGTERM":
        process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=HANG_GUARD)
    assert not folder.exists()
    assert temp_files(moved) == []
    if process.returncode == 0:
        assert listing(moved) == ["y.npy"]
        assert np.load(moved / "y.npy", mmap_mode="r").shape == (elements,)
    else:
        assert process.returncode == -signal.SIGTERM, stderr
        assert listing(moved) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving files away needs root")
def test_replaced_output_keeps_owner_group_mode_and_setid_bits(lrelu_path,
                                                              tmp_path):
    src, out = write_input(tmp_path), tmp_path / "y.npy"
    out.write_bytes(b"old")
    os.chown(out, 65534, 65534)  # nobody, nogroup
    os.chmod(out, 0o6750)
    result = run(lrelu_path, "apply", src, "-o", out, timeout=HANG_GUARD)
    assert result.returncode == 0, result.stderr
    status = os.stat(out)
    assert (status.st_uid, status.st_gid) == (65534, 65534)
    assert oct(status.st_mode & 0o7777) == oct(0o6750)
    assert_bit_exact(X, np.load(out), "0.01")


def as_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


@pytest.fixture
def public_folder():
    """A folder any user can reach (pytest's tmp_path is root's only)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="lrelu-cli-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")
def test_read_only_folder_as_another_user(lrelu_path, public_folder):
    """Run as nobody: a read-only output folder is refused with the reason
    and nothing is left in it."""
    src = write_input(public_folder)
    os.chmod(src, 0o644)
    readonly = public_folder / "ro"
    readonly.mkdir()
    os.chmod(readonly, 0o555)
    result = subprocess.run([lrelu_path, "apply", src, "-o", readonly / "y.npy"],
                            capture_output=True, text=True, preexec_fn=as_nobody,
                            timeout=HANG_GUARD)
    if "error while loading shared libraries" in result.stderr:
        pytest.skip("nobody cannot reach the build tree")
    assert result.returncode == 1
    assert result.stderr == (
        f"lrelu: error: cannot create a file in the output folder '{readonly}':"
        " Permission denied\n")
    assert listing(readonly) == []


def posix_acl(entries):
    """The system.posix_acl_access value for (tag, perm, id) entries."""
    return struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", tag, perm, uid) for tag, perm, uid in entries)


def test_replaced_output_keeps_acl_and_user_xattrs(lrelu_path, tmp_path):
    src, out = write_input(tmp_path), tmp_path / "y.npy"
    out.write_bytes(b"old")
    anyone = 0xffffffff
    # user::rw-, user:nobody:r--, group::r--, mask::r--, other::---
    acl = posix_acl([(0x01, 6, anyone), (0x02, 4, 65534), (0x04, 4, anyone),
                     (0x10, 4, anyone), (0x20, 0, anyone)])
    try:
        os.setxattr(out, "system.posix_acl_access", acl)
        os.setxattr(out, "user.lrelu-test", b"kept")
    except OSError as e:
        pytest.skip(f"no ACLs or user xattrs here: {e}")
    os.chmod(out, 0o2640)  # set-gid too: the ACL must not clear it
    before = (os.getxattr(out, "system.posix_acl_access"), os.stat(out).st_mode)
    result = run(lrelu_path, "apply", src, "-o", out, timeout=HANG_GUARD)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert (os.getxattr(out, "system.posix_acl_access"),
            os.stat(out).st_mode) == before
    assert os.getxattr(out, "user.lrelu-test") == b"kept"
    assert_bit_exact(X, np.load(out), "0.01")


def test_concurrent_writers_of_one_output(lrelu_path, tmp_path):
    """Two runs writing the same OUT at once: both succeed, neither removes
    the other's temporary file, and OUT is one complete result."""
    x = np.linspace(-4, 4, 8 << 20, dtype=np.float32)  # 32 MiB: 4 chunks
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    src.write_bytes(npy_bytes(x))
    alphas = ["0.5", "0.25"]
    processes = [subprocess.Popen([lrelu_path, "apply", src, "-o", out,
                                   "--alpha", a], stderr=subprocess.PIPE)
                 for a in alphas]
    for p in processes:
        _, stderr = p.communicate(timeout=HANG_GUARD)
        assert p.returncode == 0 and stderr == b"", stderr
    assert listing(tmp_path) == ["x.npy", "y.npy"]
    y = np.load(out)
    matches = []
    for a in alphas:
        try:
            assert_bit_exact(x, y, a)
            matches.append(a)
        except AssertionError:
            pass
    assert len(matches) == 1
