/* Compile-time callables (template.decl / template.def / template.apply /
 * template.call / template.return, func.template / func.apply), layouts
 * made by encoding.define and fragments using schemas: kernels built from them run on the host device
 * against C references, print back in upstream form, and every misuse is
 * an error at its position. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "hrx/core/half.h"
#include "loom_test_util.h"

static void test_templates_run(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel("templates.loom", &length);
  harness_load_source(&h, "templates.loom", text, length, NULL);
  free(text);
  const size_t n = 77;
  hrx_fabric_memory_t in = harness_buffer(&h, n * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, n * 4 * 4);
  float* x = in.host_pointer;
  for (size_t i = 0; i < n; ++i) x[i] = (float)i * 0.375f - 9.0f;
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "templates", workload, 1, args, 3));
  const float* y = out.host_pointer;
  for (size_t i = 0; i < n; ++i) {
    float square = x[i] * x[i];
    float line = 2.0f * x[i] + 1.0f;
    assert_true(y[4 * i + 0] == square + line);
    assert_true(y[4 * i + 1] == square);
    assert_true(y[4 * i + 2] == line);
    /* priority(20) needs 64-lane subgroups, so priority(10) wins. */
    assert_true(y[4 * i + 3] == 32.0f);
  }
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

/* A site with another target picks the other implementation: the same
 * family on a 64-lane host target yields the priority(20) body. */
static void test_selection_follows_target(void** state) {
  (void)state;
  size_t length = 0;
  char* text = loom_test_read_test_kernel("templates.loom", &length);
  const char* from = "{subgroup_size = 32}";
  char* at = strstr(text, from);
  assert_non_null(at);
  memcpy(at, "{subgroup_size = 64}", strlen(from));
  harness_t h;
  harness_open(&h);
  harness_load_source(&h, "templates64.loom", text, length, NULL);
  free(text);
  hrx_fabric_memory_t in = harness_buffer(&h, 4);
  hrx_fabric_memory_t out = harness_buffer(&h, 16);
  uint64_t workload[] = {1};
  harness_arg_t args[] = {ARG_U64(1), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "templates", workload, 1, args, 3));
  assert_true(((const float*)out.host_pointer)[3] == 64.0f);
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

static void test_templates_print_back(void** state) {
  (void)state;
  size_t length = 0;
  char* text = loom_test_read_test_kernel("templates.loom", &length);
  loom_test_expect_printed(text, "\ntemplate.decl public @which() -> (f32)\n");
  loom_test_expect_printed(text, "\nfunc.template<demo.square> pure "
                                 "@square(%x: f32) -> (f32) {\n");
  loom_test_expect_printed(
      text, "\ntemplate.def<@which> requires [#target.subgroup.size<32>] "
            "priority(10) @which_wave32() -> (f32) {\n");
  loom_test_expect_printed(
      text, "%sq = func.apply<demo.square>(%x) pure : (f32) -> (f32)\n");
  loom_test_expect_printed(
      text, "%lin = template.call @axpy_generic(%two, %x, %one) : "
            "(f32, f32, f32) -> (f32)\n");
  loom_test_expect_printed(
      text, "%w = template.apply<@which>() hot : () -> (f32)\n");
  loom_test_expect_printed(text, "  template.return %r : f32\n");
  free(text);
  /* An application without results is written without an arrow. */
  const char* library =
      "template.decl @sink(%x: f32)\n"
      "template.def<@sink> cold @sink_impl(%x: f32) {\n"
      "  template.return\n"
      "}\n"
      "func.def @user(%x: f32) {\n"
      "  template.apply<@sink>(%x) : (f32)\n"
      "  func.return\n"
      "}\n";
  loom_test_expect_round_trip(library);
  loom_test_expect_printed(library, "  template.apply<@sink>(%x) : (f32)\n");
}

/* encoding.define layouts address as encoding.layout.strided / .dense. */
static void test_encoding_define_layouts(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel("encoding_define.loom", &length);
  harness_load_source(&h, "encoding_define.loom", text, length, NULL);
  loom_test_expect_printed(
      text, "%strided = encoding.define #encoding.layout.strided<strides = "
            "[1, 6]> : encoding<layout>\n");
  loom_test_expect_printed(
      text, "%dense = encoding.define #encoding.layout.dense : "
            "encoding<layout>\n");
  free(text);
  hrx_fabric_memory_t in = harness_buffer(&h, 24 * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, 48 * 4);
  float* x = in.host_pointer;
  for (int i = 0; i < 24; ++i) x[i] = (float)(i * i) - 50.5f;
  harness_arg_t args[] = {ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "encoding_define", NULL, 0, args, 2));
  const float* y = out.host_pointer;
  for (int i = 0; i < 24; ++i) {
    float transposed = x[(i % 4) * 6 + i / 4];
    assert_true(y[2 * i] == transposed);
    assert_true(y[2 * i + 1] == 2.0f * transposed);
  }
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

/* Row-major f16 A (m x k), B (k x n) and f32 C in [-4, 4) / [-8, 8). */
static void fill_gemm(uint16_t* a, uint16_t* b, float* c, size_t m, size_t n,
                      size_t k) {
  uint32_t x = 12345;
  for (size_t i = 0; i < m * k + k * n; ++i) {
    float f = (float)loom_test_next(&x) * 0x1p-21f - 4.0f;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t h = hrx_f32_bits_to_f16(bits);
    if (i < m * k) {
      a[i] = h;
    } else {
      b[i - m * k] = h;
    }
  }
  for (size_t i = 0; i < m * n; ++i) {
    c[i] = (float)loom_test_next(&x) * 0x1p-20f - 8.0f;
  }
}

static float f16_value(uint16_t h) {
  uint32_t bits = hrx_f16_to_f32_bits(h);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Fragments declared with schemas that store lanes as typed compute the
 * GEMM of the plain fragments: C += A x B, products added in k order with
 * one rounding each, bit for bit. */
static void test_fragment_schemas(void** state) {
  (void)state;
  enum { M = 32, N = 16, K = 48 };
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel("wmma_schema.loom", &length);
  harness_load_source(&h, "wmma_schema.loom", text, length, NULL);
  loom_test_expect_printed(
      text, "%plain = encoding.define #encoding.f16 : encoding<schema>\n");
  loom_test_expect_printed(
      text, "shape [%tile, %tile] using {schema = %half} : "
            "view<[%m]x[%k]xf16> -> vector<16xf16>\n");
  free(text);
  hrx_fabric_memory_t a = harness_buffer(&h, M * K * 2);
  hrx_fabric_memory_t b = harness_buffer(&h, K * N * 2);
  hrx_fabric_memory_t c = harness_buffer(&h, M * N * 4);
  float want[M * N];
  fill_gemm(a.host_pointer, b.host_pointer, c.host_pointer, M, N, K);
  memcpy(want, c.host_pointer, sizeof(want));
  const uint16_t* av = a.host_pointer;
  const uint16_t* bv = b.host_pointer;
  for (size_t i = 0; i < M; ++i) {
    for (size_t j = 0; j < N; ++j) {
      for (size_t r = 0; r < K; ++r) {
        want[i * N + j] = fmaf(f16_value(av[i * K + r]),
                               f16_value(bv[r * N + j]), want[i * N + j]);
      }
    }
  }
  uint64_t workload[] = {M, N, K};
  harness_arg_t args[] = {ARG_U64(M),  ARG_U64(N),  ARG_U64(K),
                          ARG_BUF(a), ARG_BUF(b), ARG_BUF(c)};
  assert_ok(harness_run(&h, "wmma_schema", workload, 3, args, 6));
  assert_memory_equal(c.host_pointer, want, sizeof(want));
  hrx_fabric_memory_free(h.device, &a);
  hrx_fabric_memory_free(h.device, &b);
  hrx_fabric_memory_free(h.device, &c);
  harness_close(&h);
}

/* Snippets go on line 9, in a kernel after a one-implementation family. */
#define LIB                                                                \
  "template.decl @fam(%x: f32) -> (f32)\n"                                 \
  "template.def<@fam> @impl(%x: f32) -> (f32) {\n"                         \
  "  template.return %x : f32\n"                                           \
  "}\n"
#define KERNEL(text)                                                       \
  LIB                                                                      \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%f: f32, %i: index, %x: buffer) {\n" text                   \
  "  kernel.return\n}\n"
/* A kernel on a 32-lane host target, with the snippet on line 2. */
#define TARGETED(lib, text)                                                \
  "host.target<cpu> @host {subgroup_size = 32}\n" lib                      \
  "kernel.def target(@host) @k(%n: index) {\n"                             \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%f: f32) {\n" text "  kernel.return\n}\n"
#define TWO_IMPLS(prio_a, prio_b)                                          \
  "template.decl @fam(%x: f32) -> (f32)\n"                                 \
  "template.def<@fam> " prio_a " @a(%x: f32) -> (f32) {\n"                 \
  "  template.return %x : f32\n"                                           \
  "}\n"                                                                    \
  "template.def<@fam> " prio_b " @b(%x: f32) -> (f32) {\n"                 \
  "  template.return %x : f32\n"                                           \
  "}\n"
#define APPLY "  %a = template.apply<@fam>(%f) : (f32) -> (f32)\n"

typedef struct diag_case_t {
  const char* name;
  const char* source;
  hrx_loom_diag_code_t code;
  uint32_t line;
  uint32_t column;
} diag_case_t;

static const diag_case_t cases[] = {
    {"unknown_family",
     KERNEL("  %a = template.apply<@nope>(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 9, 3},
    {"wrong_arity",
     KERNEL("  %a = template.apply<@fam>(%f, %f) : (f32, f32) -> (f32)\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 3},
    {"operand_type",
     KERNEL("  %a = template.apply<@fam>(%i) : (index) -> (f32)\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 3},
    {"result_type",
     KERNEL("  %a = template.apply<@fam>(%f) : (f32) -> (i32)\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 3},
    {"written_type", KERNEL("  %a = template.apply<@fam>(%f) : (i32) -> (f32)\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 41},
    {"unknown_contract",
     KERNEL("  %a = func.apply<no.such>(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 9, 3},
    {"missing_family", KERNEL("  %a = template.apply(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 9, 22},
    {"family_not_symbol",
     KERNEL("  %a = template.apply<fam>(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 9, 23},
    {"call_of_family",
     KERNEL("  %a = func.call @fam(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 9, 3},
    {"func_call_of_implementation",
     KERNEL("  %a = func.call @impl(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 9, 3},
    {"template_call_of_family",
     KERNEL("  %a = template.call @fam(%f) : (f32) -> (f32)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 9, 3},
    {"def_of_unknown_family",
     "template.def<@ghost> @g(%x: f32) -> (f32) {\n"
     "  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 1, 1},
    {"def_of_a_function",
     "func.def @f(%x: f32) -> (f32) {\n  func.return %x : f32\n}\n"
     "template.def<@f> @g(%x: f32) -> (f32) {\n"
     "  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 4, 1},
    {"def_parameter_type",
     LIB "template.def<@fam> @bad(%x: i32) -> (f32) {\n"
         "  %y = scalar.constant 1.0 : f32\n"
         "  template.return %y : f32\n}\n",
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 1},
    {"def_arity",
     LIB "template.def<@fam> @bad(%x: f32, %z: f32) -> (f32) {\n"
         "  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 1},
    {"def_result_type",
     LIB "template.def<@fam> @bad(%x: f32) -> (i32) {\n"
         "  %y = scalar.constant 1 : i32\n"
         "  template.return %y : i32\n}\n",
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 1},
    {"duplicate_family", LIB "template.decl @fam(%x: f32) -> (f32)\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 5, 15},
    {"duplicate_implementation",
     LIB "template.def<@fam> @impl(%x: f32) -> (f32) {\n"
         "  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 5, 20},
    {"implementation_named_as_function",
     "func.def @impl(%x: f32) -> (f32) {\n  func.return %x : f32\n}\n"
     "func.template<k.x> @impl(%x: f32) -> (f32) {\n"
     "  func.return %x : f32\n}\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 4, 20},
    {"recursion",
     "template.decl @r(%x: f32) -> (f32)\n"
     "template.def<@r> @r_impl(%x: f32) -> (f32) {\n"
     "  %y = template.apply<@r>(%x) : (f32) -> (f32)\n"
     "  template.return %y : f32\n}\n",
     HRX_LOOM_DIAG_RECURSIVE_CALL, 3, 3},
    {"recursion_through_contract",
     "func.template<loop.k> @p(%x: f32) -> (f32) {\n"
     "  %y = func.apply<loop.k>(%x) : (f32) -> (f32)\n"
     "  func.return %y : f32\n}\n",
     HRX_LOOM_DIAG_RECURSIVE_CALL, 2, 3},
    {"template_return_in_func",
     "func.def @f(%x: f32) -> (f32) {\n  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 2, 3},
    {"func_return_in_template",
     "template.decl @t(%x: f32) -> (f32)\n"
     "template.def<@t> @t_impl(%x: f32) -> (f32) {\n"
     "  func.return %x : f32\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 3, 3},
    {"template_return_in_kernel", KERNEL("  template.return\n"),
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 9, 3},
    {"return_arity",
     "template.decl @t(%x: f32) -> (f32)\n"
     "template.def<@t> @t_impl(%x: f32) -> (f32) {\n"
     "  template.return\n}\n",
     HRX_LOOM_DIAG_YIELD_ARITY, 3, 3},
    {"ambiguous", TARGETED(TWO_IMPLS("", ""), APPLY),
     HRX_LOOM_DIAG_BAD_TARGET, 13, 3},
    {"none_applies",
     TARGETED(TWO_IMPLS("requires [#target.subgroup.size<64>]",
                        "requires [#target.unknown<1>] priority(3)"),
              APPLY),
     HRX_LOOM_DIAG_BAD_TARGET, 13, 3},
    {"def_without_family",
     "template.def @g(%x: f32) -> (f32) {\n  template.return %x : f32\n}\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 1, 14},
    {"provider_without_key",
     "func.template<@k> @g(%x: f32) -> (f32) {\n  func.return %x : f32\n}\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 1, 15},
    {"unterminated_requires", "template.decl requires [#a<1> @t()\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 2, 1},
    {"priority_not_integer",
     "template.decl @t()\ntemplate.def<@t> priority(high) @u() {\n"
     "  template.return\n}\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 2, 27},
    {"priority_on_family", "template.decl priority(1) @t()\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 1, 15},
    /* encoding.define */
    {"schema_as_layout",
     KERNEL("  %l = encoding.define #ggml.q4_0 : encoding<layout>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 35},
    {"layout_as_schema",
     KERNEL("  %l = encoding.define #encoding.layout.dense : "
            "encoding<schema>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 47},
    {"spec_not_an_attribute",
     KERNEL("  %l = encoding.define 4 : encoding<schema>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 9, 24},
    {"unterminated_spec",
     KERNEL("  %l = encoding.define #encoding.operand<element_format = f16\n"
            "  %m = encoding.define #encoding.f16 : encoding<schema>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 10, 3},
    {"dynamic_schema_parameter",
     KERNEL("  %l = encoding.define #encoding.operand<element_format = f16> "
            "{group = %i : index} : encoding<schema>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 9, 64},
    {"schema_launch_argument",
     "kernel.def @k(%n: index) {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch(%s: encoding<schema>) {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 4, 10},
    {"dynamic_stride_in_spec",
     KERNEL("  %l = encoding.define #encoding.layout.strided<strides = "
            "[%i, 1]> : encoding<layout>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 9, 60},
    {"strides_without_list",
     KERNEL("  %l = encoding.define #encoding.layout.strided<strides = 4> : "
            "encoding<layout>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 9, 59},
    {"encoding_not_a_layout",
     KERNEL("  %l = encoding.define #encoding.layout.dense : index\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 47},
    {"define_stride_count",
     KERNEL("  %z = index.constant 0 : offset\n"
            "  %l = encoding.define #encoding.layout.strided<strides = [1]> "
            ": encoding<layout>\n"
            "  %v = buffer.view %x[%z] : buffer -> view<2x2xf32, %l>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 11, 3},
};

static void test_case(void** state) {
  const diag_case_t* c = *state;
  hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(c->source);
  loom_test_expect_diag(diagnostics, c->code, c->line, c->column);
  hrx_loom_diagnostics_destroy(diagnostics);
}

/* The report names the family with a caret under the application. */
static void test_report_has_caret(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(
      KERNEL("  %a = template.apply<@nope>(%f) : (f32) -> (f32)\n"));
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(diagnostics, &b));
  const char* report = hrx_string_builder_cstr(&b);
  if (!strstr(report, "test.loom:9:3: error[L0303]: unknown template family "
                      "@nope\n"
                      "    %a = template.apply<@nope>(%f) : (f32) -> (f32)\n"
                      "    ^~~~~~~~~~~~~~~~~~~\n")) {
    fail_msg("unexpected report:\n%s", report);
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(diagnostics);
}

/* Every prefix of the kernel and of each misuse parses or fails cleanly. */
static void parse_prefixes(const char* text) {
  size_t length = strlen(text);
  for (size_t end = 0; end <= length; ++end) {
    hrx_loom_diagnostics_t* diagnostics = NULL;
    assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                          &diagnostics));
    hrx_loom_module_t* module = NULL;
    hrx_status_t status = hrx_loom_module_parse(
        text, end, NULL, diagnostics, hrx_allocator_system(), &module);
    if (status == HRX_OK) {
      hrx_loom_module_destroy(module);
    } else {
      assert_true(hrx_loom_diagnostics_error_count(diagnostics) > 0);
      hrx_status_free(status);
    }
    hrx_loom_diagnostics_destroy(diagnostics);
  }
}

static void test_malformed_prefixes(void** state) {
  (void)state;
  size_t length = 0;
  char* text = loom_test_read_test_kernel("templates.loom", &length);
  parse_prefixes(text);
  free(text);
  text = loom_test_read_test_kernel("encoding_define.loom", &length);
  parse_prefixes(text);
  free(text);
  text = loom_test_read_test_kernel("wmma_schema.loom", &length);
  parse_prefixes(text);
  free(text);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    parse_prefixes(cases[i].source);
  }
}

int main(void) {
  struct CMUnitTest tests[6 + sizeof(cases) / sizeof(cases[0])];
  size_t count = 0;
  tests[count++] = (struct CMUnitTest)cmocka_unit_test(test_templates_run);
  tests[count++] =
      (struct CMUnitTest)cmocka_unit_test(test_selection_follows_target);
  tests[count++] =
      (struct CMUnitTest)cmocka_unit_test(test_templates_print_back);
  tests[count++] = (struct CMUnitTest)cmocka_unit_test(test_report_has_caret);
  tests[count++] =
      (struct CMUnitTest)cmocka_unit_test(test_encoding_define_layouts);
  tests[count++] = (struct CMUnitTest)cmocka_unit_test(test_fragment_schemas);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    tests[count++] = (struct CMUnitTest){.name = cases[i].name,
                                         .test_func = test_case,
                                         .initial_state = (void*)&cases[i]};
  }
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  const struct CMUnitTest prefixes[] = {
      cmocka_unit_test(test_malformed_prefixes)};
  return failed + cmocka_run_group_tests(prefixes, NULL, NULL);
}
