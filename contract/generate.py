#!/usr/bin/python3
"""Generates the frozen contract package contract/v1/*.json.

    /usr/bin/python3 contract/generate.py            # (re)write contract/v1
    /usr/bin/python3 contract/generate.py --out DIR  # write elsewhere
    /usr/bin/python3 contract/generate.py --check    # fail if v1 is stale

numpy is the oracle (see bits.py for the arithmetic). The output is
deterministic: fixed seeds, no timestamps, stable key order; so running it
twice gives the same bytes, and tests/contract/test_contract_files.py checks
that the committed files equal a fresh run. It prints the number of test
cases per dtype and category (docs/contract.md has the same table).
"""

import argparse
import collections
import hashlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bits as B  # pylint: disable=wrong-import-position
import cases as C  # pylint: disable=wrong-import-position
import documents as D  # pylint: disable=wrong-import-position
import package_files as P  # pylint: disable=wrong-import-position
import webgpu as W  # pylint: disable=wrong-import-position

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("manifest.json", "test.json", "bench.json", "metadata.json")


def dump_pretty(obj):
  return json.dumps(obj, indent=2, ensure_ascii=True) + "\n"


def dump_cases(doc):
  """One case per line: a small diff per changed case, a compact file."""
  head = {k: v for k, v in doc.items() if k != "cases"}
  text = json.dumps(head, indent=2, ensure_ascii=True)
  assert text.endswith("\n}")
  lines = [text[:-2] + ',\n  "cases": [']
  body = [
      "    " + json.dumps(c, separators=(",", ":"), ensure_ascii=True)
      for c in doc["cases"]
  ]
  lines.append(",\n".join(body))
  lines.append("  ]\n}\n")
  return "\n".join(lines)


def build_files():
  """Returns {file name: text} for the whole package."""
  test_cases = C.all_cases()
  texts = {
      "manifest.json": dump_pretty(D.manifest()),
      "test.json": dump_cases(D.test_document(test_cases)),
      "bench.json": dump_cases(D.bench_document()),
  }
  digests = {
      name: hashlib.sha256(texts[name].encode("ascii")).hexdigest()
      for name in ("manifest.json", "test.json", "bench.json")
  }
  sizes = {name: len(texts[name].encode("ascii")) for name in digests}
  # The WGSL templates are hand-written files of the package: hashed, not
  # generated.
  templates = {
      name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
      for name, data in W.read_templates(os.path.join(HERE, "v1")).items()
  }
  texts["metadata.json"] = dump_pretty(
      D.metadata(digests, sizes, templates, W.section()))
  return texts, test_cases


def count_table(test_cases):
  """Markdown table: cases per category (rows) and dtype (columns)."""
  counts = collections.Counter((c["category"], c["dtype"]) for c in test_cases)
  categories = sorted({c["category"] for c in test_cases},
                      key=C.CATEGORY_ORDER.index)
  rows = ["| category | " + " | ".join(B.DTYPES) + " | total |",
          "|---|" + "---:|" * (len(B.DTYPES) + 1)]
  for cat in categories:
    per = [counts[(cat, d)] for d in B.DTYPES]
    rows.append("| %s | %s | %d |" % (cat, " | ".join(map(str, per)), sum(per)))
  per = [sum(counts[(cat, d)] for cat in categories) for d in B.DTYPES]
  rows.append("| **total** | %s | %d |" % (" | ".join(map(str, per)), sum(per)))
  return "\n".join(rows)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=os.path.join(HERE, "v1"),
                      help="output directory (default: contract/v1)")
  parser.add_argument("--check", action="store_true",
                      help="compare with the files in --out instead of writing")
  args = parser.parse_args()

  texts, test_cases = build_files()
  if args.check:
    return P.check(texts, FILES, args.out, "contract/generate.py")
  P.write(texts, FILES, args.out)
  print("wrote %s: %s" % (args.out, ", ".join(
      "%s (%d bytes)" % (n, len(texts[n])) for n in FILES)))
  print(count_table(test_cases))
  return 0


if __name__ == "__main__":
  np.seterr(all="raise")  # every intended overflow/NaN is under errstate
  sys.exit(main())
