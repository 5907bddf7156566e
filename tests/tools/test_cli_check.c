/* hrx check: HRX's own checked kernels run on the host device as a user
 * would run them; a wrong expectation fails naming the case and element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

/* Runs "hrx check ARGS" with the kernel cache under |root|. */
static void check(const char* root, const char* args, run_result_t* out) {
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  char* command = test_strdup_printf("check %s", args);
  run_hrx(env, command, out);
  free(command);
  free(env);
}

static void expect_line(const run_result_t* r, const char* line) {
  if (!strstr(r->output, line)) fail_msg("no '%s' in:\n%s", line, r->output);
}

/* Every case of HRX's checked kernels passes; scenarios and benchmarks
 * are listed as not run. */
static void test_check_own_kernels_pass(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  static const struct {
    const char* file;
    const char* lines[4];
  } kernels[] = {
      {"scale_checked.loom",
       {"PASS scale_small\n", "NOT RUN scale_bench (check.benchmark of "
        "@scale_small)\n", "1 passed, 0 failed, 1 not run\n"}},
      {"workgroup_reduce.loom",
       {"PASS reduce_ramp\n", "PASS reduce_periodic\n",
        "NOT RUN reduce_twice (check.scenario)\n",
        "2 passed, 0 failed, 1 not run\n"}},
      {"tile_product.loom",
       {"PASS tile_ones_by_columns\n", "PASS tile_columns_by_halves\n",
        "2 passed, 0 failed, 1 not run\n"}},
      {"workgroup_reduce_kinds.loom",
       {"PASS reduce_floats\n", "PASS reduce_integers\n",
        "2 passed, 0 failed, 0 not run\n"}},
      {"vector_elementwise.loom",
       {"PASS vector_chain\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_build.loom",
       {"PASS vector_masks\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_dot.loom",
       {"PASS vector_dots\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_bits.loom",
       {"PASS vector_fields\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_layout.loom",
       {"PASS vector_lane_moves\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_math.loom",
       {"PASS vector_math_lanes\n", "1 passed, 0 failed, 0 not run\n"}},
      {"vector_trig.loom",
       {"PASS vector_trig_lanes\n", "1 passed, 0 failed, 0 not run\n"}},
      {"wmma_gemm.loom",
       {"PASS wmma_16x16x16\n", "PASS wmma_16x16x16_bf16\n",
        "PASS wmma_operand_copies\n", "6 passed, 0 failed, 0 not run\n"}},
      {"wmma_f16acc.loom",
       {"PASS wmma_f16acc_16x16x16\n", "PASS wmma_bf16acc_16x16x16\n",
        "3 passed, 0 failed, 0 not run\n"}},
      {"wmma_int8.loom",
       {"PASS wmma_i8_16x16x16\n", "PASS wmma_i8_saturate_16x16x16\n",
        "3 passed, 0 failed, 0 not run\n"}},
      {"f8_convert.loom",
       {"PASS f8_round_trip_all\n", "PASS f8e5m2_round_trip\n",
        "2 passed, 0 failed, 0 not run\n"}},
      {"elementwise_ops.loom",
       {"PASS int_elementwise\n", "1 passed, 0 failed, 0 not run\n"}},
  };
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i) {
    char* args = test_strdup_printf("%s/check/%s --device=0",
                                    getenv("HRX_TEST_KERNELS"),
                                    kernels[i].file);
    run_result_t r;
    check(root, args, &r);
    if (r.exit_code != 0) fail_msg("%s: exit %d:\n%s", args, r.exit_code,
                                   r.output);
    for (size_t l = 0; l < 4 && kernels[i].lines[l]; ++l) {
      expect_line(&r, kernels[i].lines[l]);
    }
    free(args);
  }
  test_temp_dir_remove(root);
}

/* Workgroup reductions of every kind, the vector ops, the fragment GEMMs
 * (f32, 16-bit and integer accumulators) and the f8 conversions give on
 * the modelled gfx1151 (device 1 with HRX_KFD_MODEL) what they give on the
 * host device. */
static void test_check_kernels_on_gfx1151(void** state) {
  (void)state;
  if (strcmp(getenv("HRX_TEST_HAVE_LLVM"), "1") != 0) skip();
  char* root = test_temp_dir_create();
  char* fixture = kfd_model_fixture("gfx1151");
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s HRX_KFD_MODEL=%s", root,
                                 fixture);
  static const struct {
    const char* file;
    const char* summary;
  } kernels[] = {
      {"workgroup_reduce_kinds.loom", "2 passed, 0 failed, 0 not run\n"},
      {"vector_elementwise.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_build.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_dot.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_bits.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_layout.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_math.loom", "1 passed, 0 failed, 0 not run\n"},
      {"vector_trig.loom", "1 passed, 0 failed, 0 not run\n"},
      {"wmma_gemm.loom", "6 passed, 0 failed, 0 not run\n"},
      {"wmma_f16acc.loom", "3 passed, 0 failed, 0 not run\n"},
      {"wmma_int8.loom", "3 passed, 0 failed, 0 not run\n"},
      {"f8_convert.loom", "2 passed, 0 failed, 0 not run\n"},
      {"elementwise_ops.loom", "1 passed, 0 failed, 0 not run\n"},
  };
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i) {
    char* args = test_strdup_printf("check %s/check/%s --device=1",
                                    getenv("HRX_TEST_KERNELS"),
                                    kernels[i].file);
    run_result_t r;
    run_hrx(env, args, &r);
    if (r.exit_code != 0) {
      fail_msg("%s: exit %d:\n%s", args, r.exit_code, r.output);
    }
    expect_line(&r, kernels[i].summary);
    free(args);
  }
  free(env);
  free(fixture);
  test_temp_dir_remove(root);
}

/* A copy of |name| with |from| replaced by |to| (which must occur), in
 * ROOT/wrong.loom; returns its path. */
static char* write_variant(const char* root, const char* name,
                           const char* from, const char* to) {
  char* path = test_strdup_printf("%s/check/%s", getenv("HRX_TEST_KERNELS"),
                                  name);
  char* text = test_read_text(path);
  char* at = strstr(text, from);
  assert_non_null(at);
  char* variant = test_strdup_printf("%.*s%s%s", (int)(at - text), text, to,
                                     at + strlen(from));
  free(path);
  path = test_strdup_printf("%s/wrong.loom", root);
  test_write_file(path, variant, strlen(variant));
  free(variant);
  free(text);
  return path;
}

/* Checks the variant of |name| that write_variant makes: exit |code| and
 * an output holding |line|. */
static void expect_variant(const char* root, const char* name,
                           const char* from, const char* to, int code,
                           const char* line) {
  char* path = write_variant(root, name, from, to);
  run_result_t r;
  check(root, path, &r);
  if (r.exit_code != code) fail_msg("exit %d:\n%s", r.exit_code, r.output);
  expect_line(&r, line);
  free(path);
}

/* A wrong expected value fails the case, naming it and the first element
 * that differs with both values; the other cases still pass. */
static void test_check_wrong_expectation_fails(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  /* Group 1 of reduce_ramp now expects 6176 + 1 (step 4097). */
  expect_variant(root, "workgroup_reduce.loom", "step(4096.0)",
                 "step(4097.0)", 1,
                 "FAIL reduce_ramp: element 1: got 6176, expected 6177 "
                 "(%partials vs %expected, equal)\n"
                 "PASS reduce_periodic\n"
                 "NOT RUN reduce_twice (check.scenario)\n"
                 "1 passed, 1 failed, 1 not run\n");
  /* A tolerance names itself; a 2-D tensor's element by flat index. */
  expect_variant(root, "tile_product.loom", "value(60.0)", "value(60.5)", 1,
                 "FAIL tile_columns_by_halves: element 0: got 60, expected "
                 "60.5 (%c vs %expected, close: atol 0.0001, rtol 1e-06, "
                 "nan same)\n");
  test_temp_dir_remove(root);
}

/* Usage and compile errors exit 2; a launch the kernel refuses fails the
 * case, not hrx. */
static void test_check_errors(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  run_result_t r;
  check(root, "", &r);
  assert_int_equal(r.exit_code, 2);
  expect_line(&r, "missing FILE.loom");
  check(root, "x.loom --device=99", &r);
  assert_int_equal(r.exit_code, 2);
  expect_line(&r, "bad --device=99");
  expect_variant(root, "scale_checked.loom", "constant 40 : index",
                 "constant 40 : nosuchtype", 2, "unknown type 'nosuchtype'");
  expect_variant(root, "scale_checked.loom", "constant 40 : index",
                 "constant 0 : index", 1,
                 "FAIL scale_small: INVALID_ARGUMENT: workload for "
                 "@scale_checked violates fact range: value 0, bounds "
                 "1..4096");
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_own_kernels_pass),
      cmocka_unit_test(test_check_kernels_on_gfx1151),
      cmocka_unit_test(test_check_wrong_expectation_fails),
      cmocka_unit_test(test_check_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
