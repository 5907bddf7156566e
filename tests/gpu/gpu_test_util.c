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

const char* const gpu_test_spin_source =
    "kernel.def export(\"spin\") @spin() {\n"
    "  %one = index.constant 1 : index\n"
    "  %n = index.constant 64 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%n, %one, %one) : index\n"
    "} launch(%data: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %v = buffer.view %data[%o] : buffer -> view<2xi32>\n"
    "  %start = view.load %v[0] : view<2xi32> -> i32\n"
    "  %stop = view.load %v[1] : view<2xi32> -> i32\n"
    "  %end = scf.while(%x = %start : i32) -> (i32) {\n"
    "    %more = scalar.cmpi ne, %x, %stop : i32\n"
    "    scf.condition %more, %x : i1, i32\n"
    "  } do(%x: i32) {\n"
    "    scf.yield %x : i32\n"
    "  }\n"
    "  view.store %end, %v[0] : i32, view<2xi32>\n"
    "  kernel.return\n"
    "}\n";
