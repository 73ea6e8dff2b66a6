"""The PRelu package's files (contract/prelu/v1) against their JSON Schemas
(contract/prelu/schema), as test_contract_files.py checks LeakyRelu's; the
schemas refuse broken documents, so the check can fail."""
import copy
import hashlib

import pytest

import contract_files as cf

SCHEMAS = {
    "manifest.json": "manifest.schema.json",
    "test.json": "test.schema.json",
    "bench.json": "bench.schema.json",
    "metadata.json": "metadata.schema.json",
}


def validator(name):
  return cf.validator(SCHEMAS[name], cf.PRELU_SCHEMA)


def errors(name, doc):
  return sorted(validator(name).iter_errors(doc), key=lambda e: list(e.path))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_file_matches_schema(name):
  found = errors(name, cf.load(name, cf.PRELU_V1))
  assert not found, "\n".join(
      "%s: %s" % ("/".join(map(str, e.path)), e.message) for e in found[:10])


def test_schema_refuses_a_wrong_width_alpha():
  doc = cf.load("test.json", cf.PRELU_V1)
  case = copy.deepcopy(doc["cases"][0])
  case["inputs"]["alpha"] = ["0"] * len(case["inputs"]["alpha"])
  doc["cases"] = [case]
  assert errors("test.json", doc)


def test_schema_refuses_a_backward_case_without_dalpha():
  doc = cf.load("test.json", cf.PRELU_V1)
  case = copy.deepcopy(next(c for c in doc["cases"] if c["op"] == "backward"))
  del case["expected"]["dalpha"]
  doc["cases"] = [case]
  assert errors("test.json", doc)


def test_manifest_states_overflow_and_nan_rules():
  """The schema insists that dalpha's text says what overflow and NaN/inf
  products give; a manifest without it is refused."""
  manifest = cf.load("manifest.json", cf.PRELU_V1)
  assert not errors("manifest.json", manifest)
  broken = copy.deepcopy(manifest)
  broken["semantics"]["dalpha"] = "dalpha = the sum, correctly rounded."
  assert errors("manifest.json", broken)


def test_metadata_lists_every_file():
  meta = cf.load("metadata.json", cf.PRELU_V1)
  broken = copy.deepcopy(meta)
  del broken["files"]["test.json"]
  assert errors("metadata.json", broken)


def test_metadata_lists_every_template_with_its_digest():
  """The forward pass's WGSL files are the package's: metadata.json names
  each (templates prelu and prelu-vec4 and each one's element rule per
  dtype) with the sha256 and size
  of the file next to it, and the helpers it borrows are LeakyRelu's, whose
  own metadata.json lists them."""
  meta = cf.load("metadata.json", cf.PRELU_V1)
  webgpu = meta["webgpu"]
  vec4 = webgpu["vec4"]
  named = ({webgpu["template"], vec4["template"]}
           | set(webgpu["element_rule"].values())
           | set(vec4["element_rule"].values()))
  assert named == set(meta["templates"])
  assert set(vec4["element_rule"]) == set(webgpu["dtypes"])
  assert all(vec4["words"][d]["lanes"] == 4 for d in webgpu["dtypes"])
  for name, entry in meta["templates"].items():
    data = cf.read_bytes(name, cf.PRELU_V1)
    data.decode("ascii")
    assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
    assert len(data) == entry["bytes"], name
  leaky = cf.load("metadata.json")
  package = webgpu["helpers"]["package"]
  assert (package["id"], package["contract_version"]) == (
      leaky["id"], leaky["contract_version"])
  for dtype in webgpu["dtypes"]:
    assert set(webgpu["helpers"][dtype]) <= set(leaky["templates"]), dtype
    assert webgpu["helpers"][dtype] == leaky["webgpu"]["helpers"][dtype]


def test_schema_refuses_metadata_without_its_templates():
  meta = cf.load("metadata.json", cf.PRELU_V1)
  broken = copy.deepcopy(meta)
  del broken["templates"]["prelu-f16.wgsl"]
  assert errors("metadata.json", broken)
  broken = copy.deepcopy(meta)
  del broken["templates"]["prelu-vec4-f32.wgsl"]
  assert errors("metadata.json", broken)
  broken = copy.deepcopy(meta)
  del broken["webgpu"]["vec4"]["element_rule"]
  assert errors("metadata.json", broken)
  broken = copy.deepcopy(meta)
  broken["webgpu"]["vec4"]["words"]["float32"]["lanes"] = 0
  assert errors("metadata.json", broken)
  broken = copy.deepcopy(meta)
  del broken["webgpu"]
  assert errors("metadata.json", broken)
