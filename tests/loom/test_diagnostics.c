/* One test per diagnostic path: each source must fail with the expected
 * stable code at the expected line and column. */
#include <stdlib.h>
#include <string.h>

#include "loom_test_util.h"

/* A kernel whose body starts on line 5; snippets go between HEAD and
 * TAIL. */
#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%x: buffer, %f: f32, %i: index) {\n"
#define TAIL "  kernel.return\n}\n"
#define BODY(text) HEAD text TAIL

typedef struct diag_case_t {
  const char* name;
  const char* source;
  hrx_loom_diag_code_t code;
  uint32_t line;
  uint32_t column;
} diag_case_t;

static const diag_case_t cases[] = {
    /* lexical */
    {"unexpected_character", "#\n", HRX_LOOM_DIAG_UNEXPECTED_CHARACTER, 1, 1},
    {"unterminated_string", "kernel.def export(\"abc @k\n",
     HRX_LOOM_DIAG_UNTERMINATED_STRING, 1, 19},
    {"bad_number", BODY("  %a = index.constant 12abc : index\n"),
     HRX_LOOM_DIAG_BAD_NUMBER, 5, 23},
    {"bad_exponent", BODY("  %a = scalar.constant 1.0e : f32\n"),
     HRX_LOOM_DIAG_BAD_NUMBER, 5, 24},
    {"empty_name", BODY("  % = index.constant 1 : index\n"),
     HRX_LOOM_DIAG_EMPTY_NAME, 5, 3},
    /* syntax */
    {"expected_token", BODY("  %a = index.add %i %i : index\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 21},
    {"unknown_op", BODY("  %a = index.frob %i, %i : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_OP, 5, 8},
    {"unknown_top_level", "banana @k\n", HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL, 1,
     1},
    {"unknown_type", BODY("  %a = index.constant 1 : f128\n"),
     HRX_LOOM_DIAG_UNKNOWN_TYPE, 5, 27},
    {"unknown_enum", BODY("  %a = kernel.workgroup.id<w> : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 28},
    {"unknown_cmp_predicate", BODY("  %a = index.cmp lt, %i, %i : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 18},
    {"result_count", BODY("  %a, %b = index.constant 1 : index\n"),
     HRX_LOOM_DIAG_RESULT_COUNT, 5, 3},
    {"bad_target_attribute", "amdgpu.target<gfx1151> @t {wave = 32}\n",
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 1, 28},
    {"unknown_predicate",
     BODY("  %a = index.assume %i [between(%i, 0, 1)] : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_PREDICATE, 5, 25},
    {"literal_range",
     BODY("  %a = index.constant 99999999999999999999 : index\n"),
     HRX_LOOM_DIAG_LITERAL_RANGE, 5, 23},
    /* names and symbols */
    {"undefined_value", BODY("  %a = index.add %i, %nope : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 5, 22},
    {"use_before_definition", BODY("  %a = index.add %a, %i : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 5, 18},
    {"sibling_scope", BODY("  %c = index.cmp eq, %i, %i : index\n"
                           "  scf.if %c {\n"
                           "    %inner = index.add %i, %i : index\n"
                           "  }\n"
                           "  %b = index.add %inner, %i : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 9, 18},
    {"redefined_value", BODY("  %a = index.constant 1 : index\n"
                             "  %a = index.constant 2 : index\n"),
     HRX_LOOM_DIAG_REDEFINED_VALUE, 6, 3},
    {"undefined_target", "kernel.def target(@nope) @k() {\n}\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 1, 19},
    {"undefined_config", BODY("  %a = config.get @missing : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 5, 3},
    {"undefined_function",
     BODY("  %a = func.call @nope(%i) : (index) -> (index)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 5, 3},
    {"redefined_symbol", BODY("") "kernel.def @k() {\n}\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 7, 12},
    {"duplicate_export",
     "kernel.def export(\"e\") @a() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n"
     "kernel.def export(\"e\") @b() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_DUPLICATE_EXPORT, 7, 19},
    /* types */
    {"type_mismatch", BODY("  %a = index.add %i, %f : index\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 3},
    {"type_not_allowed", BODY("  %a = scalar.addf %i, %i : index\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 5, 3},
    {"vector_element_not_allowed",
     BODY("  %c = scalar.constant 1 : i32\n"
          "  %v = vector.splat %c : vector<4xi32>\n"
          "  %a = vector.addf %v, %v : vector<4xi32>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 7, 3},
    {"vector_reduce_element",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %c = scalar.constant 1 : i32\n"
          "  %r = vector.reduce<addf> %v, %c : vector<4xf32>, i32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 3},
    {"vector_cast_count",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %w = vector.fptrunc %v : vector<4xf32> to vector<8xf16>\n"),
     HRX_LOOM_DIAG_BAD_CAST, 6, 3},
    {"vector_cast_elements",
     BODY("  %c = scalar.constant 1 : i32\n"
          "  %v = vector.splat %c : vector<4xi32>\n"
          "  %w = vector.extf %v : vector<4xi32> to vector<4xi64>\n"),
     HRX_LOOM_DIAG_BAD_CAST, 7, 3},
    {"vector_reduce_kind",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %r = vector.reduce<addi> %v, %f : vector<4xf32>, f32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 3},
    {"vector_shape", BODY("  %a = scalar.constant 1.0 : vector<0xf32>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 5, 30},
    {"view_rank", BODY("  %o = index.constant 0 : offset\n"
                       "  %v = buffer.view %x[%o] : buffer -> view<4x4xf32>\n"
                       "  %l = view.load %v[%i] : view<4x4xf32> -> f32\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 7, 3},
    {"static_index_bounds",
     BODY("  %o = index.constant 0 : offset\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4xf32>\n"
          "  %l = view.load %v[4] : view<4xf32> -> f32\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 7, 3},
    {"bad_cast", BODY("  %a = scalar.extf %f : f32 to f16\n"),
     HRX_LOOM_DIAG_BAD_CAST, 5, 3},
    /* structure */
    {"missing_terminator",
     "kernel.def @k() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n"
     "  %a = index.constant 1 : index\n"
     "}\n",
     HRX_LOOM_DIAG_MISSING_TERMINATOR, 6, 1},
    {"terminator_not_last", HEAD "  kernel.return\n"
                                 "  %a = index.constant 1 : index\n" TAIL,
     HRX_LOOM_DIAG_TERMINATOR_NOT_LAST, 5, 3},
    {"yield_arity", BODY("  %c = index.cmp eq, %i, %i : index\n"
                         "  %r = scf.if %c -> (f32) {\n"
                         "    scf.yield\n"
                         "  } else {\n"
                         "    scf.yield %f : f32\n"
                         "  }\n"),
     HRX_LOOM_DIAG_YIELD_ARITY, 7, 5},
    {"for_yield_type",
     BODY("  %z = index.constant 0 : index\n"
          "  %r = scf.for %j = [%z to %i step %i](%s = %f : f32) -> (f32) {\n"
          "    scf.yield %j : index\n"
          "  }\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 5},
    {"if_results_need_else", BODY("  %c = index.cmp eq, %i, %i : index\n"
                                  "  %r = scf.if %c -> (f32) {\n"
                                  "    scf.yield %f : f32\n"
                                  "  }\n"),
     HRX_LOOM_DIAG_YIELD_ARITY, 6, 3},
    {"op_not_allowed_in_config",
     "kernel.def @k() {\n"
     "  %w = kernel.workgroup.id<x> : index\n"
     "  kernel.launch.config workgroups(%w, %w, %w) "
     "workgroup_size(%w, %w, %w) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 2, 3},
    {"wrong_terminator", HEAD "  scf.yield\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 5, 3},
    {"bad_fact_range",
     BODY("  %a = index.assume %i [range(%i, 5, 1)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 5, 25},
    {"bad_fact_subject",
     BODY("  %z = index.constant 0 : index\n"
          "  %a = index.assume %i [lt(%z, %i)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 6, 25},
    {"bad_fact_mul", BODY("  %a = index.assume %i [mul(%i, 0)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 5, 25},
    {"constant_range", BODY("  %a = scalar.constant 300 : i8\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 5, 3},
    {"negative_offset", BODY("  %a = index.constant -1 : offset\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 5, 3},
    {"bad_subgroup_size", "amdgpu.target<gfx1151> @t {subgroup_size = 48}\n",
     HRX_LOOM_DIAG_BAD_TARGET, 1, 44},
    {"bad_target_kind", "amdgpu.target<rdna9> @t\n", HRX_LOOM_DIAG_BAD_TARGET,
     1, 1},
    {"buffer_workload",
     "kernel.def @k(%b: buffer) {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 1, 15},
    {"alloca_space", BODY("  %s = index.constant 4 : offset\n"
                          "  %b = buffer.alloca<global> %s : buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 6, 3},
};

static void test_case(void** state) {
  const diag_case_t* c = *state;
  hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(c->source);
  loom_test_expect_diag(diagnostics, c->code, c->line, c->column);
  /* Every error carries a position, a source line and a code. */
  for (size_t i = 0; i < hrx_loom_diagnostics_count(diagnostics); ++i) {
    const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, i);
    if (d->severity != HRX_LOOM_SEVERITY_ERROR) continue;
    assert_string_equal(d->file, "test.loom");
    assert_true(d->line >= 1);
    assert_true(d->length >= 1);
    assert_true(strlen(hrx_loom_diag_code_string(d->code)) == 5);
  }
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_unused_launch_argument_is_a_warning(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  const char* source = BODY("");
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(source, strlen(source), NULL, diagnostics,
                                  hrx_allocator_system(), &module));
  assert_int_equal(hrx_loom_diagnostics_error_count(diagnostics), 0);
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 3);
  const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
  assert_int_equal(d->severity, HRX_LOOM_SEVERITY_WARNING);
  assert_int_equal(d->code, HRX_LOOM_DIAG_UNUSED_LAUNCH_ARGUMENT);
  assert_string_equal(hrx_loom_diagnostic_param(d, "symbol"), "x");
  assert_int_equal(d->line, 4);
  assert_int_equal(d->column, 10);
  hrx_loom_module_destroy(module);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_named_params(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i, %f : index\n"));
  const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
  assert_string_equal(hrx_loom_diagnostic_param(d, "expected"), "index");
  assert_string_equal(hrx_loom_diagnostic_param(d, "actual"), "f32");
  assert_null(hrx_loom_diagnostic_param(d, "nope"));
  assert_string_equal(d->source_line, "  %a = index.add %i, %f : index");
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_format_has_caret(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i, %nope : index\n"));
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(diagnostics, &b));
  assert_string_equal(hrx_string_builder_cstr(&b),
                      "test.loom:5:22: error[L0301]: use of undefined value "
                      "%nope\n"
                      "    %a = index.add %i, %nope : index\n"
                      "                       ^~~~~\n");
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_many_errors_are_capped(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_string_builder_append_cstr(&b, HEAD));
  for (int i = 0; i < 50; ++i) {
    assert_ok(hrx_string_builder_append_cstr(&b, "  %q = index.frob\n"));
  }
  assert_ok(hrx_string_builder_append_cstr(&b, TAIL));
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(5, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_module_t* module = NULL;
  assert_status_code(
      hrx_loom_module_parse(hrx_string_builder_cstr(&b), b.length, NULL,
                            diagnostics, hrx_allocator_system(), &module),
      HRX_STATUS_INVALID_ARGUMENT);
  /* 5 shown, one note, the rest counted. */
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 6);
  const hrx_loom_diagnostic_t* last = hrx_loom_diagnostics_at(diagnostics, 5);
  assert_int_equal(last->code, HRX_LOOM_DIAG_TOO_MANY_ERRORS);
  assert_int_equal(last->severity, HRX_LOOM_SEVERITY_NOTE);
  assert_true(hrx_loom_diagnostics_error_count(diagnostics) > 5);
  hrx_loom_diagnostics_clear(diagnostics);
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 0);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_string_builder_deinit(&b);
}

static void test_recovery_reports_later_errors(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i %i : index\n"
                                "  %b = index.add %i, %i : index\n"
                                "  %c = index.frob %i : index\n"));
  loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 0);
  loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_UNKNOWN_OP, 7, 8);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_null_and_empty_input(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  assert_status_code(hrx_loom_module_parse(NULL, 4, NULL, NULL,
                                           hrx_allocator_system(), &module),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* An empty module is valid and has no kernels. */
  assert_ok(hrx_loom_module_parse("", 0, NULL, NULL, hrx_allocator_system(),
                                  &module));
  assert_int_equal(hrx_loom_module_kernel_count(module), 0);
  hrx_loom_module_destroy(module);
  /* Embedded NUL bytes are reported, not read past. */
  const char text[] = "kernel.def\0@k";
  assert_status_code(
      hrx_loom_module_parse(text, sizeof(text) - 1, NULL, NULL,
                            hrx_allocator_system(), &module),
      HRX_STATUS_INVALID_ARGUMENT);
}

typedef struct parse_ctx_t {
  const char* text;
  hrx_loom_module_t* module;
} parse_ctx_t;

static hrx_status_t parse_with(hrx_allocator_t allocator, void* context) {
  parse_ctx_t* ctx = context;
  hrx_loom_diagnostics_t* diagnostics = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_loom_diagnostics_create(0, allocator, &diagnostics));
  hrx_status_t status =
      hrx_loom_module_parse(ctx->text, strlen(ctx->text), NULL, diagnostics,
                            allocator, &ctx->module);
  hrx_loom_diagnostics_destroy(diagnostics);
  return status;
}

static void destroy_parsed(hrx_allocator_t allocator, void* context) {
  (void)allocator;
  hrx_loom_module_destroy(((parse_ctx_t*)context)->module);
}

static void test_allocation_failures(void** state) {
  (void)state;
  char* source = loom_test_read_kernel("transpose.loom", NULL);
  parse_ctx_t ctx = {.text = source};
  assert_true(test_exhaust_allocations(parse_with, destroy_parsed, &ctx) > 10);
  free(source);
}

int main(void) {
  enum { N = sizeof(cases) / sizeof(cases[0]) };
  struct CMUnitTest tests[N + 7];
  size_t count = 0;
  for (size_t i = 0; i < N; ++i) {
    tests[count++] = (struct CMUnitTest){.name = cases[i].name,
                                         .test_func = test_case,
                                         .initial_state = (void*)&cases[i]};
  }
  const struct CMUnitTest extra[] = {
      cmocka_unit_test(test_unused_launch_argument_is_a_warning),
      cmocka_unit_test(test_named_params),
      cmocka_unit_test(test_format_has_caret),
      cmocka_unit_test(test_many_errors_are_capped),
      cmocka_unit_test(test_recovery_reports_later_errors),
      cmocka_unit_test(test_null_and_empty_input),
      cmocka_unit_test(test_allocation_failures),
  };
  for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i) {
    tests[count++] = extra[i];
  }
  return _cmocka_run_group_tests("diagnostics", tests, count, NULL, NULL);
}
