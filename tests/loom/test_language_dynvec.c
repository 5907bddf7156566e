/* Dynamic vectors (vector<[%n]xT>) run: the kernels of
 * tests/kernels/dynamic_vectors.loom (load, splat, mulf, iota, sitofp,
 * cmpf, select, extract, insert, store and reduce over a run-time row
 * length per work-item; addi and reduce<maxsi> over one per launch) give
 * what C computes on the host device, interpreted and as native code
 * (tests/fabric/test_gfx11_diff.c runs them on the modelled gfx1151); on
 * the interpreter a length past the bound and a dead lane extracted fault
 * at run time; a missing or too large bound is diagnosed at its op. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "dynamic_vectors.loom"

enum { GROUPS = 2, ITEMS = 32, ROWS = GROUPS * ITEMS, COLS = 64 };

static const float kSentinel = -1234.5f;

static void test_forms_print_back(void** state) {
  (void)state;
  size_t length = 0;
  char* text = loom_test_read_test_kernel(FILE_NAME, &length);
  loom_test_expect_round_trip(text);
  loom_test_expect_printed(text, "%r = vector.select %pos, %v, %zeros : "
                                 "vector<[%n]xf32>");
  loom_test_expect_printed(text, "%sum = vector.reduce<addf> %x, %f0 : "
                                 "vector<[%n]xf32>, f32");
  free(text);
}

static const char* const kKernels[] = {"rows", "prefix", NULL};

typedef struct rows_t {
  hrx_fabric_memory_t src, lens, dst, sums, firsts;
} rows_t;

static void rows_open(harness_t* h, rows_t* r, uint32_t seed) {
  r->src = harness_buffer(h, ROWS * COLS * 4);
  r->lens = harness_buffer(h, ROWS * 4);
  r->dst = harness_buffer(h, ROWS * COLS * 4);
  r->sums = harness_buffer(h, ROWS * 4);
  r->firsts = harness_buffer(h, ROWS * 4);
  float* x = r->src.host_pointer;
  float* out = r->dst.host_pointer;
  int32_t* len = r->lens.host_pointer;
  for (size_t i = 0; i < ROWS * COLS; ++i) {
    x[i] = (float)loom_test_next(&seed) * 0x1p-20f - 8.0f;
    out[i] = kSentinel;
  }
  for (size_t g = 0; g < ROWS; ++g) {
    len[g] = (int32_t)(loom_test_next(&seed) % 64) + 1;
  }
  len[0] = 1;
  len[1] = 64;
}

static hrx_status_t rows_run(harness_t* h, rows_t* r, float scale) {
  uint64_t workload[] = {GROUPS};
  uint32_t scale_bits;
  memcpy(&scale_bits, &scale, 4);
  harness_arg_t args[] = {ARG_U64(GROUPS),  ARG_U64(COLS),
                          ARG_U64(scale_bits), ARG_BUF(r->src),
                          ARG_BUF(r->lens), ARG_BUF(r->dst),
                          ARG_BUF(r->sums), ARG_BUF(r->firsts)};
  return harness_run(h, "rows", workload, 1, args, 8);
}

static void rows_check(const rows_t* r, float scale) {
  const float* x = r->src.host_pointer;
  const float* out = r->dst.host_pointer;
  const float* sums = r->sums.host_pointer;
  const float* firsts = r->firsts.host_pointer;
  const int32_t* len = r->lens.host_pointer;
  for (size_t g = 0; g < ROWS; ++g) {
    float sum = 0.0f;
    for (size_t k = 0; k < COLS; ++k) {
      float want = kSentinel;
      if ((int32_t)k < len[g]) {
        float v = x[g * COLS + k] * scale + (float)k;
        want = k == 0 ? x[g * COLS] : v > 0.0f ? v : 0.0f;
        sum += x[g * COLS + k];
      }
      if (out[g * COLS + k] != want) {
        fail_msg("row %zu lane %zu (length %d): %a, expected %a", g, k,
                 len[g], out[g * COLS + k], want);
      }
    }
    if (sums[g] != sum) {
      fail_msg("row %zu: sum %a, expected %a", g, sums[g], sum);
    }
    assert_true(firsts[g] == x[g * COLS]);
  }
}

static void rows_close(harness_t* h, rows_t* r) {
  hrx_fabric_memory_free(h->device, &r->src);
  hrx_fabric_memory_free(h->device, &r->lens);
  hrx_fabric_memory_free(h->device, &r->dst);
  hrx_fabric_memory_free(h->device, &r->sums);
  hrx_fabric_memory_free(h->device, &r->firsts);
}

static void test_rows_match_c(void** state) {
  (void)state;
  for (int native = 0; native < 2; ++native) {
    harness_t h;
    harness_open(&h);
    loom_test_load_path(&h, FILE_NAME, kKernels, native);
    static const uint32_t seeds[] = {7, 1234};
    for (size_t s = 0; s < 2; ++s) {
      rows_t r;
      rows_open(&h, &r, seeds[s]);
      assert_ok(rows_run(&h, &r, 0.75f));
      rows_check(&r, 0.75f);
      rows_close(&h, &r);
    }
    harness_close(&h);
  }
}

/* prefix: a length the same for every work-item (a launch argument), so
 * the loads run on uniform registers. */
static void run_prefix(harness_t* h, int64_t length, uint32_t seed) {
  enum { COLUMNS = 16 };
  hrx_fabric_memory_t src = harness_buffer(h, GROUPS * COLUMNS * 4);
  hrx_fabric_memory_t dst = harness_buffer(h, ROWS * COLUMNS * 4);
  hrx_fabric_memory_t maxes = harness_buffer(h, ROWS * 4);
  int32_t* x = src.host_pointer;
  int32_t* out = dst.host_pointer;
  for (size_t i = 0; i < GROUPS * COLUMNS; ++i) {
    x[i] = (int32_t)(loom_test_next(&seed) << 8) >> 4;
  }
  for (size_t i = 0; i < ROWS * COLUMNS; ++i) out[i] = 0x5a5a5a5a;
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_U64((uint64_t)length),
                          ARG_BUF(src), ARG_BUF(dst), ARG_BUF(maxes)};
  assert_ok(harness_run(h, "prefix", workload, 1, args, 5));
  const int32_t* m = maxes.host_pointer;
  for (size_t g = 0; g < ROWS; ++g) {
    int32_t top = INT32_MIN;
    for (int64_t k = 0; k < COLUMNS; ++k) {
      int32_t want = 0x5a5a5a5a;
      if (k < length) {
        want = x[g / ITEMS * COLUMNS + k] + (int32_t)(g % ITEMS);
        if (want > top) top = want;
      }
      if (out[g * COLUMNS + k] != want) {
        fail_msg("prefix %" PRId64 " row %zu lane %" PRId64 ": %d, "
                 "expected %d", length, g, k, out[g * COLUMNS + k], want);
      }
    }
    assert_int_equal(m[g], top);
  }
  hrx_fabric_memory_free(h->device, &src);
  hrx_fabric_memory_free(h->device, &dst);
  hrx_fabric_memory_free(h->device, &maxes);
}

static void test_prefix_match_c(void** state) {
  (void)state;
  for (int native = 0; native < 2; ++native) {
    harness_t h;
    harness_open(&h);
    loom_test_load_path(&h, FILE_NAME, kKernels, native);
    run_prefix(&h, 0, 5);
    run_prefix(&h, 5, 6);
    run_prefix(&h, 16, 7);
    harness_close(&h);
  }
}

/* Runs rows with row 5 of length |length|: a fault naming |words|. */
static void expect_fault(int32_t length, const char* words) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, FILE_NAME, kKernels, false);
  rows_t r;
  rows_open(&h, &r, 3);
  ((int32_t*)r.lens.host_pointer)[5] = length;
  hrx_status_t status = rows_run(&h, &r, 1.0f);
  assert_int_not_equal(hrx_status_code(status), HRX_STATUS_OK);
  if (!strstr(hrx_status_message(status), words)) {
    fail_msg("length %d: %s", length, hrx_status_message(status));
  }
  hrx_status_free(status);
  rows_close(&h, &r);
  harness_close(&h);
}

static void test_bad_lengths_fault(void** state) {
  (void)state;
  /* Past the bound of 64 lanes: the load checks n <= 64. */
  expect_fault(65, "lane 5, workgroup (0, 0, 0): index.assume fact 'le' "
                   "does not hold for 65");
  /* vector.extract of dead lane 0 checks 0 < n (the first check). */
  expect_fault(0, "lane 5, workgroup (0, 0, 0): index.assume fact 'lt' "
                  "does not hold for 0");
}

#define DYN_HEAD                                                          \
  "kernel.def export(\"dyn\") @dyn(%n: index) {\n"                         \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                     \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %z = index.constant 0 : index\n"                                      \
  "  %v = buffer.view %b[%o] : buffer -> view<[%n]xf32>\n"

static void expect_compile_error(const char* body, const char* words) {
  char* text = test_strdup_printf("%s%s  kernel.return\n}\n", DYN_HEAD, body);
  harness_t h;
  harness_open(&h);
  char* report = harness_compile_error(&h, "dyn.loom", text);
  if (!strstr(report, words)) fail_msg("%s", report);
  free(report);
  harness_close(&h);
  free(text);
}

static void test_bounds_diagnosed(void** state) {
  (void)state;
  expect_compile_error(
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%n]xf32>\n",
      "dyn.loom:8:3: error");
  expect_compile_error(
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%n]xf32>\n",
      "vector.load: vector<[%n]x...> cannot run: its extent needs a bound");
  expect_compile_error(
      "  %m = index.assume %n [range(%n, 0, 300)] : index\n"
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%m]xf32>\n",
      "exceeds the 256 lanes a dynamic vector may reserve");
  expect_compile_error(
      "  %m = index.assume %n [le(%n, 8)] : index\n"
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%m]xf32>\n"
      "  %e = vector.extract %x[8] : vector<[%m]xf32> -> f32\n",
      "dyn.loom:10:3: error");
  expect_compile_error(
      "  %m = index.assume %n [le(%n, 8)] : index\n"
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%m]xf32>\n"
      "  %e = vector.extract %x[8] : vector<[%m]xf32> -> f32\n",
      "position 8 is past the vector's bound of 8 lanes");
  expect_compile_error(
      "  %a = index.assume %n [le(%n, 8)] : index\n"
      "  %c = index.assume %n [le(%n, 8)] : index\n"
      "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%a]xf32>\n"
      "  %y = vector.load %v[%z] : view<[%n]xf32> -> vector<[%c]xf32>\n"
      "  %s = vector.addf %x, %y : vector<[%a]xf32>\n",
      "dyn.loom:12:3: error[L0401]: vector.addf: operand 1 type mismatch: "
      "expected vector<[%a]xf32>, got vector<[%c]xf32>");
  expect_compile_error(
      "  %h = scalar.constant 1.0 : f32\n"
      "  %x = vector.splat %h : vector<[%h]xf32>\n",
      "a dynamic vector extent must be an index value");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forms_print_back),
      cmocka_unit_test(test_rows_match_c),
      cmocka_unit_test(test_prefix_match_c),
      cmocka_unit_test(test_bad_lengths_fault),
      cmocka_unit_test(test_bounds_diagnosed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
