#include "bench_gpu.h"

#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/loom.h"

const char* const bench_empty_kernel =
    "kernel.def export(\"empty\") @empty() {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%one, %one, %one) : index\n"
    "} launch() {\n  kernel.return\n}\n";

/* Another target than the host: through the compiler service, uncached
 * (a benchmark measures, it does not fill the user's cache). */
static hrx_status_t bench_compile_target(hrx_gpu_device_t* device,
                                         const char* target, const char* text,
                                         const char* name,
                                         hrx_gpu_kernel_t** out) {
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  hrx_loom_compiler_t* compiler = NULL;
  HRX_RETURN_IF_ERROR(hrx_loom_compiler_create(
      target, &options, hrx_allocator_system(), &compiler));
  hrx_loom_compile_request_t request = {
      .source = text, .length = strlen(text), .source_name = name};
  hrx_loom_artifact_t* artifact = NULL;
  hrx_status_t status = hrx_loom_compile(compiler, &request, NULL, &artifact);
  if (status == HRX_OK) {
    size_t length = 0;
    const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
    status = hrx_gpu_kernel_load(device, code, length, name, out);
  }
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  return status;
}

hrx_status_t bench_try_compile(hrx_gpu_device_t* device, const char* text,
                               const char* name, hrx_gpu_kernel_t** out) {
  *out = NULL;
  const char* target = hrx_gpu_device_properties(device)->profile_target;
  if (strcmp(target, "host") != 0) {
    return bench_compile_target(device, target, text, name, out);
  }
  hrx_loom_module_t* module = NULL;
  HRX_RETURN_IF_ERROR(hrx_loom_module_parse(text, strlen(text), NULL, NULL,
                                            hrx_allocator_system(), &module));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  uint8_t* code = NULL;
  size_t length = 0;
  hrx_status_t status =
      hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                            hrx_allocator_system(), &code, &length);
  if (status == HRX_OK) {
    status = hrx_gpu_kernel_load(device, code, length, name, out);
  }
  free(code);
  hrx_loom_module_destroy(module);
  return status;
}

hrx_gpu_kernel_t* bench_compile(hrx_gpu_device_t* device, const char* text,
                                const char* name) {
  hrx_gpu_kernel_t* kernel = NULL;
  bench_check(bench_try_compile(device, text, name, &kernel), "compile");
  return kernel;
}
