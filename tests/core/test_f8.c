/* hrx/core/f8.h against references computed here from the formats'
 * definitions in double arithmetic: every encoding widened, and f32 values
 * narrowed (encodings, midpoints between neighbours and their f32
 * neighbours, the overflow and subnormal boundaries, NaN, infinities and
 * pseudo-random bit patterns) against a nearest-encoding search. */
#include <math.h>
#include <string.h>

#include "hrx/core/f8.h"
#include "test_support.h"

typedef struct f8_format_t {
  int exponent_bits, mantissa_bits, bias;
  bool has_inf;             /* E5M2: all-ones exponent is inf / NaN */
  double max;               /* largest finite value */
  uint8_t max_code;         /* its encoding */
  uint8_t overflow_code;    /* what values beyond max narrow to */
  uint8_t nan_code;         /* what NaN narrows to */
  uint8_t (*narrow)(uint32_t);
  uint32_t (*widen)(uint8_t);
} f8_format_t;

static const f8_format_t e4m3 = {4, 3, 7, false, 448.0, 0x7e, 0x7f, 0x7f,
                                 hrx_f32_bits_to_f8e4m3,
                                 hrx_f8e4m3_to_f32_bits};
static const f8_format_t e5m2 = {5, 2, 15, true, 57344.0, 0x7b, 0x7c, 0x7e,
                                 hrx_f32_bits_to_f8e5m2,
                                 hrx_f8e5m2_to_f32_bits};

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The encoding's value by the definition; NaN for NaN encodings. */
static double f8_value(const f8_format_t* f, uint8_t code) {
  int e = (code >> f->mantissa_bits) & ((1 << f->exponent_bits) - 1);
  int m = code & ((1 << f->mantissa_bits) - 1);
  double sign = (code & 0x80) ? -1.0 : 1.0;
  int all_ones = (1 << f->exponent_bits) - 1;
  if (f->has_inf && e == all_ones) return m ? NAN : sign * INFINITY;
  if (!f->has_inf && e == all_ones && m == (1 << f->mantissa_bits) - 1) {
    return NAN;
  }
  double fraction = (double)m / (double)(1 << f->mantissa_bits);
  return e == 0 ? sign * ldexp(fraction, 1 - f->bias)
                : sign * ldexp(1.0 + fraction, e - f->bias);
}

/* Nearest encoding of |x| (ties to the even code), the value one step
 * past max standing for overflow, as rounding with an unbounded exponent
 * does. */
static uint8_t f8_reference_narrow(const f8_format_t* f, double x) {
  if (isnan(x)) return (uint8_t)((signbit(x) ? 0x80 : 0) | f->nan_code);
  uint8_t sign = signbit(x) ? 0x80 : 0;
  double a = fabs(x);
  double step = ldexp(1.0, (int)floor(log2(f->max)) - f->mantissa_bits);
  double past = f->max + step; /* the next value an unbounded format has */
  if (a >= past) return (uint8_t)(sign | f->overflow_code);
  uint8_t best = 0;
  double best_distance = INFINITY;
  for (uint32_t code = 0; code <= (uint32_t)f->max_code + 1u; ++code) {
    double v = code == (uint32_t)f->max_code + 1u ? past
                                                  : f8_value(f, (uint8_t)code);
    double d = fabs(a - v);
    if (d < best_distance || (d == best_distance && !(code & 1u))) {
      best = (uint8_t)code;
      best_distance = d;
    }
  }
  if (best > f->max_code) best = f->overflow_code;
  return (uint8_t)(sign | best);
}

static void check_widen_all(const f8_format_t* f) {
  for (uint32_t code = 0; code < 256; ++code) {
    double v = f8_value(f, (uint8_t)code);
    uint32_t want = isnan(v) ? ((code & 0x80u) << 24) | 0x7fc00000u
                             : bits_of((float)v);
    uint32_t got = f->widen((uint8_t)code);
    if (got != want) {
      fail_msg("widen 0x%02x: got 0x%08x want 0x%08x", code, got, want);
    }
    /* Every non-NaN encoding narrows back to itself. */
    if (!isnan(v) && f->narrow(got) != code) {
      fail_msg("0x%02x does not round-trip (0x%02x)", code, f->narrow(got));
    }
  }
}

static void check_narrow(const f8_format_t* f, uint32_t bits) {
  uint8_t want = f8_reference_narrow(f, (double)float_of(bits));
  uint8_t got = f->narrow(bits);
  if (got != want) {
    fail_msg("narrow 0x%08x (%.9g): got 0x%02x want 0x%02x", bits,
             (double)float_of(bits), got, want);
  }
}

static void check_narrow_around(const f8_format_t* f, double value) {
  uint32_t bits = bits_of((float)value);
  for (int32_t d = -2; d <= 2; ++d) {
    check_narrow(f, bits + (uint32_t)d);
    check_narrow(f, (bits + (uint32_t)d) | 0x80000000u);
  }
}

static void check_narrow_all(const f8_format_t* f) {
  /* Each finite encoding, each midpoint between neighbours (the ties),
   * and their f32 neighbours on both sides. */
  for (uint32_t code = 0; code <= f->max_code; ++code) {
    double v = f8_value(f, (uint8_t)code);
    check_narrow_around(f, v);
    double next = code == f->max_code
                      ? f->max + (f->max - f8_value(f, (uint8_t)(code - 1)))
                      : f8_value(f, (uint8_t)(code + 1));
    check_narrow_around(f, (v + next) / 2.0);
  }
  /* Specials and the ends of f32. */
  const uint32_t specials[] = {0x00000000u, 0x00000001u, 0x007fffffu,
                               0x00800000u, 0x7f7fffffu, 0x7f800000u,
                               0x7f800001u, 0x7fc00000u, 0x7fffffffu,
                               0x3f800000u, 0x33800000u, 0x2f800000u};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); ++i) {
    check_narrow(f, specials[i]);
    check_narrow(f, specials[i] | 0x80000000u);
  }
  /* Pseudo-random patterns, concentrated on the format's range. */
  uint32_t state = 0x12345678u;
  for (uint32_t i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    uint32_t bits = state;
    if (i & 1u) { /* exponents 2^-20 .. 2^20 */
      bits = (bits & 0x807fffffu) | ((107u + (state >> 27) % 41u) << 23);
    }
    check_narrow(f, bits);
  }
}

static void test_e4m3_widen(void** state) {
  (void)state;
  check_widen_all(&e4m3);
  /* Fixed points of the format, written out. */
  assert_int_equal(hrx_f8e4m3_to_f32_bits(0x7e), bits_of(448.0f));
  assert_int_equal(hrx_f8e4m3_to_f32_bits(0x01), bits_of(0x1p-9f));
  assert_int_equal(hrx_f8e4m3_to_f32_bits(0x08), bits_of(0x1p-6f));
  assert_int_equal(hrx_f8e4m3_to_f32_bits(0x78), bits_of(256.0f));
  assert_int_equal(hrx_f8e4m3_to_f32_bits(0xff), 0xffc00000u);
}

static void test_e5m2_widen(void** state) {
  (void)state;
  check_widen_all(&e5m2);
  assert_int_equal(hrx_f8e5m2_to_f32_bits(0x7b), bits_of(57344.0f));
  assert_int_equal(hrx_f8e5m2_to_f32_bits(0x7c), 0x7f800000u);
  assert_int_equal(hrx_f8e5m2_to_f32_bits(0xfc), 0xff800000u);
  assert_int_equal(hrx_f8e5m2_to_f32_bits(0x01), bits_of(0x1p-16f));
  assert_int_equal(hrx_f8e5m2_to_f32_bits(0x7d), 0x7fc00000u);
}

static void test_e4m3_narrow(void** state) {
  (void)state;
  check_narrow_all(&e4m3);
  /* Overflow without saturation: 464 is the tie, going to the even 448. */
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(464.0f)), 0x7e);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(464.5f)), 0x7f);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(-1e6f)), 0xff);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(0x7f800000u), 0x7f);
  /* Subnormals: ties to even around 2^-9 and 2^-10. */
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(0x1p-10f)), 0x00);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(0x1.8p-9f)), 0x02);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(-0x1.2p-10f)), 0x81);
  assert_int_equal(hrx_f32_bits_to_f8e4m3(bits_of(0x1.ep-7f)), 0x08);
}

static void test_e5m2_narrow(void** state) {
  (void)state;
  check_narrow_all(&e5m2);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(bits_of(61439.0f)), 0x7b);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(bits_of(61440.0f)), 0x7c);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(0xff800000u), 0xfc);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(0xffc00001u), 0xfe);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(bits_of(0x1p-17f)), 0x00);
  assert_int_equal(hrx_f32_bits_to_f8e5m2(bits_of(0x1.8p-16f)), 0x02);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_e4m3_widen),
      cmocka_unit_test(test_e5m2_widen),
      cmocka_unit_test(test_e4m3_narrow),
      cmocka_unit_test(test_e5m2_narrow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
