/* Monotonic clock and deadlines. */
#include <time.h>

#include "test_support.h"

static void test_monotonic_advances(void** state) {
  (void)state;
  uint64_t a = hrx_clock_monotonic_ns();
  struct timespec pause = {.tv_sec = 0, .tv_nsec = 2000000};
  nanosleep(&pause, NULL);
  uint64_t b = hrx_clock_monotonic_ns();
  assert_true(b >= a + 2000000);
}

static void test_deadlines(void** state) {
  (void)state;
  assert_int_equal(hrx_deadline_after(HRX_TIMEOUT_INFINITE),
                   HRX_DEADLINE_INFINITE);
  assert_int_equal(hrx_deadline_after(UINT64_MAX - 1),
                   HRX_DEADLINE_INFINITE);
  assert_int_equal(hrx_deadline_remaining(HRX_DEADLINE_INFINITE),
                   HRX_TIMEOUT_INFINITE);
  assert_int_equal(hrx_deadline_remaining(0), 0);
  uint64_t deadline = hrx_deadline_after(1000000000ull);
  uint64_t left = hrx_deadline_remaining(deadline);
  assert_true(left > 0 && left <= 1000000000ull);
}

static void test_sleep_and_backoff(void** state) {
  (void)state;
  uint64_t a = hrx_clock_monotonic_ns();
  hrx_sleep_ns(3000000);
  assert_true(hrx_clock_monotonic_ns() >= a + 3000000);
  assert_int_equal(hrx_retry_backoff_ns(0), 0);
  assert_int_equal(hrx_retry_backoff_ns(1), 500000000ull);
  assert_int_equal(hrx_retry_backoff_ns(2), 1000000000ull);
  assert_int_equal(hrx_retry_backoff_ns(3), 2000000000ull);
  assert_int_equal(hrx_retry_backoff_ns(7), 30000000000ull);
  assert_int_equal(hrx_retry_backoff_ns(UINT32_MAX), 30000000000ull);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_monotonic_advances),
      cmocka_unit_test(test_deadlines),
      cmocka_unit_test(test_sleep_and_backoff),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
