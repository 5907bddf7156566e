/* libhrx-gpu: devices, streams, buffers, views, events, kernels, graphs
 * and buffer pools over libhrx-fabric. */
#ifndef HRX_GPU_H_
#define HRX_GPU_H_

#include "hrx/gpu/buffer_pool.h"  // IWYU pragma: export
#include "hrx/gpu/device.h"       // IWYU pragma: export
#include "hrx/gpu/graph.h"        // IWYU pragma: export
#include "hrx/gpu/hazard_tracker.h"  // IWYU pragma: export
#include "hrx/gpu/sanitizer.h"    // IWYU pragma: export
#include "hrx/gpu/stream.h"       // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_gpu_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_H_ */
