/* hrx run: code objects dispatched on the host device, run as a user
 * would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

/* Buffers name their contents; a file that cannot be read is an error that
 * names it, never an empty buffer. */
static void test_run_reports_unreadable_buffer_file(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  char* args = test_strdup_printf("compile %s/saxpy.loom --output=%s/s.hxco",
                                  getenv("HRX_LOOM_KERNELS"), root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("compile: %s", r.output);
  free(args);
  args = test_strdup_printf(
      "run %s/s.hxco --export=saxpy --workload=4 --scalar=4 "
      "--scalar=0.5 --buffer=@%s/missing.bin --buffer=f32:1,1,1,1",
      root, root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "missing.bin"));
  free(args);
  free(env);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_reports_unreadable_buffer_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
