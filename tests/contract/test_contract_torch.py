"""Cross-checks test.json's expected values against PyTorch (CPU).

PyTorch's rule differs from the contract in two documented places, which
are excluded here and asserted separately:
  * torch selects with x > 0, so x = +0 or -0 goes through alpha * x: the
    sign of the zero differs when alpha is negative (or -0), and the result
    is NaN when alpha is NaN or +-inf; the gradient at 0 is alpha, not 1.
  * a NaN x goes through alpha * x too, so its payload may change (the
    contract passes it through with identical bits); likewise the gradient
    multiplies dy by 1 where x > 0, which quiets a signalling NaN dy.
torch 1.13 has no float16 leaky_relu on the CPU; float16 is checked the
way PyTorch's CUDA kernel computes it (float32 opmath, then .half()).
"""

import math
import struct

import numpy as np
import pytest

import contract_files as cf
from contract_files import bits as B

torch = pytest.importorskip("torch")
F = torch.nn.functional

TORCH_DTYPE = {
    "float32": (torch.float32, torch.int32),
    "float64": (torch.float64, torch.int64),
    "bfloat16": (torch.bfloat16, torch.int16),
    "float16": (torch.float16, torch.int16),
}


def to_torch(hex_values, dtype, shape):
  signed = {"float32": np.int32, "float64": np.int64, "float16": np.int16,
            "bfloat16": np.int16}[dtype]
  raw = B.from_hex(hex_values, dtype).view(signed).reshape(shape)
  t = torch.from_numpy(raw.copy())
  return t.view(TORCH_DTYPE[dtype][0])


def bits_of(t, dtype):
  unsigned = B.utype(dtype)
  ints = t.contiguous().view(TORCH_DTYPE[dtype][1]).numpy()
  return ints.view(unsigned).reshape(-1)


def alpha_of(case):
  a = case["attributes"].get("alpha")
  return struct.unpack(">d", bytes.fromhex(a["f64"]))[0] if a else 0.01


def torch_forward(x, alpha, dtype):
  if dtype == "float16":
    return F.leaky_relu(x.float(), alpha).half()
  return F.leaky_relu(x, alpha)


def torch_backward(dy, x, alpha, dtype):
  if dtype == "float16":
    return torch.ops.aten.leaky_relu_backward(dy.float(), x.float(), alpha,
                                              False).half()
  return torch.ops.aten.leaky_relu_backward(dy, x, alpha, False)


def comparable(s_bits, dtype):
  """Elements where torch's rule equals the contract's: s not 0, not NaN."""
  v = B.to_compute(s_bits, dtype)
  return ~((v == 0) | np.isnan(v))


def check(case, got, s_bits, out, dy_bits=None):
  dt = case["dtype"]
  want = B.from_hex(case["expected"][out], dt).astype(np.uint64)
  got = got.astype(np.uint64)
  mask = comparable(s_bits, dt)
  if dy_bits is not None:  # torch multiplies dy by 1: a NaN dy gets quieted
    mask &= ~B.is_nan_bits(dy_bits, dt)
  anynan = np.zeros(want.size, dtype=bool)
  anynan[case.get("anynan", {}).get(out, [])] = True
  nan_ok = anynan & B.is_nan_bits(got, dt)
  bad = np.flatnonzero(mask & ~nan_ok & (got != want))
  assert bad.size == 0, "%s: element %d: torch %x, contract %x" % (
      case["id"], bad[0], got[bad[0]], want[bad[0]])


def cases(op):
  return [c for c in cf.load("test.json")["cases"]
          if c["op"] == op and "expected" in c]


@pytest.mark.parametrize("case", cases("forward"), ids=lambda c: c["id"])
def test_forward_matches_torch(case):
  dt = case["dtype"]
  x = to_torch(case["inputs"]["x"], dt, case["shape"])
  y = torch_forward(x, alpha_of(case), dt)
  check(case, bits_of(y, dt), B.from_hex(case["inputs"]["x"], dt), "y")


@pytest.mark.parametrize(
    "case", [c for c in cases("backward")
             if c["attributes"]["grad_source"] == "x"],
    ids=lambda c: c["id"])
def test_backward_from_x_matches_torch(case):
  dt = case["dtype"]
  x = to_torch(case["inputs"]["x"], dt, case["shape"])
  dy = to_torch(case["inputs"]["dy"], dt, case["shape"])
  dx = torch_backward(dy, x, alpha_of(case), dt)
  check(case, bits_of(dx, dt), B.from_hex(case["inputs"]["x"], dt), "dx",
        B.from_hex(case["inputs"]["dy"], dt))


def test_documented_difference_negative_zero():
  """x = -0 with alpha < 0: the contract keeps -0, torch gives +0."""
  x = torch.tensor([-0.0, 0.0], dtype=torch.float32)
  y = F.leaky_relu(x, -0.5)
  assert [math.copysign(1, v) for v in y.tolist()] == [1.0, -1.0]
  contract, _ = B.forward(np.array([0x80000000, 0], dtype=np.uint32), -0.5,
                          "float32")
  assert [hex(v) for v in contract] == ["0x80000000", "0x0"]


def test_documented_difference_gradient_at_zero():
  """d/dx at 0: the contract says 1 (dx = dy), torch says alpha."""
  dx = torch.ops.aten.leaky_relu_backward(
      torch.tensor([1.0]), torch.tensor([0.0]), 0.2, False)
  assert dx.tolist() == [pytest.approx(0.2)]
  contract, _ = B.backward(
      np.array([0x3F800000], dtype=np.uint32),
      np.array([0], dtype=np.uint32), 0.2, "float32")
  assert hex(contract[0]) == "0x3f800000"
