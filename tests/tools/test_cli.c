/* The hrx command-line tool, run as a user would run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_support.h"

typedef struct run_result_t {
  int exit_code;
  char output[8192]; /* stdout and stderr together */
} run_result_t;

/* Runs "$HRX_TOOL <args>" through the shell with |env| prefixed. */
static void run_hrx(const char* env, const char* args, run_result_t* out) {
  const char* tool = getenv("HRX_TOOL");
  assert_non_null(tool);
  char* command =
      test_strdup_printf("env %s '%s' %s 2>&1", env ? env : "", tool, args);
  FILE* pipe = popen(command, "r");
  assert_non_null(pipe);
  size_t n = fread(out->output, 1, sizeof(out->output) - 1, pipe);
  out->output[n] = '\0';
  int status = pclose(pipe);
  assert_true(WIFEXITED(status));
  out->exit_code = WEXITSTATUS(status);
  free(command);
}

static void test_version(void** state) {
  (void)state;
  run_result_t r;
  run_hrx(NULL, "--version", &r);
  assert_int_equal(r.exit_code, 0);
  assert_true(strncmp(r.output, "hrx ", 4) == 0);
  assert_non_null(strstr(r.output, hrx_core_version()));
}

static void test_help(void** state) {
  (void)state;
  run_result_t r;
  run_hrx(NULL, "help", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "doctor"));
  run_hrx(NULL, "--help", &r);
  assert_int_equal(r.exit_code, 0);
}

static void test_usage_errors_exit_2(void** state) {
  (void)state;
  const char* cases[] = {"", "frobnicate", "--frobnicate", "doctor --bogus",
                         "help extra", "--version extra"};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    run_result_t r;
    run_hrx(NULL, cases[i], &r);
    if (r.exit_code != 2) {
      fail_msg("'hrx %s' exited %d: %s", cases[i], r.exit_code, r.output);
    }
    assert_non_null(strstr(r.output, "hrx"));
  }
  run_result_t r;
  run_hrx(NULL, "frobnicate", &r);
  assert_non_null(strstr(r.output, "unknown command 'frobnicate'"));
}

static void test_doctor_cache_root(void** state) {
  (void)state;
  run_result_t r;
  run_hrx("XDG_CACHE_HOME=/var/tmp/xdg HOME=/home/someone", "doctor", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "hrx-core"));
  assert_non_null(strstr(r.output, "cache root   /var/tmp/xdg/hrx (from xdg)"));
  assert_non_null(strstr(r.output, "devices:"));
  assert_non_null(strstr(r.output, "host         HRX host device"));
  assert_non_null(strstr(r.output, "hrx-loom"));
  /* A relative XDG_CACHE_HOME falls back to $HOME/.cache/hrx. */
  run_hrx("XDG_CACHE_HOME=relative HOME=/home/someone", "doctor", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(
      strstr(r.output, "cache root   /home/someone/.cache/hrx (from home)"));
  run_hrx("XDG_RUNTIME_DIR=/run/user/77", "doctor", &r);
  assert_non_null(strstr(r.output, "runtime dir  /run/user/77/hrx"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_usage_errors_exit_2),
      cmocka_unit_test(test_doctor_cache_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
