/* Devices: the fabric device plus the lazily created queue pool. */
#include "gpu_internal.h"

/* Supported AMD GPUs (or the modelled one); 0 when there is none. */
static size_t hrx_gpu_kfd_count(void) {
  hrx_fabric_kfd_gpu_t gpus[16];
  size_t count = 0, supported = 0;
  hrx_status_t status = hrx_fabric_kfd_probe(16, gpus, &count);
  if (status != HRX_OK) {
    hrx_status_free(status);
    return 0;
  }
  for (size_t i = 0; i < count && i < 16; ++i) {
    supported += gpus[i].profile_target != NULL;
  }
  return supported;
}

size_t hrx_gpu_device_count(void) { return 1 + hrx_gpu_kfd_count(); }

hrx_status_t hrx_gpu_device_open(size_t index, hrx_allocator_t allocator,
                                 hrx_gpu_device_t** out_device) {
  *out_device = NULL;
  if (index >= hrx_gpu_device_count()) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "device %zu does not exist (%zu present)", index,
                           hrx_gpu_device_count());
  }
  hrx_gpu_device_t* device = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*device), (void**)&device));
  atomic_init(&device->ref_count, 1);
  device->allocator = allocator;
  device->queue_count = 8;
  pthread_mutex_init(&device->mutex, NULL);
  hrx_gpu_staging_cache_init(&device->staging);
  hrx_status_t status =
      index == 0
          ? hrx_fabric_host_device_create(NULL, allocator, &device->fabric)
          : hrx_fabric_kfd_device_create(index - 1, allocator,
                                         &device->fabric);
  if (status != HRX_OK) {
    hrx_gpu_staging_cache_deinit(&device->staging, NULL);
    pthread_mutex_destroy(&device->mutex);
    hrx_allocator_free(allocator, device);
    return status;
  }
  *out_device = device;
  return HRX_OK;
}

void hrx_gpu_device_retain(hrx_gpu_device_t* device) {
  if (device) atomic_fetch_add_explicit(&device->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_gpu_device_release(hrx_gpu_device_t* device) {
  if (!device || atomic_fetch_sub_explicit(&device->ref_count, 1,
                                           memory_order_acq_rel) != 1) {
    return;
  }
  for (uint32_t q = 0; device->queues && q < device->queue_count; ++q) {
    hrx_fabric_queue_destroy(device->queues[q]);
  }
  hrx_allocator_free(device->allocator, device->queues);
  hrx_gpu_staging_cache_deinit(&device->staging, device->fabric);
  hrx_fabric_device_release(device->fabric);
  pthread_mutex_destroy(&device->mutex);
  hrx_allocator_free(device->allocator, device);
}

const hrx_fabric_device_properties_t* hrx_gpu_device_properties(
    const hrx_gpu_device_t* device) {
  return hrx_fabric_device_properties(device->fabric);
}

hrx_status_t hrx_gpu_device_set_stream_queue_count(hrx_gpu_device_t* device,
                                                   uint32_t count) {
  if (count == 0 || count > 1024) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "stream queue count %u is not in [1, 1024]", count);
  }
  pthread_mutex_lock(&device->mutex);
  bool started = device->streams_started;
  if (!started) device->queue_count = count;
  pthread_mutex_unlock(&device->mutex);
  if (started) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the stream queue count is fixed once a stream "
                           "exists");
  }
  return HRX_OK;
}

uint32_t hrx_gpu_device_stream_queue_count(const hrx_gpu_device_t* device) {
  return device->queue_count;
}

hrx_status_t hrx_gpu_device_next_queue(hrx_gpu_device_t* device,
                                       hrx_fabric_queue_t** out_queue) {
  hrx_status_t status = HRX_OK;
  pthread_mutex_lock(&device->mutex);
  if (!device->queues) {
    status = hrx_allocator_malloc_array(device->allocator,
                                        device->queue_count,
                                        sizeof(hrx_fabric_queue_t*),
                                        (void**)&device->queues);
  }
  uint32_t index = device->next_queue;
  if (status == HRX_OK && !device->queues[index]) {
    status = hrx_fabric_queue_create(device->fabric, 1024,
                                     &device->queues[index]);
  }
  if (status == HRX_OK) {
    device->streams_started = true;
    device->next_queue = (index + 1) % device->queue_count;
    *out_queue = device->queues[index];
  }
  pthread_mutex_unlock(&device->mutex);
  return status;
}

const char* hrx_gpu_version(void) { return HRX_GPU_VERSION; }
