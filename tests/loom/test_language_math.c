/* scalar.sinf, cosf and powf on the host device against libm: the host
 * backend composes them from f64 instructions, and this test measures the
 * largest error in f32 ULPs over a sweep of every f32 magnitude, the
 * argument-reduction edge cases (near multiples of pi/2, huge, tiny,
 * subnormal) and the C99 special cases of pow. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "loom_test_util.h"

/* Arguments: a strided sweep over every bit pattern, then the cases range
 * reduction gets wrong first. */
static size_t trig_arguments(float* out, size_t capacity) {
  size_t n = 0;
  for (uint64_t bits = 0; bits < (UINT64_C(1) << 32) && n < capacity;
       bits += 10007) {
    out[n++] = loom_test_f32((uint32_t)bits);
  }
  static const float special[] = {0.0f, -0.0f, FLT_MIN, -FLT_MIN, FLT_MAX,
                                  -FLT_MAX, 1e-45f, -1e-45f, INFINITY,
                                  -INFINITY, NAN, 1e22f, 3.0e38f, 0x1p-20f,
                                  0x1.921fb6p+0f, 0x1.921fb6p+1f, 12867.0f,
                                  102940.0f, 0x1.2d97c8p+3f};
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); ++i) {
    out[n++] = special[i];
  }
  /* f32 neighbours of k pi/2 at growing scales. */
  for (int k = 1; k <= 400; ++k) {
    for (int scale = 0; scale <= 96; scale += 24) {
      float near = (float)ldexp(k * 1.5707963267948966, scale);
      out[n++] = near;
      out[n++] = nextafterf(near, INFINITY);
      out[n++] = -nextafterf(near, 0.0f);
    }
  }
  return n;
}

/* Exponents: integers (odd and even), halves, fractions and specials,
 * cycled so each base meets several kinds. */
static float pow_exponent(size_t i, uint32_t* state) {
  static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 3.0f,
                                  -3.0f, 0.5f, -0.5f, INFINITY, -INFINITY,
                                  NAN, 16777215.0f, 1e10f};
  *state = *state * 1664525u + 1013904223u;
  switch (i % 4) {
    case 0: return special[(*state >> 8) % (sizeof(special) / sizeof(float))];
    case 1: return (float)((int)((*state >> 8) % 61) - 30);
    default: return (float)((int)((*state >> 8) % 40001) - 20000) / 1000.0f;
  }
}

/* Bases: the trig arguments plus moderate values where results stay finite
 * whatever the exponent. */
static float pow_base(size_t i, const float* sweep, uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  if (i % 2) return sweep[i];
  float magnitude = ldexpf(1.0f + (float)(*state >> 9) / 8388608.0f,
                           (int)((*state >> 4) % 16) - 8);
  return (*state & 1) ? -magnitude : magnitude;
}

static void test_trig_and_pow_against_libm(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel("trig_pow.loom", &length);
  harness_load_source(&h, "trig_pow.loom", text, length, NULL);
  free(text);

  const size_t capacity = 440000;
  hrx_fabric_memory_t xs = harness_buffer(&h, capacity * 4);
  hrx_fabric_memory_t ys = harness_buffer(&h, capacity * 4);
  float* x = xs.host_pointer;
  float* y = ys.host_pointer;
  size_t n = trig_arguments(x, capacity);
  float* bases = malloc(n * sizeof(float));
  uint32_t seed = 12345;
  for (size_t i = 0; i < n; ++i) {
    y[i] = pow_exponent(i, &seed);
    bases[i] = pow_base(i, x, &seed);
  }
  hrx_fabric_memory_t out = harness_buffer(&h, n * 3 * 4);
  /* Two runs: trig on the sweep, then pow on the bases. */
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(xs), ARG_BUF(ys), ARG_BUF(out)};
  assert_ok(harness_run(&h, "trig_pow", workload, 1, args, 4));
  const float* r = out.host_pointer;
  double worst_sin = 0, worst_cos = 0, worst_pow = 0;
  for (size_t i = 0; i < n; ++i) {
    double e_sin = loom_test_ulp_error(r[i * 3], sin((double)x[i]));
    double e_cos = loom_test_ulp_error(r[i * 3 + 1], cos((double)x[i]));
    if (e_sin > 1.0 || e_cos > 1.0) {
      fail_msg("x = %a: sin %a (%.3f ulp), cos %a (%.3f ulp)", x[i],
               r[i * 3], e_sin, r[i * 3 + 1], e_cos);
    }
    worst_sin = fmax(worst_sin, e_sin);
    worst_cos = fmax(worst_cos, e_cos);
  }
  memcpy(x, bases, n * sizeof(float));
  assert_ok(harness_run(&h, "trig_pow", workload, 1, args, 4));
  for (size_t i = 0; i < n; ++i) {
    double e = loom_test_ulp_error(r[i * 3 + 2], pow((double)x[i], (double)y[i]));
    if (e > 1.0) {
      fail_msg("pow(%a, %a) = %a (%.3f ulp), libm %a", x[i], y[i],
               r[i * 3 + 2], e, powf(x[i], y[i]));
    }
    worst_pow = fmax(worst_pow, e);
  }
  print_message("%zu arguments: sin %.4f, cos %.4f, pow %.4f ulp at most\n",
                n, worst_sin, worst_cos, worst_pow);
  free(bases);
  hrx_fabric_memory_free(h.device, &xs);
  hrx_fabric_memory_free(h.device, &ys);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

/* f64 would need arithmetic wider than the host ISA has: refused at the
 * op, with its line, column and caret. */
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
      "  %s = scalar.cosf %x : f64\n"
      "  kernel.return\n"
      "}\n");
  if (!strstr(report, "f64.loom:5:3: error[L0801]: scalar.cosf on f64 is "
                      "not supported by the host backend") ||
      !strstr(report, "\n    ^")) {
    fail_msg("unexpected report:\n%s", report);
  }
  free(report);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trig_and_pow_against_libm),
      cmocka_unit_test(test_f64_is_refused_at_the_op),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
