/* Host code objects: the loader rejects every truncation and tampering,
 * and structurally broken (re-sealed) objects fail cleanly. */
#include <stdlib.h>
#include <string.h>

#include "host_harness.h"

static uint8_t* compile_saxpy(size_t* out_length) {
  const char* dir = getenv("HRX_LOOM_KERNELS");
  char* path = test_strdup_printf("%s/saxpy.loom", dir);
  void* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &text,
                              &length));
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(text, length, NULL, NULL,
                                  hrx_allocator_system(), &module));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  uint8_t* code = NULL;
  assert_ok(hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                                  hrx_allocator_system(), &code, out_length));
  hrx_loom_module_destroy(module);
  free(text);
  free(path);
  return code;
}

static void reseal(uint8_t* bytes, size_t length) {
  hrx_sha256_digest_t digest;
  hrx_sha256(bytes, length - 32, &digest);
  memcpy(bytes + length - 32, digest.bytes, 32);
}

static void test_loads_and_describes(void** state) {
  hrx_fabric_device_t* device = *state;
  size_t length = 0;
  uint8_t* code = compile_saxpy(&length);
  hrx_fabric_executable_t* exe = NULL;
  assert_ok(hrx_fabric_executable_load(device, code, length, &exe));
  assert_int_equal(hrx_fabric_executable_kernel_count(exe), 1);
  const hrx_fabric_kernel_t* kernel = NULL;
  assert_ok(hrx_fabric_executable_find_kernel(exe, "saxpy", &kernel));
  assert_status_code(hrx_fabric_executable_find_kernel(exe, "nope", &kernel),
                     HRX_STATUS_NOT_FOUND);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(
      hrx_fabric_kernel_info(hrx_fabric_executable_kernel_at(exe, 0), &info));
  assert_string_equal(info.name, "saxpy");
  assert_int_equal(info.arg_count, 4);
  assert_int_equal(info.args[0].offset, 0);   /* %n: index */
  assert_int_equal(info.args[1].offset, 8);   /* %alpha: f32 */
  assert_int_equal(info.args[2].offset, 16);  /* %x: buffer */
  assert_int_equal(info.args[2].kind, HRX_FABRIC_ARG_BUFFER);
  assert_int_equal(info.kernarg_size, 32);
  assert_int_equal(info.subgroup_size, 32);
  assert_true(info.launch_program_length > 0);
  assert_null(hrx_fabric_executable_kernel_at(exe, 1));
  hrx_fabric_executable_release(exe);
  free(code);
}

static void test_rejects_truncation_and_tampering(void** state) {
  hrx_fabric_device_t* device = *state;
  size_t length = 0;
  uint8_t* code = compile_saxpy(&length);
  hrx_fabric_executable_t* exe = NULL;
  for (size_t cut = 1; cut < length; cut += 7) {
    hrx_status_t status = hrx_fabric_executable_load(device, code, cut, &exe);
    assert_non_null(status);
    assert_null(exe);
    hrx_status_free(status);
  }
  for (size_t at = 0; at < length; ++at) {
    code[at] ^= 0x20;
    hrx_status_t status =
        hrx_fabric_executable_load(device, code, length, &exe);
    assert_non_null(status);
    assert_null(exe);
    hrx_status_free(status);
    code[at] ^= 0x20;
  }
  assert_status_code(hrx_fabric_executable_load(device, NULL, 0, &exe),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(code);
}

static void test_resealed_mutations_fail_cleanly(void** state) {
  hrx_fabric_device_t* device = *state;
  size_t length = 0;
  uint8_t* code = compile_saxpy(&length);
  uint8_t* copy = malloc(length);
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  size_t loaded = 0, rejected = 0;
  /* Every byte of the body, several values, checksum made valid: the
   * structural checks alone must keep the loader (and ASan) happy. */
  for (size_t at = 0; at + 32 < length; ++at) {
    for (size_t v = 0; v < sizeof(values); ++v) {
      memcpy(copy, code, length);
      if (copy[at] == values[v]) continue;
      copy[at] = values[v];
      reseal(copy, length);
      hrx_fabric_executable_t* exe = NULL;
      hrx_status_t status =
          hrx_fabric_executable_load(device, copy, length, &exe);
      if (status == HRX_OK) {
        ++loaded;
        hrx_fabric_executable_release(exe);
      } else {
        ++rejected;
        hrx_status_free(status);
      }
    }
  }
  assert_true(rejected > 0);
  assert_true(loaded > 0); /* e.g. changed constants are still valid code */
  /* Version and trailing bytes get their own codes. */
  memcpy(copy, code, length);
  copy[4] = HRX_HOST_CODE_VERSION + 1;
  reseal(copy, length);
  hrx_fabric_executable_t* exe = NULL;
  assert_status_code(hrx_fabric_executable_load(device, copy, length, &exe),
                     HRX_STATUS_UNIMPLEMENTED);
  uint8_t* longer = malloc(length + 1);
  memcpy(longer, code, length - 32);
  longer[length - 32] = 0;
  memcpy(longer + length - 31, code + length - 32, 32);
  reseal(longer, length + 1);
  assert_status_code(
      hrx_fabric_executable_load(device, longer, length + 1, &exe),
      HRX_STATUS_INVALID_ARGUMENT);
  free(longer);
  free(copy);
  free(code);
}

static int setup(void** state) {
  hrx_fabric_device_t* device = NULL;
  assert_ok(hrx_fabric_host_device_create(NULL, hrx_allocator_system(),
                                          &device));
  *state = device;
  return 0;
}

static int teardown(void** state) {
  hrx_fabric_device_release(*state);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loads_and_describes),
      cmocka_unit_test(test_rejects_truncation_and_tampering),
      cmocka_unit_test(test_resealed_mutations_fail_cleanly),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
