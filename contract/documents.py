"""The non-case content of contract v1: manifest, bench cases, metadata, and
the header of test.json. Plain data; generate.py serializes it."""

import bits as B
import cases as C

KERNEL_ID = "ai.onnx.LeakyRelu"
CONTRACT_VERSION = 1
GENERATOR = "contract/generate.py"


def manifest():
  return {
      "id": KERNEL_ID,
      "domain": "ai.onnx",
      "op_type": "LeakyRelu",
      "contract_version": CONTRACT_VERSION,
      "summary": "Leaky rectified linear unit, elementwise: "
                 "y = x < 0 ? alpha * x : x.",
      "onnx": {
          "since_opset": 16,
          "spec": "https://onnx.ai/onnx/operators/onnx__LeakyRelu.html",
          "versions": [
              {"opset": 1,
               "types": ["float16", "float32", "float64"],
               "note": "attribute alpha (float, default 0.01) and the legacy "
                       "consumed_inputs attribute"},
              {"opset": 6,
               "types": ["float16", "float32", "float64"],
               "note": "dropped consumed_inputs; otherwise as opset 1"},
              {"opset": 16,
               "types": ["bfloat16", "float16", "float32", "float64"],
               "note": "added bfloat16; defined as a function: "
                       "Where(Less(X, 0), Mul(CastLike(alpha, X), X), X)"},
          ],
          "differences": "Contract v1 follows opset 16's types and its "
                         "comparison (X < 0) but computes float16 and "
                         "bfloat16 in float32 with alpha rounded to float32 "
                         "(PyTorch's rule), where the opset 16 function body "
                         "casts alpha to T first (CastLike); the two can "
                         "differ by one unit in the last place."
      },
      "inputs": [{
          "name": "x",
          "upstream_name": "X",
          "type": "T",
          "shape": "any rank >= 0, any extents >= 0, any strides",
          "description": "Values transformed elementwise by leaky ReLU.",
          "presence": "required",
      }],
      "outputs": [{
          "name": "y",
          "upstream_name": "Y",
          "type": "T",
          "shape": "same as x",
          "description": "x where x is not negative, alpha * x where it is.",
          "presence": "required",
      }],
      "attributes": [{
          "name": "alpha",
          "type": "float",
          "default": C.DEFAULT_ALPHA,
          "overridable_per_request": True,
          "valid_values": "any double: 0, negative, > 1, +-inf and NaN included",
          "description": "Slope for negative x; a per-call scalar.",
      }],
      "type_constraints": [{
          "name": "T",
          "allowed": list(B.DTYPES),
          "description": "IEEE 754 binary32, binary16, bfloat16 (the upper "
                         "16 bits of a binary32) and binary64.",
      }],
      "shape_rule": {
          "output": "y has the shape and dtype of x",
          "rank": "any rank >= 0; rank 0 holds one element",
          "empty": "a tensor with a zero extent is valid: no work, no error",
          "errors": "other dtypes, an element count or byte extent that "
                    "overflows, and partial aliasing are errors",
      },
      "aliasing": {
          "in_place": True,
          "rule": "y may be x itself (same data and strides); any other "
                  "overlap of y with x, or of y with itself, is an error",
      },
      "semantics": {
          "forward": "y = x < 0 ? alpha * x : x",
          "comparison": "x < 0 (IEEE ordered less-than: false for -0, +0 "
                        "and every NaN)",
          "pass_through": "every x that is not strictly negative (+0, -0, "
                          "+inf, any NaN with any sign and payload) is "
                          "copied with identical bits",
          "compute": {
              "float32": {"compute_type": "float32",
                          "alpha": "rounded to float32 once (RNE)"},
              "float16": {"compute_type": "float32",
                          "alpha": "rounded to float32 once (RNE)",
                          "store": "float32 product rounded to float16, RNE"},
              "bfloat16": {"compute_type": "float32",
                           "alpha": "rounded to float32 once (RNE)",
                           "store": "float32 product rounded to bfloat16, RNE"},
              "float64": {"compute_type": "float64",
                          "alpha": "used as given (a double)"},
          },
          "multiply": "one multiply alpha * x in the compute type; no fused "
                      "or wider intermediate",
          "rounding": "round-to-nearest, ties-to-even, for the product and "
                      "for the store to the storage type",
          "subnormals": "kept: no flush-to-zero of inputs, products or "
                        "results, whatever the caller's floating-point "
                        "environment says",
          "negative_zero": "x = -0 is not negative, so y = -0; a product "
                           "that underflows keeps its sign (-0 for alpha > 0)",
          "nan": "a NaN x passes through with identical bits; a NaN produced "
                 "by the product (alpha NaN, -inf * 0, or a NaN dy in the "
                 "gradient) may be any NaN",
      },
      "gradient": {
          "inputs": ["dy", "x or y"],
          "output": "dx",
          "from_x": "dx = x < 0 ? alpha * dy : dy",
          "from_y": "dx = y < 0 ? alpha * dy : dy; valid only for alpha > 0 "
                    "(alpha <= 0 or NaN is an error): y no longer shows the "
                    "sign of x otherwise. Equals from_x except where alpha * x "
                    "underflowed to -0",
          "at_zero": "the derivative at x = 0 (either sign) is 1: dx = dy",
          "compute": "as the forward: alpha * dy in the compute type, RNE to "
                     "storage; dy passes through with identical bits",
          "shapes": "dy, x (or y) and dx have one shape and dtype; dx may be "
                    "dy itself (in-place)",
      },
      "errors": [
          "unsupported dtype", "dtype mismatch", "shape mismatch",
          "element count or byte extent overflow",
          "partial overlap of an output with an input or itself",
          "gradient from y with alpha <= 0 or NaN",
          "unknown attribute, missing or unknown input",
      ],
  }


def test_document(test_cases):
  return {
      "kernel": KERNEL_ID,
      "contract_version": CONTRACT_VERSION,
      "generator": GENERATOR,
      "oracle": "numpy (float32 multiply is IEEE RNE; float16 and "
                "bfloat16 computed in float32 and rounded RNE)",
      "encoding": {
          "tensors": "flat list, C order, of lowercase hex bit patterns of "
                     "the storage type: 4 digits for float16 and bfloat16, "
                     "8 for float32, 16 for float64",
          "alpha": "attributes.alpha = {text, f64, f32}: f64 is the exact "
                   "double the caller passes (authoritative), f32 the "
                   "float32 it rounds to, text a decimal that strtod and "
                   "Python float() read back to f64 ('nan', 'inf', '-inf', "
                   "'-0' included). No alpha attribute: the manifest default.",
          "grad_source": "attributes.grad_source = 'x' or 'y' for op "
                         "'backward'; the case's inputs are dy and x (or y)",
          "compare": "'bitexact': every output element has exactly the "
                     "expected bits, except the flat indices listed in "
                     "anynan[output], where any NaN passes",
          "expected_error": "the call must fail; 'invalid_alpha' is "
                            "LRELU_STATUS_INVALID_ALPHA",
      },
      "cases": test_cases,
  }


BENCH_SIZES = [1 << (10 + 2 * k) for k in range(10)]  # 1 Ki ... 256 Mi
NETWORK_SHAPES = ([1, 64, 112, 112], [128, 3, 28, 28], [128, 8, 8, 8],
                  [4096, 11008], [1024])


def size_text(n):
  for unit, scale in (("Mi", 1 << 20), ("Ki", 1 << 10)):
    if n % scale == 0:
      return "%d%s" % (n // scale, unit)
  return str(n)


def bench_document():
  bench = []
  for dtype in B.DTYPES:
    size = B.hex_digits(dtype) // 2
    for op in ("forward", "backward"):
      shapes = [("1d", [n], "n=%s" % size_text(n)) for n in BENCH_SIZES]
      shapes += [("network", s, "shape=" + C.shape_text(s))
                 for s in NETWORK_SHAPES]
      for category, shape, label in shapes:
        count = 1
        for d in shape:
          count *= d
        for in_place in (False, True):
          # forward reads x, writes y; backward reads dy and x, writes dx.
          tensors = 2 if op == "forward" else 3
          bench.append({
              "id": "%s/%s/%s/%s" % (op, dtype, label,
                                     "in-place" if in_place else
                                     "out-of-place"),
              "category": category,
              "op": op,
              "dtype": dtype,
              "shape": shape,
              "in_place": in_place,
              "attributes": ({"alpha": B.alpha_attribute(C.DEFAULT_ALPHA)}
                             if op == "forward" else {
                                 "alpha": B.alpha_attribute(C.DEFAULT_ALPHA),
                                 "grad_source": "x"}),
              "elements": count,
              "bytes_moved": count * size * tensors,
          })
  return {
      "kernel": KERNEL_ID,
      "contract_version": CONTRACT_VERSION,
      "generator": GENERATOR,
      "data": "inputs uniform in [-1, 1) (about half negative); the values "
              "do not change the work, only the branch mix",
      "metric": "bytes_moved / time: every input element read once and "
                "every output element written once",
      "in_place": "forward y = x; backward dx = dy",
      "cases": bench,
  }


def metadata(digests, sizes, templates=None, webgpu=None):
  """templates: {name: {"sha256", "bytes"}} of the WGSL files; webgpu: the
  section that says how to render them (contract/webgpu.py)."""
  doc = {
      "id": KERNEL_ID,
      "contract_version": CONTRACT_VERSION,
      "files": {
          name: {"sha256": digests[name], "bytes": sizes[name]}
          for name in sorted(digests)
      },
      "templates": templates or {},
      "variants": [
          {"name": "reference",
           "description": "scalar loop over any layout, the contract "
                          "written out; used only when forced"},
          {"name": "contiguous",
           "description": "SIMD over one dense run of elements, split "
                          "across threads; needs x and y (dy, s, dx) to "
                          "coalesce to one dense run each"},
          {"name": "strided",
           "description": "any shape and strides (negative, zero for "
                          "inputs, gaps); dimensions coalesced first"},
      ],
      "selection": {
          "rule": "contiguous when x and y (every operand) coalesce to one "
                  "dense run; otherwise strided; reference only when forced "
                  "(options.variant). Forcing contiguous on a layout that "
                  "does not coalesce is an error (unsupported variant). A "
                  "tensor with no elements runs nothing ('empty').",
          "order": ["contiguous", "strided"],
          "forced_only": ["reference"],
      },
      "provenance": {
          "generator": GENERATOR,
          "oracle": "numpy",
          "source_revision": None,
          "build": None,
          "note": "source_revision and build stay null in the file; the "
                  "library reports the values it was built from "
                  "(lrelu::Kernel::metadata()).",
      },
  }
  if webgpu is not None:
    doc["webgpu"] = webgpu
  return doc
