#include "gpu_test_util.h"

#include <stdlib.h>
#include <string.h>

hrx_gpu_kernel_t* gpu_test_kernel(hrx_gpu_device_t* device, const char* file,
                                  const char* source, const char* name) {
  return gpu_test_kernel_sanitized(device, file, source, name, 0);
}

hrx_gpu_kernel_t* gpu_test_kernel_sanitized(hrx_gpu_device_t* device,
                                            const char* file,
                                            const char* source,
                                            const char* name,
                                            uint32_t sanitizers) {
  void* text = (void*)source;
  size_t length = source ? strlen(source) : 0;
  if (!source) {
    char* path = test_strdup_printf("%s/%s", getenv("HRX_LOOM_KERNELS"), file);
    assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &text,
                                &length));
    free(path);
  }
  /* Code for the device's own target: host ISA, or gfx1151 through the
   * amdgpu backend for the kfd device. */
  const char* target = hrx_gpu_device_properties(device)->profile_target;
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  options.sanitizers = sanitizers;
  hrx_loom_compiler_t* compiler = NULL;
  assert_ok(hrx_loom_compiler_create(target, &options,
                                     hrx_allocator_system(), &compiler));
  hrx_loom_compile_request_t request = {.source = text, .length = length,
                                        .source_name = file ? file : name};
  hrx_loom_artifact_t* artifact = NULL;
  assert_ok(hrx_loom_compile(compiler, &request, NULL, &artifact));
  size_t code_length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &code_length);
  hrx_gpu_kernel_t* kernel = NULL;
  assert_ok(hrx_gpu_kernel_load(device, code, code_length, name, &kernel));
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  if (!source) free(text);
  return kernel;
}

size_t gpu_test_device_index(void) {
  const char* index = getenv("HRX_TEST_DEVICE");
  return index && index[0] ? (size_t)strtoul(index, NULL, 10) : 0;
}

hrx_gpu_device_t* gpu_test_device_open(void) {
  hrx_gpu_device_t* device = NULL;
  assert_ok(hrx_gpu_device_open(gpu_test_device_index(),
                                hrx_allocator_system(), &device));
  return device;
}

hrx_gpu_device_t* gpu_test_other_device_open(void) {
  if (hrx_gpu_device_count() < 2) return NULL;
  hrx_gpu_device_t* device = NULL;
  assert_ok(hrx_gpu_device_open(gpu_test_device_index() == 0 ? 1 : 0,
                                hrx_allocator_system(), &device));
  return device;
}

bool gpu_test_is_host(const hrx_gpu_device_t* device) {
  return hrx_gpu_device_properties(device)->kind == HRX_FABRIC_DEVICE_HOST;
}

hrx_gpu_kernel_t* gpu_test_spin_kernel(hrx_gpu_device_t* device) {
  const char* dir = getenv("HRX_TEST_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/spin.loom", dir);
  char* text = test_read_text(path);
  hrx_gpu_kernel_t* kernel = gpu_test_kernel(device, NULL, text, "spin");
  free(text);
  free(path);
  return kernel;
}

int gpu_fixture_setup(void** state) {
  gpu_fixture_t* f = calloc(1, sizeof(*f));
  assert_non_null(f);
  f->device = gpu_test_device_open();
  assert_ok(hrx_gpu_stream_create(f->device, &f->stream));
  *state = f;
  return 0;
}

int gpu_fixture_setup_saxpy(void** state) {
  gpu_fixture_setup(state);
  gpu_fixture_t* f = *state;
  f->saxpy = gpu_test_kernel(f->device, "saxpy.loom", NULL, "saxpy");
  return 0;
}

int gpu_fixture_teardown(void** state) {
  gpu_fixture_t* f = *state;
  if (f->saxpy) hrx_gpu_kernel_release(f->saxpy);
  hrx_gpu_stream_destroy(f->stream);
  hrx_gpu_device_release(f->device);
  free(f);
  return 0;
}
