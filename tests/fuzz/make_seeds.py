#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/*).

Run once by hand when the formats change (needs numpy); the output is
committed. Seeds are small valid and almost-valid inputs: the fuzzer mutates
them into everything else.
    /usr/bin/python3 tests/fuzz/make_seeds.py
"""
import hashlib
import io
import json
import pathlib
import random

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def write(target, name, data):
    folder = HERE / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def npy(array, **kwargs):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, **kwargs)
    return buffer.getvalue()


def npy_seeds():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    write("npy_header", "f4-c.npy", npy(x))
    write("npy_header", "f4-fortran.npy", npy(np.asfortranarray(x)))
    write("npy_header", "f2.npy", npy(x.astype(np.float16)))
    write("npy_header", "f8-big-endian.npy", npy(x.astype(">f8")))
    write("npy_header", "scalar.npy", npy(np.float32(-3.0)))
    write("npy_header", "empty.npy", npy(np.zeros((0, 3), np.float32)))
    write("npy_header", "v2.npy", npy(x, version=(2, 0)))
    write("npy_header", "v3.npy", npy(x, version=(3, 0)))
    write("npy_header", "int32.npy", npy(np.arange(4, dtype=np.int32)))
    write("npy_header", "structured.npy",
          npy(np.zeros(2, [("a", "<f4"), ("b", "<f4")])))
    write("npy_header", "dict-only.txt",
          b"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }")
    write("npy_header", "dict-nested.txt",
          b"{'descr': [('a', '<f4')], 'fortran_order': True, 'shape': (1L, 2), }")
    write("npy_header", "code.txt",
          b"{'descr': __import__('os').system('true'), 'shape': ()}")


def contract_seeds():
    folder = ROOT / "contract" / "v1"
    files = {name: (folder / name).read_bytes() for name in
             ["manifest.json", "test.json", "bench.json", "metadata.json"]}
    small = {}
    for name in ["test.json", "bench.json"]:
        doc = json.loads(files[name])
        # A few cases of each kind: forward, backward, expected_error, anynan.
        keep = []
        for case in doc["cases"]:
            kinds = {(c["op"], c.get("expected_error") is not None,
                      "anynan" in c, c["dtype"]) for c in keep}
            kind = (case["op"], case.get("expected_error") is not None,
                    "anynan" in case, case["dtype"])
            if kind not in kinds and len(json.dumps(case)) < 3000:
                keep.append(case)
        doc["cases"] = keep
        small[name] = json.dumps(doc).encode()
    small["manifest.json"] = files["manifest.json"]
    metadata = json.loads(files["metadata.json"])
    for name in ["manifest.json", "test.json", "bench.json"]:
        metadata["files"][name] = {"sha256": hashlib.sha256(small[name]).hexdigest(),
                                   "bytes": len(small[name])}
    small["metadata.json"] = json.dumps(metadata).encode()
    write("contract", "test-cases", b"\0" + small["test.json"])
    for mode, name in enumerate(["manifest.json", "test.json", "bench.json",
                                 "metadata.json"], start=1):
        write("contract", name, bytes([mode]) + small[name])
    write("contract", "empty-cases", b"\0" + b'{"cases": []}')


def api_seeds():
    rng = random.Random(5)
    for i in range(48):
        write("api", f"random-{i:02d}", bytes(rng.randrange(256)
                                             for _ in range(rng.randrange(8, 96))))
    # Flag bytes that pick the two-stage call, options, and the big mode.
    for flags in [0x00, 0x01, 0x02, 0x03, 0x04, 0x07, 0x78, 0x79, 0x7e, 0x7f]:
        body = bytes(rng.randrange(200) for _ in range(64))
        write("api", f"flags-{flags:02x}", bytes([flags]) + body)


def prelu_tensor(dtype, shape, offset):
    """DecodeTensor's bytes for a dense tensor (prelu_fuzzer.cc)."""
    out = [1, dtype - 1, len(shape)]
    if shape:
        out.append(1)  # shape given
    out += [d - 1 for d in shape]  # extents 1..5 (DecodeDim: 1 + d % 5)
    out += [0, 1]  # no strides, data given
    return out + list(offset.to_bytes(3, "little"))


def prelu_alpha(x_rank, keep, offset, pick=3):
    """DecodeAlphaTensor's bytes: the last len(keep) extents of x, each
    kept (True) or 1; pick 3 is x's dtype, 1 float64."""
    out = [1, 1, pick, len(keep), 1]
    for k in keep:
        out += [1, 1] if k else [0]
    if keep:
        out.append(1)  # shape given
    out += [1, 1]  # no strides, data given
    return out + list(offset.to_bytes(3, "little"))


def prelu_seeds():
    rng = random.Random(7)
    for i in range(32):
        write("prelu", f"random-{i:02d}", bytes(rng.randrange(256)
                                               for _ in range(rng.randrange(8, 120))))
    # Dense calls: NCHW per channel, NHWC per channel, a scalar alpha, per
    # element; forward (out of place, in place) and gradient (dx in place,
    # dalpha elsewhere), one call and two-stage, every dtype.
    arena = (4096 - 64).to_bytes(2, "little")
    layouts = [
        ([2, 3, 4, 5], [True, False, False]),  # NCHW, alpha [3, 1, 1]
        ([2, 4, 4, 3], [True]),                # NHWC, alpha [3]
        ([3, 5], []),                          # scalar alpha, rank 0
        ([4, 5], [True, True]),                # one alpha per element
    ]
    for dtype in (1, 2, 3, 4):
        for li, (shape, keep) in enumerate(layouts):
            for flags in (0x00, 0x02, 0x01, 0x03):
                body = [flags] + list(arena) + [dtype, li, 0, 0]
                body += prelu_tensor(dtype, shape, 0)
                body += prelu_alpha(len(shape), keep, 3000,
                                    pick=1 if dtype == 2 and li == 0 else 3)
                if flags & 1:
                    body += [2] + list((1000).to_bytes(3, "little"))  # dy
                    body += [1, 1]  # dx and dalpha given
                    body += [0]     # dx: dy's view (in place)
                    body += [1, 1] + list((3500).to_bytes(3, "little"))
                else:
                    body += [2] + list((1500).to_bytes(3, "little"))  # y
                write("prelu", f"dense-{dtype}-{li}-{flags:02x}", bytes(body))
                # The same call on OpenCL (the backend byte comes last: 200
                # is device 0; the variant byte 6 names "scalar").
                variant = 6 if li % 2 else 0
                write("prelu", f"opencl-{dtype}-{li}-{flags:02x}",
                      bytes(body + [200, variant]))
                if flags & 2:
                    # Two-stage, then lrelu_executor_bind to other places:
                    # x, alpha, y, dy, dx, dalpha each moved (2: to the
                    # offset that follows), none NULL; dx stays on dy.
                    bind = [200]
                    for offset in (100, 3100, 1600, 1100, 1100, 3600):
                        bind += [2] + list(offset.to_bytes(3, "little")) + [1]
                    bind += [1, 1]  # in place kept, the right count
                    write("prelu", f"bind-{dtype}-{li}-{flags:02x}",
                          bytes(body + [0] + bind))
                    if not flags & 1:
                        write("prelu", f"bind-opencl-{dtype}-{li}",
                              bytes(body + [200, variant] + bind))


if __name__ == "__main__":
    npy_seeds()
    contract_seeds()
    api_seeds()
    prelu_seeds()
