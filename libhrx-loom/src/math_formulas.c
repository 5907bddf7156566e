/* The formulas (see math_formulas.h). Each is chosen to keep its error a
 * small multiple of the primitives' own: evaluated in f64 for an f32 (or
 * narrower) operand on the host, the composed error stays below 2^-40
 * relative, far inside half an f32 ULP, so the rounded result is within
 * 0.5001 ULP of the exact value (tests/loom/test_language_math2.c measures
 * every function against libm's f64 functions). Evaluated in f32 on the
 * GPU, whose exp and log are good to about 1 ULP, the bounds are those
 * tests/fabric/test_gfx11_diff.c states and measures per function.
 *
 *   expm1  Kahan: (u - 1) (x / log u) with u = e^x, which cancels u's own
 *          rounding; x itself where u = 1, -1 where u - 1 = -1 (the
 *          quotient first, so no product overflows in f32)
 *   log1p  Kahan: log(u) (x / (u - 1)) with u = 1 + x; x where u = 1
 *   sinh   (m + m / (m + 1)) / 2 with m = expm1 |x| (no cancellation near
 *          0); beyond |x| = 12, (h / 2) h with h = e^(|x|/2), so e^|x|
 *          never overflows before sinh does
 *   cosh   e / 2 + 1 / (2e) with e = e^|x|; beyond 12 as sinh
 *   tan    sin x / cos x
 *   atan   1 / |x| beyond 1 (then pi/2 minus), t' = (t sqrt3 - 1) / (t +
 *          sqrt3) above tan(pi/12) (then pi/6 plus), a Taylor series to
 *          t^25 below (its remainder under 2^-50)
 *   atan2  atan(|y| / |x|), with the C99 special cases: +-0 for y = 0,
 *          pi/4 for both infinite, pi minus for x of sign bit set, y's sign
 *   asin   atan(|x| / sqrt((1 - |x|)(1 + |x|))), x's sign
 *   acos   2 atan(sqrt((1 - x) / (1 + x)))
 *   cbrt   e^(log|x| / 3) and one Newton step, on |x| scaled by 2^+-126
 *          away from the ends of the range (so the cube neither overflows
 *          nor loses bits as a subnormal), x's sign
 *   logistic  1 / (1 + e^-|x|), times e^-|x| for negative x (no overflow)
 *   softplus  max(x, 0) + log1p(e^-|x|) */
#include "math_formulas.h"

#include <math.h>
#include <string.h>

typedef const lm_emit_t E;

static lm_value_t k(E* e, double value) {
  return e->constant(e->self, value);
}
static lm_value_t un(E* e, lm_unary_t op, lm_value_t x) {
  return e->unary(e->self, op, x);
}
static lm_value_t bin(E* e, lm_binary_t op, lm_value_t x, lm_value_t y) {
  return e->binary(e->self, op, x, y);
}
static lm_value_t cmp(E* e, lm_compare_t op, lm_value_t x, lm_value_t y) {
  return e->compare(e->self, op, x, y);
}
static lm_value_t sel(E* e, lm_value_t c, lm_value_t x, lm_value_t y) {
  return e->select(e->self, c, x, y);
}

/* |m| with s's sign bit */
static lm_value_t with_sign(E* e, lm_value_t m, lm_value_t s) {
  lm_value_t a = un(e, LM_ABS, m);
  return sel(e, e->sign_bit(e->self, s), un(e, LM_NEG, a), a);
}

static lm_value_t expm1_of(E* e, lm_value_t x) {
  lm_value_t u = un(e, LM_EXP, x);
  lm_value_t d = bin(e, LM_SUB, u, k(e, 1.0));
  lm_value_t r = bin(e, LM_MUL, d, bin(e, LM_DIV, x, un(e, LM_LOG, u)));
  r = sel(e, cmp(e, LM_EQ, u, k(e, 1.0)), x, r);
  r = sel(e, cmp(e, LM_EQ, d, k(e, -1.0)), k(e, -1.0), r);
  return sel(e, cmp(e, LM_EQ, u, k(e, INFINITY)), u, r);
}

static lm_value_t log1p_of(E* e, lm_value_t x) {
  lm_value_t u = bin(e, LM_ADD, x, k(e, 1.0));
  lm_value_t r = bin(e, LM_MUL, un(e, LM_LOG, u),
                     bin(e, LM_DIV, x, bin(e, LM_SUB, u, k(e, 1.0))));
  r = sel(e, cmp(e, LM_EQ, u, k(e, 1.0)), x, r);
  return sel(e, cmp(e, LM_EQ, u, k(e, INFINITY)), u, r);
}

/* e^a / 2 for a > 12, where e^-a is below 2^-34 of it */
static lm_value_t half_exp(E* e, lm_value_t a) {
  lm_value_t h = un(e, LM_EXP, bin(e, LM_MUL, a, k(e, 0.5)));
  return bin(e, LM_MUL, bin(e, LM_MUL, h, k(e, 0.5)), h);
}

static lm_value_t hyperbolic(E* e, lm_value_t x, bool cosine) {
  lm_value_t a = un(e, LM_ABS, x);
  lm_value_t r;
  if (cosine) {
    lm_value_t g = un(e, LM_EXP, a);
    r = bin(e, LM_ADD, bin(e, LM_MUL, g, k(e, 0.5)),
            bin(e, LM_DIV, k(e, 0.5), g));
  } else {
    lm_value_t m = expm1_of(e, a);
    r = bin(e, LM_MUL,
            bin(e, LM_ADD, m,
                bin(e, LM_DIV, m, bin(e, LM_ADD, m, k(e, 1.0)))),
            k(e, 0.5));
  }
  r = sel(e, cmp(e, LM_GT, a, k(e, 12.0)), half_exp(e, a), r);
  return cosine ? r : with_sign(e, r, x);
}

/* atan a for a >= 0 (or NaN) */
static lm_value_t atan_of(E* e, lm_value_t a) {
  static const double sqrt3 = 1.7320508075688772935;
  lm_value_t inverted = cmp(e, LM_GT, a, k(e, 1.0));
  lm_value_t t = sel(e, inverted, bin(e, LM_DIV, k(e, 1.0), a), a);
  lm_value_t shifted = cmp(e, LM_GT, t, k(e, 0.26794919243112270));
  lm_value_t moved =
      bin(e, LM_DIV, e->fma(e->self, t, k(e, sqrt3), k(e, -1.0)),
          bin(e, LM_ADD, t, k(e, sqrt3)));
  t = sel(e, shifted, moved, t);
  lm_value_t z = bin(e, LM_MUL, t, t);
  /* atan t = t + t z (-1/3 + z (1/5 - z (1/7 - ...))), to z^12 / 25 */
  lm_value_t p = k(e, -1.0 / 25);
  for (int n = 11; n >= 1; --n) {
    p = e->fma(e->self, z, p, k(e, (n % 2 ? -1.0 : 1.0) / (2 * n + 1)));
  }
  lm_value_t r = e->fma(e->self, bin(e, LM_MUL, t, z), p, t);
  r = bin(e, LM_ADD, sel(e, shifted, k(e, 0.52359877559829887308),
                         k(e, 0.0)),
          r);
  return sel(e, inverted, bin(e, LM_SUB, k(e, 1.57079632679489661923), r),
             r);
}

static lm_value_t atan2_of(E* e, lm_value_t y, lm_value_t x) {
  lm_value_t ay = un(e, LM_ABS, y), ax = un(e, LM_ABS, x);
  lm_value_t t = atan_of(e, bin(e, LM_DIV, ay, ax));
  t = sel(e, cmp(e, LM_EQ, ay, k(e, 0.0)), k(e, 0.0), t);
  lm_value_t infinite = e->both(e->self, cmp(e, LM_EQ, ay, k(e, INFINITY)),
                                cmp(e, LM_EQ, ax, k(e, INFINITY)));
  t = sel(e, infinite, k(e, 0.78539816339744830962), t);
  t = sel(e, e->sign_bit(e->self, x),
          bin(e, LM_SUB, k(e, 3.14159265358979323846), t), t);
  lm_value_t r = with_sign(e, t, y);
  return sel(e, e->unordered(e->self, x, y), bin(e, LM_ADD, x, y), r);
}

static lm_value_t cbrt_of(E* e, lm_value_t x) {
  lm_value_t a = un(e, LM_ABS, x);
  lm_value_t tiny = cmp(e, LM_LT, a, k(e, 0x1p-100));
  lm_value_t huge = cmp(e, LM_GT, a, k(e, 0x1p100));
  lm_value_t in = sel(e, tiny, k(e, 0x1p126), sel(e, huge, k(e, 0x1p-126),
                                                 k(e, 1.0)));
  lm_value_t out = sel(e, tiny, k(e, 0x1p-42), sel(e, huge, k(e, 0x1p42),
                                                  k(e, 1.0)));
  lm_value_t s = bin(e, LM_MUL, a, in);
  lm_value_t g = un(e, LM_EXP, bin(e, LM_MUL, un(e, LM_LOG, s),
                                   k(e, 1.0 / 3)));
  lm_value_t g2 = bin(e, LM_MUL, g, g);
  lm_value_t step =
      bin(e, LM_DIV, e->fma(e->self, g2, g, un(e, LM_NEG, s)),
          bin(e, LM_MUL, g2, k(e, 3.0)));
  lm_value_t r = bin(e, LM_MUL, bin(e, LM_SUB, g, step), out);
  r = sel(e, cmp(e, LM_EQ, a, k(e, 0.0)), a, r);
  r = sel(e, cmp(e, LM_EQ, a, k(e, INFINITY)), a, r);
  return with_sign(e, r, x);
}

static lm_value_t logistic_of(E* e, lm_value_t x) {
  lm_value_t g = un(e, LM_EXP, un(e, LM_NEG, un(e, LM_ABS, x)));
  lm_value_t r = bin(e, LM_DIV, k(e, 1.0), bin(e, LM_ADD, g, k(e, 1.0)));
  return sel(e, cmp(e, LM_LT, x, k(e, 0.0)), bin(e, LM_MUL, g, r), r);
}

static lm_value_t softplus_of(E* e, lm_value_t x) {
  lm_value_t g = un(e, LM_EXP, un(e, LM_NEG, un(e, LM_ABS, x)));
  lm_value_t positive = sel(e, cmp(e, LM_GT, x, k(e, 0.0)), x, k(e, 0.0));
  return bin(e, LM_ADD, positive, log1p_of(e, g));
}

static const char* const lm_names[LM_FUNCTION_COUNT] = {
    [LM_EXPM1] = "expm1f", [LM_LOG1P] = "log1pf",
    [LM_SINH] = "sinhf",   [LM_COSH] = "coshf",
    [LM_TAN] = "tanf",     [LM_ATAN] = "atanf",
    [LM_ATAN2] = "atan2f", [LM_ASIN] = "asinf",
    [LM_ACOS] = "acosf",   [LM_CBRT] = "cbrtf",
    [LM_LOGISTIC] = "logisticf", [LM_SOFTPLUS] = "softplusf"};

bool lm_function_named(const char* name, lm_function_t* out) {
  for (int i = 0; i < LM_FUNCTION_COUNT; ++i) {
    if (!strcmp(name, lm_names[i])) {
      *out = (lm_function_t)i;
      return true;
    }
  }
  return false;
}

lm_value_t lm_emit_function(const lm_emit_t* e, lm_function_t fn,
                            lm_value_t x, lm_value_t y) {
  switch (fn) {
    case LM_EXPM1: return expm1_of(e, x);
    case LM_LOG1P: return log1p_of(e, x);
    case LM_SINH: return hyperbolic(e, x, false);
    case LM_COSH: return hyperbolic(e, x, true);
    case LM_TAN:
      return bin(e, LM_DIV, un(e, LM_SIN, x), un(e, LM_COS, x));
    case LM_ATAN: return with_sign(e, atan_of(e, un(e, LM_ABS, x)), x);
    case LM_ATAN2: return atan2_of(e, x, y);
    case LM_ASIN: {
      lm_value_t a = un(e, LM_ABS, x);
      lm_value_t w = un(e, LM_SQRT,
                        bin(e, LM_MUL, bin(e, LM_SUB, k(e, 1.0), a),
                            bin(e, LM_ADD, k(e, 1.0), a)));
      return with_sign(e, atan_of(e, bin(e, LM_DIV, a, w)), x);
    }
    case LM_ACOS: {
      lm_value_t q = un(e, LM_SQRT,
                        bin(e, LM_DIV, bin(e, LM_SUB, k(e, 1.0), x),
                            bin(e, LM_ADD, k(e, 1.0), x)));
      return bin(e, LM_MUL, atan_of(e, q), k(e, 2.0));
    }
    case LM_CBRT: return cbrt_of(e, x);
    case LM_LOGISTIC: return logistic_of(e, x);
    case LM_SOFTPLUS: return softplus_of(e, x);
    case LM_FUNCTION_COUNT: break;
  }
  return x;
}
