"""Shared helpers for the contract pytests: paths, loading, schemas."""

import json
import os
import sys

import jsonschema

ROOT = os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CONTRACT = os.path.join(ROOT, "contract")
V1 = os.path.join(CONTRACT, "v1")
SCHEMA = os.path.join(CONTRACT, "schema")
PRELU_V1 = os.path.join(CONTRACT, "prelu", "v1")
PRELU_SCHEMA = os.path.join(CONTRACT, "prelu", "schema")
FILES = ("manifest.json", "test.json", "bench.json", "metadata.json")

sys.path.insert(0, CONTRACT)
import bits  # pylint: disable=wrong-import-position,unused-import


def load(name, directory=V1):
  with open(os.path.join(directory, name), "rb") as f:
    return json.loads(f.read().decode("ascii"))


def read_bytes(name, directory=V1):
  with open(os.path.join(directory, name), "rb") as f:
    return f.read()


def validator(schema_name, schema_dir=SCHEMA):
  """A draft 2020-12 validator with every schema of `schema_dir` (LeakyRelu's
  contract/schema, or PRelu's) in its store, so references between the
  files resolve offline."""
  store = {}
  for name in os.listdir(schema_dir):
    if name.endswith(".schema.json"):
      with open(os.path.join(schema_dir, name)) as f:
        schema = json.load(f)
      jsonschema.Draft202012Validator.check_schema(schema)
      store[schema["$id"]] = schema
  with open(os.path.join(schema_dir, schema_name)) as f:
    schema = json.load(f)
  resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
  return jsonschema.Draft202012Validator(schema, resolver=resolver)
