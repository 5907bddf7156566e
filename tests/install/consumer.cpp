// A C++17 program built only from the installed headers and pkg-config
// flags: every umbrella header, and a call into each layer it links.
#include <hrx/artifacts.h>
#include <hrx/core.h>
#include <hrx/exec.h>
#include <hrx/fabric.h>
#include <hrx/gpu.h>
#include <hrx/loom.h>

#include <cstdio>

int main() {
  hrx_gpu_device_t* device = nullptr;
  hrx_status_t status =
      hrx_gpu_device_open(0, hrx_allocator_system(), &device);
  if (!hrx_status_is_ok(status)) {
    hrx_status_free(status);
    std::printf("C++ consumer: cannot open the host device\n");
    return 1;
  }
  std::size_t count = hrx_gpu_device_count();
  hrx_gpu_device_release(device);
  // Extensible option structs start from HRX_STRUCT_INIT in C++ too.
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  hrx_loom_compiler_t* compiler = nullptr;
  status = hrx_loom_compiler_create("host", &options, hrx_allocator_system(),
                                    &compiler);
  if (!hrx_status_is_ok(status)) {
    hrx_status_free(status);
    std::printf("C++ consumer: cannot create a host compiler\n");
    return 1;
  }
  std::printf("C++ consumer linked against hrx-core %s: %zu device(s), ok\n"
              "compiler identity %s\n",
              hrx_core_version(), count, hrx_loom_compiler_identity(compiler));
  hrx_loom_compiler_destroy(compiler);
  return 0;
}
