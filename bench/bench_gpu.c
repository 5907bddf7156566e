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

hrx_gpu_kernel_t* bench_compile(hrx_gpu_device_t* device, const char* text,
                                const char* name) {
  hrx_loom_module_t* module = NULL;
  bench_check(hrx_loom_module_parse(text, strlen(text), NULL, NULL,
                                    hrx_allocator_system(), &module),
              "parse");
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  uint8_t* code = NULL;
  size_t length = 0;
  bench_check(hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                                    hrx_allocator_system(), &code, &length),
              "compile");
  hrx_gpu_kernel_t* kernel = NULL;
  bench_check(hrx_gpu_kernel_load(device, code, length, name, &kernel),
              "load");
  free(code);
  hrx_loom_module_destroy(module);
  return kernel;
}

