/* Launch programs: evaluation, limits, facts, and the serialised form. */
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric/launch_program.h"
#include "loom_test_util.h"

/* Builds the launch program of kernel 0 of |source| with the compiler. */
static hrx_loom_launch_program_t* build_loom(const char* source,
                                            const char* const* config,
                                            hrx_loom_module_t** out_module) {
  hrx_loom_module_t* module = loom_test_parse_ok(source);
  hrx_loom_config_t* values = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &values));
  for (; config && *config; ++config) {
    assert_ok(hrx_loom_config_set_assignment(values, *config));
  }
  hrx_loom_specialization_t* spec = NULL;
  assert_ok(hrx_loom_module_specialize(module, values, NULL,
                                       hrx_allocator_system(), &spec));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  hrx_loom_launch_program_t* program = NULL;
  assert_ok(hrx_loom_launch_program_build(module, 0, spec, &profile, NULL,
                                          hrx_allocator_system(), &program));
  hrx_loom_specialization_destroy(spec);
  hrx_loom_config_destroy(values);
  *out_module = module;
  return program;
}

/* Serialises |program| and loads it the way a runtime does. */
static hrx_fabric_launch_program_t* to_runtime(
    const hrx_loom_launch_program_t* program) {
  uint8_t* bytes = NULL;
  size_t length = 0;
  assert_ok(hrx_loom_launch_program_serialize(program, hrx_allocator_system(),
                                              &bytes, &length));
  hrx_fabric_launch_program_t* loaded = NULL;
  assert_ok(hrx_fabric_launch_program_load(bytes, length,
                                           hrx_allocator_system(), &loaded));
  free(bytes);
  return loaded;
}

static hrx_fabric_launch_program_t* build(const char* source,
                                          const char* const* config,
                                          hrx_loom_module_t** out_module) {
  hrx_loom_launch_program_t* program = build_loom(source, config, out_module);
  hrx_fabric_launch_program_t* loaded = to_runtime(program);
  hrx_loom_launch_program_destroy(program);
  return loaded;
}

static hrx_fabric_launch_program_t* build_kernel(const char* file,
                                               const char* const* config,
                                               hrx_loom_module_t** module) {
  char* source = loom_test_read_kernel(file, NULL);
  hrx_fabric_launch_program_t* program = build(source, config, module);
  free(source);
  return program;
}

static void test_saxpy_grid(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_fabric_launch_program_t* p = build_kernel("saxpy.loom", NULL, &module);
  assert_string_equal(hrx_fabric_launch_program_symbol(p), "saxpy");
  assert_int_equal(hrx_fabric_launch_program_workload_count(p), 1);
  const uint64_t sizes[][2] = {{1, 1}, {256, 1}, {257, 2}, {1000, 4},
                               {65536, 256}};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
    assert_ok(hrx_fabric_launch_program_evaluate(p, &sizes[i][0], 1, &c));
    assert_int_equal(c.workgroup_count[0], sizes[i][1]);
    assert_int_equal(c.workgroup_count[1], 1);
    assert_int_equal(c.workgroup_size[0], 256);
    assert_int_equal(c.cluster_size[0], 1);
    assert_int_equal(c.subgroup_size, 32);
    assert_int_equal(c.workgroup_storage_bytes, 0);
  }
  hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  uint64_t zero = 0;
  assert_status_code(hrx_fabric_launch_program_evaluate(p, &zero, 1, &c),
                     HRX_STATUS_INVALID_ARGUMENT);
  uint64_t huge = INT64_MAX;
  assert_status_code(hrx_fabric_launch_program_evaluate(p, &huge, 1, &c),
                     HRX_STATUS_OUT_OF_RANGE);
  uint64_t two[2] = {1, 2};
  assert_status_code(hrx_fabric_launch_program_evaluate(p, two, 2, &c),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_launch_program_evaluate(p, NULL, 1, &c),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* Values past INT64_MAX would wrap to negative indices ("workgroups.x
   * is 0" for 2^64-1): refused, naming the value. */
  const uint64_t wrapping[] = {(uint64_t)-1000, UINT64_MAX,
                               (uint64_t)INT64_MAX + 1};
  for (size_t i = 0; i < sizeof(wrapping) / sizeof(wrapping[0]); ++i) {
    hrx_status_t status =
        hrx_fabric_launch_program_evaluate(p, &wrapping[i], 1, &c);
    assert_non_null(strstr(hrx_status_message(status), "workload value 0"));
    assert_status_code(status, HRX_STATUS_OUT_OF_RANGE);
  }
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

static void test_config_folded(void** state) {
  (void)state;
  const char* const config[] = {"linear.k=4096", "linear.n=1000", NULL};
  hrx_loom_module_t* module = NULL;
  hrx_fabric_launch_program_t* p =
      build_kernel("linear_bf16.loom", config, &module);
  hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  uint64_t unused = 0;
  assert_ok(hrx_fabric_launch_program_evaluate(p, &unused, 1, &c));
  assert_int_equal(c.workgroup_count[0], 125); /* ceil(1000 / 8) */
  assert_int_equal(c.workgroup_size[0], 256);  /* 8 rows x 32 lanes */
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

static void test_storage_from_body(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_fabric_launch_program_t* p = build_kernel("transpose.loom", NULL, &module);
  hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  uint64_t workload[2] = {100, 33};
  assert_ok(hrx_fabric_launch_program_evaluate(p, workload, 2, &c));
  assert_int_equal(c.workgroup_count[0], 3);
  assert_int_equal(c.workgroup_count[1], 7);
  assert_int_equal(c.workgroup_size[1], 16);
  assert_int_equal(c.workgroup_storage_bytes, 1024);
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

#define SIMPLE(config_body, launch_body)                                   \
  "kernel.def @k(%n: index, %s: i32) {\n"                                  \
  "  %one = index.constant 1 : index\n" config_body                        \
  "} launch() {\n" launch_body "  kernel.return\n}\n"

static void test_limits(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_fabric_launch_program_t* p = build(
      SIMPLE("  kernel.launch.config workgroups(%one, %one, %one) "
             "workgroup_size(%n, %n, %one) : index\n", ""),
      NULL, &module);
  hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  uint64_t ok[2] = {32, 0};
  assert_ok(hrx_fabric_launch_program_evaluate(p, ok, 2, &c));
  uint64_t too_many[2] = {33, 0}; /* 33 * 33 > 1024 threads */
  assert_status_code(hrx_fabric_launch_program_evaluate(p, too_many, 2, &c),
                     HRX_STATUS_OUT_OF_RANGE);
  uint64_t one_dim[2] = {2048, 0};
  assert_status_code(hrx_fabric_launch_program_evaluate(p, one_dim, 2, &c),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);

  p = build(SIMPLE("  kernel.launch.config workgroups(%one, %one, %one) "
                   "workgroup_size(%one, %one, %one) : index\n",
                   "  %b = index.constant 100000 : offset\n"
                   "  %l = buffer.alloca<workgroup> align(16) %b : buffer\n"),
            NULL, &module);
  assert_status_code(hrx_fabric_launch_program_evaluate(p, ok, 2, &c),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

/* Launch arithmetic never wraps: an overflowing expression is an error
 * that names it (operation and operands), not a wrapped grid. */
static void test_overflow_names_expression(void** state) {
  (void)state;
  static const struct {
    const char* expression;
    uint64_t n;
    const char* message;
  } cases[] = {
      {"%g = index.mul %n, %n : index", UINT64_C(1) << 40,
       "1099511627776 * 1099511627776 overflows"},
      {"%g = index.add %n, %n : index", INT64_MAX, "9223372036854775807 + "},
      {"%c = index.constant 62 : index\n  %g = index.shli %n, %c : index", 5,
       "5 << 62 overflows"},
      {"%g = index.madd %n, %n, %one : index", UINT64_C(1) << 32,
       "4294967296 * 4294967296 + 1 overflows"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char source[1024];
    snprintf(source, sizeof(source),
             "kernel.def @k(%%n: index) {\n"
             "  %%one = index.constant 1 : index\n"
             "  %s\n"
             "  kernel.launch.config workgroups(%%g, %%one, %%one) "
             "workgroup_size(%%one, %%one, %%one) : index\n"
             "} launch() {\n  kernel.return\n}\n",
             cases[i].expression);
    hrx_loom_module_t* module = NULL;
    hrx_fabric_launch_program_t* p = build(source, NULL, &module);
    hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
    hrx_status_t status =
        hrx_fabric_launch_program_evaluate(p, &cases[i].n, 1, &c);
    if (!strstr(hrx_status_message(status), cases[i].message)) {
      fail_msg("case %zu: %s", i, hrx_status_message(status));
    }
    assert_status_code(status, HRX_STATUS_OUT_OF_RANGE);
    hrx_fabric_launch_program_destroy(p);
    hrx_loom_module_destroy(module);
  }
}

static void test_facts_and_casts(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_fabric_launch_program_t* p = build(
      SIMPLE("  %m = index.assume %n [range(%n, 1, 64), mul(%n, 2)] : index\n"
             "  %t = index.cast %s : i32 to index\n"
             "  %z = index.constant 0 : index\n"
             "  %neg = index.cmp slt, %t, %z : index\n"
             "  %g = scf.select %neg, %one, %m : index\n"
             "  kernel.launch.config workgroups(%g, %one, %one) "
             "workgroup_size(%one, %one, %one) : index\n", ""),
      NULL, &module);
  hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  uint64_t good[2] = {8, 5};
  assert_ok(hrx_fabric_launch_program_evaluate(p, good, 2, &c));
  assert_int_equal(c.workgroup_count[0], 8);
  /* The i32 argument is sign-extended from its low 32 bits. */
  uint64_t negative[2] = {8, 0xffffffffu};
  assert_ok(hrx_fabric_launch_program_evaluate(p, negative, 2, &c));
  assert_int_equal(c.workgroup_count[0], 1);
  uint64_t odd[2] = {7, 0};
  assert_status_code(hrx_fabric_launch_program_evaluate(p, odd, 2, &c),
                     HRX_STATUS_INVALID_ARGUMENT);
  uint64_t big[2] = {128, 0};
  hrx_status_t status = hrx_fabric_launch_program_evaluate(p, big, 2, &c);
  assert_non_null(strstr(hrx_status_message(status), "range"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  hrx_fabric_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

static void expect_build_failure(const char* source,
                                 hrx_loom_diag_code_t code) {
  hrx_loom_module_t* module = loom_test_parse_ok(source);
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  hrx_loom_launch_program_t* p = NULL;
  assert_status_code(
      hrx_loom_launch_program_build(module, 0, NULL, &profile, diagnostics,
                                    hrx_allocator_system(), &p),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_null(p);
  assert_int_equal(hrx_loom_diagnostics_at(diagnostics, 0)->code, code);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_module_destroy(module);
}

static void test_unsupported(void** state) {
  (void)state;
  expect_build_failure(
      SIMPLE("  %z = index.constant 0 : index\n"
             "  scf.for %i = [%z to %n step %one] {\n  }\n"
             "  kernel.launch.config workgroups(%one, %one, %one) "
             "workgroup_size(%one, %one, %one) : index\n", ""),
      HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED);
  expect_build_failure(
      "kernel.def @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%bytes: offset) {\n"
      "  %l = buffer.alloca<workgroup> %bytes : buffer\n"
      "  kernel.return\n}\n",
      HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT);
  /* A config read with no specialisation at all. */
  expect_build_failure(
      "config.decl @c : index\n"
      "kernel.def @k() {\n"
      "  %one = config.get @c : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch() {\n  kernel.return\n}\n",
      HRX_LOOM_DIAG_CONFIG_MISSING);
}

static hrx_loom_launch_program_t* saxpy_program(hrx_loom_module_t** module) {
  char* source = loom_test_read_kernel("saxpy.loom", NULL);
  hrx_loom_launch_program_t* program = build_loom(source, NULL, module);
  free(source);
  return program;
}

static void test_serialize_round_trip(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_loom_launch_program_t* p = saxpy_program(&module);
  uint8_t* bytes = NULL;
  size_t length = 0;
  assert_ok(hrx_loom_launch_program_serialize(p, hrx_allocator_system(),
                                              &bytes, &length));
  hrx_fabric_launch_program_t* loaded = NULL;
  assert_ok(hrx_fabric_launch_program_load(bytes, length,
                                           hrx_allocator_system(), &loaded));
  assert_string_equal(hrx_fabric_launch_program_symbol(loaded), "saxpy");
  for (uint64_t n = 1; n < 5000; n += 97) {
    hrx_fabric_launch_config_t c = HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
    assert_ok(hrx_fabric_launch_program_evaluate(loaded, &n, 1, &c));
    assert_int_equal(c.workgroup_count[0], (n + 255) / 256);
  }
  hrx_fabric_launch_program_destroy(loaded);

  /* Every truncation and every single-byte change is rejected. */
  for (size_t cut = 0; cut < length; ++cut) {
    hrx_status_t status = hrx_fabric_launch_program_load(
        bytes, cut, hrx_allocator_system(), &loaded);
    assert_non_null(status);
    assert_null(loaded);
    hrx_status_free(status);
  }
  for (size_t at = 0; at < length; ++at) {
    bytes[at] ^= 0x5a;
    hrx_status_t status = hrx_fabric_launch_program_load(
        bytes, length, hrx_allocator_system(), &loaded);
    assert_non_null(status);
    assert_null(loaded);
    hrx_status_free(status);
    bytes[at] ^= 0x5a;
  }
  free(bytes);
  hrx_loom_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

/* Re-seals a modified blob so only the structural checks can catch it. */
static void reseal(uint8_t* bytes, size_t length) {
  hrx_sha256_digest_t digest;
  hrx_sha256(bytes, length - 32, &digest);
  memcpy(bytes + length - 32, digest.bytes, 32);
}

static void test_structural_checks(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_loom_launch_program_t* p = saxpy_program(&module);
  uint8_t* bytes = NULL;
  size_t length = 0;
  assert_ok(hrx_loom_launch_program_serialize(p, hrx_allocator_system(),
                                              &bytes, &length));
  hrx_fabric_launch_program_t* loaded = NULL;
  /* version */
  bytes[4] = 9;
  reseal(bytes, length);
  assert_status_code(hrx_fabric_launch_program_load(
                         bytes, length, hrx_allocator_system(), &loaded),
                     HRX_STATUS_UNIMPLEMENTED);
  bytes[4] = 1;
  /* register count 0 */
  uint8_t saved[4];
  memcpy(saved, bytes + 12, 4);
  memset(bytes + 12, 0, 4);
  reseal(bytes, length);
  assert_status_code(hrx_fabric_launch_program_load(
                         bytes, length, hrx_allocator_system(), &loaded),
                     HRX_STATUS_INVALID_ARGUMENT);
  memcpy(bytes + 12, saved, 4);
  /* every instruction's register field pointed out of range */
  size_t header = 8 + 6 * 4 + 3 * 8 + 9 * 2 + 4 + strlen("saxpy");
  bytes[header + 1] = 0xff;
  bytes[header + 2] = 0xff;
  reseal(bytes, length);
  assert_status_code(hrx_fabric_launch_program_load(
                         bytes, length, hrx_allocator_system(), &loaded),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* bad magic */
  bytes[0] = 'X';
  assert_status_code(hrx_fabric_launch_program_load(
                         bytes, length, hrx_allocator_system(), &loaded),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(bytes);
  hrx_loom_launch_program_destroy(p);
  hrx_loom_module_destroy(module);
}

static void test_bad_build_arguments(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  hrx_loom_launch_program_t* p = saxpy_program(&module);
  hrx_loom_launch_program_destroy(p);
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  assert_status_code(hrx_loom_launch_program_build(
                         module, 5, NULL, &profile, NULL,
                         hrx_allocator_system(), &p),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_loom_profile_t empty = {0};
  assert_status_code(hrx_loom_launch_program_build(
                         module, 0, NULL, &empty, NULL,
                         hrx_allocator_system(), &p),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_loom_module_destroy(module);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saxpy_grid),
      cmocka_unit_test(test_config_folded),
      cmocka_unit_test(test_storage_from_body),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_overflow_names_expression),
      cmocka_unit_test(test_facts_and_casts),
      cmocka_unit_test(test_unsupported),
      cmocka_unit_test(test_serialize_round_trip),
      cmocka_unit_test(test_structural_checks),
      cmocka_unit_test(test_bad_build_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
