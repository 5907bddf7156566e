/* A bounded pool of reusable temporary buffers.
 *
 * acquire returns the smallest free pooled buffer of at least |bytes| and
 * at most twice that (best fit), or allocates a new one. Releasing the last
 * reference to a pooled buffer returns it to the pool. The pool never holds
 * more than |limit_bytes| of free buffers: returns past the bound free the
 * buffer instead, and an acquire past the bound evicts the largest free
 * buffers first. Pools are thread-safe and reference counted: create
 * returns one reference, retain adds one, release drops one, and each
 * pooled buffer in use holds one, so a pool outlives its buffers.
 */
#ifndef HRX_GPU_BUFFER_POOL_H_
#define HRX_GPU_BUFFER_POOL_H_

#include "hrx/core/struct.h"
#include "hrx/gpu/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_gpu_buffer_pool_s hrx_gpu_buffer_pool_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_buffer_pool_create(
    hrx_gpu_device_t* device, uint64_t limit_bytes,
    hrx_gpu_buffer_pool_t** out_pool);
HRX_API void hrx_gpu_buffer_pool_retain(hrx_gpu_buffer_pool_t* pool);
HRX_API void hrx_gpu_buffer_pool_release(hrx_gpu_buffer_pool_t* pool);

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_buffer_pool_acquire(
    hrx_gpu_buffer_pool_t* pool, uint64_t bytes,
    hrx_gpu_buffer_t** out_buffer);

typedef struct hrx_gpu_buffer_pool_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t free_bytes;
  uint64_t free_buffers;
  uint64_t hits;
  uint64_t misses;
  uint64_t evictions;
} hrx_gpu_buffer_pool_stats_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_buffer_pool_stats(
    hrx_gpu_buffer_pool_t* pool, hrx_gpu_buffer_pool_stats_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_BUFFER_POOL_H_ */
