/* Lane-by-lane vector memory (vector.load.mask, vector.store.mask,
 * vector.load.expand, vector.store.compress, vector.gather,
 * vector.scatter): the forms print back as written; the
 * kernel of tests/kernels/vector_masked.loom gives what C computes on the
 * host device, interpreted and as native code, with lanes that are off
 * left untouched and never faulting, while an active lane or a gather
 * lane past the end faults as a plain access does; misuse is diagnosed
 * at the op. */
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "vector_masked.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                    \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %v = buffer.view %b[%o] : buffer -> view<[%n]x8xf32>\n"               \
  "  %z = index.constant 0 : index\n"                                      \
  "  %x = vector.load %v[%z, %z] : view<[%n]x8xf32> -> vector<2x4xf32>\n" \
  "  %m = vector.cmpf olt, %x, %x : vector<2x4xf32> -> vector<2x4xi1>\n"   \
  "  %l = vector.extract %x[0] : vector<2x4xf32> -> vector<4xf32>\n"       \
  "  %lm = vector.extract %m[0] : vector<2x4xi1> -> vector<4xi1>\n"       \
  "  %f = vector.fptosi %l : vector<4xf32> to vector<4xi32>\n"            \
  "  %q = vector.splat %z : vector<2x4xindex>\n"
#define HEAD_LINES 13
#define TAIL "  kernel.return\n}\n"

static void test_forms_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.load.mask %v[%z, %z], %m, %x : view<[%n]x8xf32>, "
      "vector<2x4xi1>, vector<2x4xf32>",
      "%r = vector.load.mask %v[%z, 4], %lm, %l : view<[%n]x8xf32>, "
      "vector<4xi1>, vector<4xf32>",
      "vector.store.mask %x, %v[%z, %z], %m : vector<2x4xf32>, "
      "view<[%n]x8xf32>, vector<2x4xi1>",
      "vector.store.mask %l, %v[1, %z], %lm : vector<4xf32>, "
      "view<[%n]x8xf32>, vector<4xi1>",
      "%r = vector.load.expand %v[%z, 4], %lm, %l : view<[%n]x8xf32>, "
      "vector<4xi1>, vector<4xf32>",
      "vector.store.compress %l, %v[1, %z], %lm : vector<4xf32>, "
      "view<[%n]x8xf32>, vector<4xi1>",
      "%r = vector.gather %v[%z, 4][%f] : view<[%n]x8xf32>, vector<4xi32> "
      "-> vector<4xf32>",
      "%r = vector.gather %v[%z, %z][%q] : view<[%n]x8xf32>, "
      "vector<2x4xindex> -> vector<2x4xf32>",
      "vector.scatter %l, %v[1, 2][%f] : vector<4xf32>, view<[%n]x8xf32>, "
      "vector<4xi32>",
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
  expect_rejected("  %r = vector.load.mask %v[%z, %z], %lm, %x : "
                  "view<[%n]x8xf32>, vector<4xi1>, vector<2x4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "the mask must be an i1 vector of the value's shape");
  expect_rejected("  %r = vector.load.mask %v[%z, %z], %x, %x : "
                  "view<[%n]x8xf32>, vector<2x4xf32>, vector<2x4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "the mask must be an i1 vector of the value's shape");
  expect_rejected("  %r = vector.load.mask %v[%z, %z], %m, %l : "
                  "view<[%n]x8xf32>, vector<2x4xi1>, vector<2x4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 1");
  expect_rejected("  %r = vector.load.mask %v[%z, %z], %lm, %l : "
                  "view<[%n]x8xf32>, vector<2x4xi1>, vector<4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 0");
  expect_rejected("  %r = vector.load.mask %v[%z], %lm, %l : "
                  "view<[%n]x8xf32>, vector<4xi1>, vector<4xf32>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "1 indices for a rank-2 view");
  expect_rejected("  %r = vector.load.mask %v[%z, 8], %lm, %l : "
                  "view<[%n]x8xf32>, vector<4xi1>, vector<4xf32>",
                  HRX_LOOM_DIAG_CONSTANT_RANGE, 3,
                  "static index 8 is out of bounds");
  expect_rejected("  vector.store.mask %l, %v[%z, %z], %m : vector<4xf32>, "
                  "view<[%n]x8xf32>, vector<2x4xi1>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "the mask must be an i1 vector of the value's shape");
  expect_rejected("  vector.store.mask %f, %v[%z, %z], %lm : vector<4xi32>, "
                  "view<[%n]x8xf32>, vector<4xi1>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "value element i32 differs from view element f32");
  expect_rejected("  vector.store.mask %l, %v[%z, %z] : vector<4xf32>, "
                  "view<[%n]x8xf32>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 36, "','");
  expect_rejected("  %r = vector.load.expand %v[%z, %z], %m, %x : "
                  "view<[%n]x8xf32>, vector<2x4xi1>, vector<2x4xf32>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "vector.load.expand takes a rank-1 vector, not 2 axes");
  expect_rejected("  vector.store.compress %l, %v[%z, %z], %f : "
                  "vector<4xf32>, view<[%n]x8xf32>, vector<4xi32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "the mask must be an i1 vector of the value's shape");
  expect_rejected("  %r = vector.gather %v[%z, %z][%l] : view<[%n]x8xf32>, "
                  "vector<4xf32> -> vector<4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "the offsets must be an integer or index vector of the "
                  "value's shape");
  expect_rejected("  %r = vector.gather %v[%z, %z][%lm] : view<[%n]x8xf32>, "
                  "vector<4xi1> -> vector<4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "the offsets must be");
  expect_rejected("  %r = vector.gather %v[%z, %z][%f] : view<[%n]x8xf32>, "
                  "vector<4xi32> -> vector<2x4xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "the offsets must be");
  expect_rejected("  vector.scatter %f, %v[%z, %z][%f] : vector<4xi32>, "
                  "view<[%n]x8xf32>, vector<4xi32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "value element i32 differs from view element f32");
  expect_rejected("  vector.scatter %l, %v[%z][%f] : vector<4xf32>, "
                  "view<[%n]x8xf32>, vector<4xi32>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "1 indices for a rank-2 view");
  expect_rejected("  %r = vector.gather %v[%z, %z], %f : view<[%n]x8xf32>, "
                  "vector<4xi32> -> vector<4xf32>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 32, "'['");
  expect_rejected("  %r = vector.load.mask %v[%z, %z], %lm : "
                  "view<[%n]x8xf32>, vector<4xi1>, vector<4xf32>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 41, "','");
}

/*===------------------------------------------------------------------===*/
/* The kernel against C                                                     */
/*===------------------------------------------------------------------===*/

enum { GROUPS = 3, ITEMS = 32, TILES = GROUPS * ITEMS, LIMIT = TILES * 8 - 5 };

static const char* const kKernels[] = {"masked", NULL};

/* Runs the kernel with |limit| (the tail buffers hold LIMIT f32); with
 * |far|, lane 0 of the last tile gathers one element past the end of
 * words. Returns its status after checking the outputs when it
 * succeeded. */
static hrx_status_t run_masked(harness_t* h, uint32_t seed, uint64_t limit,
                               bool far) {
  hrx_fabric_memory_t words = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t other = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t picked = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t kept = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t every = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t tail = harness_buffer(h, LIMIT * 4);
  hrx_fabric_memory_t doubled = harness_buffer(h, LIMIT * 4);
  hrx_fabric_memory_t order = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t gathered = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t scattered = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t packed = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t expanded = harness_buffer(h, TILES * 8 * 4);
  memset(packed.host_pointer, 0x5a, TILES * 8 * 4);
  int32_t* f = order.host_pointer;
  for (size_t g = 0; g < TILES; ++g) { /* a permutation of -4..3 */
    for (int k = 0; k < 8; ++k) f[g * 8 + k] = k - 4;
    for (int k = 7; k > 0; --k) {
      int j = (int)(loom_test_next(&seed) % (uint32_t)(k + 1));
      int32_t x = f[g * 8 + k];
      f[g * 8 + k] = f[g * 8 + j];
      f[g * 8 + j] = x;
    }
  }
  if (far) f[(TILES - 1) * 8] = 4;
  int32_t* w = words.host_pointer;
  int32_t* o = other.host_pointer;
  float* t = tail.host_pointer;
  for (size_t i = 0; i < TILES * 8; ++i) {
    w[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
    o[i] = (int32_t)loom_test_next(&seed);
  }
  for (size_t i = 0; i < LIMIT; ++i) {
    t[i] = (float)(loom_test_next(&seed) % 1000) / 8;
  }
  memset(kept.host_pointer, 0x5a, TILES * 8 * 4);
  memset(doubled.host_pointer, 0x5a, LIMIT * 4);
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {
      ARG_U64(GROUPS),  ARG_U64(limit),     ARG_BUF(words),  ARG_BUF(other),
      ARG_BUF(picked),  ARG_BUF(kept),      ARG_BUF(every),  ARG_BUF(tail),
      ARG_BUF(doubled), ARG_BUF(order),     ARG_BUF(gathered),
      ARG_BUF(scattered), ARG_BUF(packed),  ARG_BUF(expanded)};
  hrx_status_t status = harness_run(h, "masked", workload, 1, args, 14);
  if (status == HRX_OK) {
    const int32_t* po = picked.host_pointer;
    const int32_t* ko = kept.host_pointer;
    const int32_t* eo = every.host_pointer;
    const float* d = doubled.host_pointer;
    for (size_t i = 0; i < TILES * 8; ++i) {
      assert_int_equal(po[i], w[i] > 0 ? o[i] : -1);
      assert_int_equal(ko[i], w[i] > 0 ? w[i] : 0x5a5a5a5a);
      assert_int_equal(eo[i], w[i]);
    }
    for (size_t i = 0; i < LIMIT; ++i) {
      assert_true(d[i] == 2 * t[i]);
    }
    const int32_t* go = gathered.host_pointer;
    const int32_t* so = scattered.host_pointer;
    for (size_t g = 0; g < TILES; ++g) {
      for (size_t k = 0; k < 8; ++k) {
        assert_int_equal(go[g * 8 + k], w[g * 8 + 4 + f[g * 8 + k]]);
        assert_int_equal(so[g * 8 + 4 + f[g * 8 + k]], w[g * 8 + k]);
      }
    }
    const int32_t* co = packed.host_pointer;
    const int32_t* xo = expanded.host_pointer;
    for (size_t g = 0; g < TILES; ++g) {
      size_t next_element = 0;
      for (size_t k = 0; k < 8; ++k) {
        if (w[g * 8 + k] > 0) {
          assert_int_equal(co[g * 8 + next_element], w[g * 8 + k]);
          assert_int_equal(xo[g * 8 + k], o[g * 8 + next_element]);
          ++next_element;
        } else {
          assert_int_equal(xo[g * 8 + k], -1);
        }
      }
      for (size_t k = next_element; k < 8; ++k) {
        assert_int_equal(co[g * 8 + k], 0x5a5a5a5a);
      }
    }
  }
  hrx_fabric_memory_t* all[] = {&words,    &other,     &picked, &kept,
                                &every,    &tail,      &doubled, &order,
                                &gathered, &scattered, &packed,  &expanded};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    hrx_fabric_memory_free(h->device, all[i]);
  }
  return status;
}

static void test_kernel_matches_c(void** state) {
  (void)state;
  for (int native = 0; native < 2; ++native) {
    harness_t h;
    harness_open(&h);
    loom_test_load_path(&h, FILE_NAME, kKernels, native);
    assert_ok(run_masked(&h, 5, LIMIT, false));
    assert_ok(run_masked(&h, 777, LIMIT, false));
    /* One more active lane reads past the end of the tail buffer, or a
     * gather lane past the end of words: each faults as a plain access
     * past the end does. */
    for (int far = 0; far < 2; ++far) {
      hrx_status_t status = run_masked(&h, 5, LIMIT + !far, far);
      if (!status || !strstr(hrx_status_message(status),
                             "out-of-bounds access in kernel 'masked'")) {
        fail_msg("native %d, far %d: %s", native, far,
                 status ? hrx_status_message(status) : "no fault");
      }
      assert_status_code(status, HRX_STATUS_ABORTED);
    }
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
