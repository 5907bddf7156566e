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
      "kernel.workgroup.reduce<addf, reassoc> %f : f32",
      "kernel.workgroup.reduce<maxnumf> %v : vector<4xf32>",
      "kernel.workgroup.reduce<xori> %i : index",
      "vector.absf %v : vector<4xf32>",
      "vector.roundevenf<afn> %v : vector<4xf32>",
      "vector.fptosi %v : vector<4xf32> to vector<4xi32>",
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

/* Vector workgroup reductions over a 2-D workgroup of 10 x 10 work-items
 * (three full waves of 32 and a partial one): element by element, every
 * work-item gets the whole group's result. */
static const char workgroup_reduce_vector_kernel[] =
    "kernel.def export(\"wg_vec\") @wg_vec(%groups: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %ten = index.constant 10 : index\n"
    "  kernel.launch.config workgroups(%groups, %one, %one) "
    "workgroup_size(%ten, %ten, %one) : index\n"
    "} launch(%groups: index, %in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %ten = index.constant 10 : index\n"
    "  %items = index.constant 100 : index\n"
    "  %cells = index.mul %groups, %items : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<[%cells]xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%cells]x4xf32>\n"
    "  %x = kernel.workitem.id<x> : index\n"
    "  %y = kernel.workitem.id<y> : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %t = index.madd %y, %ten, %x : index\n"
    "  %at = index.madd %g, %items, %t : index\n"
    "  %a = view.load %iv[%at] : view<[%cells]xf32> -> f32\n"
    "  %b = scalar.negf %a : f32\n"
    "  %z = scalar.constant 0.0 : f32\n"
    "  %v0 = vector.splat %z : vector<2xf32>\n"
    "  %v1 = vector.insert %a into %v0[0] : f32, vector<2xf32>\n"
    "  %v = vector.insert %b into %v1[1] : f32, vector<2xf32>\n"
    "  %s = kernel.workgroup.reduce<addf> %v : vector<2xf32>\n"
    "  %m = kernel.workgroup.reduce<maxnumf> %v : vector<2xf32>\n"
    "  %s0 = vector.extract %s[0] : vector<2xf32> -> f32\n"
    "  %s1 = vector.extract %s[1] : vector<2xf32> -> f32\n"
    "  %m0 = vector.extract %m[0] : vector<2xf32> -> f32\n"
    "  %m1 = vector.extract %m[1] : vector<2xf32> -> f32\n"
    "  view.store %s0, %ov[%at, 0] : f32, view<[%cells]x4xf32>\n"
    "  view.store %s1, %ov[%at, 1] : f32, view<[%cells]x4xf32>\n"
    "  view.store %m0, %ov[%at, 2] : f32, view<[%cells]x4xf32>\n"
    "  view.store %m1, %ov[%at, 3] : f32, view<[%cells]x4xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_workgroup_reduce_vectors(void** state) {
  (void)state;
  loom_test_expect_round_trip(workgroup_reduce_vector_kernel);
  harness_t h;
  harness_open(&h);
  harness_load_source(&h, "wg_vec.loom", workgroup_reduce_vector_kernel,
                      strlen(workgroup_reduce_vector_kernel), NULL);
  enum { GROUPS = 3, ITEMS = 100 };
  hrx_fabric_memory_t in = harness_buffer(&h, GROUPS * ITEMS * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, GROUPS * ITEMS * 16);
  float* x = in.host_pointer;
  /* Small integers: every order of summing them gives the same float. */
  for (size_t i = 0; i < GROUPS * ITEMS; ++i) {
    x[i] = (float)((i * 37) % 101) - 50.0f;
  }
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "wg_vec", workload, 1, args, 3));
  const float* y = out.host_pointer;
  for (size_t g = 0; g < GROUPS; ++g) {
    float sum = 0.0f, max = -INFINITY, max_neg = -INFINITY;
    for (size_t t = 0; t < ITEMS; ++t) {
      float v = x[g * ITEMS + t];
      sum += v;
      max = fmaxf(max, v);
      max_neg = fmaxf(max_neg, -v);
    }
    for (size_t t = 0; t < ITEMS; ++t) {
      const float* r = &y[(g * ITEMS + t) * 4];
      assert_true(r[0] == sum);
      assert_true(r[1] == -sum);
      assert_true(r[2] == max);
      assert_true(r[3] == max_neg);
    }
  }
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

/* The checked kernels of the new forms print back to the same IR. */
static void test_checked_kernels_round_trip(void** state) {
  (void)state;
  static const char* const files[] = {"check/workgroup_reduce_kinds.loom",
                                      "check/vector_elementwise.loom",
                                      "check/vector_build.loom",
                                      "check/vector_dot.loom",
                                      "check/vector_bits.loom",
                                      "check/vector_math.loom",
                                      "check/vector_trig.loom"};
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); ++i) {
    size_t length = 0;
    char* text = loom_test_read_test_kernel(files[i], &length);
    loom_test_expect_round_trip(text);
    free(text);
  }
}

/* Private memory: each of 40 work-items (two waves) per group fills its
 * own 8-element array and a second allocation, then, after a barrier that
 * lets the other waves run, reads them back: no work-item sees another's. */
static const char private_alloca_kernel[] =
    "kernel.def export(\"private_sum\") @private_sum(%groups: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %items = index.constant 40 : index\n"
    "  kernel.launch.config workgroups(%groups, %one, %one) "
    "workgroup_size(%items, %one, %one) : index\n"
    "} launch(%groups: index, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %items = index.constant 40 : index\n"
    "  %cells = index.mul %groups, %items : index\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%cells]x2xi32>\n"
    "  %bytes = index.constant 32 : index\n"
    "  %p = buffer.alloca<private> align(16) %bytes : buffer\n"
    "  %small = index.constant 12 : index\n"
    "  %q = buffer.alloca<private> align(4) %small : buffer\n"
    "  %pv = buffer.view %p[%o] : buffer -> view<8xi32>\n"
    "  %qv = buffer.view %q[%o] : buffer -> view<3xi32>\n"
    "  %t = kernel.workitem.id<x> : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %at = index.madd %g, %items, %t : index\n"
    "  %ti = index.cast %at : index to i32\n"
    "  %c0 = index.constant 0 : index\n"
    "  %c1 = index.constant 1 : index\n"
    "  %c3 = index.constant 3 : index\n"
    "  %c8 = index.constant 8 : index\n"
    "  %ten = scalar.constant 10 : i32\n"
    "  %base = scalar.muli %ti, %ten : i32\n"
    "  scf.for %k = [%c0 to %c8 step %c1] {\n"
    "    %ki = index.cast %k : index to i32\n"
    "    %v = scalar.addi %base, %ki : i32\n"
    "    view.store %v, %pv[%k] : i32, view<8xi32>\n"
    "  }\n"
    "  scf.for %k = [%c0 to %c3 step %c1] {\n"
    "    %ki = index.cast %k : index to i32\n"
    "    %v = scalar.subi %ti, %ki : i32\n"
    "    view.store %v, %qv[%k] : i32, view<3xi32>\n"
    "  }\n"
    "  kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"
    "  %zero = scalar.constant 0 : i32\n"
    "  %sum = scf.for %k = [%c0 to %c8 step %c1](%acc = %zero : i32) -> (i32) {\n"
    "    %x = view.load %pv[%k] : view<8xi32> -> i32\n"
    "    %k1 = index.add %k, %c1 : index\n"
    "    %w = index.cast %k1 : index to i32\n"
    "    %xw = scalar.muli %x, %w : i32\n"
    "    %next = scalar.addi %acc, %xw : i32\n"
    "    scf.yield %next : i32\n"
    "  }\n"
    "  %q0 = view.load %qv[0] : view<3xi32> -> i32\n"
    "  %q1 = view.load %qv[1] : view<3xi32> -> i32\n"
    "  %q2 = view.load %qv[2] : view<3xi32> -> i32\n"
    "  %q12 = scalar.muli %q1, %q2 : i32\n"
    "  %qs = scalar.addi %q0, %q12 : i32\n"
    "  view.store %sum, %ov[%at, 0] : i32, view<[%cells]x2xi32>\n"
    "  view.store %qs, %ov[%at, 1] : i32, view<[%cells]x2xi32>\n"
    "  kernel.return\n"
    "}\n";

static void test_private_alloca(void** state) {
  (void)state;
  loom_test_expect_round_trip(private_alloca_kernel);
  harness_t h;
  harness_open(&h);
  harness_load_source(&h, "private.loom", private_alloca_kernel,
                      strlen(private_alloca_kernel), NULL);
  enum { GROUPS = 3, ITEMS = 40 };
  hrx_fabric_memory_t out = harness_buffer(&h, GROUPS * ITEMS * 8);
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(out)};
  assert_ok(harness_run(&h, "private_sum", workload, 1, args, 2));
  const int32_t* y = out.host_pointer;
  for (int32_t i = 0; i < GROUPS * ITEMS; ++i) {
    int32_t sum = 0;
    for (int32_t k = 0; k < 8; ++k) sum += (i * 10 + k) * (k + 1);
    assert_int_equal(y[i * 2], sum);
    assert_int_equal(y[i * 2 + 1], i + (i - 1) * (i - 2));
  }
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
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
      cmocka_unit_test(test_workgroup_reduce_vectors),
      cmocka_unit_test(test_private_alloca),
      cmocka_unit_test(test_checked_kernels_round_trip),
      cmocka_unit_test(test_shadowing_in_nested_regions),
      cmocka_unit_test(test_function_library),
      cmocka_unit_test(test_func_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
