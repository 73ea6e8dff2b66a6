"""ONNX conformance: regenerates ONNX's LeakyRelu node tests with the
installed onnx package (docs: /work/shared/reference/toolchain.md section 5),
checks them against the contract, and converts them to the test.json case
format for the C++ runner.

    LRELU_ONNX_CASES_OUT=path /usr/bin/python3 -m pytest test_onnx_node_tests.py

writes the converted cases to `path`; ctest then runs them through lrelu on
every variant (contract_onnx_test, tests/contract/onnx_test.cc).
"""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import contract_files as cf
from contract_files import bits as B

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # pylint: disable=wrong-import-position

BASE_TESTS = ("test_leakyrelu", "test_leakyrelu_default",
              "test_leakyrelu_example")

# numpy 1.24 removed the aliases that onnx 1.12's test generator still uses.
REGENERATE = r"""
import sys, numpy as np
np.float = float; np.int = int; np.bool = bool; np.object = object
from onnx.backend.test import cmd_tools
sys.argv = ["cmd_tools", "generate-data", "-o", sys.argv[1], "-t", "LeakyRelu"]
cmd_tools.main()
"""


@pytest.fixture(scope="module")
def node_tests(tmp_path_factory):
  out = tmp_path_factory.mktemp("onnx")
  subprocess.run([sys.executable, "-c", REGENERATE, str(out)], check=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  dirs = sorted(glob.glob(os.path.join(str(out), "node", "test_leakyrelu*")))
  return {os.path.basename(d): d for d in dirs}


def alpha_of(model):
  """alpha from the model: the LeakyRelu node's attribute (absent: the
  default), or in an _expanded model the Constant that holds it."""
  for node in model.graph.node:
    if node.op_type == "LeakyRelu":
      for a in node.attribute:
        if a.name == "alpha":
          return float(a.f)  # an ONNX float attribute is a float32
      return None
  for node in model.graph.node:
    if node.op_type == "Constant" and any("alpha" in o.lower()
                                          for o in node.output):
      for a in node.attribute:
        if a.name == "value_float":
          return float(a.f)
        if a.name == "value":
          return float(numpy_helper.to_array(a.t))
  raise AssertionError("no alpha in %s" % model.graph.name)


def load_cases(name, directory):
  model = onnx.load(os.path.join(directory, "model.onnx"))
  (opset,) = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
  alpha = alpha_of(model)
  cases = []
  sets = sorted(glob.glob(os.path.join(directory, "test_data_set_*")))
  for k, data_set in enumerate(sets):
    x = numpy_helper.to_array(onnx.load_tensor(
        os.path.join(data_set, "input_0.pb")))
    y = numpy_helper.to_array(onnx.load_tensor(
        os.path.join(data_set, "output_0.pb")))
    assert x.dtype == np.float32 and y.dtype == np.float32 and x.shape == y.shape
    suffix = "" if len(sets) == 1 else "/set=%d" % k
    case = {
        "id": "forward/float32/onnx/%s%s" % (name, suffix),
        "category": "onnx",
        "op": "forward",
        "dtype": "float32",
        "shape": list(x.shape),
        "attributes": {} if alpha is None else {
            "alpha": B.alpha_attribute(alpha)},
        "inputs": {"x": B.to_hex(x.view(np.uint32), "float32")},
        "expected": {"y": B.to_hex(y.view(np.uint32), "float32")},
        "compare": "bitexact",
    }
    cases.append((case, opset, x, y, 0.01 if alpha is None else alpha))
  return cases


def test_regenerated_base_tests_exist(node_tests):
  for name in BASE_TESTS:
    assert name in node_tests, sorted(node_tests)


def test_expanded_forms(node_tests):
  """The _expanded tests (LeakyRelu-16's function body inlined) carry the
  same data as their base test. onnx 1.12 gives LeakyRelu-16 no function
  body, so it generates none; newer onnx does."""
  expanded = [n for n in node_tests if n.endswith("_expanded")]
  if not expanded:
    pytest.skip("onnx %s generates no _expanded LeakyRelu tests (no function "
                "body for LeakyRelu-16)" % onnx.__version__)
  for name in expanded:
    base = name[:-len("_expanded")]
    got = [c[0] for c in load_cases(name, node_tests[name])]
    want = [c[0] for c in load_cases(base, node_tests[base])]
    for g, w in zip(got, want):
      assert g["inputs"] == w["inputs"] and g["expected"] == w["expected"]
      assert (g["attributes"].get("alpha", B.alpha_attribute(0.01))["f32"] ==
              w["attributes"].get("alpha", B.alpha_attribute(0.01))["f32"])


def test_onnx_outputs_equal_the_contract(node_tests):
  """ONNX's expected outputs are bit-exact with the contract's rule."""
  for name, directory in sorted(node_tests.items()):
    for case, opset, x, y, alpha in load_cases(name, directory):
      assert opset >= 16, (name, opset)
      want, nan = B.forward(x.view(np.uint32).reshape(-1), alpha, "float32")
      assert not nan.any()
      assert np.array_equal(want, y.view(np.uint32).reshape(-1)), case["id"]


def test_onnx_cases_equal_test_json(node_tests):
  """test.json's onnx cases are exactly ONNX's data (ids, alpha, bits)."""
  ours = {c["id"]: c for c in cf.load("test.json")["cases"]
          if c["category"] == "onnx"}
  for name in BASE_TESTS:
    (case, _, _, _, _) = load_cases(name, node_tests[name])[0]
    mine = ours[case["id"]]
    assert mine["shape"] == case["shape"]
    assert mine["inputs"] == case["inputs"]
    assert mine["expected"] == case["expected"]
    a = case["attributes"].get("alpha")
    b = mine["attributes"].get("alpha")
    assert (a is None) == (b is None)
    if a:
      assert a["f32"] == b["f32"]  # ONNX stores alpha as float32


def test_export_cases_for_the_cpp_runner(node_tests, tmp_path):
  """Writes every regenerated test as a test.json document (to
  LRELU_ONNX_CASES_OUT when set) and checks it against the schema."""
  cases = []
  for name, directory in sorted(node_tests.items()):
    cases += [c[0] for c in load_cases(name, directory)]
  doc = {
      "kernel": "ai.onnx.LeakyRelu",
      "contract_version": 1,
      "generator": "tests/contract/test_onnx_node_tests.py (onnx %s)" %
                   onnx.__version__,
      "oracle": "ONNX node test data, regenerated",
      "encoding": cf.load("test.json")["encoding"],
      "cases": cases,
  }
  errors = list(cf.validator("test.schema.json").iter_errors(doc))
  assert not errors, errors[0].message
  out = os.environ.get("LRELU_ONNX_CASES_OUT") or str(tmp_path / "onnx.json")
  with open(out, "w", encoding="ascii") as f:
    json.dump(doc, f, indent=1)
  assert len(cases) >= len(BASE_TESTS)
