"""Checks of the frozen contract package contract/v1 (run by ctest with
/usr/bin/python3 -m pytest): schemas, digests, reproducibility, and an
independent recomputation of every expected value (pure Python) plus a
cross-check against PyTorch."""

import hashlib
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import contract_files as cf
from contract_files import bits as B

SCHEMAS = {
    "manifest.json": "manifest.schema.json",
    "test.json": "test.schema.json",
    "bench.json": "bench.schema.json",
    "metadata.json": "metadata.schema.json",
}


@pytest.fixture(scope="module")
def test_doc():
  return cf.load("test.json")


@pytest.fixture(scope="module")
def manifest():
  return cf.load("manifest.json")


# --------------------------------------------------------------------------
# Files: schemas, digests, reproducibility
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_file_matches_schema(name):
  errors = sorted(cf.validator(SCHEMAS[name]).iter_errors(cf.load(name)),
                  key=lambda e: list(e.path))
  assert not errors, "\n".join(
      "%s: %s" % ("/".join(map(str, e.path)), e.message) for e in errors[:10])


def test_schema_rejects_a_broken_case(test_doc):
  """The schema is not vacuous: a wrong-width bit pattern is refused."""
  doc = dict(test_doc)
  case = dict(doc["cases"][0])
  case["inputs"] = {"x": ["0"] * len(case["inputs"]["x"])}
  doc["cases"] = [case]
  assert not cf.validator("test.schema.json").is_valid(doc)


def test_metadata_digests_match_files():
  meta = cf.load("metadata.json")
  assert set(meta["files"]) == {"manifest.json", "test.json", "bench.json"}
  for name, entry in meta["files"].items():
    data = cf.read_bytes(name)
    assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
    assert len(data) == entry["bytes"], name


def test_metadata_lists_every_template_with_its_digest():
  meta = cf.load("metadata.json")
  webgpu = meta["webgpu"]
  named = {v["template"] for v in webgpu["variants"]}
  for helpers in webgpu["helpers"].values():
    named.update(helpers)
  assert named == set(meta["templates"])
  assert {v["name"] for v in webgpu["variants"]} == {"unary-scalar",
                                                     "unary-vec4"}
  for name, entry in meta["templates"].items():
    data = cf.read_bytes(name)
    data.decode("ascii")
    assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
    assert len(data) == entry["bytes"], name


def test_files_are_ascii_and_small():
  for name in cf.FILES:
    data = cf.read_bytes(name)
    data.decode("ascii")
    assert len(data) < 2 * 1024 * 1024, name


def test_generator_reproduces_files_byte_for_byte():
  with tempfile.TemporaryDirectory() as out:
    subprocess.run([
        sys.executable,
        os.path.join(cf.CONTRACT, "generate.py"), "--out", out
    ], check=True, stdout=subprocess.DEVNULL)
    for name in cf.FILES:
      assert cf.read_bytes(name, out) == cf.read_bytes(name), (
          "%s is stale: run /usr/bin/python3 contract/generate.py" % name)


def test_ids_consistent(test_doc, manifest):
  meta = cf.load("metadata.json")
  bench = cf.load("bench.json")
  assert manifest["id"] == meta["id"] == test_doc["kernel"] == bench["kernel"]
  assert (manifest["contract_version"] == meta["contract_version"] ==
          test_doc["contract_version"] == bench["contract_version"] == 1)
  for doc in (test_doc, bench):
    ids = [c["id"] for c in doc["cases"]]
    assert len(ids) == len(set(ids))


def test_manifest_facts(manifest):
  (alpha,) = manifest["attributes"]
  assert alpha["name"] == "alpha" and alpha["default"] == 0.01
  (t,) = manifest["type_constraints"]
  assert t["allowed"] == ["float32", "float16", "bfloat16", "float64"]
  assert manifest["onnx"]["since_opset"] >= 16
  assert [v["opset"] for v in manifest["onnx"]["versions"]] == [1, 6, 16]
  assert [p["name"] for p in manifest["inputs"]] == ["x"]
  assert [p["name"] for p in manifest["outputs"]] == ["y"]


def test_bench_cases(test_doc):
  bench = cf.load("bench.json")
  sizes = {tuple(c["shape"]) for c in bench["cases"]}
  for shape in ([1, 64, 112, 112], [128, 3, 28, 28], [128, 8, 8, 8],
                [4096, 11008], [1024], [1024 * 1024], [256 * 1024 * 1024]):
    assert tuple(shape) in sizes
  for c in bench["cases"]:
    assert c["elements"] == math.prod(c["shape"])
    assert c["id"].startswith("%s/%s/" % (c["op"], c["dtype"]))


# --------------------------------------------------------------------------
# Cases: structure and an independent oracle
# --------------------------------------------------------------------------


def count(shape):
  return math.prod(shape)


def test_case_structure(test_doc):
  for c in test_doc["cases"]:
    n = count(c["shape"])
    for name, values in c["inputs"].items():
      assert len(values) == n, (c["id"], name)
    for name, values in c.get("expected", {}).items():
      assert len(values) == n, (c["id"], name)
      for i in c.get("anynan", {}).get(name, []):
        assert B.is_nan_bits(int(values[i], 16), c["dtype"]), (c["id"], i)


def test_alpha_encoding(test_doc):
  for c in test_doc["cases"]:
    a = c["attributes"].get("alpha")
    if a is None:
      continue
    f64 = struct.unpack(">d", bytes.fromhex(a["f64"]))[0]
    text = float(a["text"])
    assert struct.pack(">d", text) == struct.pack(">d", f64) or (
        math.isnan(text) and math.isnan(f64)), c["id"]
    if not math.isnan(f64):
      assert struct.pack(">f", f64).hex() == a["f32"], c["id"]
    else:
      assert B.is_nan_bits(int(a["f32"], 16), "float32"), c["id"]


def py_value(bits, dtype):
  """Storage bits -> Python float (exact), without numpy."""
  if dtype == "float64":
    return struct.unpack(">d", bits.to_bytes(8, "big"))[0]
  if dtype == "float32":
    return struct.unpack(">f", bits.to_bytes(4, "big"))[0]
  if dtype == "float16":
    return struct.unpack(">e", bits.to_bytes(2, "big"))[0]
  return struct.unpack(">f", (bits << 16).to_bytes(4, "big"))[0]


def py_store(value, dtype):
  """A float32-exact (or double) Python float -> storage bits, RNE."""
  if dtype == "float64":
    return int.from_bytes(struct.pack(">d", value), "big")
  if dtype == "float32":
    return int.from_bytes(struct.pack(">f", value), "big")
  if dtype == "float16":
    try:
      return int.from_bytes(struct.pack(">e", value), "big")
    except OverflowError:  # struct refuses to round to inf
      return 0xFC00 if value < 0 else 0x7C00
  u = int.from_bytes(struct.pack(">f", value), "big")
  return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def py_times(alpha, v, dtype):
  """alpha * v in the contract's compute type, as a Python float.

  float32: the double product of two floats is exact (24 + 24 bits), so
  rounding it to float32 once (struct 'f') is the IEEE float32 multiply.
  """
  if dtype == "float64":
    return alpha * v
  a32 = struct.unpack(">f", struct.pack(">f", alpha))[0] if not (
      math.isinf(alpha) or math.isnan(alpha)) else alpha
  p = a32 * v
  if math.isnan(p) or math.isinf(p):
    return p
  try:
    return struct.unpack(">f", struct.pack(">f", p))[0]
  except OverflowError:
    return math.copysign(math.inf, p)


def test_expected_values_match_pure_python_oracle(test_doc):
  """Recomputes every expected element with struct instead of numpy."""
  for c in test_doc["cases"]:
    if "expected" not in c:
      continue
    dt = c["dtype"]
    attr = c["attributes"].get("alpha")
    alpha = (struct.unpack(">d", bytes.fromhex(attr["f64"]))[0]
             if attr else 0.01)
    if c["op"] == "forward":
      s = c["inputs"]["x"]
      v = c["inputs"]["x"]
      out = "y"
    else:
      s = c["inputs"][c["attributes"]["grad_source"]]
      v = c["inputs"]["dy"]
      out = "dx"
    anynan = set(c.get("anynan", {}).get(out, []))
    for i, (sb, vb, eb) in enumerate(zip(s, v, c["expected"][out])):
      sb, vb, eb = int(sb, 16), int(vb, 16), int(eb, 16)
      if not py_value(sb, dt) < 0:
        assert eb == vb, (c["id"], i)
        continue
      p = py_times(alpha, py_value(vb, dt), dt)
      if math.isnan(p):
        assert i in anynan, (c["id"], i)
        continue
      assert i not in anynan, (c["id"], i)
      assert py_store(p, dt) == eb, (c["id"], i, hex(eb))


def test_seed_examples_in_decimal(test_doc):
  cases = {c["id"]: c for c in test_doc["cases"]}
  for dt in B.DTYPES:
    c = cases["forward/%s/seed/example" % dt]
    y = [py_value(int(b, 16), dt) for b in c["expected"]["y"]]
    tol = {"float64": 1e-15, "float32": 1e-7, "float16": 1e-3,
           "bfloat16": 1e-2}[dt]
    assert y == pytest.approx([-0.02, -0.01, 0, 1, 2], rel=tol, abs=tol)
    c = cases["forward/%s/seed/alpha=0.2" % dt]
    assert py_value(int(c["expected"]["y"][0], 16), dt) == pytest.approx(
        -0.6, rel=tol)


def test_category_counts(test_doc):
  cats = {c["category"] for c in test_doc["cases"]}
  assert cats >= {"seed", "onnx", "special", "rounding", "empty", "scalar",
                  "rank", "gradient", "gradient_from_y", "error"}
  ranks = {len(c["shape"]) for c in test_doc["cases"]}
  assert ranks >= set(range(0, 9))
  alphas = {c["attributes"]["alpha"]["text"] for c in test_doc["cases"]
            if c["category"] == "special"}
  assert alphas == {"0", "0.01", "0.2", "-0.5", "1.5", "3", "inf", "-inf",
                    "nan", "-0"}
