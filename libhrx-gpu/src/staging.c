/* The per-device staging cache (staging.h). */
#include "staging.h"

#include <string.h>

/* New blocks are rounded up so that requests of similar sizes share. */
#define HRX_GPU_STAGING_GRANULE (UINT64_C(64) << 10)

void hrx_gpu_staging_cache_init(hrx_gpu_staging_cache_t* cache) {
  memset(cache, 0, sizeof(*cache));
  pthread_mutex_init(&cache->mutex, NULL);
}

void hrx_gpu_staging_cache_deinit(hrx_gpu_staging_cache_t* cache,
                                  hrx_fabric_device_t* fabric) {
  for (uint32_t i = 0; i < cache->count; ++i) {
    hrx_fabric_memory_free(fabric, &cache->blocks[i]);
  }
  cache->count = 0;
  cache->bytes = 0;
  pthread_mutex_destroy(&cache->mutex);
}

static void hrx_gpu_staging_remove(hrx_gpu_staging_cache_t* cache,
                                   uint32_t index,
                                   hrx_fabric_memory_t* out_memory) {
  *out_memory = cache->blocks[index];
  cache->bytes -= out_memory->size;
  memmove(&cache->blocks[index], &cache->blocks[index + 1],
          (cache->count - index - 1) * sizeof(cache->blocks[0]));
  cache->count--;
}

/* Takes the smallest cached block of at least |bytes| that wastes at most
 * as much as it holds (a 64 MiB block does not serve a 4 KiB read). */
static bool hrx_gpu_staging_take(hrx_gpu_staging_cache_t* cache,
                                 uint64_t bytes,
                                 hrx_fabric_memory_t* out_memory) {
  pthread_mutex_lock(&cache->mutex);
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 0; i < cache->count; ++i) {
    uint64_t size = cache->blocks[i].size;
    if (size < bytes || size - bytes > bytes + HRX_GPU_STAGING_GRANULE) {
      continue;
    }
    if (best == UINT32_MAX || size < cache->blocks[best].size) best = i;
  }
  if (best != UINT32_MAX) hrx_gpu_staging_remove(cache, best, out_memory);
  pthread_mutex_unlock(&cache->mutex);
  return best != UINT32_MAX;
}

hrx_status_t hrx_gpu_staging_acquire(hrx_gpu_staging_cache_t* cache,
                                     hrx_fabric_device_t* fabric,
                                     hrx_budget_t* budget, uint64_t bytes,
                                     hrx_fabric_memory_t* out_memory) {
  memset(out_memory, 0, sizeof(*out_memory));
  hrx_fabric_memory_t memory;
  bool cached = hrx_gpu_staging_take(cache, bytes, &memory);
  if (!cached) {
    uint64_t rounded = bytes;
    if (bytes <= UINT64_MAX - HRX_GPU_STAGING_GRANULE) {
      rounded = (bytes + HRX_GPU_STAGING_GRANULE - 1) &
                ~(HRX_GPU_STAGING_GRANULE - 1);
    }
    HRX_RETURN_IF_ERROR(hrx_fabric_memory_allocate_flags(
        fabric, rounded, HRX_FABRIC_VISIBILITY_HOST_COHERENT,
        HRX_FABRIC_MEMORY_UNINITIALIZED, &memory));
  }
  if (budget) {
    hrx_status_t status = hrx_budget_charge(budget, bytes);
    if (status != HRX_OK) {
      hrx_gpu_staging_release(cache, fabric, NULL, 0, &memory);
      return status;
    }
  }
  *out_memory = memory;
  return HRX_OK;
}

void hrx_gpu_staging_release(hrx_gpu_staging_cache_t* cache,
                             hrx_fabric_device_t* fabric,
                             hrx_budget_t* budget, uint64_t bytes,
                             hrx_fabric_memory_t* memory) {
  if (!memory->device_address) return;
  if (budget) hrx_status_free(hrx_budget_uncharge(budget, bytes));
  hrx_fabric_memory_t evicted[HRX_GPU_STAGING_CACHE_BLOCKS + 1];
  uint32_t evicted_count = 0;
  pthread_mutex_lock(&cache->mutex);
  if (memory->size > HRX_GPU_STAGING_CACHE_BYTES) {
    evicted[evicted_count++] = *memory;
  } else {
    /* Newer blocks are likelier to be reused: make room by evicting the
     * oldest (the front of the array). */
    while (cache->count == HRX_GPU_STAGING_CACHE_BLOCKS ||
           cache->bytes + memory->size > HRX_GPU_STAGING_CACHE_BYTES) {
      hrx_gpu_staging_remove(cache, 0, &evicted[evicted_count++]);
    }
    cache->blocks[cache->count++] = *memory;
    cache->bytes += memory->size;
  }
  pthread_mutex_unlock(&cache->mutex);
  for (uint32_t i = 0; i < evicted_count; ++i) {
    hrx_fabric_memory_free(fabric, &evicted[i]);
  }
  memset(memory, 0, sizeof(*memory));
}
