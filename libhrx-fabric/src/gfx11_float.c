/* Floating-point operations of the gfx11 model the host's float and double
 * arithmetic do not give directly: f16 arithmetic and conversions rounded
 * to nearest even with denormals kept (callers flush them as the wave's
 * MODE asks, see gfx11_mode.c), the ISA's min/max NaN rules, and the f32
 * division helpers v_div_scale, v_div_fmas and v_div_fixup, and the
 * sine and cosine of turns (v_sin_f32, v_cos_f32). Every other result
 * is rounded once: f16 sums and products are exact in double, and a fused
 * sum that is not is first rounded to odd, which a later rounding to a
 * precision at least two bits narrower cannot tell from the exact value. */
#include <math.h>
#include <string.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

enum {
  F16_SIGN = 0x8000,
  F16_EXP = 0x7C00,
  F16_MANT = 0x03FF,
  F16_QUIET = 0x0200,
  F16_DEFAULT_NAN = 0x7E00,
  F32_QUIET = 0x00400000,
  F32_DEFAULT_NAN = 0x7FC00000,
};

static bool f16_is_nan(uint16_t h) {
  return (h & F16_EXP) == F16_EXP && (h & F16_MANT);
}

static double f16_to_double(uint16_t h) {
  double sign = h & F16_SIGN ? -1.0 : 1.0;
  uint32_t exponent = (h & F16_EXP) >> 10, mantissa = h & F16_MANT;
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * ldexp(mantissa, -24);
  return sign * ldexp(mantissa | 0x400, (int)exponent - 25);
}

float gfx11_f16_to_f32(uint16_t h) {
  if (f16_is_nan(h)) {
    /* The payload moves to the top of the f32 mantissa, made quiet. */
    uint32_t bits = (uint32_t)(h & F16_SIGN) << 16 | 0x7F800000u |
                    F32_QUIET | (uint32_t)(h & F16_MANT) << 13;
    return hrx_f32(bits);
  }
  return (float)f16_to_double(h);
}

uint16_t gfx11_f16_from_double(double value) {
  uint16_t sign = signbit(value) ? F16_SIGN : 0;
  if (isnan(value)) return sign | F16_DEFAULT_NAN;
  double magnitude = fabs(value);
  /* 65520 lies halfway between 65504, the largest f16, and 2^16; ties go
   * to the even one, which is past the range. */
  if (magnitude >= 65520.0) return sign | F16_EXP;
  if (magnitude < 0x1p-14) {
    /* Denormal: a multiple of 2^-24; 1024 of them is the smallest normal,
     * whose encoding is the same integer. */
    return sign | (uint16_t)rint(magnitude * 0x1p24);
  }
  int exponent = 0;
  frexp(magnitude, &exponent);  /* magnitude = m * 2^exponent, m in [.5, 1) */
  double significand = rint(ldexp(magnitude, 11 - exponent));  /* 1024..2048 */
  if (significand == 2048.0) {
    significand = 1024.0;
    ++exponent;
  }
  if (exponent + 14 >= 31) return sign | F16_EXP;
  return sign | (uint16_t)((exponent + 14) << 10) |
         (uint16_t)((uint32_t)significand - 1024);
}

uint16_t gfx11_f16_from_f32(float value) {
  if (isnan(value)) {
    uint32_t bits = hrx_f32_bits(value);
    return (uint16_t)((bits >> 16 & F16_SIGN) | F16_EXP | F16_QUIET |
                      (bits & 0x7FFFFF) >> 13);
  }
  return gfx11_f16_from_double(value);
}

/* The NaN an op with a NaN source returns: the first such source, quiet. */
static uint16_t propagate_nan(uint16_t a, uint16_t b, uint16_t c) {
  if (f16_is_nan(a)) return a | F16_QUIET;
  if (f16_is_nan(b)) return b | F16_QUIET;
  if (f16_is_nan(c)) return c | F16_QUIET;
  return F16_DEFAULT_NAN;
}

/* An invalid operation (inf - inf, 0 * inf) gives the default NaN, not
 * the host's, which has its sign bit set. */
static uint16_t f16_result(double value, uint16_t a, uint16_t b, uint16_t c) {
  if (isnan(value)) return propagate_nan(a, b, c);
  return gfx11_f16_from_double(value);
}

uint16_t gfx11_add_f16(uint16_t a, uint16_t b) {
  /* Exact in double: the two 11-bit significands span under 41 bits. */
  return f16_result(f16_to_double(a) + f16_to_double(b), a, b, 0);
}

uint16_t gfx11_mul_f16(uint16_t a, uint16_t b) {
  return f16_result(f16_to_double(a) * f16_to_double(b), a, b, 0);
}

/* x + y rounded to odd: the double nearest below or above the exact sum
 * whose last bit is 1 when the sum is inexact (TwoSum gives the error). */
static double add_round_to_odd(double x, double y) {
  double sum = x + y;
  if (!isfinite(sum)) return sum;
  double y_part = sum - x;
  double error = (x - (sum - y_part)) + (y - y_part);
  if (error == 0.0) return sum;
  uint64_t bits;
  memcpy(&bits, &sum, sizeof(bits));
  if (bits & 1) return sum;
  return nextafter(sum, error > 0 ? INFINITY : -INFINITY);
}

uint16_t gfx11_fma_f16(uint16_t a, uint16_t b, uint16_t c) {
  double product = f16_to_double(a) * f16_to_double(b);  /* exact */
  return f16_result(add_round_to_odd(product, f16_to_double(c)), a, b, c);
}

/* The bit layout of an IEEE binary format, for the ops written once for
 * f16 and f32. */
typedef struct float_format_t {
  uint32_t sign, exponent, mantissa, quiet;
} float_format_t;

static const float_format_t FORMAT_F16 = {F16_SIGN, F16_EXP, F16_MANT,
                                          F16_QUIET};
static const float_format_t FORMAT_F32 = {0x80000000u, 0x7F800000u,
                                          0x007FFFFFu, F32_QUIET};

static bool is_nan(const float_format_t* f, uint32_t x) {
  return (x & f->exponent) == f->exponent && (x & f->mantissa);
}

static bool is_signalling(const float_format_t* f, uint32_t x) {
  return is_nan(f, x) && !(x & f->quiet);
}

/* A key whose unsigned order is the numeric order of non-NaN values, with
 * -0 below +0: negative magnitudes count down from just below the sign
 * bit, positive ones up from it. */
static uint32_t order_key(const float_format_t* f, uint32_t x) {
  uint32_t magnitude = x & ~f->sign;
  return x & f->sign ? f->sign - 1 - magnitude : f->sign + magnitude;
}

/* The ISA's v_max/v_min pseudocode: IEEE mode quiets a signalling NaN
 * source and returns it; otherwise a NaN source yields the other source
 * (unchanged, even a signalling NaN); -0 and +0 are ordered. */
static uint32_t select_extreme(const float_format_t* f, uint32_t a,
                               uint32_t b, bool want_max, bool ieee) {
  if (ieee && is_signalling(f, a)) return a | f->quiet;
  if (ieee && is_signalling(f, b)) return b | f->quiet;
  if (is_nan(f, a)) return b;
  if (is_nan(f, b)) return a;
  return (order_key(f, a) > order_key(f, b)) == want_max ? a : b;
}

uint16_t gfx11_max_f16(uint16_t a, uint16_t b, bool ieee) {
  return (uint16_t)select_extreme(&FORMAT_F16, a, b, true, ieee);
}

uint16_t gfx11_min_f16(uint16_t a, uint16_t b, bool ieee) {
  return (uint16_t)select_extreme(&FORMAT_F16, a, b, false, ieee);
}

uint32_t gfx11_max_f32(uint32_t a, uint32_t b, bool ieee) {
  return select_extreme(&FORMAT_F32, a, b, true, ieee);
}

uint32_t gfx11_min_f32(uint32_t a, uint32_t b, bool ieee) {
  return select_extreme(&FORMAT_F32, a, b, false, ieee);
}

/* The biased exponent field, as the ISA's exponent(). */
static int exponent_f32(uint32_t bits) { return (int)(bits >> 23 & 0xFF); }

static bool is_denormal_f32(float value) {
  return value != 0.0f && fabsf(value) < 0x1p-126f;
}

/* The ISA's pseudocode, where D0 keeps S0 unless a branch assigns it:
 * the macro calls it with S0 equal to the denominator S1 (scaling the
 * denominator) and with S0 equal to the numerator S2 (scaling the
 * numerator and setting VCC). "1.0 / 64'F(S1) == DENORM.f64" never
 * holds: the reciprocal of an f32 is far above the f64 denormals. */
uint32_t gfx11_div_scale_f32(uint32_t s0, uint32_t s1, uint32_t s2,
                             bool* out_vcc) {
  float a = hrx_f32(s0), d = hrx_f32(s1), n = hrx_f32(s2);
  *out_vcc = false;
  if (n == 0.0f || d == 0.0f) return F32_DEFAULT_NAN;
  if (exponent_f32(s2) - exponent_f32(s1) >= 96) {
    /* n / d near the largest f32: only the denominator is scaled. */
    *out_vcc = true;
    return a == d ? hrx_f32_bits(ldexpf(a, 64)) : s0;
  }
  if (is_denormal_f32(d)) return hrx_f32_bits(ldexpf(a, 64));
  if (is_denormal_f32(n / d)) {
    *out_vcc = true;
    return a == n ? hrx_f32_bits(ldexpf(a, 64)) : s0;
  }
  /* A tiny numerator: both inputs are scaled alike, so the quotient is
   * unchanged and needs no post-scaling. */
  if (exponent_f32(s2) <= 23) return hrx_f32_bits(ldexpf(a, 64));
  return s0;
}

/* fma(S0, S1, S2) * 2^scale rounded once. */
static float fma_scaled(float a, float b, float c, int scale) {
  if (!isfinite(a) || !isfinite(b) || !isfinite(c)) {
    return ldexpf(fmaf(a, b, c), scale);
  }
  double product = (double)a * (double)b;  /* exact: 48 bits */
  double sum = add_round_to_odd(product, c);
  /* Scaling a double by 2^+-64 is exact in the f32 range. */
  return (float)ldexp(sum, scale);
}

/* The guide's pseudocode scales by 2^32, which cannot undo v_div_scale's
 * 2^64; hardware scales by 2^64, up when the quotient S2 is at least 2
 * (the denominator was scaled up) and down otherwise (the numerator was
 * scaled up), as measured on RDNA3 by tinygrad's hardware tests
 * (extra/assembly/amd/test/hw/test_div.py). */
uint32_t gfx11_div_fmas_f32(uint32_t s0, uint32_t s1, uint32_t s2, bool vcc) {
  float a = hrx_f32(s0), b = hrx_f32(s1), c = hrx_f32(s2);
  if (!vcc) return hrx_f32_bits(fmaf(a, b, c));
  return hrx_f32_bits(fma_scaled(a, b, c, exponent_f32(s2) > 127 ? 64 : -64));
}

/* The ISA's pseudocode: S0 the quotient, S1 the denominator, S2 the
 * numerator; the special cases of n / d override the quotient. The
 * guide's overflow test reads "exponent(S1) == 255", which the infinity
 * and NaN branches before it make unreachable; it is read here as a test
 * of the quotient S0. A quotient too large even after v_div_scale's
 * 2^64 overflows the macro's fma chain to infinity, and its next step
 * computes inf - inf, so S0 arrives as infinity or NaN although n and d
 * are finite and nonzero: the result is then infinity of the quotient's
 * sign, as IEEE division gives. */
uint32_t gfx11_div_fixup_f32(uint32_t s0, uint32_t s1, uint32_t s2) {
  float d = hrx_f32(s1), n = hrx_f32(s2);
  uint32_t sign = (s1 ^ s2) & 0x80000000u;
  if (isnan(n)) return s2 | F32_QUIET;
  if (isnan(d)) return s1 | F32_QUIET;
  if (d == 0.0f && n == 0.0f) return 0xFFC00000u;
  if (isinf(d) && isinf(n)) return 0xFFC00000u;
  if (d == 0.0f || isinf(n)) return sign | 0x7F800000u;
  if (isinf(d) || n == 0.0f) return sign;
  /* Underflow is 0 and overflow infinity. */
  if (exponent_f32(s2) - exponent_f32(s1) < -150) return sign;
  if (exponent_f32(s0) == 255) return sign | 0x7F800000u;
  return sign | (s0 & 0x7FFFFFFFu);
}

/* v_sin_f32 and v_cos_f32 take their argument in turns: sin(2 pi S0) and
 * cos(2 pi S0). LLVM emits them for every f32 llvm.sin / llvm.cos, after
 * multiplying radians by 1 / (2 pi). The hardware's results are
 * approximations whose error the ISA guide does not bound; the model
 * reduces S0 exactly to r, its distance from the nearest whole turn
 * (|r| <= 1/2, exact in double as is r + 1/4 for the cosine), gives
 * multiples of a quarter turn exactly (0, +-1; sin(+-0) keeps the zero's
 * sign), and otherwise rounds the double sine of 2 pi r. NaN stays NaN
 * (quiet) and infinities give the default NaN. Comparisons against
 * hardware must allow its error. */
uint32_t gfx11_sin_turns_f32(uint32_t s0, bool cosine) {
  static const double two_pi = 6.283185307179586476925286766559;
  float x = hrx_f32(s0);
  if (isnan(x)) return s0 | F32_QUIET;
  if (isinf(x)) return F32_DEFAULT_NAN;
  if (x == 0.0f && !cosine) return s0;
  double r = (double)x - nearbyint((double)x);
  if (cosine) r += 0.25;
  double quarters = 4.0 * r;
  if (quarters == nearbyint(quarters)) {
    static const uint32_t cardinal[4] = {0, 0x3F800000u, 0, 0xBF800000u};
    return cardinal[((int)quarters % 4 + 4) % 4];
  }
  return hrx_f32_bits((float)sin(two_pi * r));
}
