/* The language as real kernels write it (view layouts, op flags, shadowing,
 * float math, inf/nan): HRX's own kernels in tests/kernels parse, verify,
 * round-trip through the printer and run on the host device against C
 * references. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "loom_test_util.h"

static void load_test_kernel(harness_t* h, const char* name) {
  size_t length = 0;
  char* text = loom_test_read_test_kernel(name, &length);
  harness_load_source(h, name, text, length, NULL);
  free(text);
}

static void test_strided_layout_transposes(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  load_test_kernel(&h, "strided_transpose.loom");
  const size_t shapes[][2] = {{1, 1}, {3, 5}, {17, 9}, {64, 33}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    size_t rows = shapes[s][0], cols = shapes[s][1];
    hrx_fabric_memory_t in = harness_buffer(&h, rows * cols * 4);
    hrx_fabric_memory_t out = harness_buffer(&h, rows * cols * 4);
    float* x = in.host_pointer;
    for (size_t i = 0; i < rows * cols; ++i) x[i] = (float)i - 7.25f;
    uint64_t workload[] = {rows, cols};
    harness_arg_t args[] = {ARG_U64(rows), ARG_U64(cols), ARG_BUF(in),
                            ARG_BUF(out)};
    assert_ok(harness_run(&h, "strided_transpose", workload, 2, args, 4));
    const float* y = out.host_pointer;
    for (size_t c = 0; c < cols; ++c) {
      for (size_t r = 0; r < rows; ++r) {
        assert_true(y[c * rows + r] == 2.0f * x[r * cols + c]);
      }
    }
    hrx_fabric_memory_free(h.device, &in);
    hrx_fabric_memory_free(h.device, &out);
  }
  harness_close(&h);
}

static bool close_to(float actual, float expected, float tolerance) {
  if (isnan(expected)) return isnan(actual);
  if (isinf(expected)) return actual == expected;
  return fabsf(actual - expected) <= tolerance * fmaxf(1.0f, fabsf(expected));
}

static void test_float_math(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  load_test_kernel(&h, "float_math.loom");
  const float inputs[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -3.75f, 10.0f,
                          -20.0f, 0.125f, 1.9f, 2.0f, -1.5f, NAN, 88.0f};
  size_t n = sizeof(inputs) / sizeof(inputs[0]);
  hrx_fabric_memory_t in = harness_buffer(&h, n * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, n * 5 * 4);
  memcpy(in.host_pointer, inputs, sizeof(inputs));
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "float_math", workload, 1, args, 3));
  const float* y = out.host_pointer;
  for (size_t i = 0; i < n; ++i) {
    float x = inputs[i];
    float silu = x / (1.0f + expf(-x));
    float number = fminf(fmaxf(x, -1.5f), 2.0f);
    float ordered = x < -1.5f ? -1.5f : x > 2.0f ? 2.0f : x;
    float edge = x > 2.0f ? INFINITY : -INFINITY;
    assert_true(close_to(y[i * 5 + 0], silu, 1e-5f));
    assert_true(close_to(y[i * 5 + 1], exp2f(x), 1e-5f));
    assert_true(close_to(y[i * 5 + 2], number, 0.0f));
    assert_true(close_to(y[i * 5 + 3], ordered, 0.0f));
    assert_true(y[i * 5 + 4] == edge);
  }
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%x: buffer, %f: f32, %i: index) {\n"                      \
  "  %v = vector.splat %f : vector<4xf32>\n"
#define TAIL "  kernel.return\n}\n"

/* Flags and layouts are kept in the IR and printed back as written. */
static void test_flags_and_layouts_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "scalar.addf<nnan|ninf|nsz> %f, %f : f32",
      "scalar.divf<arcp> %f, %f : f32",
      "scalar.mulf<contract|reassoc> %f, %f : f32",
      "scalar.expf<afn> %f : f32",
      "scalar.addf<fast> %f, %f : f32",
      "vector.reduce<addf, nnan|nsz> %v, %f : vector<4xf32>, f32",
      "scalar.clampf<number, nnan|nsz> %f, %f, %f : f32",
      "scalar.clampf<ieee> %f, %f, %f : f32",
      "scalar.constant nan : f32",
      "scalar.constant -inf : f32",
  };
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
    char* text = test_strdup_printf("%s  %%r = %s\n%s", HEAD, forms[i], TAIL);
    loom_test_expect_printed(text, forms[i]);
    loom_test_expect_round_trip(text);
    free(text);
  }
  const char* views =
      HEAD
      "  %o = index.constant 0 : offset\n"
      "  %l = encoding.layout.strided [%i, 1] : encoding<layout>\n"
      "  %d = encoding.layout.dense : encoding<layout>\n"
      "  %a = buffer.view %x[%o] : buffer -> view<4x[%i]xf32, %l>\n"
      "  %b = buffer.view %x[%o] : buffer -> view<4x8xf32, #dense>\n"
      "  %c = buffer.view %x[%o] : buffer -> view<4x8xf32, %d>\n"
      "  %e = view.load %a[1, 2] : view<4x[%i]xf32, %l> -> f32\n"
      "  view.store %e, %b[0, 0] : f32, view<4x8xf32>\n" TAIL;
  loom_test_expect_printed(views, "view<4x[%i]xf32, %l>");
  loom_test_expect_printed(views, "encoding.layout.strided [%i, 1] : encoding<layout>");
  /* #dense is the default layout: the same type as none written. */
  loom_test_expect_printed(views, "view.store %e, %b[0, 0] : f32, view<4x8xf32>\n");
  loom_test_expect_round_trip(views);
}

/* A nested region may reuse an outer name; the inner one is used inside
 * and the outer one again after the region closes. */
static void test_shadowing_in_nested_regions(void** state) {
  (void)state;
  const char* text =
      HEAD
      "  %a = index.constant 1 : index\n"
      "  %c = index.cmp eq, %i, %a : index\n"
      "  scf.if %c {\n"
      "    %a = scalar.constant 2.0 : f32\n"
      "    %s = scalar.addf %a, %f : f32\n"
      "  }\n"
      "  %b = index.add %a, %i : index\n" TAIL;
  hrx_loom_module_t* module = loom_test_parse_ok(text);
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  assert_ok(hrx_loom_module_verify(module, diagnostics));
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_module_destroy(module);
  loom_test_expect_round_trip(text);
}

/* A library of functions only is a valid module. */
static void test_function_library(void** state) {
  (void)state;
  const char* text =
      "func.def @twice(%x: f32) -> (f32) {\n"
      "  %y = scalar.addf<nsz> %x, %x : f32\n"
      "  func.return %y : f32\n"
      "}\n";
  hrx_loom_module_t* module = loom_test_parse_ok(text);
  assert_int_equal(hrx_loom_module_kernel_count(module), 0);
  hrx_loom_module_destroy(module);
  loom_test_expect_round_trip(text);
}

/* Function modifiers, abi(...), func.decl and buffer.assume.alignment are
 * kept and printed back; the kernel using them runs. */
static void test_func_forms(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  load_test_kernel(&h, "func_forms.loom");
  size_t n = 45;
  hrx_fabric_memory_t in = harness_buffer(&h, n * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, n * 4);
  float* x = in.host_pointer;
  for (size_t i = 0; i < n; ++i) x[i] = (float)i * 0.5f - 4.0f;
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "func_forms", workload, 1, args, 3));
  const float* y = out.host_pointer;
  for (size_t i = 0; i < n; ++i) assert_true(y[i] == 3.0f * x[i] + 1.0f);
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);

  size_t length = 0;
  char* text = loom_test_read_test_kernel("func_forms.loom", &length);
  loom_test_expect_printed(text, "func.decl public @external(%x: f32) -> "
                                 "(f32)\n");
  loom_test_expect_printed(text, "func.def retain device pure hot inline "
                                 "abi(hal_kernel) @triple(");
  loom_test_expect_printed(text, "func.def cold noinline @plus_one(");
  loom_test_expect_printed(
      text, "buffer.assume.alignment %input, %output {minimum_alignment = "
            "16} : buffer, buffer");
  free(text);

  /* A call needs the definition: the declaration alone is refused at the
   * call. */
  char* report = harness_compile_error(
      &h, "decl.loom",
      "func.decl @f(%x: f32) -> (f32)\n"
      "kernel.def export(\"k\") @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%x: f32) {\n"
      "  %y = func.call @f(%x) : (f32) -> (f32)\n"
      "  kernel.return\n"
      "}\n");
  if (!strstr(report, "decl.loom:6:3: error[L0801]: @f is only declared")) {
    fail_msg("unexpected report:\n%s", report);
  }
  free(report);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strided_layout_transposes),
      cmocka_unit_test(test_float_math),
      cmocka_unit_test(test_flags_and_layouts_print_back),
      cmocka_unit_test(test_shadowing_in_nested_regions),
      cmocka_unit_test(test_function_library),
      cmocka_unit_test(test_func_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
