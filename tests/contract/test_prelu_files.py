"""The PRelu package's files (contract/prelu/v1) against their JSON Schemas
(contract/prelu/schema), as test_contract_files.py checks LeakyRelu's; the
schemas refuse broken documents, so the check can fail."""
import copy

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
