/* Register layout ops that join and split vectors (vector.concat,
 * vector.deinterleave, vector.bitcast), vector.poison and
 * vector.reduce.axes: the forms print back as
 * written; the kernel of tests/kernels/vector_regroup.loom gives what C
 * computes on the host device, interpreted and as native code; shape and
 * type misuse is diagnosed at the op. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "vector_regroup.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index) {\n"                                                 \
  "  %h = scalar.constant 1.0 : f16\n"                                     \
  "  %v = vector.splat %h : vector<4xf16>\n"                               \
  "  %c = vector.splat %h : vector<4x2xf16>\n"                             \
  "  %d = vector.splat %h : vector<[%n]xf16>\n"
#define HEAD_LINES 8
#define TAIL "  kernel.return\n}\n"

static void test_forms_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.concat<0> %v, %v : vector<4xf16>, vector<4xf16> -> "
      "vector<8xf16>",
      "%r = vector.concat<1> %c, %c, %c : vector<4x2xf16>, vector<4x2xf16>, "
      "vector<4x2xf16> -> vector<4x6xf16>",
      "%r = vector.concat<0> %v : vector<4xf16> -> vector<4xf16>",
      "%e, %o = vector.deinterleave<0> %v : vector<4xf16> -> "
      "vector<2xf16>, vector<2xf16>",
      "%e, %o = vector.deinterleave<1> %c : vector<4x2xf16> -> "
      "vector<4x1xf16>, vector<4x1xf16>",
      "%p = vector.poison : vector<4xf32>",
      "%p = vector.poison : vector<2x8xi8>",
      "%p = vector.poison : vector<4xi1>",
      "%r = vector.bitcast %v : vector<4xf16> to vector<2xi32>",
      "%r = vector.bitcast %c : vector<4x2xf16> to vector<16xi8>",
      "%r = vector.bitcast %v : vector<4xf16> to vector<4xbf16>",
      "%r = vector.reduce.axes<addf> %c, %v axes [1] : vector<4x2xf16>, "
      "vector<4xf16>",
      "%r = vector.reduce.axes<maxnumf> %c, %h axes [0, 1] : "
      "vector<4x2xf16>, f16",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(FILE_NAME, &length)); /* round-trips */
}

/* Malformed ops after HEAD: the code and column (0: any) of the
 * diagnostic on the last line, and words of its message. */
static void expect_rejected(const char* op, hrx_loom_diag_code_t code,
                            uint32_t column, const char* words) {
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, op, code, column, words);
}

static void test_misuse_diagnosed(void** state) {
  (void)state;
  expect_rejected("  %r = vector.concat<0> %v, %v : vector<4xf16>, "
                  "vector<4xf16> -> vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "result must be the 2 inputs joined along axis 0");
  expect_rejected("  %r = vector.concat<0> %c, %c : vector<4x2xf16>, "
                  "vector<4x2xf16> -> vector<8x4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "result must be the 2 inputs joined along axis 0");
  expect_rejected("  %r = vector.concat<2> %c, %c : vector<4x2xf16>, "
                  "vector<4x2xf16> -> vector<4x4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axis 2 is not one of the 2 source axes");
  expect_rejected("  %r = vector.concat<0> %v, %c : vector<4xf16>, "
                  "vector<4x2xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 49,
                  "vector.concat takes inputs of one type");
  expect_rejected("  %r = vector.concat<0> %v, %v : vector<4xf16>, "
                  "vector<4xf16> -> vector<8xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "keeps the element type");
  expect_rejected("  %r = vector.concat<0> %d, %d : vector<[%n]xf16>, "
                  "vector<[%n]xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "static shape");
  expect_rejected("  %r = vector.concat<0> %v, %v, %v, %v, %v, %v, %v, %v, "
                  "%v : vector<4xf16> -> vector<36xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 0, "takes at most 8 inputs");
  expect_rejected("  %r = vector.concat %v, %v : vector<4xf16>, "
                  "vector<4xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 22, "'<'");
  expect_rejected("  %e, %o = vector.deinterleave<0> %c : vector<4x2xf16> -> "
                  "vector<4x1xf16>, vector<4x1xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "results must be the source with axis 0 halved");
  expect_rejected("  %e, %o = vector.deinterleave<0> %h : vector<4xf16> -> "
                  "vector<2xf16>, vector<2xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 0");
  expect_rejected("  %e, %o = vector.deinterleave<0> %v : vector<4xf16> -> "
                  "vector<2xf16>, vector<4xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 72,
                  "gives two results of one type");
  expect_rejected("  %e = vector.deinterleave<0> %v : vector<4xf16> -> "
                  "vector<2xf16>, vector<2xf16>",
                  HRX_LOOM_DIAG_RESULT_COUNT, 0, "2");
  expect_rejected("  %e, %o = vector.deinterleave<1> %v : vector<4xf16> -> "
                  "vector<2xf16>, vector<2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axis 1 is not one of the 1 source axes");
  expect_rejected("  %r = vector.bitcast %v : vector<4xf16> to "
                  "vector<4xf32>",
                  HRX_LOOM_DIAG_BAD_CAST, 3,
                  "vector.bitcast keeps the total bits (64 to 128)");
  expect_rejected("  %r = vector.bitcast %v : vector<4xf16> to "
                  "vector<64xi1>",
                  HRX_LOOM_DIAG_BAD_CAST, 3, "cannot reinterpret i1 lanes");
  expect_rejected("  %r = vector.bitcast %v : vector<4xf16> to "
                  "vector<1xindex>",
                  HRX_LOOM_DIAG_BAD_CAST, 3,
                  "cannot reinterpret index lanes");
  expect_rejected("  %r = vector.bitcast %d : vector<[%n]xf16> to "
                  "vector<[%n]xi16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "needs vectors of static shape");
  expect_rejected("  %r = vector.bitcast %h : f16 to i16",
                  HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3, "f16");
  expect_rejected("  %r = vector.reduce.axes<addf> %c, %v axes [0] : "
                  "vector<4x2xf16>, vector<4xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "init must be a vector of the kept axes and the element "
                  "type");
  expect_rejected("  %r = vector.reduce.axes<addf> %c, %v axes [1, 0] : "
                  "vector<4x2xf16>, f16",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axes must increase within the 2 axes of the vector (0)");
  expect_rejected("  %r = vector.reduce.axes<addf> %c, %v axes [2] : "
                  "vector<4x2xf16>, vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axes must increase within the 2 axes of the vector (2)");
  expect_rejected("  %r = vector.reduce.axes<addf> %c, %v axes [0, 1] : "
                  "vector<4x2xf16>, vector<4xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "init must be the element type (every axis is reduced)");
  expect_rejected("  %r = vector.reduce.axes<addi> %c, %v axes [1] : "
                  "vector<4x2xf16>, vector<4xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "reduction addi does not apply to f16");
  expect_rejected("  %r = vector.reduce.axes<addf> %c, %v axes [] : "
                  "vector<4x2xf16>, vector<4x2xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 46, "an axis");
  expect_rejected("  %p = vector.poison : f32", HRX_LOOM_DIAG_TYPE_NOT_ALLOWED,
                  3, "f32");
  expect_rejected("  %p = vector.poison 0.0 : vector<4xf32>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 22, "':'");
}

/*===------------------------------------------------------------------===*/
/* The kernel against C                                                     */
/*===------------------------------------------------------------------===*/

enum { GROUPS = 3, ITEMS = 32, TILES = GROUPS * ITEMS };

static const char* const kKernels[] = {"regroup", "reduce_axes", NULL};

static void run_regroup(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t words = harness_buffer(h, TILES * 12 * 4);
  hrx_fabric_memory_t halves = harness_buffer(h, TILES * 8 * 2);
  hrx_fabric_memory_t bytes = harness_buffer(h, TILES * 16);
  hrx_fabric_memory_t cat = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t cols = harness_buffer(h, TILES * 12 * 4);
  hrx_fabric_memory_t split = harness_buffer(h, TILES * 8 * 2);
  hrx_fabric_memory_t pairs = harness_buffer(h, TILES * 16);
  hrx_fabric_memory_t zero = harness_buffer(h, TILES * 4 * 4);
  hrx_fabric_memory_t wbytes = harness_buffer(h, TILES * 16);
  hrx_fabric_memory_t hwords = harness_buffer(h, TILES * 4 * 4);
  hrx_fabric_memory_t bwords = harness_buffer(h, TILES * 4 * 4);
  hrx_fabric_memory_t whalves = harness_buffer(h, TILES * 8 * 2);
  int32_t* w = words.host_pointer;
  uint16_t* hv = halves.host_pointer;
  uint8_t* bv = bytes.host_pointer;
  for (size_t i = 0; i < TILES * 12; ++i) {
    w[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
  }
  /* f16 bit patterns of finite values: the lanes only move. */
  for (size_t i = 0; i < TILES * 8; ++i) {
    hv[i] = loom_test_next(&seed) & 0x7bffu;
  }
  for (size_t i = 0; i < TILES * 16; ++i) {
    bv[i] = (uint8_t)loom_test_next(&seed);
  }
  /* Poison lanes must be written as zero, not left as they were. */
  memset(zero.host_pointer, 0xa5, TILES * 4 * 4);
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {
      ARG_U64(GROUPS), ARG_BUF(words),  ARG_BUF(halves), ARG_BUF(bytes),
      ARG_BUF(cat),    ARG_BUF(cols),   ARG_BUF(split),  ARG_BUF(pairs),
      ARG_BUF(zero),   ARG_BUF(wbytes), ARG_BUF(hwords), ARG_BUF(bwords),
      ARG_BUF(whalves)};
  assert_ok(harness_run(h, "regroup", workload, 1, args, 13));
  const int32_t* co = cat.host_pointer;
  const int32_t* wo = cols.host_pointer;
  const uint16_t* so = split.host_pointer;
  const uint8_t* po = pairs.host_pointer;
  const int32_t* zo = zero.host_pointer;
  /* A bitcast keeps the bytes in memory order (lane 0 lowest, and the
   * host is little-endian like the targets). */
  const uint8_t* wb = wbytes.host_pointer;
  const uint8_t* hw = hwords.host_pointer;
  const uint8_t* bw = bwords.host_pointer;
  const uint8_t* wh = whalves.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    assert_memory_equal(&wb[g * 16], &w[g * 12], 16);
    assert_memory_equal(&hw[g * 16], &hv[g * 8], 16);
    assert_memory_equal(&bw[g * 16], &bv[g * 16], 16);
    assert_memory_equal(&wh[g * 16], &w[g * 12 + 4], 16);
  }
  for (size_t g = 0; g < TILES; ++g) {
    const int32_t* tile = &w[g * 12];
    for (size_t k = 0; k < 4; ++k) {
      assert_int_equal(co[g * 8 + k], tile[4 + k]);
      assert_int_equal(co[g * 8 + 4 + k], tile[k]);
      assert_int_equal(so[g * 8 + k], hv[g * 8 + 2 * k]);
      assert_int_equal(so[g * 8 + 4 + k], hv[g * 8 + 2 * k + 1]);
      assert_int_equal(zo[g * 4 + k], k == 2 ? tile[0] : 0);
    }
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 6; ++j) {
        /* input j / 2 of the concat, lane (i, j % 2) */
        assert_int_equal(wo[g * 12 + i * 6 + j],
                         tile[(j / 2) * 4 + i * 2 + j % 2]);
      }
      const uint8_t* in = &bv[(2 * g + i) * 8];
      const uint8_t* out = &po[(2 * g + i) * 8];
      for (size_t k = 0; k < 4; ++k) {
        assert_int_equal(out[k], in[2 * k]);
        assert_int_equal(out[4 + k], in[2 * k + 1]);
      }
    }
  }
  hrx_fabric_memory_t* all[] = {&words, &halves, &bytes,  &cat,
                                &cols,  &split,  &pairs,  &zero,
                                &wbytes, &hwords, &bwords, &whalves};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    hrx_fabric_memory_free(h->device, all[i]);
  }
}

/* reduce_axes: 2x3x4 tiles of f32 (multiples of 1/8, so the sums are
 * exact) and i32, reduced over some axes in a fixed order. */
static void run_reduce_axes(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t floats = harness_buffer(h, TILES * 24 * 4);
  hrx_fabric_memory_t ints = harness_buffer(h, TILES * 24 * 4);
  hrx_fabric_memory_t sums = harness_buffer(h, TILES * 6 * 4);
  hrx_fabric_memory_t tops = harness_buffer(h, TILES * 3 * 4);
  hrx_fabric_memory_t total = harness_buffer(h, TILES * 4);
  hrx_fabric_memory_t xors = harness_buffer(h, TILES * 8 * 4);
  float* f = floats.host_pointer;
  int32_t* q = ints.host_pointer;
  for (size_t i = 0; i < TILES * 24; ++i) {
    f[i] = (float)((int)(loom_test_next(&seed) % 2001) - 1000) / 8;
    q[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
  }
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(floats), ARG_BUF(ints),
                          ARG_BUF(sums),   ARG_BUF(tops),   ARG_BUF(total),
                          ARG_BUF(xors)};
  assert_ok(harness_run(h, "reduce_axes", workload, 1, args, 7));
  const float* so = sums.host_pointer;
  const float* to = tops.host_pointer;
  const int32_t* no = total.host_pointer;
  const int32_t* xo = xors.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    const float* m = &f[g * 24]; /* m[a][b][c] = m[a * 12 + b * 4 + c] */
    const int32_t* t = &q[g * 24];
    uint32_t sum = 7;
    for (size_t i = 0; i < 24; ++i) sum += (uint32_t)t[i];
    assert_int_equal(no[g], (int32_t)sum);
    for (size_t b = 0; b < 3; ++b) {
      float top = -1000.0f;
      for (size_t a = 0; a < 2; ++a) {
        float s = 0.0f;
        for (size_t c = 0; c < 4; ++c) {
          s += m[a * 12 + b * 4 + c];
          top = fmaxf(top, m[a * 12 + b * 4 + c]);
        }
        assert_true(so[g * 6 + a * 3 + b] == s);
      }
      assert_true(to[g * 3 + b] == top);
    }
    for (size_t a = 0; a < 2; ++a) {
      for (size_t c = 0; c < 4; ++c) {
        int32_t x = 0;
        for (size_t b = 0; b < 3; ++b) x ^= t[a * 12 + b * 4 + c];
        assert_int_equal(xo[g * 8 + a * 4 + c], x);
      }
    }
  }
  hrx_fabric_memory_t* all[] = {&floats, &ints, &sums, &tops, &total, &xors};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    hrx_fabric_memory_free(h->device, all[i]);
  }
}

static void test_kernel_matches_c(void** state) {
  (void)state;
  for (int native = 0; native < 2; ++native) {
    harness_t h;
    harness_open(&h);
    loom_test_load_path(&h, FILE_NAME, kKernels, native);
    run_regroup(&h, 11);
    run_regroup(&h, 2026);
    run_reduce_axes(&h, 3);
    run_reduce_axes(&h, 4096);
    harness_close(&h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forms_print_back),
      cmocka_unit_test(test_misuse_diagnosed),
      cmocka_unit_test(test_kernel_matches_c),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
