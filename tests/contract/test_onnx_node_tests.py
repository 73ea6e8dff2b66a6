"""ONNX conformance: regenerates ONNX's LeakyRelu node tests with the
installed onnx package (onnx.backend.test.case.node.leakyrelu),
checks them against the contract, and converts them to the test.json case
format for the C++ runner.

    LRELU_ONNX_CASES_OUT=path .venv/bin/python -m pytest test_onnx_node_tests.py

writes the converted cases to `path`; ctest then runs them through lrelu on
every variant (contract_onnx_test, tests/contract/onnx_test.cc).

The onnx pinned in python/requirements-dev.txt (in .venv) gives LeakyRelu-16
a function body, so the generator also writes test_leakyrelu*_expanded (the
body inlined: Constant alpha, CastLike, Less, Mul, Where); they run like the
base tests. Debian's onnx 1.12 (/usr/bin/python3, the fallback) has no body
and generates the base tests only. LRELU_ONNX_EXPECT_EXPANDED=1 (ctest sets
it when it uses the pinned onnx) makes missing _expanded tests a failure.
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

EXPANDED_TESTS = tuple(n + "_expanded" for n in BASE_TESTS)

# numpy 1.24 removed the aliases that onnx 1.12's test generator still uses;
# onnx >= 1.14 no longer needs them (and is not given them). onnx >= 1.14's
# generator also needs OUT/node to exist before it runs.
REGENERATE = r"""
import os, sys, numpy as np
import onnx
if tuple(int(v) for v in onnx.__version__.split(".")[:2]) < (1, 14):
  np.float = float; np.int = int; np.bool = bool; np.object = object
from onnx.backend.test import cmd_tools
os.makedirs(os.path.join(sys.argv[1], "node"), exist_ok=True)
sys.argv = ["cmd_tools", "generate-data", "-o", sys.argv[1], "-t", "LeakyRelu"]
cmd_tools.main()
"""


def has_function_body():
  """Whether this onnx defines LeakyRelu-16 as a function (then its
  generator writes the _expanded tests)."""
  schema = onnx.defs.get_schema("LeakyRelu", 16)
  return bool(schema.has_function or
              getattr(schema, "has_context_dependent_function", False))


@pytest.fixture(scope="module")
def node_tests(tmp_path_factory):
  out = tmp_path_factory.mktemp("onnx")
  run = subprocess.run([sys.executable, "-c", REGENERATE, str(out)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False)
  assert run.returncode == 0, run.stdout.decode(errors="replace")[-4000:]
  dirs = sorted(glob.glob(os.path.join(str(out), "node", "test_leakyrelu*")))
  return {os.path.basename(d): d for d in dirs}


def constant_value(model, name):
  """The float32 scalar a Constant gives `name`, through CastLike/Cast."""
  producer = {o: n for n in model.graph.node for o in n.output}
  node = producer[name]
  while node.op_type in ("CastLike", "Cast"):
    node = producer[node.input[0]]
  assert node.op_type == "Constant", (name, node.op_type)
  (a,) = node.attribute
  if a.name == "value_float":
    return float(a.f)  # an ONNX float attribute is a float32
  assert a.name == "value", a.name
  value = numpy_helper.to_array(a.t)
  assert value.dtype == np.float32 and value.size == 1, (value.dtype, value)
  return float(value.reshape(-1)[0])


def expanded_alpha(model):
  """alpha of an _expanded model (LeakyRelu-16's function body inlined),
  read by following the body from y, which must compute the contract's rule:
  y = Where(Less(x, Zero), Mul(Alpha, x), x), Zero = 0, Alpha a Constant
  (its value: the node's alpha, or the default 0.01) cast like x."""
  producer = {o: n for n in model.graph.node for o in n.output}
  (x,) = [i.name for i in model.graph.input]
  (y,) = [o.name for o in model.graph.output]
  where = producer[y]
  assert where.op_type == "Where", where.op_type
  less_out, mul_out, other = where.input
  assert other == x, other
  less = producer[less_out]
  assert less.op_type == "Less" and less.input[0] == x, less
  assert constant_value(model, less.input[1]) == 0.0
  mul = producer[mul_out]
  assert mul.op_type == "Mul" and list(mul.input).count(x) == 1, mul
  (alpha_name,) = [i for i in mul.input if i != x]
  return constant_value(model, alpha_name)


def alpha_of(model):
  """alpha from the model: the LeakyRelu node's attribute (absent: None, the
  default), or in an _expanded model the Constant the body multiplies x by
  (there the default 0.01 is explicit)."""
  ops = [n.op_type for n in model.graph.node]
  if ops == ["LeakyRelu"]:
    for a in model.graph.node[0].attribute:
      if a.name == "alpha":
        return float(a.f)  # an ONNX float attribute is a float32
    return None
  assert "LeakyRelu" not in ops, ops
  return expanded_alpha(model)


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


def test_regenerated_tests_exist(node_tests):
  """The base tests always; the _expanded ones exactly when this onnx gives
  LeakyRelu-16 a function body, and always when ctest asks for them."""
  expanded = has_function_body()
  if os.environ.get("LRELU_ONNX_EXPECT_EXPANDED") == "1":
    assert expanded, ("onnx %s has no function body for LeakyRelu-16; the "
                      "pin in python/requirements-dev.txt has" %
                      onnx.__version__)
  want = BASE_TESTS + (EXPANDED_TESTS if expanded else ())
  assert sorted(node_tests) == sorted(want), (onnx.__version__,
                                              sorted(node_tests))


def test_expanded_forms(node_tests):
  """Each _expanded test (LeakyRelu-16's function body inlined) carries the
  same input, expected output and float32 alpha as its base test. None
  exist with onnx 1.12 (test_regenerated_tests_exist says when they must)."""
  for name in sorted(n for n in node_tests if n.endswith("_expanded")):
    base = name[:-len("_expanded")]
    got = load_cases(name, node_tests[name])
    want = load_cases(base, node_tests[base])
    assert len(got) == len(want) >= 1, name
    for (g, _, gx, gy, galpha), (w, _, wx, wy, walpha) in zip(got, want):
      assert g["id"] == w["id"].replace(base, name)
      assert g["shape"] == w["shape"]
      assert g["inputs"] == w["inputs"] and g["expected"] == w["expected"]
      assert np.array_equal(gx.view(np.uint32), wx.view(np.uint32))
      assert np.array_equal(gy.view(np.uint32), wy.view(np.uint32))
      # The body holds the alpha (explicit 0.01 for _default) as float32.
      assert "alpha" in g["attributes"], name
      assert (np.float32(galpha).view(np.uint32) ==
              np.float32(walpha).view(np.uint32)), (name, galpha, walpha)


def test_expanded_models_compute_their_outputs(node_tests):
  """onnx's reference evaluator runs each _expanded model's nodes (Constant,
  CastLike, Less, Mul, Where) on the input: bit-exact with output_0.pb."""
  expanded = sorted(n for n in node_tests if n.endswith("_expanded"))
  if not expanded:
    return  # onnx 1.12: none generated, and no onnx.reference either
  from onnx.reference import ReferenceEvaluator  # pylint: disable=import-outside-toplevel
  for name in expanded:
    model = onnx.load(os.path.join(node_tests[name], "model.onnx"))
    session = ReferenceEvaluator(model)
    for _, _, x, y, _ in load_cases(name, node_tests[name]):
      (got,) = session.run(None, {model.graph.input[0].name: x})
      assert got.dtype == np.float32, (name, got.dtype)
      assert np.array_equal(got.view(np.uint32), y.view(np.uint32)), name


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
