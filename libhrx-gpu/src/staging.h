/* Staging: the host-visible memory that uploads and readbacks pass
 * through, reused through a small per-device cache so that a transfer
 * neither maps nor faults fresh pages.
 *
 * A block in use is charged to the budget of the stream that took it, by
 * the bytes asked for (as buffers are); a cached block is charged to no
 * one: the cache's bound is the device's own overhead. The cache is bounded (HRX_GPU_STAGING_CACHE_BLOCKS blocks,
 * HRX_GPU_STAGING_CACHE_BYTES in all) and thread-safe: streams and
 * readbacks of one device on any thread share it. */
#ifndef HRX_GPU_STAGING_H_
#define HRX_GPU_STAGING_H_

#include <pthread.h>
#include <stdint.h>

#include "hrx/core/budget.h"
#include "hrx/fabric/device.h"

#define HRX_GPU_STAGING_CACHE_BLOCKS 4
#define HRX_GPU_STAGING_CACHE_BYTES (UINT64_C(256) << 20)

typedef struct hrx_gpu_staging_cache_t {
  pthread_mutex_t mutex;
  uint32_t count;
  uint64_t bytes;
  hrx_fabric_memory_t blocks[HRX_GPU_STAGING_CACHE_BLOCKS];
} hrx_gpu_staging_cache_t;

void hrx_gpu_staging_cache_init(hrx_gpu_staging_cache_t* cache);
/* Frees every cached block. */
void hrx_gpu_staging_cache_deinit(hrx_gpu_staging_cache_t* cache,
                                  hrx_fabric_device_t* fabric);

/* At least |bytes| of host-visible memory, |bytes| charged to |budget|
 * (may be NULL): a cached block that fits, else a new allocation. */
hrx_status_t hrx_gpu_staging_acquire(hrx_gpu_staging_cache_t* cache,
                                     hrx_fabric_device_t* fabric,
                                     hrx_budget_t* budget, uint64_t bytes,
                                     hrx_fabric_memory_t* out_memory);
/* Uncharges the |bytes| it was acquired for from |budget| and caches or
 * frees |memory| (a zeroed one is ignored). No queued work may still use
 * it. */
void hrx_gpu_staging_release(hrx_gpu_staging_cache_t* cache,
                             hrx_fabric_device_t* fabric,
                             hrx_budget_t* budget, uint64_t bytes,
                             hrx_fabric_memory_t* memory);

#endif /* HRX_GPU_STAGING_H_ */
