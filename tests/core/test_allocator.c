/* Allocator wrappers: zeroing, overflow checks, realloc, strdup, and the
 * failing test allocator every suite uses. */
#include <string.h>

#include "test_support.h"

static void test_system_malloc_zeroes(void** state) {
  (void)state;
  hrx_allocator_t allocator = hrx_allocator_system();
  unsigned char* bytes = NULL;
  assert_ok(hrx_allocator_malloc(allocator, 64, (void**)&bytes));
  for (int i = 0; i < 64; ++i) assert_int_equal(bytes[i], 0);
  hrx_allocator_free(allocator, bytes);
  hrx_allocator_free(allocator, NULL);
}

static void test_zero_size_is_distinct(void** state) {
  (void)state;
  hrx_allocator_t allocator = hrx_allocator_system();
  void* a = NULL;
  void* b = NULL;
  assert_ok(hrx_allocator_malloc(allocator, 0, &a));
  assert_ok(hrx_allocator_malloc_uninitialized(allocator, 0, &b));
  assert_non_null(a);
  assert_non_null(b);
  assert_ptr_not_equal(a, b);
  hrx_allocator_free(allocator, a);
  hrx_allocator_free(allocator, b);
}

static void test_array_overflow(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_allocator_t allocator = test_allocator(&counts);
  void* ptr = (void*)1;
  assert_status_code(
      hrx_allocator_malloc_array(allocator, SIZE_MAX / 2, 3, &ptr),
      HRX_STATUS_OUT_OF_RANGE);
  assert_null(ptr);
  assert_int_equal(counts.allocations, 0);
  assert_ok(hrx_allocator_malloc_array(allocator, 4, 8, &ptr));
  hrx_allocator_free(allocator, ptr);
  assert_int_equal(counts.live, 0);
}

static void test_realloc_keeps_pointer_on_failure(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_allocator_t allocator = test_allocator(&counts);
  char* ptr = NULL;
  assert_ok(hrx_allocator_realloc(allocator, 4, (void**)&ptr));
  memcpy(ptr, "abc", 4);
  counts.fail_at = counts.allocations + 1;
  char* before = ptr;
  assert_status_code(hrx_allocator_realloc(allocator, 1 << 20, (void**)&ptr),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_ptr_equal(ptr, before);
  assert_string_equal(ptr, "abc");
  counts.fail_at = 0;
  assert_ok(hrx_allocator_realloc(allocator, 1 << 20, (void**)&ptr));
  assert_string_equal(ptr, "abc");
  hrx_allocator_free(allocator, ptr);
  assert_int_equal(counts.live, 0);
}

static void test_grow_array(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_allocator_t allocator = test_allocator(&counts);
  uint32_t* items = NULL;
  size_t capacity = 0;
  assert_ok(hrx_allocator_grow_array(allocator, sizeof(uint32_t), 3,
                                     &capacity, (void**)&items));
  assert_int_equal(capacity, 8);
  items[2] = 42;
  /* Enough room already: nothing moves or allocates. */
  size_t allocations = counts.allocations;
  assert_ok(hrx_allocator_grow_array(allocator, sizeof(uint32_t), 8,
                                     &capacity, (void**)&items));
  assert_int_equal(counts.allocations, allocations);
  assert_ok(hrx_allocator_grow_array(allocator, sizeof(uint32_t), 100,
                                     &capacity, (void**)&items));
  assert_int_equal(capacity, 128);
  assert_int_equal(items[2], 42);
  /* Failures leave the array and its capacity as they were. */
  uint32_t* before = items;
  counts.fail_at = counts.allocations + 1;
  assert_status_code(hrx_allocator_grow_array(allocator, sizeof(uint32_t),
                                              1000, &capacity,
                                              (void**)&items),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_ptr_equal(items, before);
  assert_int_equal(capacity, 128);
  assert_status_code(hrx_allocator_grow_array(allocator, 1u << 20,
                                              SIZE_MAX / 2, &capacity,
                                              (void**)&items),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_int_equal(capacity, 128);
  hrx_allocator_free(allocator, items);
  assert_int_equal(counts.live, 0);
}

static void test_malloc_failure_reports_size(void** state) {
  (void)state;
  test_allocator_t counts = {.fail_at = 1};
  hrx_allocator_t allocator = test_allocator(&counts);
  void* ptr = (void*)1;
  hrx_status_t status = hrx_allocator_malloc(allocator, 12345, &ptr);
  assert_null(ptr);
  assert_non_null(strstr(hrx_status_message(status), "12345"));
  assert_status_code(status, HRX_STATUS_RESOURCE_EXHAUSTED);
}

static void test_strdup(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_allocator_t allocator = test_allocator(&counts);
  char* copy = NULL;
  assert_ok(hrx_allocator_strdup(allocator, "hello", &copy));
  assert_string_equal(copy, "hello");
  hrx_allocator_free(allocator, copy);
  counts.fail_at = counts.allocations + 1;
  assert_status_code(hrx_allocator_strdup(allocator, "x", &copy),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_null(copy);
  assert_int_equal(counts.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_system_malloc_zeroes),
      cmocka_unit_test(test_zero_size_is_distinct),
      cmocka_unit_test(test_array_overflow),
      cmocka_unit_test(test_realloc_keeps_pointer_on_failure),
      cmocka_unit_test(test_grow_array),
      cmocka_unit_test(test_malloc_failure_reports_size),
      cmocka_unit_test(test_strdup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
