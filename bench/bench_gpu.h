/* GPU helpers shared by the benchmarks. */
#ifndef HRX_BENCH_BENCH_GPU_H_
#define HRX_BENCH_BENCH_GPU_H_

#include "hrx/gpu.h"

/* A kernel with no arguments and one work-item: pure dispatch overhead. */
extern const char* const bench_empty_kernel;

/* Compiles Loom |text| for |device|'s profile target (the host, or
 * gfx1151 through the amdgpu backend, which needs a build with -Dllvm) and
 * loads kernel |name|. */
hrx_status_t bench_try_compile(hrx_gpu_device_t* device, const char* text,
                               const char* name, hrx_gpu_kernel_t** out);

/* bench_try_compile that exits on failure. */
hrx_gpu_kernel_t* bench_compile(hrx_gpu_device_t* device, const char* text,
                                const char* name);

#endif /* HRX_BENCH_BENCH_GPU_H_ */
