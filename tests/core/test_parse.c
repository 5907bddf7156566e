/* Checked numbers from people: arguments and environment variables. */
#include <stdlib.h>

#include "test_support.h"

static void test_parse_accepts_plain_decimal(void** state) {
  (void)state;
  uint64_t value = 7;
  assert_ok(hrx_parse_u64("0", 0, 10, "n", &value));
  assert_int_equal(value, 0);
  assert_ok(hrx_parse_u64("18446744073709551615", 0, UINT64_MAX, "n",
                          &value));
  assert_int_equal(value, UINT64_MAX);
  assert_ok(hrx_parse_u64("0042", 0, 100, "n", &value));
  assert_int_equal(value, 42);
}

static void test_parse_rejects_junk_signs_and_overflow(void** state) {
  (void)state;
  const char* bad[] = {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1e3",
                       "abc", "18446744073709551616",
                       "99999999999999999999999"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    uint64_t value = 7;
    assert_status(hrx_parse_u64(bad[i], 0, UINT64_MAX, "DAYS", &value),
                  HRX_STATUS_INVALID_ARGUMENT, "DAYS");
    assert_int_equal(value, 7);
  }
  uint64_t value = 7;
  assert_status(hrx_parse_u64("0", 1, 256, "threads", &value),
                HRX_STATUS_OUT_OF_RANGE, "threads 0 is outside [1, 256]");
  assert_status(hrx_parse_u64("257", 1, 256, "threads", &value),
                HRX_STATUS_OUT_OF_RANGE, "outside");
  assert_int_equal(value, 7);
  assert_status(hrx_parse_u64("1\x1b[2J", 0, 10, "n", &value),
                HRX_STATUS_INVALID_ARGUMENT, "'1\\x1b[2J'");
  assert_status(hrx_parse_u64(NULL, 0, 1, NULL, &value),
                HRX_STATUS_INVALID_ARGUMENT, "number is empty");
}

static void test_env_names_the_variable(void** state) {
  (void)state;
  uint64_t value = 3;
  bool present = true;
  unsetenv("HRX_TEST_PARSE_ENV");
  assert_ok(hrx_env_u64("HRX_TEST_PARSE_ENV", 1, 8, &value, &present));
  assert_false(present);
  assert_int_equal(value, 3);
  setenv("HRX_TEST_PARSE_ENV", "", 1);
  assert_ok(hrx_env_u64("HRX_TEST_PARSE_ENV", 1, 8, &value, &present));
  assert_false(present);
  setenv("HRX_TEST_PARSE_ENV", "5", 1);
  assert_ok(hrx_env_u64("HRX_TEST_PARSE_ENV", 1, 8, &value, &present));
  assert_true(present);
  assert_int_equal(value, 5);
  const char* bad[] = {"0", "-1", "abc", "99999"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    setenv("HRX_TEST_PARSE_ENV", bad[i], 1);
    hrx_status_t status =
        hrx_env_u64("HRX_TEST_PARSE_ENV", 1, 8, &value, &present);
    assert_non_null(status);
    assert_status(status, hrx_status_code(status), "HRX_TEST_PARSE_ENV");
  }
  assert_int_equal(value, 5);
  unsetenv("HRX_TEST_PARSE_ENV");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_accepts_plain_decimal),
      cmocka_unit_test(test_parse_rejects_junk_signs_and_overflow),
      cmocka_unit_test(test_env_names_the_variable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
