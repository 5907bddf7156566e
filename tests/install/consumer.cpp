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
  std::printf("C++ consumer linked against hrx-core %s: %zu device(s), ok\n",
              hrx_core_version(), count);
  return 0;
}
