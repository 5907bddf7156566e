/* scalar/vector negi, absi, fmai, ceildivsi, ceildivui, floordivsi,
 * ctpopi, ctlzi, cttzi, rotli and rotri on the host device, interpreted
 * and as native code, against C references over edge values (0, +-1, the
 * i32 extremes, whose negation, absolute value and INT_MIN / -1 wrap) and
 * a pseudo-random sweep; copysignf, minimumf and maximumf (IEEE 754-2019:
 * NaN in, NaN out; -0 < +0) over every pair of special values and random
 * floats, bit for bit; and the type rules at the op's line and column. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define ROWS 4096

/* Wrapping i32 arithmetic, computed unsigned (no C overflow). */
static int32_t wrap(uint32_t bits) {
  int32_t value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static int32_t ref_neg(int32_t a) { return wrap(0u - (uint32_t)a); }

static int32_t ref_abs(int32_t a) { return a < 0 ? ref_neg(a) : a; }

static int32_t ref_fma(int32_t a, int32_t b, int32_t c) {
  return wrap((uint32_t)a * (uint32_t)b + (uint32_t)c);
}

/* The truncating quotient and remainder, INT_MIN / -1 wrapping. */
static int32_t quotient(int32_t a, int32_t b) {
  return wrap((uint32_t)(int64_t)((int64_t)a / b));
}

static int32_t ref_ceildivsi(int32_t a, int32_t b) {
  int64_t r = (int64_t)a % b;
  int32_t q = quotient(a, b);
  return r != 0 && (r < 0) == (b < 0) ? wrap((uint32_t)q + 1u) : q;
}

static int32_t ref_floordivsi(int32_t a, int32_t b) {
  int64_t r = (int64_t)a % b;
  int32_t q = quotient(a, b);
  return r != 0 && (r < 0) != (b < 0) ? wrap((uint32_t)q - 1u) : q;
}

static int32_t ref_ceildivui(int32_t a, int32_t b) {
  uint32_t x = (uint32_t)a, y = (uint32_t)b;
  return wrap(x / y + (x % y != 0));
}

static int32_t ref_ctpop(int32_t a) {
  int32_t n = 0;
  for (uint32_t x = (uint32_t)a; x; x &= x - 1) ++n;
  return n;
}

static int32_t ref_ctlz(int32_t a) {
  int32_t n = 0;
  for (uint32_t bit = UINT32_C(1) << 31; bit && !((uint32_t)a & bit);
       bit >>= 1) {
    ++n;
  }
  return n;
}

static int32_t ref_cttz(int32_t a) {
  int32_t n = 0;
  for (uint32_t bit = 1; bit && !((uint32_t)a & bit); bit <<= 1) ++n;
  return n;
}

/* Rotates by the amount modulo 32. */
static int32_t ref_rotl(int32_t a, int32_t s) {
  uint32_t x = (uint32_t)a, k = (uint32_t)s & 31u;
  return wrap(k ? x << k | x >> (32u - k) : x);
}

static int32_t ref_rotr(int32_t a, int32_t s) {
  return ref_rotl(a, (int32_t)((32u - ((uint32_t)s & 31u)) & 31u));
}

static int32_t operand(size_t i, uint32_t* state) {
  static const int32_t edge[] = {0, 1, -1, 2, -2, INT32_MAX, INT32_MIN,
                                 INT32_MIN + 1, 65536, -65536};
  size_t count = sizeof(edge) / sizeof(edge[0]);
  *state = *state * 1664525u + 1013904223u;
  return i % 3 == 0 ? edge[(*state >> 8) % count] : wrap(*state);
}

static void check(const char* what, size_t row, size_t lane, int32_t got,
                  int32_t want) {
  if (got != want) {
    fail_msg("%s row %zu lane %zu: got %" PRId32 " want %" PRId32, what, row,
             lane, got, want);
  }
}

static void run_int_ops(bool native) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, "int_ops.loom",
                      (const char* const[]){"int_ops", NULL}, native);
  hrx_fabric_memory_t in[3], scalars, vectors;
  uint32_t state = 2024;
  for (int k = 0; k < 3; ++k) {
    in[k] = harness_buffer(&h, ROWS * 4 * sizeof(int32_t));
    int32_t* values = in[k].host_pointer;
    for (size_t i = 0; i < ROWS * 4; ++i) {
      values[i] = operand(i, &state);
      /* b divides: never zero, and small now and then so quotients vary */
      if (k == 1 && i % 5 == 1) values[i] = (int32_t)(state >> 28) - 8;
      if (k == 1 && values[i] == 0) values[i] = 7;
    }
  }
  scalars = harness_buffer(&h, ROWS * 11 * sizeof(int32_t));
  vectors = harness_buffer(&h, ROWS * 11 * 4 * sizeof(int32_t));
  uint64_t workload[] = {ROWS};
  harness_arg_t args[] = {ARG_U64(ROWS),     ARG_BUF(in[0]),
                          ARG_BUF(in[1]),    ARG_BUF(in[2]),
                          ARG_BUF(scalars),  ARG_BUF(vectors)};
  assert_ok(harness_run(&h, "int_ops", workload, 1, args, 6));
  const int32_t* a = in[0].host_pointer;
  const int32_t* b = in[1].host_pointer;
  const int32_t* c = in[2].host_pointer;
  const int32_t* s = scalars.host_pointer;
  const int32_t* v = vectors.host_pointer;
  for (size_t r = 0; r < ROWS; ++r) {
    size_t at = r * 4;
    const int32_t* sr = s + r * 11;
    check("scalar.negi", r, 0, sr[0], ref_neg(a[at]));
    check("scalar.absi", r, 0, sr[1], ref_abs(a[at]));
    check("scalar.fmai", r, 0, sr[2], ref_fma(a[at], b[at], c[at]));
    check("scalar.ceildivsi", r, 0, sr[3], ref_ceildivsi(a[at], b[at]));
    check("scalar.ceildivui", r, 0, sr[4], ref_ceildivui(a[at], b[at]));
    check("scalar.floordivsi", r, 0, sr[5], ref_floordivsi(a[at], b[at]));
    check("scalar.ctpopi", r, 0, sr[6], ref_ctpop(a[at]));
    check("scalar.ctlzi", r, 0, sr[7], ref_ctlz(a[at]));
    check("scalar.cttzi", r, 0, sr[8], ref_cttz(a[at]));
    check("scalar.rotli", r, 0, sr[9], ref_rotl(a[at], c[at]));
    check("scalar.rotri", r, 0, sr[10], ref_rotr(a[at], c[at]));
    for (size_t e = 0; e < 4; ++e) {
      const int32_t* row = v + r * 44;
      int32_t x = a[at + e], y = b[at + e];
      check("vector.negi", r, e, row[e], ref_neg(x));
      check("vector.absi", r, e, row[4 + e], ref_abs(x));
      check("vector.fmai", r, e, row[8 + e], ref_fma(x, y, c[at + e]));
      check("vector.ceildivsi", r, e, row[12 + e], ref_ceildivsi(x, y));
      check("vector.ceildivui", r, e, row[16 + e], ref_ceildivui(x, y));
      check("vector.floordivsi", r, e, row[20 + e], ref_floordivsi(x, y));
      check("vector.ctpopi", r, e, row[24 + e], ref_ctpop(x));
      check("vector.ctlzi", r, e, row[28 + e], ref_ctlz(x));
      check("vector.cttzi", r, e, row[32 + e], ref_cttz(x));
      check("vector.rotli", r, e, row[36 + e], ref_rotl(x, c[at + e]));
      check("vector.rotri", r, e, row[40 + e], ref_rotr(x, c[at + e]));
    }
  }
  for (int k = 0; k < 3; ++k) hrx_fabric_memory_free(h.device, &in[k]);
  hrx_fabric_memory_free(h.device, &scalars);
  hrx_fabric_memory_free(h.device, &vectors);
  harness_close(&h);
}

static float ref_minimum(float x, float y) {
  if (isnan(x) || isnan(y)) return NAN;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

static float ref_maximum(float x, float y) {
  if (isnan(x) || isnan(y)) return NAN;
  if (x == y) return signbit(x) ? y : x;
  return x > y ? x : y;
}

static void check_float(const char* what, size_t row, size_t lane, float got,
                        float want) {
  bool same = isnan(want) ? isnan(got) : loom_test_bits(got) == loom_test_bits(want);
  if (!same) {
    fail_msg("%s row %zu lane %zu: got %a want %a", what, row, lane, got,
             want);
  }
}

#define SPECIALS 12

static void run_float_ops(bool native) {
  static const float special[SPECIALS] = {
      0.0f, -0.0f, 1.0f, -1.0f, NAN, -NAN, INFINITY, -INFINITY, 1e-45f,
      -1e-45f, 3.4028235e38f, 0.5f};
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, "float_ops.loom",
                      (const char* const[]){"float_ops", NULL}, native);
  hrx_fabric_memory_t xs = harness_buffer(&h, ROWS * 4 * sizeof(float));
  hrx_fabric_memory_t ys = harness_buffer(&h, ROWS * 4 * sizeof(float));
  float* x = xs.host_pointer;
  float* y = ys.host_pointer;
  uint32_t state = 77;
  /* every ordered pair of specials first, then random bit patterns */
  for (size_t i = 0; i < ROWS * 4; ++i) {
    if (i < SPECIALS * SPECIALS) {
      x[i] = special[i / SPECIALS];
      y[i] = special[i % SPECIALS];
    } else {
      state = state * 1664525u + 1013904223u;
      x[i] = loom_test_f32(state);
      state = state * 1664525u + 1013904223u;
      y[i] = i % 7 == 0 ? -x[i] : loom_test_f32(state);
    }
  }
  /* the scalar forms read column 0: give it the specials' pairs too */
  for (size_t i = 0; i < SPECIALS * SPECIALS; ++i) {
    x[(ROWS - 1 - i) * 4] = special[i / SPECIALS];
    y[(ROWS - 1 - i) * 4] = special[i % SPECIALS];
  }
  hrx_fabric_memory_t scalars = harness_buffer(&h, ROWS * 3 * sizeof(float));
  hrx_fabric_memory_t vectors =
      harness_buffer(&h, ROWS * 3 * 4 * sizeof(float));
  uint64_t workload[] = {ROWS};
  harness_arg_t args[] = {ARG_U64(ROWS), ARG_BUF(xs), ARG_BUF(ys),
                          ARG_BUF(scalars), ARG_BUF(vectors)};
  assert_ok(harness_run(&h, "float_ops", workload, 1, args, 5));
  const float* s = scalars.host_pointer;
  const float* v = vectors.host_pointer;
  for (size_t r = 0; r < ROWS; ++r) {
    size_t at = r * 4;
    check_float("scalar.copysignf", r, 0, s[r * 3],
                copysignf(x[at], y[at]));
    check_float("scalar.minimumf", r, 0, s[r * 3 + 1],
                ref_minimum(x[at], y[at]));
    check_float("scalar.maximumf", r, 0, s[r * 3 + 2],
                ref_maximum(x[at], y[at]));
    for (size_t e = 0; e < 4; ++e) {
      const float* row = v + r * 12;
      float a = x[at + e], b = y[at + e];
      check_float("vector.copysignf", r, e, row[e], copysignf(a, b));
      check_float("vector.minimumf", r, e, row[4 + e], ref_minimum(a, b));
      check_float("vector.maximumf", r, e, row[8 + e], ref_maximum(a, b));
    }
  }
  hrx_fabric_memory_free(h.device, &xs);
  hrx_fabric_memory_free(h.device, &ys);
  hrx_fabric_memory_free(h.device, &scalars);
  hrx_fabric_memory_free(h.device, &vectors);
  harness_close(&h);
}

static void test_float_ops_interpreted(void** state) {
  (void)state;
  run_float_ops(false);
}

static void test_float_ops_native(void** state) {
  (void)state;
  run_float_ops(true);
}

static void test_int_ops_interpreted(void** state) {
  (void)state;
  run_int_ops(false);
}

static void test_int_ops_native(void** state) {
  (void)state;
  run_int_ops(true);
}

/* The integer ops take integers only, and negi/absi no overflow flags:
 * refused at the op's line and column. */
static void expect_refused(const char* op_line, const char* needle) {
  char* text = test_strdup_printf(
      "kernel.def @k() {\n"
      "  %%one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%%one, %%one, %%one) "
      "workgroup_size(%%one, %%one, %%one) : index\n"
      "} launch(%%x: f32, %%y: i32) {\n"
      "%s\n"
      "  kernel.return\n"
      "}\n",
      op_line);
  hrx_loom_diagnostics_t* d = loom_test_parse_fail(text);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(d, &b));
  const char* report = hrx_string_builder_cstr(&b);
  if (!strstr(report, needle)) {
    fail_msg("%s: unexpected report:\n%s", op_line, report);
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(d);
  free(text);
}

static void test_type_rules(void** state) {
  (void)state;
  expect_refused("  %r = scalar.negi %x : f32",
                 "test.loom:5:3: error[L0402]: scalar.negi: operand of type "
                 "f32 is not allowed here");
  expect_refused("  %r = scalar.absi<nsw> %y : i32",
                 "test.loom:5:19: error[L0207]: this op takes no <parameter>");
  expect_refused("  %r = scalar.fmai %y, %y : i32",
                 "test.loom:5:3: error[L0201]: scalar.fmai takes 3 operands, "
                 "got 2");
  expect_refused("  %r = vector.absi %y : i32",
                 "test.loom:5:3: error[L0402]: vector.absi: operand of type "
                 "i32 is not allowed here");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_ops_interpreted),
      cmocka_unit_test(test_int_ops_native),
      cmocka_unit_test(test_float_ops_interpreted),
      cmocka_unit_test(test_float_ops_native),
      cmocka_unit_test(test_type_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
