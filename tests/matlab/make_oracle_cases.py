"""Writes the MEX tests' cases with their expected bits from lrelu's
independent NumPy oracle (tests/python/lrelu_oracle.py), as JSON that
Octave's jsondecode reads: the contract's float32 and float64 cases (forward,
gradient from x) and every float32 special, random bit patterns and values
under the contract's alphas, forward and gradient.

Bits travel as 32-bit words (float64: low word, high word), which JSON's
doubles hold exactly. Usage: make_oracle_cases.py OUT.json
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import lrelu_oracle as oracle  # noqa: E402

ALPHAS = (0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"),
          float("nan"), 0.1, -0.0, 1e-40, 3e38)


def words(bits):
    return np.ascontiguousarray(bits).view(np.uint32).tolist()


def group(name, op, dtype, alpha, x_bits, dy_bits=None):
    if op == "forward":
        expected, any_nan = oracle.forward(x_bits, alpha, dtype)
    else:
        expected, any_nan = oracle.backward(dy_bits, x_bits, alpha, dtype)
    # alpha travels as its float64 bits too (NaN, -0 and 1e-40 exactly).
    return {
        "name": name, "op": op, "dtype": "single" if dtype == "float32"
        else "double", "alpha": words(np.array([alpha], np.float64)),
        "x": words(x_bits), "dy": words(dy_bits) if dy_bits is not None
        else [], "expected": words(expected),
        "anynan": any_nan.astype(int).tolist(),
    }


def main(out):
    rng = np.random.default_rng(14)
    groups = []
    with open(os.path.join(HERE, "..", "..", "contract", "v1",
                           "test.json")) as f:
        cases = json.load(f)["cases"]
    for case in cases:
        attributes = case.get("attributes", {})
        if (case["dtype"] not in ("float32", "float64")
                or "expected_error" in case
                or attributes.get("grad_source") == "y"):
            continue
        u = oracle.uint_type(case["dtype"])
        alpha = (float(np.uint64(int(attributes["alpha"]["f64"], 16))
                       .view(np.float64)) if "alpha" in attributes else 0.01)
        ins = {k: np.array([int(h, 16) for h in v], u)
               for k, v in case["inputs"].items()}
        groups.append(group(case["id"], case["op"], case["dtype"], alpha,
                            ins["x"], ins.get("dy")))
    x_bits = np.concatenate([oracle.special_bits("float32"),
                             oracle.random_bits("float32", 4000, rng),
                             oracle.random_values("float32", 1000, rng)])
    dy_bits = oracle.random_bits("float32", x_bits.size, rng)
    for alpha in ALPHAS:
        groups.append(group(f"float32 specials alpha={alpha}", "forward",
                            "float32", alpha, x_bits))
        groups.append(group(f"float32 specials gradient alpha={alpha}",
                            "backward", "float32", alpha, x_bits, dy_bits))
    with open(out, "w") as f:
        json.dump(groups, f)


if __name__ == "__main__":
    main(sys.argv[1])
