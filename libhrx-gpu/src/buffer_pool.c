/* Bounded best-fit pool of temporary buffers. */
#include "gpu_internal.h"

struct hrx_gpu_buffer_pool_s {
  /* The owner plus every pooled buffer in use; free buffers hold none, so
   * the last release frees them with the pool. */
  atomic_uint_fast32_t ref_count;
  hrx_gpu_device_t* device;       /* retained */
  hrx_allocator_t allocator;
  uint64_t limit_bytes;
  pthread_mutex_t mutex;
  /* Guarded by mutex. */
  hrx_gpu_buffer_t** free_buffers;
  size_t free_count, free_capacity;
  hrx_gpu_buffer_pool_stats_t stats;
};

hrx_status_t hrx_gpu_buffer_pool_create(hrx_gpu_device_t* device,
                                        uint64_t limit_bytes,
                                        hrx_gpu_buffer_pool_t** out_pool) {
  *out_pool = NULL;
  hrx_gpu_buffer_pool_t* pool = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator, sizeof(*pool),
                                           (void**)&pool));
  atomic_init(&pool->ref_count, 1);
  pool->device = device;
  hrx_gpu_device_retain(device);
  pool->allocator = device->allocator;
  pool->limit_bytes = limit_bytes;
  pthread_mutex_init(&pool->mutex, NULL);
  *out_pool = pool;
  return HRX_OK;
}

static void hrx_gpu_pool_unref(hrx_gpu_buffer_pool_t* pool) {
  if (atomic_fetch_sub_explicit(&pool->ref_count, 1, memory_order_acq_rel) !=
      1) {
    return;
  }
  for (size_t i = 0; i < pool->free_count; ++i) {
    pool->free_buffers[i]->pool = NULL;
    hrx_gpu_buffer_destroy(pool->free_buffers[i]);
  }
  hrx_allocator_free(pool->allocator, pool->free_buffers);
  pthread_mutex_destroy(&pool->mutex);
  hrx_gpu_device_t* device = pool->device;
  hrx_allocator_free(pool->allocator, pool);
  hrx_gpu_device_release(device);
}

void hrx_gpu_buffer_pool_retain(hrx_gpu_buffer_pool_t* pool) {
  if (pool) {
    atomic_fetch_add_explicit(&pool->ref_count, 1, memory_order_relaxed);
  }
}

void hrx_gpu_buffer_pool_release(hrx_gpu_buffer_pool_t* pool) {
  if (pool) hrx_gpu_pool_unref(pool);
}

/* Removes free buffer |index| (mutex held). */
static hrx_gpu_buffer_t* hrx_gpu_pool_take(hrx_gpu_buffer_pool_t* pool,
                                           size_t index) {
  hrx_gpu_buffer_t* buffer = pool->free_buffers[index];
  pool->free_buffers[index] = pool->free_buffers[--pool->free_count];
  pool->stats.free_bytes -= buffer->memory.size;
  pool->stats.free_buffers--;
  return buffer;
}

/* Evicts the largest free buffers until |incoming| more bytes fit under
 * the limit (mutex held); returns them for destruction outside the lock. */
static size_t hrx_gpu_pool_evict(hrx_gpu_buffer_pool_t* pool,
                                 uint64_t incoming, hrx_gpu_buffer_t** out,
                                 size_t capacity) {
  size_t evicted = 0;
  while (pool->free_count && evicted < capacity &&
         pool->stats.free_bytes + incoming > pool->limit_bytes) {
    size_t largest = 0;
    for (size_t i = 1; i < pool->free_count; ++i) {
      if (pool->free_buffers[i]->memory.size >
          pool->free_buffers[largest]->memory.size) {
        largest = i;
      }
    }
    out[evicted++] = hrx_gpu_pool_take(pool, largest);
    pool->stats.evictions++;
  }
  return evicted;
}

hrx_status_t hrx_gpu_buffer_pool_acquire(hrx_gpu_buffer_pool_t* pool,
                                         uint64_t bytes,
                                         hrx_gpu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "pooled buffers must hold at least one byte");
  }
  hrx_gpu_buffer_t* found = NULL;
  pthread_mutex_lock(&pool->mutex);
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < pool->free_count; ++i) {
    uint64_t size = pool->free_buffers[i]->memory.size;
    if (size >= bytes && size / 2 <= bytes &&
        (best == SIZE_MAX || size < pool->free_buffers[best]->memory.size)) {
      best = i;
    }
  }
  if (best != SIZE_MAX) {
    found = hrx_gpu_pool_take(pool, best);
    pool->stats.hits++;
  } else {
    pool->stats.misses++;
  }
  pthread_mutex_unlock(&pool->mutex);
  if (found) {
    atomic_store(&found->ref_count, 1);
    atomic_fetch_add_explicit(&pool->ref_count, 1, memory_order_relaxed);
    *out_buffer = found;
    return HRX_OK;
  }
  hrx_gpu_buffer_t* buffer = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_buffer_create(
      pool->device, bytes, HRX_FABRIC_VISIBILITY_HOST_COHERENT,
      HRX_FABRIC_MEMORY_ZEROED, NULL, &buffer));
  buffer->pool = pool;
  atomic_fetch_add_explicit(&pool->ref_count, 1, memory_order_relaxed);
  *out_buffer = buffer;
  return HRX_OK;
}

void hrx_gpu_buffer_pool_return(hrx_gpu_buffer_pool_t* pool,
                                hrx_gpu_buffer_t* buffer) {
  hrx_gpu_buffer_t* evicted[8];
  size_t evicted_count = 0;
  bool keep = false;
  pthread_mutex_lock(&pool->mutex);
  uint64_t size = buffer->memory.size;
  if (size <= pool->limit_bytes) {
    evicted_count = hrx_gpu_pool_evict(pool, size, evicted, 8);
    if (pool->stats.free_bytes + size <= pool->limit_bytes &&
        hrx_gpu_reserve_slots(pool->allocator, (void**)&pool->free_buffers,
                              &pool->free_capacity, pool->free_count + 1)) {
      pool->free_buffers[pool->free_count++] = buffer;
      pool->stats.free_bytes += size;
      pool->stats.free_buffers++;
      keep = true;
    }
  }
  pthread_mutex_unlock(&pool->mutex);
  for (size_t i = 0; i < evicted_count; ++i) {
    evicted[i]->pool = NULL;
    hrx_gpu_buffer_destroy(evicted[i]);
  }
  if (!keep) {
    buffer->pool = NULL;
    hrx_gpu_buffer_destroy(buffer);
  }
  hrx_gpu_pool_unref(pool); /* the returned buffer's reference */
}

hrx_status_t hrx_gpu_buffer_pool_stats(hrx_gpu_buffer_pool_t* pool,
                                       hrx_gpu_buffer_pool_stats_t* out_stats) {
  pthread_mutex_lock(&pool->mutex);
  hrx_gpu_buffer_pool_stats_t stats = pool->stats;
  pthread_mutex_unlock(&pool->mutex);
  return HRX_STRUCT_WRITE(hrx_gpu_buffer_pool_stats_t, evictions, &stats,
                          out_stats);
}
