/* Helpers for the gpu suite: compile corpus kernels into gpu kernels. */
#ifndef HRX_TESTS_GPU_TEST_UTIL_H_
#define HRX_TESTS_GPU_TEST_UTIL_H_

#include "hrx/gpu.h"
#include "hrx/loom.h"
#include "test_support.h"

/* Compiles libhrx-loom/kernels/<file> (or |source| when non-NULL) and
 * loads kernel |name| on |device|. */
hrx_gpu_kernel_t* gpu_test_kernel(hrx_gpu_device_t* device, const char* file,
                                  const char* source, const char* name);
/* As gpu_test_kernel, compiled with Loom's |sanitizers|
 * (HRX_LOOM_SANITIZE_*; the host device runs them). */
hrx_gpu_kernel_t* gpu_test_kernel_sanitized(hrx_gpu_device_t* device,
                                            const char* file,
                                            const char* source,
                                            const char* name,
                                            uint32_t sanitizers);

/* Loads tests/kernels/spin.loom's kernel "spin" (64 work-items, one
 * binding of two i32s): loops until data[0] == data[1], never for {0, 1};
 * an endless kernel whose bound comes from a buffer. */
hrx_gpu_kernel_t* gpu_test_spin_kernel(hrx_gpu_device_t* device);

/* The device the suite runs on: index HRX_TEST_DEVICE (default 0, the
 * host device; the suites run again on the modelled gfx1151 with
 * HRX_KFD_MODEL set and HRX_TEST_DEVICE=1). */
size_t gpu_test_device_index(void);
hrx_gpu_device_t* gpu_test_device_open(void);
/* A device other than the suite's (opens of one index share a device), or
 * NULL when the machine has only the one. */
hrx_gpu_device_t* gpu_test_other_device_open(void);
/* Whether |device| is the host device: host-only checks (the race and
 * overflow sanitizers' reports, memmove copies) differ elsewhere. */
bool gpu_test_is_host(const hrx_gpu_device_t* device);

#define SECOND 1000000000ull

/* The suites' cmocka fixture: the suite's device and a stream on it, and
 * for gpu_fixture_setup_saxpy saxpy.loom's kernel "saxpy" (else NULL). */
typedef struct gpu_fixture_t {
  hrx_gpu_device_t* device;
  hrx_gpu_stream_t* stream;
  hrx_gpu_kernel_t* saxpy;
} gpu_fixture_t;
int gpu_fixture_setup(void** state);
int gpu_fixture_setup_saxpy(void** state);
int gpu_fixture_teardown(void** state);

/* A cmocka test run with the fixture, without and with saxpy. */
#define GPU_FIXTURE_TEST(test) \
  cmocka_unit_test_setup_teardown(test, gpu_fixture_setup, gpu_fixture_teardown)
#define GPU_SAXPY_TEST(test)                                     \
  cmocka_unit_test_setup_teardown(test, gpu_fixture_setup_saxpy, \
                                  gpu_fixture_teardown)

#endif /* HRX_TESTS_GPU_TEST_UTIL_H_ */
