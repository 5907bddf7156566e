/* vector.mma beyond f32 accumulators: f16 and bf16 accumulators
 * (tests/kernels/check/wmma_f16acc.loom) and i8 sources into i32, wrapping
 * or saturating (tests/kernels/check/wmma_int8.loom), run on the host
 * device against C references of fragment.h's semantics bit for bit; the
 * forms print back, and element types that do not pair are diagnosed. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "hrx/core/half.h"
#include "loom_test_util.h"

#define HALF_GEMM "check/wmma_f16acc.loom"
#define INT_GEMM "check/wmma_int8.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                     \
  "  %s = index.constant 16 : index\n"                                     \
  "  %h = scalar.constant 1.0 : f16\n"                                     \
  "  %a = vector.splat %h : vector<16xf16>\n"                              \
  "  %hc = vector.splat %h : vector<8xf16>\n"                              \
  "  %f = scalar.constant 0.0 : f32\n"                                     \
  "  %c = vector.splat %f : vector<8xf32>\n"                               \
  "  %i = scalar.constant 3 : i8\n"                                        \
  "  %q = vector.splat %i : vector<16xi8>\n"                               \
  "  %j = scalar.constant 7 : i32\n"                                       \
  "  %qc = vector.splat %j : vector<8xi32>\n"
#define HEAD_LINES 14
#define TAIL "  kernel.return\n}\n"

static void test_forms_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.mma %a, %a, %hc : vector<16xf16>, vector<16xf16>, "
      "vector<8xf16>",
      "%r = vector.mma %q, %q, %qc : vector<16xi8>, vector<16xi8>, "
      "vector<8xi32>",
      "%r = vector.mma<saturate> %q, %q, %qc : vector<16xi8>, "
      "vector<16xi8>, vector<8xi32>",
      "%r = vector.fragment<lhs> %q shape [%s, %s] : vector<16xi8>",
      "%r = vector.fragment<init> %hc shape [%s, %s] : vector<8xf16>",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(HALF_GEMM, &length)); /* round-trips */
  free(loom_test_read_test_kernel(INT_GEMM, &length));
}

static void expect_rejected(const char* op, hrx_loom_diag_code_t code,
                            const char* words) {
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, op, code, 3, words);
}

static void test_unpaired_types_rejected(void** state) {
  (void)state;
  expect_rejected("  %r = vector.mma %q, %q, %c : vector<16xi8>, "
                  "vector<16xi8>, vector<8xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH,
                  "i8 sources do not accumulate into f32");
  expect_rejected("  %r = vector.mma %a, %a, %qc : vector<16xf16>, "
                  "vector<16xf16>, vector<8xi32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH,
                  "f16 sources do not accumulate into i32");
  expect_rejected("  %r = vector.mma<saturate> %a, %a, %hc : "
                  "vector<16xf16>, vector<16xf16>, vector<8xf16>",
                  HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                  "needs an integer accumulator, not f16");
  expect_rejected("  %r = vector.fragment<rhs> %qc shape [%s, %s] : "
                  "vector<8xi32>",
                  HRX_LOOM_DIAG_BAD_SHAPE,
                  "vector<16xf16>, vector<16xbf16> or vector<16xi8>");
}

/*===------------------------------------------------------------------===*/
/* 16-bit accumulators                                                     */
/*===------------------------------------------------------------------===*/

static float half_value(bool bf16, uint16_t h) {
  uint32_t bits = bf16 ? hrx_bf16_to_f32_bits(h) : hrx_f16_to_f32_bits(h);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t half_of(bool bf16, float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return bf16 ? hrx_f32_bits_to_bf16(bits) : hrx_f32_bits_to_f16(bits);
}

/* Runs the 16-bit accumulator GEMM on noise in [-4, 4) (C in [-8, 8)) and
 * checks C against fragment.h's semantics: per 16-deep product, the f32
 * sum of C and the products in k order with one rounding each (fmaf),
 * rounded once to C's type. */
static void half_gemm(harness_t* h, bool bf16, size_t m, size_t n, size_t k,
                      uint32_t seed) {
  hrx_fabric_memory_t a = harness_buffer(h, m * k * 2);
  hrx_fabric_memory_t b = harness_buffer(h, k * n * 2);
  hrx_fabric_memory_t c = harness_buffer(h, m * n * 2);
  uint16_t *av = a.host_pointer, *bv = b.host_pointer, *cv = c.host_pointer;
  uint16_t* expected = test_malloc(m * n * 2);
  uint32_t x = seed;
  for (size_t i = 0; i < m * k; ++i) {
    av[i] = half_of(bf16, (float)loom_test_next(&x) * 0x1p-21f - 4.0f);
  }
  for (size_t i = 0; i < k * n; ++i) {
    bv[i] = half_of(bf16, (float)loom_test_next(&x) * 0x1p-21f - 4.0f);
  }
  for (size_t i = 0; i < m * n; ++i) {
    cv[i] = half_of(bf16, (float)loom_test_next(&x) * 0x1p-20f - 8.0f);
  }
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      uint16_t acc = cv[i * n + j];
      for (size_t kk = 0; kk < k; kk += 16) {
        float sum = half_value(bf16, acc);
        for (size_t r = kk; r < kk + 16; ++r) {
          sum = fmaf(half_value(bf16, av[i * k + r]),
                     half_value(bf16, bv[r * n + j]), sum);
        }
        acc = half_of(bf16, sum);
      }
      expected[i * n + j] = acc;
    }
  }
  uint64_t workload[] = {m, n, k};
  harness_arg_t args[] = {ARG_U64(m), ARG_U64(n), ARG_U64(k),
                          ARG_BUF(a), ARG_BUF(b), ARG_BUF(c)};
  assert_ok(harness_run(h, bf16 ? "wmma_gemm_bf16acc" : "wmma_gemm_f16acc",
                        workload, 3, args, 6));
  for (size_t i = 0; i < m * n; ++i) {
    if (cv[i] != expected[i]) {
      fail_msg("%zux%zux%zu %s: C[%zu][%zu] = %#06x (%.6g), expected %#06x "
               "(%.6g)", m, n, k, bf16 ? "bf16" : "f16", i / n, i % n,
               cv[i], half_value(bf16, cv[i]), expected[i],
               half_value(bf16, expected[i]));
    }
  }
  test_free(expected);
  hrx_fabric_memory_free(h->device, &a);
  hrx_fabric_memory_free(h->device, &b);
  hrx_fabric_memory_free(h->device, &c);
}

static void test_half_accumulators_match_c_reference(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(HALF_GEMM, &length);
  harness_load_source(&h, HALF_GEMM, text, length, NULL);
  free(text);
  static const size_t shapes[][3] = {{16, 16, 16}, {32, 48, 64}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      half_gemm(&h, bf16, shapes[s][0], shapes[s][1], shapes[s][2],
                (uint32_t)(s * 2 + (size_t)bf16 + 7));
    }
  }
  harness_close(&h);
}

/*===------------------------------------------------------------------===*/
/* Integers                                                                */
/*===------------------------------------------------------------------===*/

/* The i8 GEMM on bytes over the whole range and C over the whole i32
 * range: C plus the products, exact, wrapped to 32 bits. */
static void int_gemm(harness_t* h, size_t m, size_t n, size_t k,
                     uint32_t seed) {
  hrx_fabric_memory_t a = harness_buffer(h, m * k);
  hrx_fabric_memory_t b = harness_buffer(h, k * n);
  hrx_fabric_memory_t c = harness_buffer(h, m * n * 4);
  int8_t *av = a.host_pointer, *bv = b.host_pointer;
  uint32_t* cv = c.host_pointer;
  uint32_t* expected = test_malloc(m * n * 4);
  uint32_t x = seed;
  for (size_t i = 0; i < m * k; ++i) av[i] = (int8_t)loom_test_next(&x);
  for (size_t i = 0; i < k * n; ++i) bv[i] = (int8_t)loom_test_next(&x);
  for (size_t i = 0; i < m * n; ++i) {
    cv[i] = loom_test_next(&x) << 8 ^ loom_test_next(&x);
  }
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      uint32_t sum = cv[i * n + j];
      for (size_t r = 0; r < k; ++r) {
        sum += (uint32_t)(av[i * k + r] * bv[r * n + j]);
      }
      expected[i * n + j] = sum;
    }
  }
  uint64_t workload[] = {m, n, k};
  harness_arg_t args[] = {ARG_U64(m), ARG_U64(n), ARG_U64(k),
                          ARG_BUF(a), ARG_BUF(b), ARG_BUF(c)};
  assert_ok(harness_run(h, "wmma_gemm_i8", workload, 3, args, 6));
  for (size_t i = 0; i < m * n; ++i) {
    if (cv[i] != expected[i]) {
      fail_msg("%zux%zux%zu i8: C[%zu][%zu] = %d, expected %d", m, n, k,
               i / n, i % n, (int32_t)cv[i], (int32_t)expected[i]);
    }
  }
  test_free(expected);
  hrx_fabric_memory_free(h->device, &a);
  hrx_fabric_memory_free(h->device, &b);
  hrx_fabric_memory_free(h->device, &c);
}

/* One tile, plain and saturated, with C within 2^14 of either end of the
 * i32 range so that about a third of the sums leave it. */
static void int_saturate(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t a = harness_buffer(h, 256);
  hrx_fabric_memory_t b = harness_buffer(h, 256);
  hrx_fabric_memory_t wrap = harness_buffer(h, 256 * 4);
  hrx_fabric_memory_t sat = harness_buffer(h, 256 * 4);
  int8_t *av = a.host_pointer, *bv = b.host_pointer;
  int32_t *wv = wrap.host_pointer, *sv = sat.host_pointer;
  int32_t c[256];
  uint32_t x = seed;
  for (size_t i = 0; i < 256; ++i) {
    av[i] = (int8_t)loom_test_next(&x);
    bv[i] = (int8_t)loom_test_next(&x);
  }
  for (size_t i = 0; i < 256; ++i) {
    int32_t near = (int32_t)(loom_test_next(&x) & 0x3FFF);
    c[i] = i % 2 ? INT32_MAX - near : INT32_MIN + near;
    wv[i] = c[i];
  }
  uint64_t workload[] = {1};
  harness_arg_t args[] = {ARG_BUF(a), ARG_BUF(b), ARG_BUF(wrap),
                          ARG_BUF(sat)};
  assert_ok(harness_run(h, "wmma_i8_saturate", workload, 1, args, 4));
  size_t clamped = 0;
  for (size_t i = 0; i < 16; ++i) {
    for (size_t j = 0; j < 16; ++j) {
      int64_t sum = c[i * 16 + j];
      for (size_t r = 0; r < 16; ++r) sum += av[i * 16 + r] * bv[r * 16 + j];
      int32_t wrapped = (int32_t)(uint32_t)sum;
      int32_t saturated = sum > INT32_MAX   ? INT32_MAX
                          : sum < INT32_MIN ? INT32_MIN
                                            : (int32_t)sum;
      clamped += saturated != wrapped;
      if (wv[i * 16 + j] != wrapped || sv[i * 16 + j] != saturated) {
        fail_msg("C[%zu][%zu] = %" PRId64 ": wrapped %d (expected %d), "
                 "saturated %d (expected %d)", i, j, sum, wv[i * 16 + j],
                 wrapped, sv[i * 16 + j], saturated);
      }
    }
  }
  assert_true(clamped > 32 && clamped < 224);
  hrx_fabric_memory_free(h->device, &a);
  hrx_fabric_memory_free(h->device, &b);
  hrx_fabric_memory_free(h->device, &wrap);
  hrx_fabric_memory_free(h->device, &sat);
}

static void test_integers_match_c_reference(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(INT_GEMM, &length);
  harness_load_source(&h, INT_GEMM, text, length, NULL);
  free(text);
  int_gemm(&h, 16, 16, 16, 3);
  int_gemm(&h, 48, 32, 64, 4);
  int_saturate(&h, 5);
  int_saturate(&h, 6);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forms_print_back),
      cmocka_unit_test(test_unpaired_types_rejected),
      cmocka_unit_test(test_half_accumulators_match_c_reference),
      cmocka_unit_test(test_integers_match_c_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
