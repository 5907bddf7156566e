/* Workload constraints, unroll hints, multi-value index.assume, attribute
 * aliases, other target records, kernel.decl and the executable test forms
 * (check.case, tensor<...>, kernel.launch, check.expect.*): kept, verified,
 * printed back in upstream's forms; the kernel still runs on the host. */
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"
#include "loom_test_util.h"

#define CHECKED "check/scale_checked.loom"

static void test_forms_print_back(void** state) {
  (void)state;
  size_t length = 0;
  char* text = loom_test_read_test_kernel(CHECKED, &length);
  loom_test_expect_printed(text, "spirv.target<vulkan1.3> @gpu_elsewhere "
                                 "{version = 13}\n");
  loom_test_expect_printed(text, "#rows = #dense\n");
  loom_test_expect_printed(text, "launch(%n: index, %input: buffer, %output: "
                                 "buffer) where [range(%n, 1, 4096)] {");
  loom_test_expect_printed(text, "%i, %m = index.assume %i0, %n [range(%i0, "
                                 "0, 8191), range(%n, 1, 4096)] : index, "
                                 "index\n");
  loom_test_expect_printed(text, "[%c0 to %c2 step %c1] unroll(2)(");
  loom_test_expect_printed(text, "kernel.decl @defined_elsewhere(%n: index) "
                                 "launch(%n: index, %out: buffer)\n");
  loom_test_expect_printed(text, "check.case public @scale_small {");
  loom_test_expect_printed(
      text, "check.generate.iota offset(-4.0) step(0.5) : tensor<40xf32>");
  loom_test_expect_printed(
      text, "kernel.launch @scale_checked[%n](%n, %input, %output) : "
            "[index](index, tensor<40xf32>, tensor<40xf32>)");
  loom_test_expect_printed(
      text, "check.expect.close actual(%output) expected(%expected) "
            "atol(0.0) rtol(0.000001) nan(same) : tensor<40xf32>");
  loom_test_expect_printed(text, "check.benchmark<@scale_small> "
                                 "@scale_bench {n = 40}\n");
  free(text);
}

/* The where-clause fact about a workload value is checked when the launch
 * program runs; the kernel computes 2 * x. */
static void test_constrained_kernel_runs(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(CHECKED, &length);
  /* The spirv target is kept but compiles for nothing: drop it here. */
  char* spirv = strstr(text, "spirv.target");
  memset(spirv, ' ', (size_t)(strchr(spirv, '\n') - spirv));
  harness_load_source(&h, CHECKED, text, length, NULL);
  free(text);
  size_t n = 40;
  hrx_fabric_memory_t in = harness_buffer(&h, n * 4);
  hrx_fabric_memory_t out = harness_buffer(&h, n * 4);
  float* x = in.host_pointer;
  for (size_t i = 0; i < n; ++i) x[i] = (float)i * 0.5f - 4.0f;
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(&h, "scale_checked", workload, 1, args, 3));
  const float* y = out.host_pointer;
  for (size_t i = 0; i < n; ++i) assert_true(y[i] == 2.0f * x[i]);
  hrx_fabric_memory_free(h.device, &in);
  hrx_fabric_memory_free(h.device, &out);
  harness_close(&h);
}

/* A kernel for another target family is refused by name at compile. */
static void test_foreign_target_refused(void** state) {
  (void)state;
  harness_t h;
  harness_open(&h);
  char* report = harness_compile_error(
      &h, "spirv.loom",
      "spirv.target<vulkan1.3> @v\n"
      "kernel.def target(@v) export(\"k\") @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch() {\n"
      "  kernel.return\n"
      "}\n");
  if (!strstr(report, "spirv.loom:1:1: error[L0508]: spirv.target is not "
                      "supported")) {
    fail_msg("unexpected report:\n%s", report);
  }
  free(report);
  harness_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forms_print_back),
      cmocka_unit_test(test_constrained_kernel_runs),
      cmocka_unit_test(test_foreign_target_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
