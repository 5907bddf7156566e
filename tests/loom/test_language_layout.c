/* Register layout ops (vector.broadcast, vector.shuffle, vector.transpose,
 * vector.slice, vector.interleave): the forms print back as written; the kernels of
 * tests/kernels/vector_layout.loom give
 * what C computes on the host device, interpreted and as native code;
 * shape and type misuse is diagnosed at the op. */
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "vector_layout.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index) {\n"                                                 \
  "  %h = scalar.constant 1.0 : f16\n"                                     \
  "  %v = vector.splat %h : vector<4xf16>\n"                               \
  "  %c = vector.splat %h : vector<4x1xf16>\n"                             \
  "  %d = vector.splat %h : vector<[%n]xf16>\n"
#define HEAD_LINES 8
#define TAIL "  kernel.return\n}\n"

static void test_forms_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.broadcast %v : vector<4xf16> -> vector<16x4xf16>",
      "%r = vector.broadcast %c : vector<4x1xf16> -> vector<2x4x8xf16>",
      "%r = vector.broadcast %v : vector<4xf16> -> vector<4xf16>",
      "%r = vector.shuffle<[3, 2, 1, 0]> %v : vector<4xf16>",
      "%r = vector.shuffle<[0, 0, 2, 2]> %v : vector<4xf16>",
      "%r = vector.transpose<[1, 0]> %c : vector<4x1xf16> -> vector<1x4xf16>",
      "%r = vector.slice %v[1] : vector<4xf16> -> vector<2xf16>",
      "%r = vector.slice %c[2, 0] : vector<4x1xf16> -> vector<2x1xf16>",
      "%r = vector.interleave<0> %v, %v : vector<4xf16>, vector<4xf16> -> "
      "vector<8xf16>",
      "%r = vector.interleave<1> %c, %c : vector<4x1xf16>, vector<4x1xf16> "
      "-> vector<4x2xf16>",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(FILE_NAME, &length)); /* round-trips */
  free(loom_test_read_test_kernel("check/vector_layout.loom", &length));
}

/* Malformed ops after HEAD: the code and column (0: any) of the
 * diagnostic on the last line, and words of its message. */
static void expect_rejected(const char* op, hrx_loom_diag_code_t code,
                            uint32_t column, const char* words) {
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, op, code, column, words);
}

static void test_misuse_diagnosed(void** state) {
  (void)state;
  expect_rejected("  %r = vector.broadcast %v : vector<4xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "source axis 0 has extent 4, not 1 or the result's 8");
  expect_rejected("  %r = vector.broadcast %c : vector<4x1xf16> -> "
                  "vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "cannot lower the rank (2 axes to 1)");
  expect_rejected("  %r = vector.broadcast %v : vector<4xf16> -> "
                  "vector<2x4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "keeps the element type");
  expect_rejected("  %r = vector.broadcast %h : f16 -> vector<4xf16>",
                  HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3, "f16");
  expect_rejected("  %r = vector.broadcast %v : vector<4x1xf16> -> "
                  "vector<4x2xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 0");
  expect_rejected("  %r = vector.broadcast %d : vector<[%n]xf16> -> "
                  "vector<2x[%n]xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "vector.broadcast needs vectors of static shape");
  expect_rejected("  %r = vector.shuffle<[3, 2, 1]> %v : vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "names 3 lanes for a vector of 4");
  expect_rejected("  %r = vector.shuffle<[0, 4, 1, 2]> %v : vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "lane 4 is outside the vector's 4 lanes");
  expect_rejected("  %r = vector.shuffle<[0, -1, 1, 2]> %v : vector<4xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "lane -1 is outside");
  expect_rejected("  %r = vector.shuffle<[0, 0, 0, 0]> %c : vector<4x1xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "takes a rank-1 vector, not 2 axes");
  expect_rejected("  %r = vector.shuffle<[%n]> %v : vector<4xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 24, "a lane");
  expect_rejected("  %r = vector.shuffle %v : vector<4xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 23, "'<'");
  expect_rejected("  %r = vector.transpose<[0, 0]> %c : vector<4x1xf16> -> "
                  "vector<4x1xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axes must name each of the 2 source axes once (0 at 1)");
  expect_rejected("  %r = vector.transpose<[1, 0]> %c : vector<4x1xf16> -> "
                  "vector<4x1xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "result axis 0 has extent 4, not source axis 1's 1");
  expect_rejected("  %r = vector.transpose<[0]> %c : vector<4x1xf16> -> "
                  "vector<4x1xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "keeps the rank and lists one axis per axis (2 axes to 2, "
                  "1 listed)");
  expect_rejected("  %r = vector.slice %v[3] : vector<4xf16> -> vector<2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axis 0 keeps 2 from offset 3, outside a source extent "
                  "of 4");
  expect_rejected("  %r = vector.slice %v[0] : vector<4xf16> -> "
                  "vector<1x2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "keeps the rank");
  expect_rejected("  %r = vector.interleave<2> %c, %c : vector<4x1xf16>, "
                  "vector<4x1xf16> -> vector<4x2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "axis 2 is not one of the 2 source axes");
  expect_rejected("  %r = vector.interleave<0> %c, %c : vector<4x1xf16>, "
                  "vector<4x1xf16> -> vector<4x2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "result must be the source with axis 0 doubled");
  expect_rejected("  %r = vector.interleave<0> %v, %c : vector<4xf16>, "
                  "vector<4x1xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 53,
                  "takes two sources of one type");
  expect_rejected("  %r = vector.interleave<0> %v, %c : vector<4xf16>, "
                  "vector<4xf16> -> vector<8xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 1");
  expect_rejected("  %z = index.constant 0 : index\n"
                  "  %r = vector.slice %v[%z] : vector<4xf16> -> "
                  "vector<2xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 24, "a static offset");
}

/*===------------------------------------------------------------------===*/
/* The kernel against C                                                     */
/*===------------------------------------------------------------------===*/

enum { GROUPS = 3, ITEMS = 32, TILES = GROUPS * ITEMS };

static const char* const kKernels[] = {"layout", "permute", NULL};

static void run_layout(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t words = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t halves = harness_buffer(h, TILES * 8 * 2);
  hrx_fabric_memory_t bytes = harness_buffer(h, TILES * 8);
  hrx_fabric_memory_t rev = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t dup = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t rows = harness_buffer(h, TILES * 24 * 4);
  hrx_fabric_memory_t cols = harness_buffer(h, TILES * 24 * 4);
  hrx_fabric_memory_t half = harness_buffer(h, TILES * 8 * 2);
  hrx_fabric_memory_t byte = harness_buffer(h, TILES * 8);
  int32_t* w = words.host_pointer;
  uint16_t* hv = halves.host_pointer;
  uint8_t* bv = bytes.host_pointer;
  for (size_t i = 0; i < TILES * 8; ++i) {
    w[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
    hv[i] = (uint16_t)loom_test_next(&seed);
    bv[i] = (uint8_t)loom_test_next(&seed);
  }
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(words), ARG_BUF(halves),
                          ARG_BUF(bytes),  ARG_BUF(rev),   ARG_BUF(dup),
                          ARG_BUF(rows),   ARG_BUF(cols),  ARG_BUF(half),
                          ARG_BUF(byte)};
  assert_ok(harness_run(h, "layout", workload, 1, args, 10));
  static const int kDup[8] = {0, 0, 2, 2, 5, 5, 7, 1};
  static const int kHalf[8] = {1, 0, 3, 2, 7, 7, 4, 6};
  static const int kByte[8] = {3, 1, 4, 1, 5, 0, 2, 6};
  const int32_t* r = rev.host_pointer;
  const int32_t* d = dup.host_pointer;
  const int32_t* wide = rows.host_pointer;
  const int32_t* block = cols.host_pointer;
  const uint16_t* hs = half.host_pointer;
  const uint8_t* bs = byte.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    const int32_t* row = &w[g * 8];
    for (size_t k = 0; k < 8; ++k) {
      assert_int_equal(r[g * 8 + k], row[7 - k]);
      assert_int_equal(d[g * 8 + k], row[kDup[k]]);
      assert_int_equal(hs[g * 8 + k], hv[g * 8 + kHalf[k]]);
      assert_int_equal(bs[g * 8 + k], bv[g * 8 + kByte[k]]);
      for (size_t a = 0; a < 3; ++a) {
        assert_int_equal(wide[g * 24 + a * 8 + k], row[k]);
      }
    }
    /* block[a][i][j] = c[i] = words[4g + i] */
    for (size_t a = 0; a < 2; ++a) {
      for (size_t i = 0; i < 4; ++i) {
        for (size_t j = 0; j < 3; ++j) {
          assert_int_equal(block[g * 24 + a * 12 + i * 3 + j], w[g * 4 + i]);
        }
      }
    }
  }
  hrx_fabric_memory_t* all[] = {&words, &halves, &bytes, &rev, &dup,
                                &rows,  &cols,   &half,  &byte};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    hrx_fabric_memory_free(h->device, all[i]);
  }
}

static void run_permute(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t words = harness_buffer(h, TILES * 32 * 4);
  hrx_fabric_memory_t halves = harness_buffer(h, TILES * 24 * 2);
  hrx_fabric_memory_t bytes = harness_buffer(h, TILES * 8);
  hrx_fabric_memory_t mt = harness_buffer(h, TILES * 32 * 4);
  hrx_fabric_memory_t ms = harness_buffer(h, TILES * 10 * 4);
  hrx_fabric_memory_t qt = harness_buffer(h, TILES * 24 * 2);
  hrx_fabric_memory_t bs = harness_buffer(h, TILES * 4);
  hrx_fabric_memory_t mi = harness_buffer(h, TILES * 64 * 4);
  hrx_fabric_memory_t bi = harness_buffer(h, TILES * 16);
  int32_t* w = words.host_pointer;
  uint16_t* q = halves.host_pointer;
  uint8_t* b = bytes.host_pointer;
  for (size_t i = 0; i < TILES * 32; ++i) {
    w[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
  }
  for (size_t i = 0; i < TILES * 24; ++i) {
    q[i] = (uint16_t)loom_test_next(&seed);
  }
  for (size_t i = 0; i < TILES * 8; ++i) b[i] = (uint8_t)loom_test_next(&seed);
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(words), ARG_BUF(halves),
                          ARG_BUF(bytes),  ARG_BUF(mt),    ARG_BUF(ms),
                          ARG_BUF(qt),     ARG_BUF(bs),    ARG_BUF(mi),
                          ARG_BUF(bi)};
  assert_ok(harness_run(h, "permute", workload, 1, args, 10));
  const int32_t* mio = mi.host_pointer;
  const uint8_t* bio = bi.host_pointer;
  const int32_t* mto = mt.host_pointer;
  const int32_t* mso = ms.host_pointer;
  const uint16_t* qto = qt.host_pointer;
  const uint8_t* bso = bs.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    const int32_t* m = &w[g * 32]; /* m[i][j] = m[i * 8 + j] */
    for (size_t j = 0; j < 8; ++j) {
      for (size_t i = 0; i < 4; ++i) {
        assert_int_equal(mto[g * 32 + j * 4 + i], m[i * 8 + j]);
      }
    }
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 5; ++j) {
        assert_int_equal(mso[g * 10 + i * 5 + j], m[(1 + i) * 8 + 2 + j]);
      }
    }
    const uint16_t* block = &q[g * 24]; /* q[i][j][k] = block[i*12+j*4+k] */
    for (size_t k = 0; k < 4; ++k) {
      for (size_t i = 0; i < 2; ++i) {
        for (size_t j = 0; j < 3; ++j) {
          assert_int_equal(qto[g * 24 + k * 6 + i * 3 + j],
                           block[i * 12 + j * 4 + k]);
        }
      }
    }
    for (size_t k = 0; k < 4; ++k) {
      assert_int_equal(bso[g * 4 + k], b[g * 8 + 3 + k]);
    }
    for (size_t i = 0; i < 4; ++i) {
      for (size_t j = 0; j < 8; ++j) {
        assert_int_equal(mio[g * 64 + i * 16 + 2 * j], m[i * 8 + j]);
        assert_int_equal(mio[g * 64 + i * 16 + 2 * j + 1], m[j]);
      }
    }
    for (size_t j = 0; j < 8; ++j) {
      assert_int_equal(bio[g * 16 + 2 * j], b[g * 8 + j]);
      assert_int_equal(bio[g * 16 + 2 * j + 1], b[g * 8 + 7 - j]);
    }
  }
  hrx_fabric_memory_t* all[] = {&words, &halves, &bytes, &mt, &ms,
                                &qt,    &bs,     &mi,    &bi};
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
    run_layout(&h, 7);
    run_layout(&h, 1234);
    run_permute(&h, 99);
    run_permute(&h, 4242);
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
