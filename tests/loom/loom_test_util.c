#include "loom_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char* loom_test_read_kernel(const char* name, size_t* out_length) {
  return loom_test_read_file("HRX_LOOM_KERNELS", name, out_length);
}

char* loom_test_read_file(const char* dir_variable, const char* name,
                          size_t* out_length) {
  const char* dir = getenv(dir_variable);
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s", dir, name);
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &data,
                              &length));
  free(path);
  if (out_length) *out_length = length;
  return data;
}

static void print_diagnostics(const hrx_loom_diagnostics_t* diagnostics) {
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &b));
  print_error("%s", hrx_string_builder_cstr(&b));
  hrx_string_builder_deinit(&b);
}

/* Parses |text| as "test.loom" into fresh diagnostics. */
static hrx_status_t parse(const char* text,
                          hrx_loom_diagnostics_t** out_diagnostics,
                          hrx_loom_module_t** out_module) {
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        out_diagnostics));
  *out_module = NULL;
  hrx_loom_parse_options_t options = HRX_STRUCT_INIT(hrx_loom_parse_options_t);
  options.source_name = "test.loom";
  return hrx_loom_module_parse(text, strlen(text), &options,
                               *out_diagnostics, hrx_allocator_system(),
                               out_module);
}

hrx_loom_module_t* loom_test_parse_ok(const char* text) {
  hrx_loom_diagnostics_t* diagnostics = NULL;
  hrx_loom_module_t* module = NULL;
  hrx_status_t status = parse(text, &diagnostics, &module);
  if (status != HRX_OK) print_diagnostics(diagnostics);
  hrx_loom_diagnostics_destroy(diagnostics);
  assert_ok(status);
  return module;
}

hrx_loom_diagnostics_t* loom_test_parse_fail(const char* text) {
  hrx_loom_diagnostics_t* diagnostics = NULL;
  hrx_loom_module_t* module = NULL;
  hrx_status_t status = parse(text, &diagnostics, &module);
  assert_null(module);
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  return diagnostics;
}

void loom_test_expect_diag(const hrx_loom_diagnostics_t* diagnostics,
                           hrx_loom_diag_code_t code, uint32_t line,
                           uint32_t column) {
  for (size_t i = 0; i < hrx_loom_diagnostics_count(diagnostics); ++i) {
    const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, i);
    if (d->code == code && d->line == line &&
        (column == 0 || d->column == column)) {
      return;
    }
  }
  print_diagnostics(diagnostics);
  fail_msg("expected %s at %u:%u", hrx_loom_diag_code_string(code), line,
           column);
}

char* loom_test_print(const hrx_loom_module_t* module) {
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_module_print(module, &b));
  char* text = NULL;
  assert_ok(hrx_string_builder_take(&b, &text, NULL));
  return text;
}

void loom_test_expect_round_trip(const char* text) {
  hrx_loom_module_t* first = loom_test_parse_ok(text);
  char* printed = loom_test_print(first);
  hrx_loom_module_t* second = loom_test_parse_ok(printed);
  char* reprinted = loom_test_print(second);
  assert_string_equal(printed, reprinted);
  free(reprinted);
  free(printed);
  hrx_loom_module_destroy(second);
  hrx_loom_module_destroy(first);
}

void loom_test_expect_printed(const char* text, const char* needle) {
  hrx_loom_module_t* module = loom_test_parse_ok(text);
  char* printed = loom_test_print(module);
  if (!strstr(printed, needle)) fail_msg("'%s' not in:\n%s", needle, printed);
  free(printed);
  hrx_loom_module_destroy(module);
}

void loom_test_expect_forms(const char* head, const char* tail,
                            const char* const* forms, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    char* text = test_strdup_printf("%s  %s\n%s", head, forms[i], tail);
    loom_test_expect_printed(text, forms[i]);
    loom_test_expect_round_trip(text);
    free(text);
  }
}

uint32_t loom_test_next(uint32_t* x) {
  *x = *x * 1664525u + 1013904223u;
  return *x >> 8;
}

char* loom_test_read_test_kernel(const char* name, size_t* out_length) {
  char* text = loom_test_read_file("HRX_TEST_KERNELS", name, out_length);
  loom_test_expect_round_trip(text);
  return text;
}

void loom_test_expect_rejected(const char* head, uint32_t head_lines,
                               const char* tail, const char* op,
                               hrx_loom_diag_code_t code, uint32_t column,
                               const char* words) {
  char* text = test_strdup_printf("%s%s\n%s", head, op, tail);
  hrx_loom_diagnostics_t* d = loom_test_parse_fail(text);
  uint32_t line = head_lines + 1;
  for (const char* at = op; (at = strchr(at, '\n')); ++at) ++line;
  loom_test_expect_diag(d, code, line, column);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(d, &b));
  if (!strstr(hrx_string_builder_cstr(&b), words)) {
    fail_msg("%s:\n%s", op, hrx_string_builder_cstr(&b));
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(d);
  free(text);
}

float loom_test_f32(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

uint32_t loom_test_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

double loom_test_ulp_error(float got, double expected) {
  float rounded = (float)expected;
  if (isnan(rounded)) return isnan(got) ? 0.0 : INFINITY;
  if (isinf(rounded) || expected == 0.0) {
    return got == rounded && signbit(got) == signbit(rounded) ? 0.0
                                                               : INFINITY;
  }
  int exponent = ilogb(expected) - 23;
  if (exponent < -149) exponent = -149;
  return fabs((double)got - expected) / ldexp(1.0, exponent);
}
