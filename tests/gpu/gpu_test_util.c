#include "gpu_test_util.h"

#include <stdlib.h>
#include <string.h>

hrx_gpu_kernel_t* gpu_test_kernel(hrx_gpu_device_t* device, const char* file,
                                  const char* source, const char* name) {
  void* text = (void*)source;
  size_t length = source ? strlen(source) : 0;
  if (!source) {
    char* path = test_strdup_printf("%s/%s", getenv("HRX_LOOM_KERNELS"), file);
    assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &text,
                                &length));
    free(path);
  }
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(text, length, NULL, NULL,
                                  hrx_allocator_system(), &module));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  uint8_t* code = NULL;
  size_t code_length = 0;
  assert_ok(hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                                  hrx_allocator_system(), &code,
                                  &code_length));
  hrx_gpu_kernel_t* kernel = NULL;
  assert_ok(hrx_gpu_kernel_load(device, code, code_length, name, &kernel));
  free(code);
  hrx_loom_module_destroy(module);
  if (!source) free(text);
  return kernel;
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
