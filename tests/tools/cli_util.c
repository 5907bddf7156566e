#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli_util.h"

void run_hrx(const char* env, const char* args, run_result_t* out) {
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

void expect_output(const run_result_t* r, const char* const* needles) {
  for (; *needles; ++needles) {
    if (!strstr(r->output, *needles)) {
      fail_msg("no '%s' in:\n%s", *needles, r->output);
    }
  }
}

char* kfd_model_fixture(const char* name) {
  const char* kernels = getenv("HRX_LOOM_KERNELS");
  assert_non_null(kernels);
  static const char suffix[] = "/libhrx-loom/kernels";
  size_t length = strlen(kernels);
  while (length > 1 && kernels[length - 1] == '/') --length;
  assert_true(length >= sizeof(suffix) - 1);
  size_t root = length - (sizeof(suffix) - 1);
  assert_memory_equal(kernels + root, suffix, sizeof(suffix) - 1);
  return test_strdup_printf("%.*s/tests/fabric/kfd_topology/%s", (int)root,
                            kernels, name);
}
