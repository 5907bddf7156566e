/* Float functions the host ISA has no instruction for, composed from the
 * instructions it has: exp2f, siluf, sinf, cosf, powf, clampf, remf,
 * log2f, log10f, signf, the class tests isnanf, isinff and isfinitef
 * (i1 results), math_formulas.c's functions (expm1f, log1pf, sinhf,
 * coshf, tanf, atanf, atan2f, asinf, acosf, cbrtf, logisticf, softplusf)
 * and (on vectors) roundf (the vector forms lane by lane).
 *
 * f16, bf16 and f32 operands are widened to f64 and the function is
 * evaluated there, then rounded once to the operand type. f64 carries 29
 * more bits than f32, so the composed evaluation's own error stays far
 * below half an f32 ULP: sinf, cosf and powf measure within 0.5001 ULP of
 * the exact value over a sweep of every f32 magnitude and their edge cases
 * (tests/loom/test_language_math.c), i.e. correctly rounded but for
 * near-ties; exp2f and siluf round an f64 result good to about 2^-45.
 * remf, signf and the class tests are exact; log2f, log10f and
 * math_formulas.c's functions measure within 0.5001 ULP of libm's f64
 * functions (tests/loom/test_language_math2.c, the host's native code bit
 * for bit the same). f64 operands keep exp2f, siluf, clampf, roundf,
 * signf and the class tests on the f64 instructions; the others of f64
 * would need wider arithmetic than the ISA has and are refused. */
#include <math.h>
#include <string.h>

#include "host_backend_internal.h"
#include "math_formulas.h"
#include "op_table.h"

/* Instructions on one value per lane, in the file their operands allow.
 * The first failure sticks and turns every later step into a no-op, so a
 * sequence reads as a formula and is checked once at its end. */
typedef struct hm_t {
  hb_t* b;
  uint8_t type; /* host float type the formula computes in */
  bool ok;
} hm_t;

static uint32_t hm_emit(hm_t* h, uint8_t op, uint8_t type, uint8_t aux,
                        uint32_t x, uint32_t y, uint32_t z, uint32_t imm) {
  uint32_t regs[] = {x, y, z};
  uint32_t out = LOOM_NONE;
  h->ok = h->ok && hb_new_vreg(h->b, hb_all_scalar(h->b, regs, 3), 1, &out) &&
          hb_emit(h->b, op, type, aux, out, x, y, z, imm);
  return h->ok ? out : LOOM_NONE;
}

/* A uniform f64 register holding |value| (formulas with constants compute
 * in f64). */
static uint32_t hm_k(hm_t* h, double value) {
  uint32_t out = LOOM_NONE;
  loom_literal_t literal = {.kind = LOOM_LITERAL_FLOAT, .f = value};
  h->ok = h->ok && hb_new_vreg(h->b, true, 1, &out) &&
          hb_const(h->b, hb_literal_bits(&literal, LOOM_TYPE_F64), out);
  return h->ok ? out : LOOM_NONE;
}

static uint32_t hm_1(hm_t* h, uint8_t op, uint32_t x) {
  return hm_emit(h, op, h->type, 0, x, LOOM_NONE, LOOM_NONE, 0);
}

static uint32_t hm_2(hm_t* h, uint8_t op, uint32_t x, uint32_t y) {
  return hm_emit(h, op, h->type, 0, x, y, LOOM_NONE, 0);
}

/* x * y + z, rounded once */
static uint32_t hm_fma(hm_t* h, uint32_t x, uint32_t y, uint32_t z) {
  return hm_emit(h, HRX_HOST_OP_FFMA, h->type, 0, x, y, z, 0);
}

/* An i1: x <pred> y. */
static uint32_t hm_cmp(hm_t* h, hrx_host_fcmp_t pred, uint32_t x,
                       uint32_t y) {
  return hm_emit(h, HRX_HOST_OP_FCMP, h->type, (uint8_t)pred, x, y, LOOM_NONE,
                 0);
}

static uint32_t hm_and(hm_t* h, uint32_t x, uint32_t y) {
  return hm_emit(h, HRX_HOST_OP_IAND, HRX_HOST_TYPE_I1, 0, x, y, LOOM_NONE, 0);
}

static uint32_t hm_or(hm_t* h, uint32_t x, uint32_t y) {
  return hm_emit(h, HRX_HOST_OP_IOR, HRX_HOST_TYPE_I1, 0, x, y, LOOM_NONE, 0);
}

static uint32_t hm_select(hm_t* h, uint32_t cond, uint32_t x, uint32_t y) {
  return hm_emit(h, HRX_HOST_OP_SELECT, h->type, 0, cond, x, y, 0);
}

static uint32_t hm_convert(hm_t* h, uint8_t to, uint8_t from,
                           hrx_host_cvt_t kind, uint32_t x) {
  if (to == from) return x;
  return hm_emit(h, HRX_HOST_OP_CVT, to, from, x, LOOM_NONE, LOOM_NONE,
                 (uint32_t)kind);
}

/* Whether f64 |x|'s sign bit is set (-0 and negative NaNs too): its bits
 * read as an i64 are below zero. */
static uint32_t hm_sign_bit(hm_t* h, uint32_t x) {
  uint32_t bits = hm_convert(h, HRX_HOST_TYPE_I64, HRX_HOST_TYPE_F64,
                             HRX_HOST_CVT_BITCAST, x);
  uint32_t zero = LOOM_NONE;
  h->ok = h->ok && hb_new_vreg(h->b, true, 1, &zero) &&
          hb_const(h->b, 0, zero);
  return hm_emit(h, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_SLT,
                 bits, zero, LOOM_NONE, 0);
}

/* sin x or cos x for x of at most 24 significant bits (any f32, f16 or bf16
 * value, widened). x * 2/pi is summed from products of x with 28-bit pieces
 * of 2/pi: each product is exact in f64 and is taken modulo 4 exactly, and
 * the sum is split at 2^-20 so its whole-quadrant part stays exact while
 * the fraction keeps f64 precision however large x is (the pieces reach
 * 2^-224, beyond the 2^-200 the largest f32 needs). The reduced argument
 * r, |r| <= pi/4, goes through Taylor polynomials whose first omitted term
 * is below 2^-36 relative. */
static uint32_t hm_trig(hm_t* h, uint32_t x, bool cosine) {
  static const double two_over_pi[] = {
      0xa2f9836p-28,  0xe4e4415p-56,  0x29fc275p-84,  0x7d1f534p-112,
      0xddc0db6p-140, 0x295993cp-168, 0x439041fp-196, 0xe5163abp-224};
  uint32_t quarter = hm_k(h, 0.25), minus4 = hm_k(h, -4.0);
  uint32_t up = hm_k(h, 0x1p20), down = hm_k(h, 0x1p-20);
  uint32_t whole = hm_k(h, 0.0), fraction = whole;
  for (size_t i = 0; i < sizeof(two_over_pi) / sizeof(two_over_pi[0]); ++i) {
    uint32_t p = hm_2(h, HRX_HOST_OP_FMUL, x, hm_k(h, two_over_pi[i]));
    /* Nearest multiple of 4, not floor: a tiny negative product must stay
     * itself rather than become 4 - tiny. */
    uint32_t fours = hm_1(h, HRX_HOST_OP_FROUNDEVEN,
                          hm_2(h, HRX_HOST_OP_FMUL, p, quarter));
    p = hm_fma(h, fours, minus4, p);
    uint32_t high = hm_2(
        h, HRX_HOST_OP_FMUL,
        hm_1(h, HRX_HOST_OP_FROUNDEVEN, hm_2(h, HRX_HOST_OP_FMUL, p, up)),
        down);
    whole = hm_2(h, HRX_HOST_OP_FADD, whole, high);
    fraction = hm_2(h, HRX_HOST_OP_FADD, fraction,
                    hm_2(h, HRX_HOST_OP_FSUB, p, high));
  }
  uint32_t n = hm_1(h, HRX_HOST_OP_FROUNDEVEN, whole);
  uint32_t f = hm_2(h, HRX_HOST_OP_FADD, hm_2(h, HRX_HOST_OP_FSUB, whole, n),
                    fraction);
  uint32_t quadrant = hm_fma(
      h, hm_1(h, HRX_HOST_OP_FFLOOR, hm_2(h, HRX_HOST_OP_FMUL, n, quarter)),
      minus4, n);
  uint32_t r = hm_2(h, HRX_HOST_OP_FMUL, f, hm_k(h, 0x1.921fb54442d18p0));
  uint32_t r2 = hm_2(h, HRX_HOST_OP_FMUL, r, r);
  /* sin r = r + r^3 (-1/3! + r^2 (1/5! - ...)), to r^11 */
  static const double sine[] = {-1.0 / 39916800, 1.0 / 362880, -1.0 / 5040,
                                1.0 / 120, -1.0 / 6};
  uint32_t s = hm_k(h, sine[0]);
  for (size_t i = 1; i < sizeof(sine) / sizeof(sine[0]); ++i) {
    s = hm_fma(h, r2, s, hm_k(h, sine[i]));
  }
  s = hm_fma(h, hm_2(h, HRX_HOST_OP_FMUL, r, r2), s, r);
  /* cos r = 1 - r^2/2! + ..., to r^12 */
  static const double cosine_terms[] = {
      1.0 / 479001600, -1.0 / 3628800, 1.0 / 40320, -1.0 / 720, 1.0 / 24,
      -0.5, 1.0};
  uint32_t c = hm_k(h, cosine_terms[0]);
  for (size_t i = 1; i < sizeof(cosine_terms) / sizeof(cosine_terms[0]);
       ++i) {
    c = hm_fma(h, r2, c, hm_k(h, cosine_terms[i]));
  }
  /* Quadrant q: sin x = (sin r, cos r, -sin r, -cos r)[q] and
   * cos x = (cos r, -sin r, -cos r, sin r)[q]. */
  uint32_t half = hm_2(h, HRX_HOST_OP_FMUL, quadrant, hm_k(h, 0.5));
  uint32_t odd = hm_cmp(h, HRX_HOST_FCMP_UNE, hm_1(h, HRX_HOST_OP_FFLOOR, half),
                        half);
  uint32_t value, negate;
  if (cosine) {
    value = hm_select(h, odd, s, c);
    negate = hm_cmp(h, HRX_HOST_FCMP_OLT,
                    hm_1(h, HRX_HOST_OP_FABS,
                         hm_2(h, HRX_HOST_OP_FSUB, quadrant, hm_k(h, 1.5))),
                    hm_k(h, 1.0));
  } else {
    value = hm_select(h, odd, c, s);
    negate = hm_cmp(h, HRX_HOST_FCMP_OGE, quadrant, hm_k(h, 2.0));
  }
  value = hm_select(h, negate, hm_1(h, HRX_HOST_OP_FNEG, value), value);
  if (cosine) return value;
  /* sin(-0) is -0, which the modulo steps turn into +0. */
  return hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OEQ, x, hm_k(h, 0.0)), x,
                   value);
}

/* x^y = e^(y ln |x|) with the C99 special cases: x^0 = 1^y = 1, the sign
 * of a negative (or -0) base raised to an odd integer, and NaN for a
 * finite negative base raised to a non-integer. */
static uint32_t hm_pow(hm_t* h, uint32_t x, uint32_t y) {
  uint32_t one = hm_k(h, 1.0), zero = hm_k(h, 0.0);
  uint32_t magnitude = hm_1(h, HRX_HOST_OP_FABS, x);
  uint32_t power = hm_1(
      h, HRX_HOST_OP_FEXP,
      hm_2(h, HRX_HOST_OP_FMUL, y, hm_1(h, HRX_HOST_OP_FLOG, magnitude)));
  /* |x| = 1 gives 1 even for y = +-inf, where y ln 1 is NaN. */
  uint32_t r = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OEQ, magnitude, one), one,
                         power);
  uint32_t not_integer = hm_cmp(h, HRX_HOST_FCMP_UNE,
                                hm_1(h, HRX_HOST_OP_FFLOOR, y), y);
  uint32_t half = hm_2(h, HRX_HOST_OP_FMUL, y, hm_k(h, 0.5));
  uint32_t odd = hm_and(
      h, hm_cmp(h, HRX_HOST_FCMP_OEQ, hm_1(h, HRX_HOST_OP_FFLOOR, y), y),
      hm_cmp(h, HRX_HOST_FCMP_UNE, hm_1(h, HRX_HOST_OP_FFLOOR, half), half));
  uint32_t sign = hm_sign_bit(h, x);
  r = hm_select(h, hm_and(h, sign, odd), hm_1(h, HRX_HOST_OP_FNEG, r), r);
  uint32_t finite_negative =
      hm_and(h, hm_cmp(h, HRX_HOST_FCMP_OLT, x, zero),
             hm_cmp(h, HRX_HOST_FCMP_OGT, x, hm_k(h, -INFINITY)));
  r = hm_select(h, hm_and(h, finite_negative, not_integer), hm_k(h, NAN), r);
  uint32_t unit = hm_or(h, hm_cmp(h, HRX_HOST_FCMP_OEQ, y, zero),
                        hm_cmp(h, HRX_HOST_FCMP_OEQ, x, one));
  return hm_select(h, unit, one, r);
}

/* min(max(x, lo), hi) in clampf's mode: number follows fmin/fmax (a NaN
 * bound is ignored); ordered and ieee compare strictly, so a NaN value
 * passes through unchanged. */
static uint32_t hm_clamp(hm_t* h, const uint32_t* v, uint8_t mode) {
  if (mode == LOOM_CLAMP_NUMBER) {
    return hm_2(h, HRX_HOST_OP_FMIN, hm_2(h, HRX_HOST_OP_FMAX, v[0], v[1]),
                v[2]);
  }
  uint32_t raised =
      hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OLT, v[0], v[1]), v[1], v[0]);
  return hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OGT, raised, v[2]), v[2],
                   raised);
}

/* Round half away from zero: trunc(x), one more step away from zero when
 * the dropped fraction (exact) is at least one half. NaN and infinities
 * (whose fraction is NaN) come back unchanged, -0.3 gives -0. */
static uint32_t hm_round(hm_t* h, uint32_t x) {
  uint32_t t = hm_1(h, HRX_HOST_OP_FTRUNC, x);
  uint32_t fraction =
      hm_1(h, HRX_HOST_OP_FABS, hm_2(h, HRX_HOST_OP_FSUB, x, t));
  uint32_t step = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OLT, x, hm_k(h, 0.0)),
                            hm_k(h, -1.0), hm_k(h, 1.0));
  return hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OGE, fraction, hm_k(h, 0.5)),
                   hm_2(h, HRX_HOST_OP_FADD, t, step), t);
}

/* fmod(x, y) for x and y of at most 24 significant bits, exactly. Each
 * step takes a multiple q of d = |y| 2^k off the remainder r, with k
 * chosen so that q < 2^29: q d then has at most 53 bits and r - q d (a
 * multiple of d's ULP, below d) is exact, so the one fma rounds nothing.
 * A quotient rounded up makes r negative by less than d, which adding d
 * back repairs (exactly); one rounded down leaves r >= d for the next
 * step. Every step lowers r / |y| by 2^28, and eleven cover the 2^277
 * between the largest f32 and the smallest subnormal; a last
 * subtraction catches a final quotient rounded down. NaN for y = 0,
 * x = +-inf or a NaN operand; x itself for y = +-inf; the result has x's
 * sign (-0 stays -0). */
static uint32_t hm_fmod(hm_t* h, uint32_t x, uint32_t y) {
  uint32_t ax = hm_1(h, HRX_HOST_OP_FABS, x);
  uint32_t ay = hm_1(h, HRX_HOST_OP_FABS, y);
  uint32_t zero = hm_k(h, 0.0), one = hm_k(h, 1.0);
  uint32_t step_down = hm_k(h, 0x1p-28);
  uint32_t exponent_mask = LOOM_NONE;
  h->ok = h->ok && hb_new_vreg(h->b, true, 1, &exponent_mask) &&
          hb_const(h->b, UINT64_C(0x7FF0000000000000), exponent_mask);
  uint32_t r = ax;
  for (int step = 0; step < 11; ++step) {
    uint32_t t = hm_2(h, HRX_HOST_OP_FDIV, r, ay);
    /* 2^floor(log2 t): t's exponent bits alone */
    uint32_t power = hm_convert(
        h, HRX_HOST_TYPE_F64, HRX_HOST_TYPE_I64, HRX_HOST_CVT_BITCAST,
        hm_emit(h, HRX_HOST_OP_IAND, HRX_HOST_TYPE_I64, 0,
                hm_convert(h, HRX_HOST_TYPE_I64, HRX_HOST_TYPE_F64,
                           HRX_HOST_CVT_BITCAST, t),
                exponent_mask, LOOM_NONE, 0));
    uint32_t scale =
        hm_2(h, HRX_HOST_OP_FMAX, hm_2(h, HRX_HOST_OP_FMUL, power, step_down),
             one);
    uint32_t d = hm_2(h, HRX_HOST_OP_FMUL, ay, scale);
    uint32_t q =
        hm_1(h, HRX_HOST_OP_FTRUNC, hm_2(h, HRX_HOST_OP_FDIV, r, d));
    r = hm_fma(h, hm_1(h, HRX_HOST_OP_FNEG, q), d, r);
    r = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OLT, r, zero),
                  hm_2(h, HRX_HOST_OP_FADD, r, d), r);
  }
  r = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OGE, r, ay),
                hm_2(h, HRX_HOST_OP_FSUB, r, ay), r);
  uint32_t negative = hm_sign_bit(h, x);
  r = hm_select(h, negative, hm_1(h, HRX_HOST_OP_FNEG, r), r);
  uint32_t infinity = hm_k(h, INFINITY);
  r = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OEQ, ay, infinity), x, r);
  uint32_t invalid =
      hm_or(h, hm_or(h, hm_cmp(h, HRX_HOST_FCMP_UNO, x, y),
                     hm_cmp(h, HRX_HOST_FCMP_OEQ, ax, infinity)),
            hm_cmp(h, HRX_HOST_FCMP_OEQ, ay, zero));
  return hm_select(h, invalid, hm_k(h, NAN), r);
}

/* -1 or +1 by the sign of a non-zero number; zeros (of either sign) and
 * NaN stay themselves. */
static uint32_t hm_sign(hm_t* h, uint32_t x) {
  uint32_t zero = hm_k(h, 0.0);
  uint32_t r = hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OLT, x, zero),
                         hm_k(h, -1.0), x);
  return hm_select(h, hm_cmp(h, HRX_HOST_FCMP_OGT, x, zero), hm_k(h, 1.0),
                   r);
}

/* isnanf, isinff, isfinitef: an i1 (exact in f64, as every narrower float
 * widens to the same class). */
static uint32_t hm_class(hm_t* h, const char* name, uint32_t x) {
  if (!strcmp(name, "isnanf")) return hm_cmp(h, HRX_HOST_FCMP_UNO, x, x);
  uint32_t magnitude = hm_1(h, HRX_HOST_OP_FABS, x);
  return hm_cmp(h, strcmp(name, "isinff") ? HRX_HOST_FCMP_OLT
                                          : HRX_HOST_FCMP_OEQ,
                magnitude, hm_k(h, INFINITY));
}

/* math_formulas.c's primitives as host instructions on f64. */
static lm_value_t hm_f_constant(void* self, double value) {
  return hm_k(self, value);
}

static lm_value_t hm_f_unary(void* self, lm_unary_t op, lm_value_t x) {
  static const uint8_t ops[] = {
      [LM_NEG] = HRX_HOST_OP_FNEG, [LM_ABS] = HRX_HOST_OP_FABS,
      [LM_SQRT] = HRX_HOST_OP_FSQRT, [LM_EXP] = HRX_HOST_OP_FEXP,
      [LM_LOG] = HRX_HOST_OP_FLOG};
  if (op == LM_SIN || op == LM_COS) {
    return hm_trig(self, (uint32_t)x, op == LM_COS);
  }
  return hm_1(self, ops[op], (uint32_t)x);
}

static lm_value_t hm_f_binary(void* self, lm_binary_t op, lm_value_t x,
                              lm_value_t y) {
  static const uint8_t ops[] = {
      [LM_ADD] = HRX_HOST_OP_FADD, [LM_SUB] = HRX_HOST_OP_FSUB,
      [LM_MUL] = HRX_HOST_OP_FMUL, [LM_DIV] = HRX_HOST_OP_FDIV};
  return hm_2(self, ops[op], (uint32_t)x, (uint32_t)y);
}

static lm_value_t hm_f_fma(void* self, lm_value_t x, lm_value_t y,
                           lm_value_t z) {
  return hm_fma(self, (uint32_t)x, (uint32_t)y, (uint32_t)z);
}

static lm_value_t hm_f_compare(void* self, lm_compare_t op, lm_value_t x,
                               lm_value_t y) {
  static const hrx_host_fcmp_t preds[] = {[LM_EQ] = HRX_HOST_FCMP_OEQ,
                                          [LM_LT] = HRX_HOST_FCMP_OLT,
                                          [LM_GT] = HRX_HOST_FCMP_OGT};
  return hm_cmp(self, preds[op], (uint32_t)x, (uint32_t)y);
}

static lm_value_t hm_f_unordered(void* self, lm_value_t x, lm_value_t y) {
  return hm_cmp(self, HRX_HOST_FCMP_UNO, (uint32_t)x, (uint32_t)y);
}

static lm_value_t hm_f_both(void* self, lm_value_t c, lm_value_t d) {
  return hm_and(self, (uint32_t)c, (uint32_t)d);
}

static lm_value_t hm_f_select(void* self, lm_value_t c, lm_value_t x,
                              lm_value_t y) {
  return hm_select(self, (uint32_t)c, (uint32_t)x, (uint32_t)y);
}

static lm_value_t hm_f_sign_bit(void* self, lm_value_t x) {
  return hm_sign_bit(self, (uint32_t)x);
}

static uint32_t hm_formula(hm_t* h, lm_function_t fn, uint32_t x,
                           uint32_t y) {
  const lm_emit_t emit = {
      .self = h,
      .constant = hm_f_constant,
      .unary = hm_f_unary,
      .binary = hm_f_binary,
      .fma = hm_f_fma,
      .compare = hm_f_compare,
      .unordered = hm_f_unordered,
      .both = hm_f_both,
      .select = hm_f_select,
      .sign_bit = hm_f_sign_bit,
  };
  return (uint32_t)lm_emit_function(&emit, fn, x, y);
}

static const char* const hm_ops[] = {
    "scalar.exp2f",  "scalar.siluf",    "scalar.sinf",   "scalar.cosf",
    "scalar.powf",   "scalar.clampf",   "vector.exp2f",  "vector.siluf",
    "vector.sinf",   "vector.cosf",     "vector.powf",   "vector.clampf",
    "vector.roundf", "scalar.remf",     "vector.remf",   "scalar.signf",
    "vector.signf",  "scalar.log2f",    "vector.log2f",  "scalar.log10f",
    "vector.log10f", "scalar.isnanf",   "vector.isnanf", "scalar.isinff",
    "vector.isinff", "scalar.isfinitef", "vector.isfinitef"};

bool hb_is_math(const loom_op_t* op) {
  for (size_t i = 0; i < sizeof(hm_ops) / sizeof(hm_ops[0]); ++i) {
    if (hb_is(op, hm_ops[i])) return true;
  }
  const char* name = hb_op_name(op);
  lm_function_t fn;
  return (!strncmp(name, "scalar.", 7) || !strncmp(name, "vector.", 7)) &&
         lm_function_named(name + 7, &fn);
}

/* Whether |op| is the function |name| ("exp2f") on scalars or vectors. */
static bool hm_is(const loom_op_t* op, const char* name) {
  const char* full = hb_op_name(op);
  const char* dot = strchr(full, '.');
  return dot && strcmp(dot + 1, name) == 0;
}

/* The function of one lane: operands |v| of host type |type|. */
static bool hm_lane(hb_t* b, const loom_op_t* op, uint8_t type,
                    const uint32_t* operands, uint32_t* out) {
  uint32_t v[3] = {operands[0], operands[1], operands[2]};
  hm_t h = {.b = b, .type = type, .ok = true};
  uint32_t r = LOOM_NONE;
  bool is_class = loom_op_defs[op->opcode].shape == LOOM_SHAPE_COMPARE;
  if (hm_is(op, "clampf")) {
    r = hm_clamp(&h, v, op->enum_value);
  } else if (type == HRX_HOST_TYPE_F64 && !hm_is(op, "exp2f") &&
             !hm_is(op, "siluf") && !hm_is(op, "roundf") &&
             !hm_is(op, "signf") && !is_class) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s on f64 is not supported by the host backend (its "
                    "ISA has no arithmetic wider than f64 to evaluate it in)",
                    hb_op_name(op));
  } else {
    h.type = HRX_HOST_TYPE_F64;
    for (uint32_t i = 0; i < op->operand_count && i < 2; ++i) {
      v[i] = hm_convert(&h, HRX_HOST_TYPE_F64, type, HRX_HOST_CVT_FEXT, v[i]);
    }
    if (is_class) {
      /* an i1, exact: widening keeps the class */
      *out = hm_class(&h, strchr(hb_op_name(op), '.') + 1, v[0]);
      return h.ok;
    }
    lm_function_t fn;
    if (lm_function_named(strchr(hb_op_name(op), '.') + 1, &fn)) {
      r = hm_formula(&h, fn, v[0], v[1]);
    } else if (hm_is(op, "signf")) {
      r = hm_sign(&h, v[0]);
    } else if (hm_is(op, "exp2f")) {
      r = hm_1(&h, HRX_HOST_OP_FEXP,
               hm_2(&h, HRX_HOST_OP_FMUL, v[0],
                    hm_k(&h, 0.69314718055994530942)));
    } else if (hm_is(op, "siluf")) {
      /* x / (1 + e^-x) */
      uint32_t e = hm_1(&h, HRX_HOST_OP_FEXP,
                        hm_1(&h, HRX_HOST_OP_FNEG, v[0]));
      r = hm_2(&h, HRX_HOST_OP_FDIV, v[0],
               hm_2(&h, HRX_HOST_OP_FADD, e, hm_k(&h, 1.0)));
    } else if (hm_is(op, "powf")) {
      r = hm_pow(&h, v[0], v[1]);
    } else if (hm_is(op, "remf")) {
      r = hm_fmod(&h, v[0], v[1]);
    } else if (hm_is(op, "log2f") || hm_is(op, "log10f")) {
      /* ln x / ln b in f64: within 2^-50 relative of the exact value */
      r = hm_2(&h, HRX_HOST_OP_FMUL, hm_1(&h, HRX_HOST_OP_FLOG, v[0]),
               hm_k(&h, hm_is(op, "log2f") ? 1.4426950408889634074
                                           : 0.43429448190325182765));
    } else if (hm_is(op, "roundf")) {
      /* Exact in f64, and the integer it gives fits the source type. */
      r = hm_round(&h, v[0]);
    } else {
      r = hm_trig(&h, v[0], hm_is(op, "cosf"));
    }
    r = hm_convert(&h, type, HRX_HOST_TYPE_F64, HRX_HOST_CVT_FTRUNC, r);
  }
  *out = r;
  return h.ok;
}

bool hb_lower_math(hb_t* b, const loom_op_t* op) {
  return hb_lower_lanewise(b, op, hm_lane);
}
