#include "prelu/exact_oracle.h"

#include <gmp.h>

#include <cmath>
#include <cstring>

#include "reference/reference.h"

namespace lrelu::testing {
namespace {

constexpr int kScale = 2400;  // the sum is an integer multiple of 2^-2400

template <typename To, typename From>
To BitCast(From f) {
  To t;
  std::memcpy(&t, &f, sizeof(t));
  return t;
}

struct Params {
  int precision, emax;
};

Params ParamsOf(lrelu_dtype_t d) {
  switch (d) {
    case LRELU_DTYPE_FLOAT16:
      return {11, 15};
    case LRELU_DTYPE_BFLOAT16:
      return {8, 127};
    case LRELU_DTYPE_FLOAT64:
      return {53, 1023};
    default:
      return {24, 127};
  }
}

// A finite double as an exact integer times 2^-kScale, added (or
// subtracted) to acc, for a product a * b.
void AddProduct(mpz_t acc, double a, double b) {
  int ea, eb;
  const double fa = std::frexp(a, &ea), fb = std::frexp(b, &eb);
  const auto ma = static_cast<int64_t>(std::ldexp(fa, 53));
  const auto mb = static_cast<int64_t>(std::ldexp(fb, 53));
  mpz_t t, u;
  mpz_init_set_si(t, ma);
  mpz_init_set_si(u, mb);
  mpz_mul(t, t, u);
  mpz_mul_2exp(t, t, static_cast<mp_bitcnt_t>(ea + eb - 106 + kScale));
  mpz_add(acc, acc, t);
  mpz_clear(t);
  mpz_clear(u);
}

uint64_t Encode(lrelu_dtype_t d, double v) {
  switch (d) {
    case LRELU_DTYPE_FLOAT16:
      return reference::FloatToHalf(static_cast<float>(v));
    case LRELU_DTYPE_BFLOAT16:
      return reference::FloatToBFloat16(static_cast<float>(v));
    case LRELU_DTYPE_FLOAT64:
      return BitCast<uint64_t>(v);
    default:
      return BitCast<uint32_t>(static_cast<float>(v));
  }
}

}  // namespace

double ValueOf(lrelu_dtype_t dtype, uint64_t bits) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      return reference::HalfToFloat(static_cast<uint16_t>(bits));
    case LRELU_DTYPE_BFLOAT16:
      return reference::BFloat16ToFloat(static_cast<uint16_t>(bits));
    case LRELU_DTYPE_FLOAT64:
      return BitCast<double>(bits);
    default:
      return BitCast<float>(static_cast<uint32_t>(bits));
  }
}

uint64_t ExactDalpha(lrelu_dtype_t dtype, const std::vector<uint64_t>& x,
                     const std::vector<uint64_t>& dy,
                     lrelu_dtype_t out_dtype) {
  bool nan = false, pos_inf = false, neg_inf = false;
  mpz_t acc;
  mpz_init(acc);
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = ValueOf(dtype, x[i]);
    if (!(a < 0)) continue;
    const double b = ValueOf(dtype, dy[i]);
    if (std::isnan(b) || ((std::isinf(a) || std::isinf(b)) &&
                          (a == 0 || b == 0))) {
      nan = true;
    } else if (std::isinf(a) || std::isinf(b)) {
      ((a < 0) != (b < 0) ? neg_inf : pos_inf) = true;
    } else if (b != 0) {
      AddProduct(acc, a, b);
    }
  }
  double result;
  if (nan || (pos_inf && neg_inf)) {
    result = NAN;
  } else if (pos_inf || neg_inf) {
    result = pos_inf ? INFINITY : -INFINITY;
  } else if (mpz_sgn(acc) == 0) {
    result = 0.0;
  } else {
    const bool negative = mpz_sgn(acc) < 0;
    mpz_abs(acc, acc);
    const Params p = ParamsOf(out_dtype);
    const int top = static_cast<int>(mpz_sizeinbase(acc, 2)) - 1 - kScale;
    int q = std::max(top - (p.precision - 1), 1 - p.emax - (p.precision - 1));
    const auto shift = static_cast<mp_bitcnt_t>(q + kScale);
    mpz_t m, r, half;
    mpz_inits(m, r, half, nullptr);
    mpz_fdiv_q_2exp(m, acc, shift);
    mpz_fdiv_r_2exp(r, acc, shift);
    mpz_setbit(half, shift - 1);
    const int c = mpz_cmp(r, half);
    if (c > 0 || (c == 0 && mpz_odd_p(m))) mpz_add_ui(m, m, 1);
    double mv = mpz_get_d(m);  // < 2^54, exact
    if (mv == std::ldexp(1.0, p.precision)) {
      mv /= 2;
      ++q;
    }
    result = (q + p.precision - 1 > p.emax) ? INFINITY : std::ldexp(mv, q);
    if (negative) result = -result;
    mpz_clears(m, r, half, nullptr);
  }
  mpz_clear(acc);
  return Encode(out_dtype, result);
}

}  // namespace lrelu::testing
