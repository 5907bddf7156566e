/* Signals: arithmetic, conditions, timeouts, cross-thread wake-ups. */
#include <pthread.h>
#include <time.h>

#include "hrx/fabric.h"
#include "test_support.h"

static void test_operations(void** state) {
  (void)state;
  hrx_fabric_signal_t* s = NULL;
  assert_ok(hrx_fabric_signal_create(5, hrx_allocator_system(), &s));
  assert_int_equal(hrx_fabric_signal_load(s), 5);
  assert_int_equal(hrx_fabric_signal_add(s, 3), 5);
  assert_int_equal(hrx_fabric_signal_subtract(s, 10), 8);
  assert_int_equal(hrx_fabric_signal_load(s), -2);
  assert_int_equal(hrx_fabric_signal_exchange(s, 7), -2);
  assert_int_equal(hrx_fabric_signal_compare_exchange(s, 1, 9), 7);
  assert_int_equal(hrx_fabric_signal_load(s), 7);
  assert_int_equal(hrx_fabric_signal_compare_exchange(s, 7, 9), 7);
  assert_int_equal(hrx_fabric_signal_load(s), 9);
  hrx_fabric_signal_store(s, INT64_MIN);
  assert_true(hrx_fabric_signal_load(s) == INT64_MIN);
  assert_ptr_equal(hrx_fabric_signal_from_handle(hrx_fabric_signal_handle(s)),
                   s);
  hrx_fabric_signal_retain(s);
  hrx_fabric_signal_release(s);
  hrx_fabric_signal_release(s);
}

static void test_conditions_and_timeouts(void** state) {
  (void)state;
  hrx_fabric_signal_t* s = NULL;
  assert_ok(hrx_fabric_signal_create(3, hrx_allocator_system(), &s));
  int64_t seen = 0;
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_EQ, 3, 0, &seen));
  assert_int_equal(seen, 3);
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_NE, 4, 0, NULL));
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_LT, 4, 0, NULL));
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_GTE, 3, 0, NULL));
  uint64_t start = hrx_clock_monotonic_ns();
  assert_status_code(
      hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_LT, 1, 20000000, NULL),
      HRX_STATUS_DEADLINE_EXCEEDED);
  uint64_t waited = hrx_clock_monotonic_ns() - start;
  assert_true(waited >= 20000000);
  assert_true(waited < 2000000000);
  assert_status_code(hrx_fabric_signal_wait(s, (hrx_fabric_signal_condition_t)9,
                                            0, 0, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_fabric_signal_release(s);
}

static void* count_down(void* arg) {
  hrx_fabric_signal_t* s = arg;
  struct timespec pause = {0, 5000000};
  for (int i = 0; i < 3; ++i) {
    nanosleep(&pause, NULL);
    hrx_fabric_signal_subtract(s, 1);
  }
  return NULL;
}

static void test_wake_from_another_thread(void** state) {
  (void)state;
  hrx_fabric_signal_t* s = NULL;
  assert_ok(hrx_fabric_signal_create(3, hrx_allocator_system(), &s));
  pthread_t thread;
  pthread_create(&thread, NULL, count_down, s);
  int64_t seen = 99;
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_LT, 1,
                                   HRX_TIMEOUT_INFINITE, &seen));
  assert_int_equal(seen, 0);
  pthread_join(thread, NULL);
  hrx_fabric_signal_release(s);
}

static void test_create_failure(void** state) {
  (void)state;
  test_allocator_t counts = {.fail_at = 1};
  hrx_fabric_signal_t* s = (hrx_fabric_signal_t*)1;
  assert_status_code(hrx_fabric_signal_create(0, test_allocator(&counts), &s),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_null(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operations),
      cmocka_unit_test(test_conditions_and_timeouts),
      cmocka_unit_test(test_wake_from_another_thread),
      cmocka_unit_test(test_create_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
