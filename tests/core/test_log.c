/* Log levels, HRX_LOG parsing, sinks and filtering. */
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

typedef struct capture_t {
  int lines;
  hrx_log_level_t last_level;
  char last[256];
} capture_t;

static void capture_sink(void* self, hrx_log_level_t level,
                         const char* line) {
  capture_t* capture = self;
  capture->lines++;
  capture->last_level = level;
  strncpy(capture->last, line, sizeof(capture->last) - 1);
}

static void test_parse_levels(void** state) {
  (void)state;
  hrx_log_level_t level;
  assert_ok(hrx_log_level_parse("debug", &level));
  assert_int_equal(level, HRX_LOG_DEBUG);
  assert_ok(hrx_log_level_parse("INFO", &level));
  assert_int_equal(level, HRX_LOG_INFO);
  assert_ok(hrx_log_level_parse("warning", &level));
  assert_int_equal(level, HRX_LOG_WARN);
  assert_ok(hrx_log_level_parse("error", &level));
  assert_int_equal(level, HRX_LOG_ERROR);
  assert_ok(hrx_log_level_parse("off", &level));
  assert_int_equal(level, HRX_LOG_OFF);
  assert_status_code(hrx_log_level_parse("verbose", &level),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_log_level_parse(NULL, &level),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_string_equal(hrx_log_level_string(HRX_LOG_WARN), "warn");
  assert_string_equal(hrx_log_level_string((hrx_log_level_t)42), "unknown");
}

static void test_filtering(void** state) {
  (void)state;
  capture_t capture = {0};
  hrx_logger_t logger = {
      .level = HRX_LOG_INFO, .sink = capture_sink, .self = &capture};
  hrx_log(&logger, HRX_LOG_DEBUG, "hidden %d", 1);
  assert_int_equal(capture.lines, 0);
  hrx_log(&logger, HRX_LOG_ERROR, "shown %d", 2);
  assert_int_equal(capture.lines, 1);
  assert_string_equal(capture.last, "shown 2");
  assert_int_equal(capture.last_level, HRX_LOG_ERROR);
  hrx_status_t status = hrx_make_status(HRX_STATUS_BUSY, "queue full");
  hrx_log_status(&logger, HRX_LOG_WARN, "submit", status);
  hrx_status_free(status);
  assert_string_equal(capture.last, "submit: BUSY: queue full");
  /* OFF is never emitted, even at the OFF threshold. */
  logger.level = HRX_LOG_OFF;
  hrx_log(&logger, HRX_LOG_ERROR, "x");
  hrx_log(&logger, HRX_LOG_OFF, "x");
  assert_int_equal(capture.lines, 2);
  assert_false(hrx_log_enabled(NULL, HRX_LOG_ERROR));
}

static void test_env_level(void** state) {
  (void)state;
  setenv("HRX_LOG", "debug", 1);
  assert_int_equal(hrx_logger_from_env().level, HRX_LOG_DEBUG);
  setenv("HRX_LOG", "nonsense", 1);
  assert_int_equal(hrx_logger_from_env().level, HRX_LOG_WARN);
  unsetenv("HRX_LOG");
  assert_int_equal(hrx_logger_from_env().level, HRX_LOG_WARN);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_levels),
      cmocka_unit_test(test_filtering),
      cmocka_unit_test(test_env_level),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
