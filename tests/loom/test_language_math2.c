/* isnanf, isinff, isfinitef, signf, signi, remf, log2f and log10f, scalar
 * and vector, on the host device (interpreted and native) against C
 * references over a strided sweep of every f32 magnitude and the special
 * values (+-0, +-inf, NaN, subnormals, the largest finite): the class
 * tests, signf, signi and remf (C's fmodf, which is exact) bit for bit,
 * log2f and log10f within the bound hrx/loom.h states for the host
 * (measured and printed). Then their textual forms round-trip and
 * malformed ones are refused at their line and column. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define ROWS 8192
#define SPECIALS 14

/* The host's log2f and log10f: f64 logarithms rounded once (hrx/loom.h). */
#define HOST_LOG_ULP 0.501
/* The composed functions, f64 formulas rounded once (math_formulas.c). */
#define HOST_FUNCTION_ULP 0.501

static float ref_sign(float x) {
  if (x > 0) return 1.0f;
  if (x < 0) return -1.0f;
  return x; /* zeros keep their sign, NaN stays NaN */
}

static void expect_bits(const char* what, size_t row, size_t lane, float got,
                        float want) {
  bool same = isnan(want) ? isnan(got) : loom_test_bits(got) == loom_test_bits(want);
  if (!same) {
    fail_msg("%s row %zu lane %zu: got %a want %a", what, row, lane, got,
             want);
  }
}

/* x: every ordered pair of specials (with y), then a stride through all
 * bit patterns; y: random bit patterns (quotients up to 2^277), values
 * near x's magnitude, and +-inf now and then. */
static void fill_inputs(float* x, float* y, int32_t* ints) {
  static const float special[SPECIALS] = {
      0.0f,    -0.0f,   1.0f,   -1.0f,     NAN,      INFINITY, -INFINITY,
      1e-45f, -1e-45f, FLT_MIN, 3.4028235e38f, -3.4028235e38f, 0.75f,
      10.0f};
  uint32_t state = 91;
  for (size_t i = 0; i < ROWS * 4; ++i) {
    if (i < SPECIALS * SPECIALS) {
      x[i] = special[i / SPECIALS];
      y[i] = special[i % SPECIALS];
      continue;
    }
    x[i] = loom_test_f32((uint32_t)(i * 131071u));
    state = state * 1664525u + 1013904223u;
    switch (i % 4) {
      case 0: y[i] = loom_test_f32(state); break;
      case 1: {
        int scale = isfinite(x[i]) && x[i] != 0 ? ilogbf(x[i]) : 0;
        y[i] = ldexpf(1.0f + (float)(state >> 9) / 8388608.0f,
                      scale - (int)(state % 40));
        break;
      }
      case 2: y[i] = (state & 1) ? -3.0f : 0.1f; break;
      default: y[i] = (state & 1) ? INFINITY : loom_test_f32(state >> 3);
    }
  }
  /* the scalar forms read column 0: give it the specials' pairs too */
  for (size_t i = 0; i < SPECIALS * SPECIALS; ++i) {
    x[(ROWS - 1 - i) * 4] = special[i / SPECIALS];
    y[(ROWS - 1 - i) * 4] = special[i % SPECIALS];
  }
  static const int32_t edge[] = {0, 1, -1, INT32_MAX, INT32_MIN, 2, -2};
  for (size_t i = 0; i < ROWS * 4; ++i) {
    state = state * 1664525u + 1013904223u;
    ints[i] = i < 7 ? edge[i] : (int32_t)state;
  }
}

typedef struct worst_t {
  double log2, log10;
} worst_t;

/* One value's results (|r| strided by |stride|: class tests, signf, remf,
 * log2f, log10f) against the references. */
static void check_value(const char* form, size_t row, size_t lane, float x,
                        float y, const float* r, size_t stride,
                        worst_t* worst) {
  static const char* const names[] = {"isnanf", "isinff", "isfinitef",
                                      "signf",  "remf"};
  float want[] = {isnan(x) ? 1.0f : 0.0f, isinf(x) ? 1.0f : 0.0f,
                  isfinite(x) ? 1.0f : 0.0f, ref_sign(x), fmodf(x, y)};
  for (size_t k = 0; k < 5; ++k) {
    char what[32];
    snprintf(what, sizeof(what), "%s.%s", form, names[k]);
    if (k == 4 && !isnan(want[k]) && loom_test_bits(r[k * stride]) !=
                                         loom_test_bits(want[k])) {
      fail_msg("%s row %zu lane %zu: fmod(%a, %a) got %a want %a", what,
               row, lane, x, y, r[k * stride], want[k]);
    }
    expect_bits(what, row, lane, r[k * stride], want[k]);
  }
  double e2 = loom_test_ulp_error(r[5 * stride], log2((double)x));
  double e10 = loom_test_ulp_error(r[6 * stride], log10((double)x));
  if (e2 > HOST_LOG_ULP || e10 > HOST_LOG_ULP) {
    fail_msg("%s row %zu lane %zu: x = %a: log2 %a (%.4f ulp), log10 %a "
             "(%.4f ulp)", form, row, lane, x, r[5 * stride], e2,
             r[6 * stride], e10);
  }
  worst->log2 = fmax(worst->log2, e2);
  worst->log10 = fmax(worst->log10, e10);
}

static void run_float_tests(bool native) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, "float_tests.loom",
                      (const char* const[]){"float_tests", NULL}, native);
  hrx_fabric_memory_t xs = harness_buffer(&h, ROWS * 4 * sizeof(float));
  hrx_fabric_memory_t ys = harness_buffer(&h, ROWS * 4 * sizeof(float));
  hrx_fabric_memory_t is = harness_buffer(&h, ROWS * 4 * sizeof(int32_t));
  float* x = xs.host_pointer;
  float* y = ys.host_pointer;
  int32_t* ints = is.host_pointer;
  fill_inputs(x, y, ints);
  hrx_fabric_memory_t scalars = harness_buffer(&h, ROWS * 7 * sizeof(float));
  hrx_fabric_memory_t vectors =
      harness_buffer(&h, ROWS * 7 * 4 * sizeof(float));
  hrx_fabric_memory_t signs = harness_buffer(&h, ROWS * 5 * sizeof(int32_t));
  uint64_t workload[] = {ROWS};
  harness_arg_t args[] = {ARG_U64(ROWS),    ARG_BUF(xs),      ARG_BUF(ys),
                          ARG_BUF(is),      ARG_BUF(scalars), ARG_BUF(vectors),
                          ARG_BUF(signs)};
  assert_ok(harness_run(&h, "float_tests", workload, 1, args, 7));
  const float* s = scalars.host_pointer;
  const float* v = vectors.host_pointer;
  const int32_t* n = signs.host_pointer;
  worst_t worst = {0, 0};
  for (size_t r = 0; r < ROWS; ++r) {
    size_t at = r * 4;
    check_value("scalar", r, 0, x[at], y[at], s + r * 7, 1, &worst);
    for (size_t e = 0; e < 4; ++e) {
      check_value("vector", r, e, x[at + e], y[at + e], v + r * 28 + e, 4,
                  &worst);
    }
    int32_t want = ints[at] > 0 ? 1 : ints[at] < 0 ? -1 : 0;
    if (n[r * 5] != want) {
      fail_msg("scalar.signi(%" PRId32 ") = %" PRId32, ints[at], n[r * 5]);
    }
    for (size_t e = 0; e < 4; ++e) {
      int32_t a = ints[at + e];
      int32_t w = a > 0 ? 1 : a < 0 ? -1 : 0;
      if (n[r * 5 + 1 + e] != w) {
        fail_msg("vector.signi(%" PRId32 ") = %" PRId32, a,
                 n[r * 5 + 1 + e]);
      }
    }
  }
  print_message("%s, %d values: log2f %.4f, log10f %.4f ulp at most\n",
                native ? "native" : "interpreted", ROWS * 5, worst.log2,
                worst.log10);
  hrx_fabric_memory_free(h.device, &xs);
  hrx_fabric_memory_free(h.device, &ys);
  hrx_fabric_memory_free(h.device, &is);
  hrx_fabric_memory_free(h.device, &scalars);
  hrx_fabric_memory_free(h.device, &vectors);
  hrx_fabric_memory_free(h.device, &signs);
  harness_close(&h);
}

/* float_functions.loom: the composed functions (math_formulas.c). */
#define FUNCTIONS 12

static double ref_function(size_t f, double x, double y) {
  switch (f) {
    case 0: return expm1(x);
    case 1: return log1p(x);
    case 2: return sinh(x);
    case 3: return cosh(x);
    case 4: return tan(x);
    case 5: return atan(x);
    case 6: return atan2(x, y);
    case 7: return asin(x);
    case 8: return acos(x);
    case 9: return cbrt(x);
    case 10: return x < 0 ? exp(x) / (1 + exp(x)) : 1 / (1 + exp(-x));
    default: return fmax(x, 0) + log1p(exp(-fabs(x)));
  }
}

static const char* const function_names[FUNCTIONS] = {
    "expm1f", "log1pf", "sinhf", "coshf", "tanf", "atanf", "atan2f",
    "asinf", "acosf", "cbrtf", "logisticf", "softplusf"};

/* The interpreter's results, which native code must repeat bit for bit. */
static float* interpreted_results;

/* x: specials, a stride through all bit patterns, and values where the
 * functions change character ([-1, 1], [-20, 20], 2^-30 .. 2^30). */
static void fill_function_inputs(float* x, float* y) {
  static const float special[] = {
      0.0f,     -0.0f,   1.0f,    -1.0f,   NAN,      INFINITY, -INFINITY,
      1e-45f,   -1e-45f, FLT_MIN, FLT_MAX, -FLT_MAX, 0.5f,     -0.5f,
      88.72f,   89.5f,   -89.5f,  -103.9f, 12.0f,    12.000001f,
      1.5707964f, -1.5707964f, 0x1.2d97c8p+3f, 0.99999994f, -0.99999994f,
      1e-30f,   2.0f};
  size_t count = sizeof(special) / sizeof(special[0]);
  uint32_t state = 5;
  for (size_t i = 0; i < ROWS * 4; ++i) {
    state = state * 1664525u + 1013904223u;
    float unit = (float)(state >> 8) / 8388608.0f - 1.0f; /* [-1, 1) */
    switch (i % 4) {
      case 0: x[i] = loom_test_f32((uint32_t)(i * 131071u)); break;
      case 1: x[i] = unit; break;
      case 2: x[i] = unit * 20.0f; break;
      default: x[i] = ldexpf(unit, (int)(i % 61) - 30);
    }
    state = state * 1664525u + 1013904223u;
    y[i] = i % 3 ? loom_test_f32(state) : ldexpf(unit, (int)(i % 13) - 6);
  }
  for (size_t i = 0; i < count * count; ++i) {
    x[i] = special[i / count];
    y[i] = special[i % count];
    x[(ROWS - 1 - i) * 4] = special[i / count];
    y[(ROWS - 1 - i) * 4] = special[i % count];
  }
}

static void check_function(size_t f, const char* form, size_t row,
                           size_t lane, float x, float y, float got,
                           double* worst) {
  double e = loom_test_ulp_error(got, ref_function(f, x, y));
  if (e > HOST_FUNCTION_ULP) {
    fail_msg("%s.%s row %zu lane %zu: f(%a, %a) = %a (%.4f ulp), want %a",
             form, function_names[f], row, lane, x, y, got, e,
             ref_function(f, x, y));
  }
  worst[f] = fmax(worst[f], e);
}

static void run_float_functions(bool native) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, "float_functions.loom",
                      (const char* const[]){"float_functions", NULL}, native);
  hrx_fabric_memory_t xs = harness_buffer(&h, ROWS * 4 * sizeof(float));
  hrx_fabric_memory_t ys = harness_buffer(&h, ROWS * 4 * sizeof(float));
  float* x = xs.host_pointer;
  float* y = ys.host_pointer;
  fill_function_inputs(x, y);
  size_t scalar_count = ROWS * FUNCTIONS, vector_count = ROWS * FUNCTIONS * 4;
  hrx_fabric_memory_t scalars = harness_buffer(&h, scalar_count * 4);
  hrx_fabric_memory_t vectors = harness_buffer(&h, vector_count * 4);
  uint64_t workload[] = {ROWS};
  harness_arg_t args[] = {ARG_U64(ROWS), ARG_BUF(xs), ARG_BUF(ys),
                          ARG_BUF(scalars), ARG_BUF(vectors)};
  assert_ok(harness_run(&h, "float_functions", workload, 1, args, 5));
  const float* s = scalars.host_pointer;
  const float* v = vectors.host_pointer;
  double worst[FUNCTIONS] = {0};
  for (size_t r = 0; r < ROWS; ++r) {
    size_t at = r * 4;
    for (size_t f = 0; f < FUNCTIONS; ++f) {
      check_function(f, "scalar", r, 0, x[at], y[at], s[r * FUNCTIONS + f],
                     worst);
      for (size_t e = 0; e < 4; ++e) {
        check_function(f, "vector", r, e, x[at + e], y[at + e],
                       v[(r * FUNCTIONS + f) * 4 + e], worst);
      }
    }
  }
  for (size_t f = 0; f < FUNCTIONS; ++f) {
    print_message("%s %-9s %d values: %.4f ulp at most\n",
                  native ? "native" : "interpreted", function_names[f],
                  ROWS * 5, worst[f]);
  }
  size_t bytes = (scalar_count + vector_count) * 4;
  if (!native) {
    free(interpreted_results);
    interpreted_results = malloc(bytes);
    assert_non_null(interpreted_results);
    memcpy(interpreted_results, s, scalar_count * 4);
    memcpy(interpreted_results + scalar_count, v, vector_count * 4);
  } else if (interpreted_results &&
             (memcmp(interpreted_results, s, scalar_count * 4) ||
              memcmp(interpreted_results + scalar_count, v,
                     vector_count * 4))) {
    fail_msg("native results differ from the interpreter's");
  }
  hrx_fabric_memory_free(h.device, &xs);
  hrx_fabric_memory_free(h.device, &ys);
  hrx_fabric_memory_free(h.device, &scalars);
  hrx_fabric_memory_free(h.device, &vectors);
  harness_close(&h);
}

static void test_functions_interpreted(void** state) {
  (void)state;
  run_float_functions(false);
}

static void test_functions_native(void** state) {
  (void)state;
  run_float_functions(true);
  free(interpreted_results);
  interpreted_results = NULL;
}

static void test_interpreted(void** state) {
  (void)state;
  run_float_tests(false);
}

static void test_native(void** state) {
  (void)state;
  run_float_tests(true);
}

#define HEAD                                                              \
  "kernel.def @k() {\n"                                                   \
  "  %one = index.constant 1 : index\n"                                   \
  "  kernel.launch.config workgroups(%one, %one, %one) "                  \
  "workgroup_size(%one, %one, %one) : index\n"                            \
  "} launch(%x: f32, %y: i32, %h: f16) {\n"                               \
  "  %v = vector.splat %x : vector<4xf32>\n"
#define HEAD_LINES 5
#define TAIL "  kernel.return\n}\n"

static void test_forms_round_trip(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = scalar.isnanf %x : f32",
      "%r = scalar.isinff %h : f16",
      "%r = scalar.isfinitef %x : f32",
      "%r = vector.isnanf %v : vector<4xf32> -> vector<4xi1>",
      "%r = vector.isinff %v : vector<4xf32> -> vector<4xi1>",
      "%r = vector.isfinitef %v : vector<4xf32> -> vector<4xi1>",
      "%r = scalar.signf %x : f32",
      "%r = vector.signf %v : vector<4xf32>",
      "%r = scalar.signi %y : i32",
      "%r = scalar.remf<fast> %x, %x : f32",
      "%r = vector.remf %v, %v : vector<4xf32>",
      "%r = scalar.log2f %h : f16",
      "%r = vector.log10f<afn> %v : vector<4xf32>",
      "%r = scalar.expm1f<fast> %x : f32",
      "%r = scalar.atan2f %x, %x : f32",
      "%r = vector.atan2f<nnan> %v, %v : vector<4xf32>",
      "%r = vector.softplusf %v : vector<4xf32>",
      "%r = scalar.logisticf %h : f16",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
}

static void test_malformed_rejected(void** state) {
  (void)state;
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.isnanf %y : i32",
                            HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3,
                            "scalar.isnanf: operand of type i32 is not "
                            "allowed here");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.isnanf olt, %x : f32",
                            HRX_LOOM_DIAG_EXPECTED_TOKEN, 22, "expected");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.isinff<fast> %x : f32",
                            HRX_LOOM_DIAG_BAD_ATTRIBUTE, 21,
                            "this op takes no <parameter>");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = vector.isfinitef %v : vector<4xf32> -> "
                            "vector<8xi1>",
                            HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "vector<8xi1>");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.signf<fast> %x : f32",
                            HRX_LOOM_DIAG_BAD_ATTRIBUTE, 20,
                            "this op takes no <parameter>");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.signi %x : f32",
                            HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3,
                            "scalar.signi: operand of type f32 is not "
                            "allowed here");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.remf %x : f32",
                            HRX_LOOM_DIAG_EXPECTED_TOKEN, 3,
                            "scalar.remf takes 2 operands, got 1");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = scalar.atan2f %x : f32",
                            HRX_LOOM_DIAG_EXPECTED_TOKEN, 3,
                            "scalar.atan2f takes 2 operands, got 1");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = vector.cbrtf %v : vector<4xi32>",
                            HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3,
                            "vector.cbrtf: vector of type vector<4xi32> is "
                            "not allowed here");
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL,
                            "  %r = vector.log2f %y : i32",
                            HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3,
                            "vector.log2f: operand of type i32");
}

/* remf, log2f and log10f of f64 would need arithmetic wider than the host
 * ISA has: refused at the op, with its line and column. */
static void test_f64_is_refused_at_the_op(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  char* report = harness_compile_error(
      &h, "f64.loom",
      "kernel.def export(\"k\") @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%x: f64) {\n"
      "  %s = scalar.remf %x, %x : f64\n"
      "  kernel.return\n"
      "}\n");
  if (!strstr(report, "f64.loom:5:3: error[L0801]: scalar.remf on f64 is "
                      "not supported by the host backend")) {
    fail_msg("unexpected report:\n%s", report);
  }
  free(report);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interpreted),
      cmocka_unit_test(test_native),
      cmocka_unit_test(test_functions_interpreted),
      cmocka_unit_test(test_functions_native),
      cmocka_unit_test(test_forms_round_trip),
      cmocka_unit_test(test_malformed_rejected),
      cmocka_unit_test(test_f64_is_refused_at_the_op),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
