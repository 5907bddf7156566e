#include <stdio.h>
#include <stdlib.h>
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
