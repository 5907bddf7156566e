#include "loom_test_host.h"

#include <stdlib.h>
#include <string.h>

#include "loom_test_util.h"

void loom_test_load_path(harness_t* h, const char* file,
                         const char* const* kernels, bool native) {
  const char* setting = getenv("HRX_HOST_NATIVE");
  bool forced_off = setting && !strcmp(setting, "0");
  if (!native) setenv("HRX_HOST_NATIVE", "0", 1);
  size_t length = 0;
  char* text = loom_test_read_test_kernel(file, &length);
  harness_load_source(h, file, text, length, NULL);
  free(text);
  if (!forced_off) unsetenv("HRX_HOST_NATIVE");
  bool expected = native && !forced_off && HRX_TEST_NATIVE;
  for (size_t i = 0; kernels[i]; ++i) {
    const hrx_fabric_kernel_t* kernel = NULL;
    assert_ok(hrx_fabric_executable_find_kernel(h->executable, kernels[i],
                                                &kernel));
    hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
    assert_ok(hrx_fabric_kernel_info(kernel, &info));
    if (info.native != expected) {
      fail_msg("%s: native %d, expected %d (%s)", kernels[i], info.native,
               expected, info.native_note ? info.native_note : "no note");
    }
  }
}
