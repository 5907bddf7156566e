/* GPU helpers shared by the benchmarks. */
#ifndef HRX_BENCH_BENCH_GPU_H_
#define HRX_BENCH_BENCH_GPU_H_

#include "hrx/gpu.h"

/* A kernel with no arguments and one work-item: pure dispatch overhead. */
extern const char* const bench_empty_kernel;

/* Compiles Loom |text| for the host device and loads kernel |name|; exits
 * on failure. */
hrx_gpu_kernel_t* bench_compile(hrx_gpu_device_t* device, const char* text,
                                const char* name);

#endif /* HRX_BENCH_BENCH_GPU_H_ */
