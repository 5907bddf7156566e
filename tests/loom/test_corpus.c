/* The kernel corpus parses, verifies, prints and round-trips. */
#include <stdlib.h>
#include <string.h>

#include "loom_test_util.h"

static const char* const corpus[] = {
    "saxpy.loom",     "reduce_sum.loom",     "gather.loom",
    "linear_bf16.loom", "transpose.loom",    "affine_sampler.loom",
    "histogram.loom", "ring_drain.loom",   "row_dot.loom",
};

static void test_round_trip(void** state) {
  const char* name = *state;
  char* source = loom_test_read_kernel(name, NULL);
  hrx_loom_module_t* first = loom_test_parse_ok(source);
  char* printed = loom_test_print(first);
  hrx_loom_module_t* second = loom_test_parse_ok(printed);
  char* reprinted = loom_test_print(second);
  /* print(parse(print(parse(x)))) == print(parse(x)). */
  assert_string_equal(printed, reprinted);
  assert_true(hrx_loom_module_kernel_count(first) >= 1);
  assert_int_equal(hrx_loom_module_kernel_count(first),
                   hrx_loom_module_kernel_count(second));
  free(reprinted);
  hrx_loom_module_destroy(second);
  free(printed);
  hrx_loom_module_destroy(first);
  free(source);
}

static void test_kernel_info(void** state) {
  (void)state;
  char* source = loom_test_read_kernel("saxpy.loom", NULL);
  hrx_loom_module_t* module = loom_test_parse_ok(source);
  size_t kernel = 99;
  assert_ok(hrx_loom_module_find_export(module, "saxpy", &kernel));
  assert_int_equal(kernel, 0);
  assert_status_code(hrx_loom_module_find_export(module, "nope", &kernel),
                     HRX_STATUS_NOT_FOUND);
  hrx_loom_kernel_info_t info = HRX_STRUCT_INIT(hrx_loom_kernel_info_t);
  assert_ok(hrx_loom_module_kernel_info(module, 0, &info));
  assert_string_equal(info.symbol, "saxpy");
  assert_string_equal(info.export_name, "saxpy");
  assert_string_equal(info.target_kind, "cpu");
  assert_int_equal(info.subgroup_size, 32);
  assert_int_equal(info.workload_arg_count, 1);
  assert_int_equal(info.launch_arg_count, 4);
  hrx_loom_arg_info_t arg = HRX_STRUCT_INIT(hrx_loom_arg_info_t);
  assert_ok(hrx_loom_module_kernel_arg(module, 0, true, 1, &arg));
  assert_string_equal(arg.name, "alpha");
  assert_int_equal(arg.type, HRX_LOOM_ARG_F32);
  assert_ok(hrx_loom_module_kernel_arg(module, 0, true, 3, &arg));
  assert_int_equal(arg.type, HRX_LOOM_ARG_BUFFER);
  assert_status_code(hrx_loom_module_kernel_arg(module, 0, true, 4, &arg),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_status_code(hrx_loom_module_kernel_info(module, 1, &info),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_loom_module_destroy(module);
  free(source);
}

int main(void) {
  struct CMUnitTest tests[sizeof(corpus) / sizeof(corpus[0]) + 1];
  size_t count = 0;
  for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); ++i) {
    tests[count++] = (struct CMUnitTest){
        .name = corpus[i], .test_func = test_round_trip,
        .initial_state = (void*)corpus[i]};
  }
  tests[count++] = (struct CMUnitTest)cmocka_unit_test(test_kernel_info);
  return _cmocka_run_group_tests("corpus", tests, count, NULL, NULL);
}
