"""The contract package ai.onnx.PRelu v1 (contract/prelu/v1): the files are
what the generator writes, the metadata's digests hold, and every test case
runs through lrelu.prelu / prelu_backward with the expected bits."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lrelu
from lrelu_pytest_support import HAS_ML_DTYPES, numpy_dtype

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PACKAGE = os.path.join(ROOT, "contract", "prelu", "v1")
UINT = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32,
        "float64": np.uint64}


def read(name):
    with open(os.path.join(PACKAGE, name), "rb") as f:
        return f.read()


def test_generator_output_is_committed():
    run = subprocess.run([sys.executable,
                          os.path.join(ROOT, "contract", "prelu",
                                       "generate.py"), "--check"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_metadata_digests():
    meta = json.loads(read("metadata.json"))
    assert meta["id"] == "ai.onnx.PRelu" and meta["contract_version"] == 1
    for name, entry in meta["files"].items():
        data = read(name)
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
        assert len(data) == entry["bytes"], name
    manifest = json.loads(read("manifest.json"))
    assert "correctly rounded" in manifest["semantics"]["dalpha"]


def array(hex_list, dtype, shape):
    bits = np.array([int(h, 16) for h in hex_list], dtype=UINT[dtype])
    return bits.view(numpy_dtype(dtype)).reshape(shape)


def check(name, got, want_hex, dtype, any_nan, context):
    got_bits = np.ascontiguousarray(got).view(UINT[dtype]).ravel()
    want = np.array([int(h, 16) for h in want_hex], dtype=UINT[dtype])
    ok = got_bits == want
    for i in any_nan.get(name, []):
        ok[i] = bool(np.isnan(got.ravel()[i].astype(np.float64)))
    assert ok.all(), (context, name, np.flatnonzero(~ok)[:5])


def test_every_case():
    doc = json.loads(read("test.json"))
    ran = 0
    for c in doc["cases"]:
        if "bfloat16" in (c["dtype"], c["alpha_dtype"]) and not HAS_ML_DTYPES:
            continue
        x = array(c["inputs"]["x"], c["dtype"], c["shape"])
        alpha = array(c["inputs"]["alpha"], c["alpha_dtype"], c["alpha_shape"])
        if c["op"] == "forward":
            y = lrelu.prelu(x, alpha)
            check("y", y, c["expected"]["y"], c["dtype"], c["any_nan"], c["id"])
        else:
            dy = array(c["inputs"]["dy"], c["dtype"], c["shape"])
            dx, dalpha = lrelu.prelu_backward(dy, x, alpha)
            check("dx", dx, c["expected"]["dx"], c["dtype"], c["any_nan"],
                  c["id"])
            check("dalpha", dalpha, c["expected"]["dalpha"], c["alpha_dtype"],
                  {}, c["id"])
        ran += 1
    assert ran >= 100
