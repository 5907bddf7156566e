/* String builder: growth, formatting, JSON strings, ownership transfer. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static void test_append_and_take(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_allocator_t allocator = test_allocator(&counts);
  hrx_string_builder_t builder;
  hrx_string_builder_init(allocator, &builder);
  assert_string_equal(hrx_string_builder_cstr(&builder), "");
  for (int i = 0; i < 100; ++i) {
    assert_ok(hrx_string_builder_appendf(&builder, "%d,", i));
  }
  assert_ok(hrx_string_builder_append_cstr(&builder, "end"));
  assert_true(strncmp(hrx_string_builder_cstr(&builder), "0,1,2,", 6) == 0);
  hrx_string_builder_truncate(&builder, 4);
  assert_string_equal(hrx_string_builder_cstr(&builder), "0,1,");
  char* text = NULL;
  size_t length = 0;
  assert_ok(hrx_string_builder_take(&builder, &text, &length));
  assert_string_equal(text, "0,1,");
  assert_int_equal(length, 4);
  assert_string_equal(hrx_string_builder_cstr(&builder), "");
  hrx_allocator_free(allocator, text);
  /* Taking from an empty builder yields an empty string, never NULL. */
  assert_ok(hrx_string_builder_take(&builder, &text, NULL));
  assert_string_equal(text, "");
  hrx_allocator_free(allocator, text);
  hrx_string_builder_deinit(&builder);
  assert_int_equal(counts.live, 0);
}

static void test_failed_append_keeps_content(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_string_builder_t builder;
  hrx_string_builder_init(test_allocator(&counts), &builder);
  assert_ok(hrx_string_builder_append_cstr(&builder, "keep"));
  counts.fail_at = counts.allocations + 1;
  char big[200];
  memset(big, 'x', sizeof(big));
  assert_status_code(hrx_string_builder_append(&builder, big, sizeof(big)),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_status_code(hrx_string_builder_append_json_string(&builder, big,
                                                           sizeof(big)),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_string_equal(hrx_string_builder_cstr(&builder), "keep");
  assert_status_code(hrx_string_builder_reserve(&builder, SIZE_MAX),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_string_builder_deinit(&builder);
  assert_int_equal(counts.live, 0);
}

static void test_json_string_round_trip(void** state) {
  (void)state;
  const char input[] = "tab\there \"quoted\" back\\slash \x01\x1f nl\n ünï";
  hrx_string_builder_t builder;
  hrx_string_builder_init(hrx_allocator_system(), &builder);
  assert_ok(hrx_string_builder_append_cstr(&builder, "["));
  assert_ok(hrx_string_builder_append_json_string(&builder, input,
                                                  sizeof(input) - 1));
  assert_ok(hrx_string_builder_append_cstr(&builder, "]"));
  json_error_t error;
  json_t* array = json_loads(hrx_string_builder_cstr(&builder), 0, &error);
  assert_non_null(array);
  assert_string_equal(json_string_value(json_array_get(array, 0)), input);
  json_decref(array);
  hrx_string_builder_deinit(&builder);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append_and_take),
      cmocka_unit_test(test_failed_append_keeps_content),
      cmocka_unit_test(test_json_string_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
