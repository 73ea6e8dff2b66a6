"""The correctness cases of contract v1 (test.json), computed with numpy.

Each builder returns case dicts in the test.json format (docs/contract.md):
inputs and expected outputs are hex bit patterns of the storage type, alpha
is encoded by bits.alpha_attribute, and "anynan" lists the flat (C-order)
indices of outputs that the product turns into NaN, where any NaN passes.

Random data comes from np.random.RandomState seeded from the case id (crc32),
so a case does not change when other cases are added or reordered.
"""

import fractions
import math
import zlib

import numpy as np

import bits as B

DEFAULT_ALPHA = 0.01
INF = float("inf")
NAN = float("nan")
# The alphas every special-value and gradient case runs with.
ALPHAS = (0.0, 0.01, 0.2, -0.5, 1.5, 3.0, INF, -INF, NAN, -0.0)
# Finite nonzero alphas, where rounding matters.
ROUNDING_ALPHAS = (0.01, 0.2, -0.5, 1.5, 3.0)
# Gradient from y is defined only for alpha > 0 (NaN is not > 0).
FROM_Y_ALPHAS = tuple(a for a in ALPHAS if a > 0)
INVALID_FROM_Y_ALPHAS = tuple(a for a in ALPHAS if not a > 0)
LENGTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127,
           129, 257, 1025)
RANK_SHAPES = ([7], [3, 5], [2, 3, 4], [2, 1, 3, 2], [1, 2, 3, 1, 2],
               [2, 1, 2, 1, 2, 3], [1, 2, 1, 2, 1, 2, 2], [2, 1, 2, 1, 1, 2, 1, 3])
CATEGORY_ORDER = ("seed", "onnx", "random", "special", "rounding", "length",
                  "rank", "empty", "scalar", "gradient", "gradient_from_y",
                  "error")


def rng_for(case_id):
  return np.random.RandomState(zlib.crc32(case_id.encode("ascii")))


def shape_text(shape):
  return "[" + ",".join(str(d) for d in shape) + "]"


# --------------------------------------------------------------------------
# Case assembly
# --------------------------------------------------------------------------


def make_case(case_id, category, op, dtype, shape, alpha, inputs,
              grad_source=None):
  """Builds one case; computes the expected outputs from the inputs.

  alpha None means "not given": the call uses the manifest default (0.01).
  inputs maps names to uint bit arrays of the storage type.
  """
  shape = list(shape)
  count = int(np.prod(shape, dtype=np.int64)) if shape else 1
  for name, value in inputs.items():
    assert value.size == count, (case_id, name)
  attributes = {}
  if alpha is not None:
    attributes["alpha"] = B.alpha_attribute(alpha)
  if grad_source is not None:
    attributes["grad_source"] = grad_source
  case = {
      "id": case_id,
      "category": category,
      "op": op,
      "dtype": dtype,
      "shape": shape,
      "attributes": attributes,
      "inputs": {k: B.to_hex(v, dtype) for k, v in inputs.items()},
  }
  a = DEFAULT_ALPHA if alpha is None else alpha
  if op == "backward" and grad_source == "y" and not a > 0:
    case["expected_error"] = "invalid_alpha"
    return case
  if op == "forward":
    out, nan = B.forward(inputs["x"], a, dtype)
    out_name = "y"
  else:
    out, nan = B.backward(inputs["dy"], inputs[grad_source], a, dtype)
    out_name = "dx"
  case["expected"] = {out_name: B.to_hex(out, dtype)}
  case["compare"] = "bitexact"
  nan_index = [int(i) for i in np.flatnonzero(nan.reshape(-1))]
  if nan_index:
    case["anynan"] = {out_name: nan_index}
  return case


def forward_case(case_id, category, dtype, shape, alpha, x_bits):
  return make_case(case_id, category, "forward", dtype, shape, alpha,
                   {"x": np.asarray(x_bits, dtype=B.utype(dtype))})


def backward_case(case_id, category, dtype, shape, alpha, source, dy_bits,
                  s_bits):
  u = B.utype(dtype)
  return make_case(case_id, category, "backward", dtype, shape, alpha, {
      "dy": np.asarray(dy_bits, dtype=u),
      source: np.asarray(s_bits, dtype=u)
  }, grad_source=source)


# --------------------------------------------------------------------------
# Special values
# --------------------------------------------------------------------------


# The special values and named bit patterns live with the dtype table in
# bits.py, the one Python module of dtypes and the oracle.
Format = B.Format
special_bits = B.special_bits


# --------------------------------------------------------------------------
# Rounding: inputs where a wrong compute rule gives a different result
# --------------------------------------------------------------------------


def exact_product(x_bits, alpha, dtype):
  """Exact alpha_c * x as Fractions (alpha_c: alpha in the compute type)."""
  a = fractions.Fraction(float(B.compute_alpha(alpha, dtype)))
  values = B.to_compute(x_bits, dtype).astype(np.float64)
  return [a * fractions.Fraction(float(v)) for v in values]


def neighbors(bits, dtype, below, above):
  """Bit patterns next to each pattern (same sign), clipped to finite."""
  f = Format(dtype)
  out = []
  for b in bits:
    b = int(b)
    for k in range(-below, above + 1):
      n = b + k
      if (n & ~f.sign) < f.inf and (n & f.sign) == (b & f.sign) and n >= 0:
        out.append(n)
  return out


def storage_neighbors_of(values, dtype, width=2):
  """Negative storage values nearest to each value, and their neighbors."""
  seeds = [int(b) | Format(dtype).sign
           for b in B.from_double(np.abs(values), dtype)]
  return neighbors(seeds, dtype, width, width)


def is_tie(x_bits, alpha, dtype):
  """Whether the product the contract rounds to storage is a tie."""
  if dtype == "bfloat16":
    p = B.compute_alpha(alpha, dtype) * B.to_compute(x_bits, dtype)
    return (p.view(np.uint32) & 0xFFFF) == 0x8000
  if dtype == "float16":
    p = (B.compute_alpha(alpha, dtype) *
         B.to_compute(x_bits, dtype)).astype(np.float64)
    r = p.astype(np.float16)
    rb = r.view(np.uint16).astype(np.int64)
    # The other neighbor is one step away from r, on p's side.
    step = np.where(np.abs(p) > np.abs(r.astype(np.float64)), 1, -1)
    other = (rb + step).astype(np.uint16).view(np.float16).astype(np.float64)
    rd = r.astype(np.float64)
    return (p != rd) & (np.abs(p - rd) == np.abs(other - p))
  # float32 and float64: from the exact product.
  exact = exact_product(x_bits, alpha, dtype)
  out = []
  for q in exact:
    try:
      with np.errstate(over="ignore"):
        rounded = float(B.compute_type(dtype)(float(q)))
    except OverflowError:
      rounded = INF
    if rounded in (INF, -INF) or fractions.Fraction(rounded) == q:
      out.append(False)
      continue
    r = fractions.Fraction(rounded)
    rbits = B.from_double([math.copysign(rounded, float(q))],
                          dtype).astype(np.int64)[0]
    toward = 1 if abs(q) > abs(r) else -1
    other = fractions.Fraction(
        float(B.to_compute([rbits + toward], dtype).astype(np.float64)[0]))
    out.append(abs(q - r) == abs(other - q))
  return np.array(out, dtype=bool)


def round_to_bf16(v):
  """Exact float64 values -> bfloat16 bits, one RNE rounding (normal and
  subnormal results), from the quantum of each value's binade."""
  _, e = np.frexp(v)
  q = np.maximum(e - 1, -126) - 7
  r = np.ldexp(np.rint(np.ldexp(v, -q)), q)
  big = np.abs(r) > 3.3895313892515355e38  # largest finite bfloat16
  r = np.where(big, np.copysign(np.inf, v), r)
  return (r.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def alternative_results(x_bits, alpha, dtype):
  """Results of plausible wrong rules, {rule name: storage bits}."""
  x = B.to_compute(x_bits, dtype)
  alts = {}
  with np.errstate(all="ignore"):
    if dtype in ("float16", "bfloat16"):
      # Exact product (fits float64), rounded once to storage.
      exact = x.astype(np.float64) * np.float64(B.compute_alpha(alpha, dtype))
      if dtype == "float16":
        alts["single_rounding"] = exact.astype(np.float16).view(np.uint16)
        alpha_s = np.float16(alpha).astype(np.float32)
      else:
        alts["single_rounding"] = round_to_bf16(exact)
        alpha_s = B.to_compute(B.bf16_round(np.float32(alpha)), dtype)
      # alpha rounded to the storage type first (ONNX body, XNNPACK f16).
      alts["alpha_in_storage"] = B.from_compute(alpha_s * x, dtype)
    elif dtype == "float32":
      alts["alpha_as_double"] = (x.astype(np.float64) *
                                 np.float64(alpha)).astype(np.float32).view(
                                     np.uint32)
    else:
      alts["alpha_as_float32"] = (x * np.float64(np.float32(alpha))).view(
          np.uint64)
  return alts


def rounding_candidates(dtype, rng):
  """(candidates, tie pool): negative finite inputs to choose from.

  float16 and bfloat16 use every negative finite value; float32 and float64
  random bit patterns plus values near 1 (where ties are common), and a
  smaller pool for the exact (slow) tie test.
  """
  f = Format(dtype)
  u = B.utype(dtype)
  if dtype in ("float16", "bfloat16"):
    cand = np.arange(f.sign + 1, f.sign + f.inf, dtype=np.int64).astype(u)
    return cand, cand
  n = 20000 if dtype == "float32" else 4000
  width = 32 if dtype == "float32" else 64
  raw = rng.randint(0, 1 << 16, size=(n, width // 16)).astype(np.uint64)
  b = np.zeros(n, dtype=np.uint64)
  for i in range(width // 16):
    b = (b << np.uint64(16)) | raw[:, i]
  b = b | np.uint64(f.sign)
  b = b[(b & np.uint64(f.exp_all)) != np.uint64(f.exp_all)]  # finite only
  # Values near -1 with random high or low mantissa bits: ties are common
  # there for alpha 1.5 and 3.
  _, m = B.LAYOUT[dtype]
  mant = rng.randint(0, 1 << 16, size=n).astype(np.uint64)
  near_one = np.uint64(f.sign | f.one) | (mant << np.uint64(m - 16))
  near_one_low = np.uint64(f.sign | f.one) | mant
  cand = np.concatenate([b, near_one, near_one_low]).astype(u)
  pool = np.concatenate([b[:1000], near_one[:1000], near_one_low[:1000]])
  return cand, pool.astype(u)


def pick_evenly(values, k):
  values = list(values)
  if len(values) <= k:
    return values
  idx = np.unique(np.linspace(0, len(values) - 1, k).round().astype(int))
  return [values[i] for i in idx]


def rounding_bits(dtype, alpha, rng, per_class=4):
  """Inputs for forward/<dtype>/rounding/alpha=<alpha>."""
  f = Format(dtype)
  u = B.utype(dtype)
  cand, pool = rounding_candidates(dtype, rng)
  y, _ = B.forward(cand, alpha, dtype)
  chosen = []
  # Discriminating inputs: the contract result differs from a wrong rule.
  for _, alt in sorted(alternative_results(cand, alpha, dtype).items()):
    differs = np.flatnonzero(alt.astype(np.uint64) != y.astype(np.uint64))
    chosen += [int(cand[i]) for i in pick_evenly(differs, per_class)]
  # Subnormal results (rounding at the bottom of the range).
  ymag = y.astype(np.uint64) & np.uint64(~f.sign & ((1 << 64) - 1))
  sub = np.flatnonzero((ymag > 0) & (ymag < f.min_normal))
  chosen += [int(cand[i]) for i in pick_evenly(sub, per_class)]
  # Boundaries: products near overflow and near the smallest subnormal.
  tiny = float(B.to_compute([f.min_sub], dtype).astype(np.float64)[0])
  huge = float(B.to_compute([f.max_finite], dtype).astype(np.float64)[0])
  a = abs(float(B.compute_alpha(alpha, dtype)))
  targets = [tiny / (2 * a), tiny * (1.5 / a)]
  if a > 1:
    targets.append(huge / a)
  chosen += storage_neighbors_of(np.array(targets), dtype)
  # Ties of the rounding to storage.
  ties = np.flatnonzero(is_tie(pool, alpha, dtype))
  chosen += [int(pool[i]) for i in pick_evenly(ties, per_class)]
  # Unique, in first-seen order.
  seen, out = set(), []
  for c in chosen:
    if c not in seen:
      seen.add(c)
      out.append(c)
  return np.array(out, dtype=u)


# --------------------------------------------------------------------------
# Random data
# --------------------------------------------------------------------------


def random_bits(dtype, count, rng, specials=True):
  """Mostly normal(0, 4) values, with some special values mixed in."""
  v = rng.standard_normal(count) * 4.0
  b = B.from_double(v, dtype).astype(np.uint64)
  if specials and count >= 4:
    f = Format(dtype)
    extra = [f.sign, 0, f.neg(f.min_sub), f.qnan, f.neg(f.inf), f.inf,
             f.neg(f.max_sub), f.neg(f.max_finite)]
    where = rng.choice(count, size=min(len(extra), count // 4), replace=False)
    for k, i in enumerate(where):
      b[i] = extra[k]
  return b.astype(B.utype(dtype))


def onnx_randn():
  """x of ONNX's test_leakyrelu / _default: seed 0, randn(3, 4, 5)."""
  state = np.random.RandomState(0)
  return state.randn(3, 4, 5)


# --------------------------------------------------------------------------
# Builders per category
# --------------------------------------------------------------------------


def seed_cases(dtype):
  x = B.from_double([-2.0, -1.0, 0.0, 1.0, 2.0], dtype)
  return [
      forward_case("forward/%s/seed/example" % dtype, "seed", dtype, [5], None,
                   x),
      forward_case("forward/%s/seed/alpha=0.2" % dtype, "seed", dtype, [1],
                   0.2, B.from_double([-3.0], dtype)),
  ]


def onnx_cases(dtype):
  """ONNX's node tests (float32), and the same data in the other dtypes."""
  randn = onnx_randn()
  if dtype == "float32":
    x32 = randn.astype(np.float32).view(np.uint32)
    return [
        forward_case("forward/float32/onnx/test_leakyrelu_example", "onnx",
                     dtype, [3], 0.1, B.from_double([-1.0, 0.0, 1.0], dtype)),
        forward_case("forward/float32/onnx/test_leakyrelu", "onnx", dtype,
                     [3, 4, 5], 0.1, x32),
        forward_case("forward/float32/onnx/test_leakyrelu_default", "onnx",
                     dtype, [3, 4, 5], None, x32),
    ]
  x = B.from_double(randn, dtype)
  return [
      forward_case("forward/%s/random/randn(3,4,5)/alpha=0.1" % dtype,
                   "random", dtype, [3, 4, 5], 0.1, x),
      forward_case("forward/%s/random/randn(3,4,5)/default" % dtype, "random",
                   dtype, [3, 4, 5], None, x),
  ]


def special_cases(dtype):
  x = special_bits(dtype)
  return [
      forward_case("forward/%s/special/alpha=%s" % (dtype, B.alpha_text(a)),
                   "special", dtype, [x.size], a, x) for a in ALPHAS
  ]


def rounding_cases(dtype):
  out = []
  for a in ROUNDING_ALPHAS:
    cid = "forward/%s/rounding/alpha=%s" % (dtype, B.alpha_text(a))
    with np.errstate(all="ignore"):  # the search meets overflow/underflow
      x = rounding_bits(dtype, a, rng_for(cid))
    out.append(forward_case(cid, "rounding", dtype, [x.size], a, x))
  return out


def length_cases(dtype):
  out = []
  for n in LENGTHS:
    cid = "forward/%s/length=%d" % (dtype, n)
    out.append(forward_case(cid, "length", dtype, [n], 0.01,
                            random_bits(dtype, n, rng_for(cid))))
  return out


def rank_cases(dtype):
  out = []
  for shape in RANK_SHAPES:
    cid = "forward/%s/rank=%d" % (dtype, len(shape))
    n = int(np.prod(shape))
    out.append(forward_case(cid, "rank", dtype, shape, 0.2,
                            random_bits(dtype, n, rng_for(cid))))
  cid = "backward/%s/rank=4/from_x" % dtype
  rng = rng_for(cid)
  shape = [2, 3, 1, 4]
  x = random_bits(dtype, 24, rng)
  dy = random_bits(dtype, 24, rng)
  out.append(backward_case(cid, "rank", dtype, shape, 0.2, "x", dy, x))
  return out


def empty_cases(dtype):
  none = np.zeros(0, dtype=B.utype(dtype))
  out = []
  for shape in ([0], [2, 0, 3]):
    out.append(forward_case("forward/%s/empty/shape=%s" % (dtype, shape_text(
        shape)), "empty", dtype, shape, None, none))
  shape = [2, 0, 3]
  for source in ("x", "y"):
    out.append(backward_case(
        "backward/%s/empty/shape=%s/from_%s" % (dtype, shape_text(shape),
                                                source), "empty", dtype, shape,
        0.2, source, none, none))
  return out


def scalar_cases(dtype):
  """Rank 0: shape [] holds one element."""
  f = Format(dtype)
  out = []
  for name, bits, alpha in (("x=-3/alpha=0.2", f.value(-3.0), 0.2),
                            ("x=-0/default", f.sign, None),
                            ("x=2/alpha=-0.5", f.value(2.0), -0.5),
                            ("x=nan/alpha=0.2", f.neg(f.exp_all | 1), 0.2)):
    out.append(forward_case("forward/%s/scalar/%s" % (dtype, name), "scalar",
                            dtype, [], alpha, [bits]))
  out.append(backward_case("backward/%s/scalar/from_x" % dtype, "scalar",
                           dtype, [], 0.2, "x", [f.value(2.0)],
                           [f.value(-1.0)]))
  out.append(backward_case("backward/%s/scalar/from_y" % dtype, "scalar",
                           dtype, [], 0.2, "y", [f.value(2.0)],
                           [f.value(-0.2)]))
  return out


def gradient_pools(dtype):
  """x (or the source of y) and dy values; the case is their cross product."""
  f = Format(dtype)
  x = [f.value(-2.0), f.value(-0.75), f.neg(f.min_sub), f.neg(f.min_normal),
       f.neg(f.max_finite), f.neg(f.inf), f.sign, 0, f.one, f.inf, f.qnan,
       f.neg(f.exp_all | 1)]
  dy = [f.one, f.neg(f.one), f.value(0.3), f.sign, 0, f.inf, f.neg(f.inf),
        f.qnan | 1, f.max_finite, f.min_sub, f.value(-3.0), f.exp_all | 1]
  u = B.utype(dtype)
  return np.array(x, dtype=u), np.array(dy, dtype=u)


def gradient_cases(dtype):
  xs, dys = gradient_pools(dtype)
  n, m = xs.size, dys.size
  x = np.repeat(xs, m)
  dy = np.tile(dys, n)
  out = []
  for a in ALPHAS:
    out.append(backward_case(
        "backward/%s/from_x/alpha=%s" % (dtype, B.alpha_text(a)), "gradient",
        dtype, [n, m], a, "x", dy, x))
  for a in FROM_Y_ALPHAS:
    y, _ = B.forward(x, a, dtype)
    out.append(backward_case(
        "backward/%s/from_y/alpha=%s" % (dtype, B.alpha_text(a)),
        "gradient_from_y", dtype, [n, m], a, "y", dy, y))
  return out


def error_cases(dtype):
  """Gradient from y with alpha <= 0 or NaN must be refused."""
  f = Format(dtype)
  x = np.array([f.value(-2.0), f.value(1.0), f.sign, f.value(-0.5)],
               dtype=B.utype(dtype))
  dy = np.array([f.one] * 4, dtype=B.utype(dtype))
  out = []
  for a in INVALID_FROM_Y_ALPHAS:
    y, _ = B.forward(x, a, dtype)
    out.append(backward_case(
        "backward/%s/from_y/alpha=%s/invalid" % (dtype, B.alpha_text(a)),
        "error", dtype, [4], a, "y", dy, y))
  return out


def all_cases():
  out = []
  for dtype in B.DTYPES:
    for build in (seed_cases, onnx_cases, special_cases, rounding_cases,
                  length_cases, rank_cases, empty_cases, scalar_cases,
                  gradient_cases, error_cases):
      out += build(dtype)
  ids = [c["id"] for c in out]
  assert len(ids) == len(set(ids)), "duplicate case ids"
  return out
