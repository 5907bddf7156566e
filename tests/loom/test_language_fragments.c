/* Matrix fragments and vector.mma: the forms print back as upstream
 * writes them, a fragment GEMM (tests/kernels/check/wmma_gemm.loom) runs
 * on the host device against C references, layouts and strided views
 * place every element where the fragment layout says, and malformed
 * fragments are diagnosed at their op. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "hrx/core/half.h"
#include "loom_test_util.h"

#define GEMM "check/wmma_gemm.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                     \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %z = index.constant 0 : index\n"                                      \
  "  %s = index.constant 16 : index\n"                                     \
  "  %va = buffer.view %b[%o] : buffer -> view<16x16xf16>\n"               \
  "  %vc = buffer.view %b[%o] : buffer -> view<[%n]x16xf32>\n"             \
  "  %h = scalar.constant 1.0 : f16\n"                                     \
  "  %a = vector.splat %h : vector<16xf16>\n"                              \
  "  %f = scalar.constant 0.0 : f32\n"                                     \
  "  %c = vector.splat %f : vector<8xf32>\n"
#define HEAD_LINES 13
#define TAIL "  kernel.return\n}\n"

static void test_fragments_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.fragment<lhs> %a shape [%s, %s] : vector<16xf16>",
      "%r = vector.fragment<init> %c shape [%s, %s] : vector<8xf32>",
      "%r = vector.fragment.load<rhs> %va[%z, 0] shape [%s, %s] : "
      "view<16x16xf16> -> vector<16xf16>",
      "%r = vector.mma %a, %a, %c : vector<16xf16>, vector<16xf16>, "
      "vector<8xf32>",
      "vector.fragment.store<result> %c, %vc[%z, %z] shape [%s, %s] : "
      "vector<8xf32>, view<[%n]x16xf32>",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(GEMM, &length)); /* round-trips */
}

typedef struct gemm_t {
  size_t m, n, k;
  bool bf16;
  uint16_t* a; /* m x k */
  uint16_t* b; /* k x n */
  float* c;    /* m x n, the initial accumulator */
} gemm_t;

static float half_value(const gemm_t* g, uint16_t h) {
  uint32_t bits = g->bf16 ? hrx_bf16_to_f32_bits(h) : hrx_f16_to_f32_bits(h);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t half_of(const gemm_t* g, float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return g->bf16 ? hrx_f32_bits_to_bf16(bits) : hrx_f32_bits_to_f16(bits);
}

/* Values in [-4, 4) with as many mantissa bits as the type keeps, so
 * products and sums round. */
static void gemm_fill(gemm_t* g, uint32_t seed) {
  uint32_t x = seed;
  for (size_t i = 0; i < g->m * g->k; ++i) {
    g->a[i] = half_of(g, (float)loom_test_next(&x) * 0x1p-21f - 4.0f);
  }
  for (size_t i = 0; i < g->k * g->n; ++i) {
    g->b[i] = half_of(g, (float)loom_test_next(&x) * 0x1p-21f - 4.0f);
  }
  for (size_t i = 0; i < g->m * g->n; ++i) {
    g->c[i] = (float)loom_test_next(&x) * 0x1p-20f - 8.0f;
  }
}

/* Runs |g| on the host device and checks every element of C against two
 * references: the documented semantics (the products added to C in k
 * order, each with one rounding: fmaf) bit for bit, and the exact sum (in
 * double) within 16 roundings of the largest partial magnitude. */
static void gemm_run(harness_t* h, gemm_t* g) {
  size_t m = g->m, n = g->n, k = g->k;
  hrx_fabric_memory_t a = harness_buffer(h, m * k * 2);
  hrx_fabric_memory_t b = harness_buffer(h, k * n * 2);
  hrx_fabric_memory_t c = harness_buffer(h, m * n * 4);
  memcpy(a.host_pointer, g->a, m * k * 2);
  memcpy(b.host_pointer, g->b, k * n * 2);
  memcpy(c.host_pointer, g->c, m * n * 4);
  uint64_t workload[] = {m, n, k};
  harness_arg_t args[] = {ARG_U64(m), ARG_U64(n), ARG_U64(k),
                          ARG_BUF(a), ARG_BUF(b), ARG_BUF(c)};
  assert_ok(harness_run(h, g->bf16 ? "wmma_gemm_bf16" : "wmma_gemm_f16",
                        workload, 3, args, 6));
  const float* got = c.host_pointer;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      float ordered = g->c[i * n + j];
      double exact = ordered, magnitude = fabs(ordered);
      for (size_t r = 0; r < k; ++r) {
        float x = half_value(g, g->a[i * k + r]);
        float y = half_value(g, g->b[r * n + j]);
        ordered = fmaf(x, y, ordered);
        exact += (double)x * y;
        magnitude += fabs((double)x * y);
      }
      float value = got[i * n + j];
      if (memcmp(&value, &ordered, 4) != 0 ||
          fabs(value - exact) > 16 * 0x1p-24 * magnitude) {
        fail_msg("%zux%zux%zu %s: C[%zu][%zu] = %.9g, k-order fma %.9g, "
                 "exact %.9g", m, n, k, g->bf16 ? "bf16" : "f16", i, j,
                 value, ordered, exact);
      }
    }
  }
  hrx_fabric_memory_free(h->device, &a);
  hrx_fabric_memory_free(h->device, &b);
  hrx_fabric_memory_free(h->device, &c);
}

static void test_gemm_matches_c_reference(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(GEMM, &length);
  harness_load_source(&h, GEMM, text, length, NULL);
  free(text);
  static const size_t shapes[][3] = {
      {16, 16, 16}, {64, 64, 64}, {32, 48, 80}, {16, 64, 32}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      gemm_t g = {shapes[s][0], shapes[s][1], shapes[s][2], bf16, NULL, NULL,
                  NULL};
      g.a = test_malloc(g.m * g.k * 2);
      g.b = test_malloc(g.k * g.n * 2);
      g.c = test_malloc(g.m * g.n * 4);
      gemm_fill(&g, (uint32_t)(s * 2 + (size_t)bf16 + 1));
      gemm_run(&h, &g);
      test_free(g.a);
      test_free(g.b);
      test_free(g.c);
    }
  }
  harness_close(&h);
}

/* The native host path has no fragments: it declines these kernels with
 * a note, and the interpreter runs them. */
static void test_native_path_declines(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(GEMM, &length);
  harness_load_source(&h, GEMM, text, length, NULL);
  free(text);
  size_t count = hrx_fabric_executable_kernel_count(h.executable);
  assert_int_equal(count, 4);
  for (size_t k = 0; k < count; ++k) {
    hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
    assert_ok(hrx_fabric_kernel_info(
        hrx_fabric_executable_kernel_at(h.executable, k), &info));
    assert_false(info.native);
    assert_non_null(info.native_note);
    print_message("%s: %s\n", info.name, info.native_note);
  }
  harness_close(&h);
}

/* Built lane by lane: a fragment from a plain vector load (lane l reads
 * row l % 16 of A, as an lhs fragment holds it), B = identity loaded as a
 * fragment, the result stored through a transposed (strided) view and
 * also read back element by element with vector.extract: out[j][i] =
 * A[i][j] + 1, and lanes[l][e] = A[2e + l / 16][l % 16] + 1. */
static const char kLayoutKernel[] =
    "kernel.def export(\"layout\") @layout() {\n"
    "  %one = index.constant 1 : index\n"
    "  %wave = index.constant 32 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%wave, %one, %one) : index\n"
    "} launch(%a: buffer, %eye: buffer, %out: buffer, %lanes: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %z = index.constant 0 : index\n"
    "  %s = index.constant 16 : index\n"
    "  %c1 = index.constant 1 : index\n"
    "  %t = encoding.layout.strided [%c1, %s] : encoding<layout>\n"
    "  %av = buffer.view %a[%o] : buffer -> view<16x16xf16>\n"
    "  %ev = buffer.view %eye[%o] : buffer -> view<16x16xf16>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<16x16xf32, %t>\n"
    "  %lv = buffer.view %lanes[%o] : buffer -> view<32x8xf32>\n"
    "  %lane = kernel.subgroup.lane.id : index\n"
    "  %row = index.rem %lane, %s : index\n"
    "  %packet = vector.load %av[%row, %z] : view<16x16xf16> -> "
    "vector<16xf16>\n"
    "  %lhs = vector.fragment<lhs> %packet shape [%s, %s] : vector<16xf16>\n"
    "  %rhs = vector.fragment.load<rhs> %ev[%z, %z] shape [%s, %s] : "
    "view<16x16xf16> -> vector<16xf16>\n"
    "  %ones = vector.constant 1.0 : vector<8xf32>\n"
    "  %init = vector.fragment<init> %ones shape [%s, %s] : vector<8xf32>\n"
    "  %d = vector.mma %lhs, %rhs, %init : vector<16xf16>, vector<16xf16>, "
    "vector<8xf32>\n"
    "  vector.fragment.store<result> %d, %ov[%z, %z] shape [%s, %s] : "
    "vector<8xf32>, view<16x16xf32, %t>\n"
    "  vector.store %d, %lv[%lane, %z] : vector<8xf32>, view<32x8xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_fragment_layout_and_strided_store(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  harness_load_source(&h, "layout.loom", kLayoutKernel,
                      sizeof(kLayoutKernel) - 1, NULL);
  hrx_fabric_memory_t a = harness_buffer(&h, 256 * 2);
  hrx_fabric_memory_t eye = harness_buffer(&h, 256 * 2);
  hrx_fabric_memory_t out = harness_buffer(&h, 256 * 4);
  hrx_fabric_memory_t lanes = harness_buffer(&h, 256 * 4);
  uint16_t* x = a.host_pointer;
  uint16_t* e = eye.host_pointer;
  for (uint32_t i = 0; i < 256; ++i) {
    float v = (float)i - 100.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    x[i] = hrx_f32_bits_to_f16(bits);
    e[i] = i / 16 == i % 16 ? 0x3C00 : 0; /* f16 1.0 on the diagonal */
  }
  harness_arg_t args[] = {ARG_BUF(a), ARG_BUF(eye), ARG_BUF(out),
                          ARG_BUF(lanes)};
  assert_ok(harness_run(&h, "layout", NULL, 0, args, 4));
  const float* t = out.host_pointer;
  const float* l = lanes.host_pointer;
  for (uint32_t i = 0; i < 16; ++i) {
    for (uint32_t j = 0; j < 16; ++j) {
      assert_true(t[j * 16 + i] == (float)(i * 16 + j) - 99.0f);
    }
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    for (uint32_t el = 0; el < 8; ++el) {
      uint32_t row = 2 * el + lane / 16, column = lane % 16;
      assert_true(l[lane * 8 + el] == (float)(row * 16 + column) - 99.0f);
    }
  }
  hrx_fabric_memory_free(h.device, &a);
  hrx_fabric_memory_free(h.device, &eye);
  hrx_fabric_memory_free(h.device, &out);
  hrx_fabric_memory_free(h.device, &lanes);
  harness_close(&h);
}

/* Malformed ops after HEAD: the code and column (0: any) of the
 * diagnostic on the last line, and words of its message. */
static void expect_rejected(const char* op, hrx_loom_diag_code_t code,
                            uint32_t column, const char* words) {
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, op, code, column, words);
}

static void test_malformed_fragments_rejected(void** state) {
  (void)state;
  expect_rejected("  %r = vector.fragment<lhs> %c shape [%s, %s] : "
                  "vector<8xf32>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "a lhs fragment is vector<16xf16>, vector<16xbf16> or "
                  "vector<16xi8>");
  expect_rejected("  %r = vector.fragment<init> %a shape [%s, %s] : "
                  "vector<16xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "an init fragment");
  expect_rejected("  %r = vector.fragment<middle> %a shape [%s, %s] : "
                  "vector<16xf16>",
                  HRX_LOOM_DIAG_UNKNOWN_ENUM, 24,
                  "lhs, rhs, init, result");
  expect_rejected("  %w = index.constant 32 : index\n"
                  "  %r = vector.fragment<lhs> %a shape [%w, %s] : "
                  "vector<16xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 0, "fragment rows is 32");
  expect_rejected("  %x = vector.fragment<rhs> %a shape [%s, %s] : "
                  "vector<16xf16>\n"
                  "  %r = vector.mma %x, %a, %c : vector<16xf16>, "
                  "vector<16xf16>, vector<8xf32>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0,
                  "operand 0 is a rhs fragment, expected lhs");
  expect_rejected("  %r = vector.mma %a, %a, %a : vector<16xf16>, "
                  "vector<16xf16>, vector<16xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "vector<8xf32>");
  expect_rejected("  %v1 = buffer.view %b[%o] : buffer -> view<256xf16>\n"
                  "  %r = vector.fragment.load<lhs> %v1[%z] shape [%s, %s] "
                  ": view<256xf16> -> vector<16xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 0, "needs a rank-2 view");
  expect_rejected("  %r = vector.fragment.load<lhs> %vc[%z, %z] shape "
                  "[%s, %s] : view<[%n]x16xf32> -> vector<16xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "fragment element f16 differs from view element f32");
  /* Encoded fragments: only schemas that store lanes as typed. */
  expect_rejected("  %q = encoding.define #ggml.q4_0 : encoding<schema>\n"
                  "  %r = vector.fragment<lhs> %a shape [%s, %s] using "
                  "{schema = %q} : vector<16xf16>",
                  HRX_LOOM_DIAG_BAD_ATTRIBUTE, 3,
                  "#ggml.q4_0 does not store f16 lanes as they are");
  expect_rejected("  %r = vector.fragment<lhs> %a shape [%s, %s] using "
                  "{scale = %a : vector<16xf16>} : vector<16xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 54, "schema");
}

/* An lhs fragment whose lanes 16..31 do not repeat lanes 0..15 (lane l
 * loads row l of a 32-row view), stored as an lhs fragment: only lanes
 * 0..15 store, so the stored tile is rows 0..15. */
static const char kSourceStore[] =
    "kernel.def export(\"store\") @store() {\n"
    "  %one = index.constant 1 : index\n"
    "  %wave = index.constant 32 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%wave, %one, %one) : index\n"
    "} launch(%a: buffer, %b: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %z = index.constant 0 : index\n"
    "  %s = index.constant 16 : index\n"
    "  %av = buffer.view %a[%o] : buffer -> view<32x16xf16>\n"
    "  %bv = buffer.view %b[%o] : buffer -> view<16x16xf16>\n"
    "  %lane = kernel.subgroup.lane.id : index\n"
    "  %row = vector.load %av[%lane, %z] : view<32x16xf16> -> "
    "vector<16xf16>\n"
    "  %x = vector.fragment<lhs> %row shape [%s, %s] : vector<16xf16>\n"
    "  vector.fragment.store<lhs> %x, %bv[%z, %z] shape [%s, %s] : "
    "vector<16xf16>, view<16x16xf16>\n"
    "  kernel.return\n"
    "}\n";

static void test_source_fragment_store(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  harness_load_source(&h, "store.loom", kSourceStore,
                      sizeof(kSourceStore) - 1, NULL);
  hrx_fabric_memory_t a = harness_buffer(&h, 512 * 2);
  hrx_fabric_memory_t b = harness_buffer(&h, 256 * 2);
  uint16_t* x = a.host_pointer;
  for (uint32_t i = 0; i < 512; ++i) x[i] = (uint16_t)(0x1000 + i);
  harness_arg_t args[] = {ARG_BUF(a), ARG_BUF(b)};
  assert_ok(harness_run(&h, "store", NULL, 0, args, 2));
  assert_memory_equal(b.host_pointer, a.host_pointer, 256 * 2);
  hrx_fabric_memory_free(h.device, &a);
  hrx_fabric_memory_free(h.device, &b);
  harness_close(&h);
}

/* vector.mma where only some lanes run: the lanes differ in %odd. */
static const char kDivergentMma[] =
    "kernel.def export(\"divergent\") @divergent() {\n"
    "  %one = index.constant 1 : index\n"
    "  %wave = index.constant 32 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%wave, %one, %one) : index\n"
    "} launch(%a: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %z = index.constant 0 : index\n"
    "  %s = index.constant 16 : index\n"
    "  %av = buffer.view %a[%o] : buffer -> view<16x16xf16>\n"
    "  %cv = buffer.view %a[%o] : buffer -> view<16x16xf32>\n"
    "  %x = vector.fragment.load<lhs> %av[%z, %z] shape [%s, %s] : "
    "view<16x16xf16> -> vector<16xf16>\n"
    "  %y = vector.fragment.load<rhs> %av[%z, %z] shape [%s, %s] : "
    "view<16x16xf16> -> vector<16xf16>\n"
    "  %acc = vector.fragment.load<init> %cv[%z, %z] shape [%s, %s] : "
    "view<16x16xf32> -> vector<8xf32>\n"
    "  %lane = kernel.subgroup.lane.id : index\n"
    "  %odd = index.cmp ult, %lane, %s : index\n"
    "  scf.if %odd {\n"
    "    %d = vector.mma %x, %y, %acc : vector<16xf16>, vector<16xf16>, "
    "vector<8xf32>\n"
    "    scf.yield\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";

/* What only a backend knows: the wave it runs in and whether every lane
 * takes part. */
static void test_host_backend_limits(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(GEMM, &length);
  char* at = strstr(text, "kernel.def export(\"wmma_gemm_f16\")");
  assert_non_null(at);
  char* wide = test_strdup_printf(
      "%.*shost.target<cpu> @wide {subgroup_size = 64}\n"
      "kernel.def target(@wide) %s", (int)(at - text), text,
      at + strlen("kernel.def "));
  char* report = harness_compile_error(&h, "wide.loom", wide);
  if (!strstr(report, "needs subgroups of 32 lanes; this kernel's have 64")) {
    fail_msg("%s", report);
  }
  free(report);
  report = harness_compile_error(&h, "divergent.loom", kDivergentMma);
  if (!strstr(report, "divergent.loom:17:") ||
      !strstr(report, "every lane of the subgroup must take part")) {
    fail_msg("%s", report);
  }
  free(report);
  free(text);
  free(wide);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fragments_print_back),
      cmocka_unit_test(test_gemm_matches_c_reference),
      cmocka_unit_test(test_native_path_declines),
      cmocka_unit_test(test_fragment_layout_and_strided_store),
      cmocka_unit_test(test_source_fragment_store),
      cmocka_unit_test(test_malformed_fragments_rejected),
      cmocka_unit_test(test_host_backend_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
