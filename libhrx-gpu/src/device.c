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

/* The live device of each index, so that every open of an index shares
 * one device (its queues, threads and buffers). This is the process's one
 * piece of shared mutable state in the layer: a device is a process-wide
 * resource, as the driver sees it. Entries do not hold a reference; a
 * device whose count reached zero is being destroyed and is replaced. */
#define HRX_GPU_MAX_DEVICES 17 /* the host and hrx_fabric_kfd_probe's 16 */
static pthread_mutex_t hrx_gpu_live_mutex = PTHREAD_MUTEX_INITIALIZER;
static hrx_gpu_device_t* hrx_gpu_live[HRX_GPU_MAX_DEVICES];

static hrx_status_t hrx_gpu_device_create(size_t index,
                                          hrx_allocator_t allocator,
                                          hrx_gpu_device_t** out_device);

/* A reference to |device| unless its last one is already gone. */
static bool hrx_gpu_device_try_retain(hrx_gpu_device_t* device) {
  uint_fast32_t count = atomic_load(&device->ref_count);
  while (count != 0) {
    if (atomic_compare_exchange_weak(&device->ref_count, &count, count + 1)) {
      return true;
    }
  }
  return false;
}

hrx_status_t hrx_gpu_device_open(size_t index, hrx_allocator_t allocator,
                                 hrx_gpu_device_t** out_device) {
  *out_device = NULL;
  size_t count = hrx_gpu_device_count();
  if (index >= count || index >= HRX_GPU_MAX_DEVICES) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "device %zu does not exist (%zu present)", index,
                           count);
  }
  pthread_mutex_lock(&hrx_gpu_live_mutex);
  hrx_gpu_device_t* live = hrx_gpu_live[index];
  if (live && hrx_gpu_device_try_retain(live)) {
    pthread_mutex_unlock(&hrx_gpu_live_mutex);
    *out_device = live;
    return HRX_OK;
  }
  hrx_status_t status = hrx_gpu_device_create(index, allocator, out_device);
  if (status == HRX_OK) hrx_gpu_live[index] = *out_device;
  pthread_mutex_unlock(&hrx_gpu_live_mutex);
  return status;
}

static hrx_status_t hrx_gpu_device_create(size_t index,
                                          hrx_allocator_t allocator,
                                          hrx_gpu_device_t** out_device) {
  hrx_gpu_device_t* device = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*device), (void**)&device));
  atomic_init(&device->ref_count, 1);
  device->index = index;
  device->allocator = allocator;
  atomic_init(&device->queue_count, 8);
  atomic_init(&device->maximum_private_bytes, 0);
  atomic_init(&device->private_fixed, false);
  atomic_init(&device->next_kernel_serial, 0);
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
  pthread_mutex_lock(&hrx_gpu_live_mutex);
  if (hrx_gpu_live[device->index] == device) {
    hrx_gpu_live[device->index] = NULL;
  }
  pthread_mutex_unlock(&hrx_gpu_live_mutex);
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

hrx_fabric_device_t* hrx_gpu_device_fabric(const hrx_gpu_device_t* device) {
  return device->fabric;
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
  return (uint32_t)atomic_load(&device->queue_count);
}

hrx_status_t hrx_gpu_device_set_maximum_private_bytes(hrx_gpu_device_t* device,
                                                     uint64_t bytes) {
  if (bytes > HRX_FABRIC_MAX_PRIVATE_BYTES) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "maximum_private_bytes %llu is above %u per "
                           "work-item", (unsigned long long)bytes,
                           HRX_FABRIC_MAX_PRIVATE_BYTES);
  }
  pthread_mutex_lock(&device->mutex);
  bool fixed = device->streams_started || atomic_load(&device->private_fixed);
  if (!fixed) atomic_store(&device->maximum_private_bytes, bytes);
  pthread_mutex_unlock(&device->mutex);
  if (fixed) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the queues' private memory is fixed once a "
                           "stream or a dispatch exists");
  }
  return HRX_OK;
}

uint64_t hrx_gpu_device_maximum_private_bytes(const hrx_gpu_device_t* device) {
  if (hrx_fabric_device_properties(device->fabric)->kind ==
      HRX_FABRIC_DEVICE_HOST) {
    return HRX_FABRIC_PRIVATE_UNLIMITED;
  }
  return atomic_load(&device->maximum_private_bytes);
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
    hrx_fabric_queue_options_t options = {
        .struct_size = sizeof(options),
        .packet_count = 1024,
        .maximum_private_bytes = atomic_load(&device->maximum_private_bytes)};
    status = hrx_fabric_queue_create_with_options(device->fabric, &options,
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
