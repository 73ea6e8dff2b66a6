#!/usr/bin/python3
"""Generates the contract package ai.onnx.PRelu v1: contract/prelu/v1/*.json
(the WGSL files next to them are written by hand; metadata.json lists their
sha256 and how to render them).

    /usr/bin/python3 contract/prelu/generate.py          # (re)write v1
    /usr/bin/python3 contract/prelu/generate.py --check  # fail if v1 is stale

The oracle is numpy (LeakyReLU's element rule, contract/bits.py) and, for
dalpha, fractions.Fraction: the exact sum of the exact products rounded once.
Deterministic (fixed seeds, stable key order). docs/prelu.md has the text.
"""
import argparse
import hashlib
import json
import math
import os
import sys
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bits as B  # pylint: disable=wrong-import-position
import package_files as P  # pylint: disable=wrong-import-position
import webgpu as W  # pylint: disable=wrong-import-position

def _load(name, path):
  """Imports a file as a module under its own name (both generators are
  called generate.py)."""
  import importlib.util  # pylint: disable=import-outside-toplevel
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


_V1 = _load("contract_v1_generate",
            os.path.join(os.path.dirname(HERE), "generate.py"))
dump_cases, dump_pretty = _V1.dump_cases, _V1.dump_pretty

KERNEL_ID = "ai.onnx.PRelu"
CONTRACT_VERSION = 1
FILES = ("manifest.json", "test.json", "bench.json", "metadata.json")
PRECISION = {"float16": (11, 15), "bfloat16": (8, 127),
             "float32": (24, 127), "float64": (53, 1023)}
PATTERNS = [  # name, x shape, alpha shape
    ("scalar", [2, 3, 2, 2], []),
    ("one", [2, 3, 2, 2], [1]),
    ("nchw", [2, 3, 2, 2], [3, 1, 1]),
    ("nhwc", [2, 2, 2, 3], [3]),
    ("rows", [2, 3, 4], [3, 1]),
    ("full", [3, 4], [3, 4]),
]

DALPHA_TEXT = (
    "dalpha = sum over the axes alpha is broadcast along of "
    "(x < 0 ? x * dy : 0), correctly rounded: the exact sum of the exact "
    "products, rounded once (to nearest, ties to even) to alpha's dtype. "
    "Products of float32/float16/bfloat16 values are exact in float64; "
    "float64 products are formed exactly (106 bits); the sum is exact. The "
    "result is the same on every backend, SIMD target, thread count and "
    "chunking. Overflow: an exact sum beyond the dtype's range is +-inf "
    "(round to nearest); a partial sum never overflows. Underflow: "
    "subnormals kept; a nonzero sum rounding to zero is a zero of its sign. "
    "NaN: a NaN product (dy NaN where x < 0, or -inf * 0) or inf products of "
    "both signs give the quiet NaN (sign 0, top fraction bit); inf products "
    "of one sign give that inf. An exact zero (or no term) is +0.")


def manifest():
  return {
      "id": KERNEL_ID,
      "domain": "ai.onnx",
      "op_type": "PRelu",
      "contract_version": CONTRACT_VERSION,
      "summary": "Parametric rectified linear unit: y = x < 0 ? alpha * x : "
                 "x with alpha a tensor broadcast to x.",
      "onnx": {
          "since_opset": 16,
          "spec": "https://onnx.ai/onnx/operators/onnx__PRelu.html",
          "differences": "ONNX names alpha `slope`. float16/bfloat16 "
                         "compute in float32 (one multiply, one rounding), "
                         "as LeakyRelu's contract v1.",
      },
      "inputs": [
          {"name": "x", "upstream_name": "X", "type": "T",
           "shape": "any rank >= 0, any extents, any strides"},
          {"name": "alpha", "upstream_name": "slope", "type": "T or float64",
           "shape": "broadcasts to x by ONNX's unidirectional rule: aligned "
                    "to the right of x's shape, each extent equal to x's or "
                    "1 (per channel: [C,1,1] for NCHW, [C] for NHWC)",
           "description": "x's dtype, or float64 with a float32/float16/"
                          "bfloat16 x (then each value is rounded to "
                          "float32 once, LeakyRelu's rule for alpha)"},
      ],
      "outputs": [{"name": "y", "upstream_name": "Y", "type": "T",
                   "shape": "x's"}],
      "types": {"T": list(B.DTYPES)},
      "semantics": {
          "forward": "per element, LeakyRelu contract v1 with that "
                     "element's alpha: y = x < 0 ? alpha * x : x; +0, -0, "
                     "+inf and every NaN pass through with identical bits; "
                     "a NaN the product makes may be any NaN; no "
                     "flush-to-zero.",
          "dx": "dx = x < 0 ? alpha * dy : dy (LeakyRelu's gradient per "
                "element).",
          "dalpha": DALPHA_TEXT,
      },
      "errors": {
          "alpha does not broadcast": "LRELU_STATUS_SHAPE_MISMATCH",
          "alpha dtype": "LRELU_STATUS_DTYPE_MISMATCH",
          "y or dx shares memory with alpha": "LRELU_STATUS_OVERLAP",
      },
  }


def round_fraction(q, dtype):
  """Fraction -> float64 holding the value rounded once to dtype."""
  if q == 0:
    return 0.0
  p, emax = PRECISION[dtype]
  sign = -1.0 if q < 0 else 1.0
  q = abs(q)
  e = q.numerator.bit_length() - q.denominator.bit_length()
  if Fraction(2) ** e > q:
    e -= 1
  quantum = max(e - (p - 1), 1 - emax - (p - 1))
  scaled = q / Fraction(2) ** quantum
  m, r = divmod(scaled.numerator, scaled.denominator)
  if 2 * r > scaled.denominator or (2 * r == scaled.denominator and m & 1):
    m += 1
  if m == 2 ** p:
    m //= 2
    quantum += 1
  if quantum + p - 1 > emax:
    return sign * math.inf
  return sign * math.ldexp(m, quantum)


def dalpha_bits(x_bits, dy_bits, x_shape, alpha_shape, dtype, alpha_dtype):
  xv = B.to_compute(x_bits, dtype).astype(np.float64).reshape(x_shape)
  dyv = B.to_compute(dy_bits, dtype).astype(np.float64).reshape(x_shape)
  count = int(np.prod(alpha_shape, dtype=np.int64))
  index = np.broadcast_to(np.arange(count).reshape(alpha_shape), x_shape)
  sums = [Fraction(0)] * count
  nan = [False] * count
  pinf = [False] * count
  ninf = [False] * count
  for a, xi, di in zip(index.ravel(), xv.ravel(), dyv.ravel()):
    if not xi < 0:
      continue
    if math.isnan(di) or (math.isinf(xi) and di == 0):
      nan[a] = True
    elif math.isinf(xi) or math.isinf(di):
      if (xi < 0) != (di < 0):
        ninf[a] = True
      else:
        pinf[a] = True
    else:
      sums[a] += Fraction(xi) * Fraction(di)
  out = []
  exp_bits, man_bits = B.LAYOUT[alpha_dtype]
  qnan = ((1 << exp_bits) - 1) << man_bits | 1 << (man_bits - 1)
  for a in range(count):
    if nan[a] or (pinf[a] and ninf[a]):
      out.append(qnan)
    elif pinf[a] or ninf[a]:
      out.append(int(B.from_double([math.inf if pinf[a] else -math.inf],
                                   alpha_dtype)[0]))
    else:
      out.append(int(B.from_double([round_fraction(sums[a], alpha_dtype)],
                                   alpha_dtype)[0]))
  return np.array(out, dtype=B.utype(alpha_dtype))


def random_finite_bits(dtype, n, rng, scale):
  values = rng.standard_normal(n) * scale
  return B.from_double(values, dtype)


def random_any_bits(dtype, n, rng):
  u = B.utype(dtype)
  return rng.integers(0, np.iinfo(u).max, size=n, dtype=u, endpoint=True)


def case(op, dtype, alpha_dtype, name, x_shape, alpha_shape, x, alpha, dy):
  """One case with expected outputs."""
  count = int(np.prod(alpha_shape, dtype=np.int64))
  index = np.broadcast_to(np.arange(count).reshape(alpha_shape),
                          x_shape).ravel()
  alpha_values = B.to_compute(alpha, alpha_dtype).astype(np.float64)[index]
  c = {"id": "%s/%s/alpha=%s/%s" % (op, dtype, alpha_dtype, name),
       "op": op, "dtype": dtype, "alpha_dtype": alpha_dtype,
       "shape": x_shape, "alpha_shape": alpha_shape,
       "inputs": {"x": B.to_hex(x, dtype), "alpha": B.to_hex(alpha,
                                                             alpha_dtype)}}
  if op == "forward":
    y, nan = B.forward(x, alpha_values, dtype)
    c["expected"] = {"y": B.to_hex(y, dtype)}
    c["any_nan"] = {"y": np.flatnonzero(nan).tolist()}
  else:
    c["inputs"]["dy"] = B.to_hex(dy, dtype)
    dx, nan = B.backward(dy, x, alpha_values, dtype)
    c["expected"] = {
        "dx": B.to_hex(dx, dtype),
        "dalpha": B.to_hex(dalpha_bits(x, dy, x_shape, alpha_shape, dtype,
                                       alpha_dtype), alpha_dtype)}
    c["any_nan"] = {"dx": np.flatnonzero(nan).tolist()}
  return c


def all_cases():
  rng = np.random.default_rng(20261201)
  cases = []
  for dtype in B.DTYPES:
    for alpha_dtype in ([dtype] if dtype == "float64" else [dtype, "float64"]):
      for name, x_shape, alpha_shape in PATTERNS:
        n = int(np.prod(x_shape))
        na = int(np.prod(alpha_shape, dtype=np.int64))
        alpha = random_finite_bits(alpha_dtype, na, rng, 0.5)
        x = random_any_bits(dtype, n, rng)
        cases.append(case("forward", dtype, alpha_dtype, name, x_shape,
                          alpha_shape, x, alpha, None))
        x = random_finite_bits(dtype, n, rng, 4.0)
        dy = random_finite_bits(dtype, n, rng, 100.0)
        cases.append(case("backward", dtype, alpha_dtype, name, x_shape,
                          alpha_shape, x, alpha, dy))
    # Sums a float accumulator gets wrong, and the special rules.
    big = {"float16": 6e4, "bfloat16": 3e38, "float32": 3e38,
           "float64": 1e308}[dtype]
    specials = [
        ("cancel", [-1.0, -1.0, -1.0], [big, 1.0, -big]),
        ("overflow", [-1.0, -1.0], [-big, -big]),
        ("nan", [-1.0, -2.0], [float("nan"), 1.0]),
        ("inf_both", [-float("inf"), -float("inf")], [1.0, -1.0]),
        ("inf_one", [-float("inf"), -1.0], [1.0, 5.0]),
        ("inf_times_zero", [-float("inf")], [0.0]),
        ("zero", [1.0, -0.0, float("nan")], [3.0, 3.0, 3.0]),
    ]
    alpha = B.from_double([0.25], dtype)
    for name, xs, dys in specials:
      cases.append(case("backward", dtype, dtype, "special/" + name,
                        [len(xs)], [], B.from_double(xs, dtype),
                        alpha.reshape(()).reshape(1)[:1],
                        B.from_double(dys, dtype)))
  return cases


def bench_document():
  return {"id": KERNEL_ID, "contract_version": CONTRACT_VERSION,
          "cases": [{"id": "%s/%s/c=%d/n=%d" % (op, layout, c, n),
                     "op": op, "dtype": "float32", "layout": layout,
                     "channels": c, "elements": n}
                    for op in ("forward", "dalpha")
                    for layout in ("NCHW", "NHWC")
                    for c in (64, 512) for n in (1 << 16, 1 << 24)]}


# The forward pass's WGSL, hand-written files of the package, in the order
# metadata.json lists them: template prelu (one u32 word an invocation) and
# template prelu-vec4 (four elements an invocation), each with its own
# per-dtype rule file.
TEMPLATE_FILES = ("prelu.wgsl.jinja", "prelu-f32.wgsl", "prelu-f16.wgsl",
                  "prelu-vec4.wgsl.jinja", "prelu-vec4-f32.wgsl",
                  "prelu-vec4-f16.wgsl")


def webgpu_section():
  """metadata.json's "webgpu": how liblrelu (lrelu_kernel_source, variants
  "prelu" and "prelu-vec4") and the JavaScript module (kernel.prelu)
  render the templates. The top-level template, words and element_rule
  are template prelu's (as before prelu-vec4 was added); "vec4" is the
  same for template prelu-vec4, which renders alike."""
  return {
      "dtypes": ["float32", "float16"],
      "template": "prelu.wgsl.jinja",
      "words": {"float32": {"word": "u32", "lanes": 1},
                "float16": {"word": "u32", "lanes": 2}},
      "element_rule": {"float32": "prelu-f32.wgsl",
                       "float16": "prelu-f16.wgsl"},
      "helpers": {
          "package": {"id": "ai.onnx.LeakyRelu", "contract_version": 1},
          "float32": ["multiply-f32.wgsl", "helpers-f32.wgsl"],
          "float16": ["multiply-f32.wgsl", "helpers-f16.wgsl"],
      },
      "workgroup_size": {"default": 256, "max": 256},
      "render": (
          "Text substitution (a subset of Jinja: variables only), as "
          "ai.onnx.LeakyRelu's templates: replace {{HELPERS}} with the "
          "dtype's helper files of that package (its metadata.json has "
          "their sha256) joined by one newline, then a newline and the "
          "dtype's element_rule file; then every {{WORD}}, {{LANES}} and "
          "{{DTYPE}} with the dtype's values and every {{WORKGROUP_SIZE}} "
          "with the workgroup size in decimal."),
      "entry_points": {"forward": "y from x and alpha: x at binding 0, "
                                  "alpha at binding 1, y at binding 2"},
      "params": ("binding 3, uniform: u32 n, u32 rank, u32 alpha_base, u32 "
                 "first (the flat index in the whole x of the bound x's "
                 "element 0, a multiple of lanes: a tensor in chunks; 0 for "
                 "one dispatch), then 8 vec4<u32> dims (x: extent, y: "
                 "alpha's stride in elements, 0 where alpha is broadcast; "
                 "outermost first, neighbouring axes merged)"),
      "dispatch": ("ceil(ceil(n / lanes) / workgroup_size) workgroups, in x "
                   "and y when that exceeds 65535"),
      "vec4": {
          "template": "prelu-vec4.wgsl.jinja",
          "words": {"float32": {"word": "vec4<u32>", "lanes": 4},
                    "float16": {"word": "vec2<u32>", "lanes": 4}},
          "element_rule": {"float32": "prelu-vec4-f32.wgsl",
                           "float16": "prelu-vec4-f16.wgsl"},
          "description": (
              "four elements per invocation (16-byte float32 or 8-byte "
              "float16 words): the first element's alpha from one pass of "
              "divisions, the next three by carrying the digits; the same "
              "bindings, params and bits as the top-level template; "
              "buffers hold whole words and Params.first is a multiple of "
              "4; the JavaScript module's default"),
      },
  }


def build_files():
  texts = {
      "manifest.json": dump_pretty(manifest()),
      "test.json": dump_cases({"id": KERNEL_ID,
                               "contract_version": CONTRACT_VERSION,
                               "cases": all_cases()}),
      "bench.json": dump_cases(bench_document()),
  }
  files = {name: {"sha256": hashlib.sha256(t.encode()).hexdigest(),
                  "bytes": len(t.encode())} for name, t in texts.items()}
  templates = {
      name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
      for name, data in W.read_templates(os.path.join(HERE, "v1"),
                                         TEMPLATE_FILES).items()
  }
  texts["metadata.json"] = dump_pretty({
      "id": KERNEL_ID, "contract_version": CONTRACT_VERSION,
      "generator": "contract/prelu/generate.py",
      "files": dict(sorted(files.items())),
      "templates": templates,
      "webgpu": webgpu_section()})
  return texts


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=os.path.join(HERE, "v1"))
  parser.add_argument("--check", action="store_true")
  args = parser.parse_args()
  texts = build_files()
  if args.check:
    return P.check(texts, FILES, args.out, "contract/prelu/generate.py")
  P.write(texts, FILES, args.out)
  print("wrote %s (%d cases)" % (args.out, texts["test.json"].count('"op"')))
  return 0


if __name__ == "__main__":
  sys.exit(main())
