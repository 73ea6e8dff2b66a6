"""Every error path of `lrelu apply`: non-zero exit, exactly one line on
stderr, nothing on stdout, and the folder exactly as before (no output file
created, an existing output unchanged, no temporary file left, the input
unchanged)."""
import io
import os
import resource
import subprocess

import numpy as np
import pytest

from cli_util import assert_bit_exact, npy_bytes, run

GOOD = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
GOOD_FILE = npy_bytes(GOOD)


def header_file(dict_text, data=b"\0" * 48, version=1):
    """A file with a hand-written header dict and `data` after it."""
    return npy_bytes(np.zeros(0, np.float32), version=version,
                     dict_text=dict_text) + data


def dict_text(descr="'<f4'", fortran="False", shape="(3, 4)"):
    return f"{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}"


def patched(offset, value):
    data = bytearray(GOOD_FILE)
    data[offset:offset + len(value)] = value
    return bytes(data)


def saved(array, **kwargs):
    import io
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


# (id, input file bytes or None for a missing file, part of the message)
BAD_INPUTS = [
    ("missing", None, "cannot open the input"),
    ("empty", b"", "the file is empty"),
    ("too-short", b"\x93NUM", "not a .npy file"),
    ("wrong-magic", b"PK\x03\x04" + b"\0" * 200, "not a .npy file"),
    ("text-file", b"hello, world\n", "not a .npy file"),
    ("preamble-cut", b"\x93NUMPY\x01\x00\x10", "ends inside the .npy preamble"),
    ("version-4", patched(6, b"\x04"), "unsupported .npy format version 4.0"),
    ("version-1.1", patched(7, b"\x01"), "unsupported .npy format version 1.1"),
    ("version-0", patched(6, b"\x00"), "unsupported .npy format version 0.0"),
    ("header-beyond-file", patched(8, b"\xff\xff"),
     "goes beyond the end of the file"),
    ("truncated", GOOD_FILE[:-3], "the file is truncated"),
    ("no-data", GOOD_FILE[:-48], "the file is truncated"),
    ("trailing-garbage", GOOD_FILE + b"junk", "4 bytes after the array data"),
    ("two-arrays", GOOD_FILE + GOOD_FILE, "bytes after the array data"),
    ("code", header_file(dict_text(descr="__import__('os').system('touch PWNED')")),
     "the name '__import__' is not a literal"),
    ("call-in-shape", header_file(dict_text(shape="(eval('3'), 4)")),
     "the name 'eval' is not a literal"),
    ("expression", header_file(dict_text(shape="(1+2, 4)")),
     "the header is not a Python literal"),
    ("float-dim", header_file(dict_text(shape="(3.0, 4)")),
     "only integer numbers are allowed"),
    ("not-a-dict", header_file("['<f4', False, (3, 4)]"),
     "the header is not a dict"),
    ("missing-key", header_file("{'descr': '<f4', 'shape': (3, 4), }"),
     "no 'fortran_order' key"),
    ("unknown-key", header_file(dict_text()[:-1] + "'extra': 1}"),
     "unknown key 'extra'"),
    ("duplicate-key", header_file(dict_text()[:-1] + "'shape': (3, 4)}"),
     "the key 'shape' twice"),
    ("fortran-int", header_file(dict_text(fortran="1")),
     "'fortran_order' in the header is not True or False"),
    ("shape-list", header_file(dict_text(shape="[3, 4]")),
     "'shape' in the header is not a tuple"),
    ("int32", saved(np.arange(4, dtype=np.int32)),
     "integers are not supported"),
    ("uint8", saved(np.arange(4, dtype=np.uint8)), "integers are not supported"),
    ("bool", saved(np.array([True, False])), "booleans are not supported"),
    ("complex", saved(np.zeros(3, np.complex64)),
     "complex numbers are not supported"),
    ("object", saved(np.array([1, "a"], dtype=object), allow_pickle=True),
     "Python objects are not supported"),
    ("structured", saved(np.zeros(3, [("a", "<f4"), ("b", "<f4")])),
     "structured dtypes"),
    ("unicode", saved(np.array(["ab", "c"])), "strings are not supported"),
    ("bytes", saved(np.array([b"ab", b"c"])), "strings are not supported"),
    ("void", saved(np.zeros(3, "V4")), "raw bytes and records"),
    ("datetime", saved(np.zeros(3, "M8[s]")), "dates and times"),
    ("longdouble", saved(np.zeros(3, np.longdouble)),
     "only 2-, 4- and 8-byte floats"),
    ("sub-array", header_file(dict_text(descr="('<f4', (2,))")),
     "sub-array dtypes are not supported"),
    ("no-byte-order-meaning", header_file(dict_text(descr="'|f4'")),
     "byte order '|'"),
    ("negative-dim", header_file(dict_text(shape="(3, -4)")),
     "negative dimension '-4'"),
    ("huge-dim", header_file(dict_text(shape="(123456789012345678901234567890,)")),
     "is too large"),
    ("count-overflow", header_file(dict_text(shape="(4294967296, 4294967296)")),
     "element count of shape (4294967296, 4294967296) overflows"),
    ("bytes-overflow", header_file(dict_text(descr="'<f8'",
                                             shape="(2305843009213693952,)")),
     "data size of shape (2305843009213693952,) overflows"),
    # numpy refuses these too: the non-zero dimensions must multiply within
    # int64 even when a zero dimension makes the array empty.
    ("zero-dim-count-overflow",
     header_file(dict_text(shape="(0, 4611686018427387904, 4611686018427387904)"),
                 data=b""),
     "element count of shape (0, 4611686018427387904, 4611686018427387904) "
     "overflows"),
    ("zero-dim-bytes-overflow",
     header_file(dict_text(shape="(0, 2305843009213693952, 2)"), data=b""),
     "data size of shape (0, 2305843009213693952, 2) overflows"),
    ("size-beyond-file", header_file(dict_text(shape="(1000000, 1000000)")),
     "needs 4000000000000 bytes of data"),
    ("nested", header_file(dict_text(shape="(" * 40 + "3" + ",)" * 40)),
     "nests more than"),
    ("v3-unknown-key", header_file("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (3, 4), 'ключ': 1}", version=3),
     "unknown key '\\xd0"),
    ("newline-in-key", header_file("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (3, 4), 'a\nb': 1}"),
     "unterminated string"),
]


def snapshot(folder):
    """Every file in `folder` (recursively) with its bytes and mode."""
    result = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                result[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    result[path] = (f.read(), os.stat(path).st_mode)
            else:
                result[path] = ("dir",)
    return result


def check_failure(lrelu, folder, args, message=None, returncode=None,
                  **kwargs):
    before = snapshot(folder)
    result = run(lrelu, *args, **kwargs)
    assert result.returncode != 0, "succeeded unexpectedly"
    if returncode is not None:
        assert result.returncode == returncode, result.stderr
    assert result.stdout == ""
    assert result.stderr.endswith("\n")
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lrelu: error: "), lines[0]
    if message is not None:
        assert message in lines[0]
    assert snapshot(folder) == before
    return lines[0]


@pytest.fixture(params=[False, True], ids=["new-out", "existing-out"])
def folder(request, tmp_path):
    """A folder with an input x.npy slot and, for existing-out, a y.npy."""
    if request.param:
        (tmp_path / "y.npy").write_bytes(b"previous contents of y")
    return tmp_path


@pytest.mark.parametrize("name,data,message", BAD_INPUTS,
                         ids=[case[0] for case in BAD_INPUTS])
def test_bad_input(lrelu_path, folder, name, data, message):
    src = folder / "x.npy"
    if data is not None:
        src.write_bytes(data)
    check_failure(lrelu_path, folder, ["apply", src, "-o", folder / "y.npy"],
                  message, returncode=1)
    assert not (folder / "PWNED").exists()
    # The same with --in-place: the input must stay as it was.
    if data is not None:
        check_failure(lrelu_path, folder, ["apply", src, "--in-place"],
                      message, returncode=1)


def test_input_is_a_folder(lrelu_path, folder):
    (folder / "dir.npy").mkdir()
    check_failure(lrelu_path, folder,
                  ["apply", folder / "dir.npy", "-o", folder / "y.npy"],
                  "is not a regular file", returncode=1)


@pytest.mark.parametrize("alpha", ["", "abc", "0.1x", " 1", "1 ", "1e", "0.2.3",
                                   "--", "1,5", "inf0", "0x"])
def test_bad_alpha(lrelu_path, folder, alpha):
    (folder / "x.npy").write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder, ["apply", folder / "x.npy", "-o",
                                       folder / "y.npy", "--alpha=" + alpha],
                  "--alpha", returncode=2)


@pytest.mark.parametrize("threads", ["", "-1", "x", "1.5", "+2", "1e3",
                                     "99999999999999999999999"])
def test_bad_threads(lrelu_path, folder, threads):
    (folder / "x.npy").write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder, ["apply", folder / "x.npy", "-o",
                                       folder / "y.npy", "--threads=" + threads],
                  "--threads", returncode=2)


@pytest.mark.parametrize("option,value", [("--variant", "bogus"),
                                          ("--cpu-target", "NOPE")])
def test_bad_library_options(lrelu_path, folder, option, value):
    (folder / "x.npy").write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder, ["apply", folder / "x.npy", "-o",
                                       folder / "y.npy", option, value],
                  "the options are not usable", returncode=1)


def test_bad_library_options_on_an_empty_array(lrelu_path, folder):
    (folder / "x.npy").write_bytes(npy_bytes(np.zeros((0, 3), np.float32)))
    check_failure(lrelu_path, folder, ["apply", folder / "x.npy", "-o",
                                       folder / "y.npy", "--variant", "bogus"],
                  "the options are not usable", returncode=1)


@pytest.mark.parametrize("args,message", [
    (["apply"], "input is required"),
    (["apply", "{x}"], "no output file"),
    (["apply", "{x}", "-o"], None),
    (["apply", "{x}", "-o", "{y}", "--bogus"], None),
    (["apply", "{x}", "{x}", "-o", "{y}"], None),
    (["nonsense"], None),
    (["apply", "{x}", "-o", ""], "the output path is empty"),
])
def test_bad_command_line(lrelu_path, folder, args, message):
    (folder / "x.npy").write_bytes(GOOD_FILE)
    args = [a.format(x=folder / "x.npy", y=folder / "y.npy") for a in args]
    check_failure(lrelu_path, folder, args, message, returncode=2)


def test_output_is_input(lrelu_path, folder):
    src = folder / "x.npy"
    src.write_bytes(GOOD_FILE)
    os.symlink("x.npy", folder / "link.npy")
    os.link(src, folder / "hard.npy")
    (folder / "sub").mkdir()
    for out in [src, folder / "link.npy", folder / "hard.npy",
                folder / "sub" / ".." / "x.npy", "./x.npy"]:
        check_failure(lrelu_path, folder, ["apply", "x.npy", "-o", out],
                      "pass --in-place to replace it", returncode=2,
                      cwd=folder)
    check_failure(lrelu_path, folder, ["apply", "link.npy", "-o", "x.npy"],
                  "is the input file", returncode=2, cwd=folder)


def test_unusable_output_paths(lrelu_path, folder):
    src = folder / "x.npy"
    src.write_bytes(GOOD_FILE)
    (folder / "plain").write_bytes(b"a regular file")
    (folder / "sub").mkdir()
    os.symlink("nowhere/at/all.npy", folder / "dangling.npy")
    cases = [
        (folder / "missing" / "y.npy", "the output folder"),
        (folder / "plain" / "y.npy", "Not a directory"),
        (folder / "sub", "is not a regular file"),
        ("/dev/null", "is not a regular file"),
        (folder / "dangling.npy", "cannot resolve the output"),
        (str(folder / "sub") + "/", "is not a regular file"),
    ]
    for out, message in cases:
        check_failure(lrelu_path, folder, ["apply", src, "-o", out], message,
                      returncode=1)


def test_unwritable_output_folder(lrelu_path, folder):
    # Tests run as root, so permission bits would not stop the tool; /proc
    # refuses new files from anyone.
    src = folder / "x.npy"
    src.write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder, ["apply", src, "-o", "/proc/y.npy"],
                  "cannot create a file in the output folder '/proc'",
                  returncode=1)
    assert not os.path.exists("/proc/y.npy")


def test_write_error_leaves_nothing(lrelu_path, folder):
    """A file size limit makes write() fail (EFBIG) part-way through."""
    src = folder / "x.npy"
    src.write_bytes(npy_bytes(np.ones(1 << 20, np.float32)))  # 4 MiB

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    check_failure(lrelu_path, folder, ["apply", src, "-o", folder / "y.npy"],
                  "cannot write the output", returncode=1,
                  preexec_fn=limit_file_size)


@pytest.mark.parametrize("shape", [(0, 2**62, 2**62), (0, 2**61, 2),
                                   (0, 2**60, 2), (2**40, 0, 2**20),
                                   (0, 2**61 - 1), (0, 3)], ids=str)
def test_zero_dim_shapes_follow_numpy(lrelu_path, tmp_path, shape):
    """An empty shape is accepted exactly when numpy can hold it."""
    try:
        np.empty(shape, np.float32)
        numpy_accepts = True
    except ValueError:
        numpy_accepts = False
    src, out = tmp_path / "x.npy", tmp_path / "y.npy"
    src.write_bytes(header_file(dict_text(shape=repr(shape)), data=b""))
    result = run(lrelu_path, "apply", src, "-o", out)
    if numpy_accepts:
        assert result.returncode == 0, result.stderr
        assert np.load(out).shape == shape
    else:
        assert result.returncode == 1
        assert "overflows" in result.stderr
        assert not out.exists()


def test_pseudo_file_input(lrelu_path, folder):
    """/proc files say they are empty; the message says what they are."""
    check_failure(lrelu_path, folder,
                  ["apply", "/proc/self/status", "-o", folder / "y.npy"],
                  "'/proc/self/status' reports a size of 0 bytes but has data",
                  returncode=1)


@pytest.mark.parametrize("device,kind", [("/dev/zero", "a character device"),
                                         ("/dev/null", "a character device")])
def test_device_input(lrelu_path, folder, device, kind):
    check_failure(lrelu_path, folder, ["apply", device, "-o", folder / "y.npy"],
                  f"is not a regular file but {kind}; lrelu apply reads "
                  "regular files only", returncode=1)


def test_output_to_a_pipe(lrelu_path, folder):
    """-o /dev/stdout with stdout on a pipe names the pipe."""
    (folder / "x.npy").write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder,
                  ["apply", folder / "x.npy", "-o", "/dev/stdout"],
                  "the output '/dev/stdout' is not a regular file but a pipe "
                  "(FIFO); lrelu apply writes regular files only", returncode=1)


def test_dash_named_input(lrelu_path, folder):
    """A name starting with '-' is taken for an option; the message says to
    put it after '--', and that works."""
    (folder / "-x.npy").write_bytes(GOOD_FILE)
    check_failure(lrelu_path, folder, ["apply", "-x.npy", "-o", "y.npy"],
                  "input is required ('-x.npy' is not an option; a file name "
                  "that starts with '-' goes after '--'", returncode=2,
                  cwd=folder)
    result = run(lrelu_path, "apply", "-o", "y.npy", "--", "-x.npy",
                 cwd=folder)
    assert result.returncode == 0, result.stderr
    assert_bit_exact(GOOD, np.load(folder / "y.npy"), "0.01")


def test_dash_is_a_plain_file_name(lrelu_path, tmp_path):
    """'-' is a file named '-', not stdin or stdout, for IN and OUT."""
    (tmp_path / "-").write_bytes(GOOD_FILE)
    result = run(lrelu_path, "apply", "-", "-o", "y.npy", cwd=tmp_path,
                 stdin=subprocess.DEVNULL)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    assert_bit_exact(GOOD, np.load(tmp_path / "y.npy"), "0.01")
    result = run(lrelu_path, "apply", "y.npy", "-o", "-", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    y = np.load(tmp_path / "y.npy")
    assert_bit_exact(y, np.load(tmp_path / "-"), "0.01")


def test_working_folder_deeper_than_path_max(lrelu_path, tmp_path):
    """Relative paths work in a folder whose absolute path is longer than
    PATH_MAX (4096): nothing needs the absolute path."""
    part = "d" * 200
    script = (f'for i in $(seq 25); do mkdir {part} && cd {part} || exit 9; '
              f'done; cat > x.npy && "$0" apply x.npy -o y.npy && cat y.npy')
    result = subprocess.run(["bash", "-c", script, lrelu_path],
                            input=GOOD_FILE, capture_output=True, cwd=tmp_path,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert_bit_exact(GOOD, np.load(io.BytesIO(result.stdout)), "0.01")
