/* The host provider: the CPU as a virtual GPU. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "hrx/core/parse.h"

static void hrx_host_device_destroy(hrx_fabric_device_t* base);
static hrx_status_t hrx_host_memory_allocate(hrx_fabric_device_t* base,
                                             uint64_t size,
                                             hrx_fabric_visibility_t vis,
                                             uint32_t flags,
                                             hrx_fabric_memory_t* out);
static void hrx_host_memory_free(hrx_fabric_device_t* base,
                                 hrx_fabric_memory_t* memory);
static hrx_status_t hrx_host_executable_load(hrx_fabric_device_t* base,
                                             const void* bytes, size_t length,
                                             hrx_fabric_executable_t** out);

static const hrx_fabric_device_vtable_t hrx_host_device_vtable = {
    .destroy = hrx_host_device_destroy,
    .memory_allocate = hrx_host_memory_allocate,
    .memory_free = hrx_host_memory_free,
    .executable_load = hrx_host_executable_load,
    .queue_create = hrx_host_queue_create,
};

hrx_host_device_t* hrx_host_device_cast(hrx_fabric_device_t* device) {
  return device->vtable == &hrx_host_device_vtable
             ? (hrx_host_device_t*)device
             : NULL;
}

/* HRX_HOST_THREADS, else the online CPUs. A value that is not a number
 * in [1, HRX_HOST_MAX_WORKERS] is an error: silently running with another
 * thread count than asked hides the typo. */
static hrx_status_t hrx_host_default_workers(uint32_t* out_workers) {
  uint64_t value = 0;
  bool present = false;
  HRX_RETURN_IF_ERROR(hrx_env_u64("HRX_HOST_THREADS", 1, HRX_HOST_MAX_WORKERS,
                                  &value, &present));
  if (present) {
    *out_workers = (uint32_t)value;
    return HRX_OK;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  *out_workers = cpus > 0 ? (uint32_t)(cpus < HRX_HOST_MAX_WORKERS
                                           ? cpus : HRX_HOST_MAX_WORKERS)
                          : 1;
  return HRX_OK;
}

hrx_status_t hrx_fabric_host_device_create(
    const hrx_fabric_host_options_t* caller_options, hrx_allocator_t allocator,
    hrx_fabric_device_t** out_device) {
  *out_device = NULL;
  hrx_fabric_host_options_t options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_fabric_host_options_t, worker_count,
                                      caller_options, &options));
  uint32_t workers = options.worker_count;
  if (!workers) HRX_RETURN_IF_ERROR(hrx_host_default_workers(&workers));
  if (workers > HRX_HOST_MAX_WORKERS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%u worker threads is more than %u", workers,
                           HRX_HOST_MAX_WORKERS);
  }
  hrx_host_device_t* device = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*device), (void**)&device));
  device->base.vtable = &hrx_host_device_vtable;
  atomic_init(&device->base.ref_count, 1);
  device->base.allocator = allocator;
  pthread_mutex_init(&device->mutex, NULL);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  atomic_init(&device->pollers, 0);
  device->poll_limit = online > 1 ? (uint32_t)(online - 1) : 0;
  /* The submitting thread also runs workgroups, so N workers plus the
   * packet processor use N + 1 threads; one fewer worker keeps the device
   * at the requested parallelism. */
  hrx_status_t status =
      hrx_host_pool_create(workers - 1, allocator, &device->pool);
  if (status != HRX_OK) {
    pthread_mutex_destroy(&device->mutex);
    hrx_allocator_free(allocator, device);
    return status;
  }
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  device->base.properties = (hrx_fabric_device_properties_t){
      .struct_size = sizeof(hrx_fabric_device_properties_t),
      .kind = HRX_FABRIC_DEVICE_HOST,
      .name = "HRX host device",
      .profile_target = "host",
      .subgroup_size = 32,
      .max_workgroup_size = 1024,
      .max_workgroup_storage = 64u << 10,
      .compute_units = workers,
      .memory_bytes = pages > 0 && page_size > 0
                          ? (uint64_t)pages * (uint64_t)page_size : 0,
      .queue_count_limit = 1024,
  };
  *out_device = &device->base;
  return HRX_OK;
}

static void hrx_host_device_destroy(hrx_fabric_device_t* base) {
  hrx_host_device_t* device = hrx_host_device_cast(base);
  hrx_host_pool_destroy(device->pool);
  pthread_mutex_destroy(&device->mutex);
  hrx_allocator_free(base->allocator, device->allocations);
  hrx_allocator_free(base->allocator, device->executables);
  hrx_allocator_free(base->allocator, device);
}

/* Index of the first allocation whose base is > address. */
static size_t hrx_host_upper_bound(const hrx_host_device_t* device,
                                   uintptr_t address) {
  size_t lo = 0, hi = device->allocation_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (device->allocations[mid].base <= address) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

static hrx_status_t hrx_host_memory_allocate(hrx_fabric_device_t* base,
                                             uint64_t size,
                                             hrx_fabric_visibility_t vis,
                                             uint32_t flags,
                                             hrx_fabric_memory_t* out) {
  hrx_host_device_t* device = hrx_host_device_cast(base);
  /* Below 2^48, so that HRX_HOST_OFFSET_MASK is never a valid offset and
   * can mark a poisoned pointer. */
  if (size >= (UINT64_C(1) << HRX_HOST_PTR_SHIFT)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "allocation of %llu bytes exceeds the host "
                           "device's 256 TiB addressing",
                           (unsigned long long)size);
  }
  void* memory = hrx_host_pages_allocate(
      (size_t)size, !(flags & HRX_FABRIC_MEMORY_UNINITIALIZED));
  if (!memory) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "host device allocation of %llu bytes failed",
                           (unsigned long long)size);
  }
  pthread_mutex_lock(&device->mutex);
  hrx_status_t status = hrx_allocator_grow_array(
      base->allocator, sizeof(hrx_host_allocation_t),
      device->allocation_count + 1, &device->allocation_capacity,
      (void**)&device->allocations);
  if (status == HRX_OK) {
    size_t at = hrx_host_upper_bound(device, (uintptr_t)memory);
    memmove(&device->allocations[at + 1], &device->allocations[at],
            (device->allocation_count - at) * sizeof(hrx_host_allocation_t));
    device->allocations[at] =
        (hrx_host_allocation_t){(uintptr_t)memory, size};
    device->allocation_count++;
  }
  pthread_mutex_unlock(&device->mutex);
  if (status != HRX_OK) {
    hrx_host_pages_free(memory, (size_t)size);
    return status;
  }
  *out = (hrx_fabric_memory_t){.host_pointer = memory,
                               .device_address = (uint64_t)(uintptr_t)memory,
                               .size = size,
                               .visibility = vis};
  return HRX_OK;
}

static void hrx_host_memory_free(hrx_fabric_device_t* base,
                                 hrx_fabric_memory_t* memory) {
  hrx_host_device_t* device = hrx_host_device_cast(base);
  uintptr_t address = (uintptr_t)memory->device_address;
  pthread_mutex_lock(&device->mutex);
  size_t at = hrx_host_upper_bound(device, address);
  bool found = at > 0 && device->allocations[at - 1].base == address;
  uint64_t size = found ? device->allocations[at - 1].size : 0;
  if (found) {
    memmove(&device->allocations[at - 1], &device->allocations[at],
            (device->allocation_count - at) * sizeof(hrx_host_allocation_t));
    device->allocation_count--;
  }
  pthread_mutex_unlock(&device->mutex);
  /* Only memory this device handed out is freed. */
  if (found) hrx_host_pages_free((void*)address, (size_t)size);
}

bool hrx_host_device_resolve(hrx_host_device_t* device, uint64_t address,
                             hrx_host_allocation_t* out_allocation) {
  pthread_mutex_lock(&device->mutex);
  size_t at = hrx_host_upper_bound(device, (uintptr_t)address);
  bool found = false;
  if (at > 0) {
    const hrx_host_allocation_t* a = &device->allocations[at - 1];
    if (address - a->base < a->size) {
      *out_allocation = *a;
      found = true;
    }
  }
  pthread_mutex_unlock(&device->mutex);
  return found;
}

static hrx_status_t hrx_host_executable_load(hrx_fabric_device_t* base,
                                             const void* bytes, size_t length,
                                             hrx_fabric_executable_t** out) {
  hrx_host_device_t* device = hrx_host_device_cast(base);
  hrx_fabric_executable_t* exe = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(base->allocator, sizeof(*exe), (void**)&exe));
  atomic_init(&exe->ref_count, 1);
  exe->allocator = base->allocator;
  hrx_status_t status = hrx_host_code_object_parse(exe, bytes, length);
  if (status == HRX_OK) {
    pthread_mutex_lock(&device->mutex);
    status = hrx_allocator_grow_array(
        base->allocator, sizeof(*device->executables),
        device->executable_count + 1, &device->executable_capacity,
        (void**)&device->executables);
    if (status == HRX_OK) {
      device->executables[device->executable_count++] = exe;
    }
    pthread_mutex_unlock(&device->mutex);
  }
  if (status != HRX_OK) {
    hrx_host_code_object_free(exe);
    hrx_allocator_free(base->allocator, exe);
    return status;
  }
  exe->device = base;
  hrx_fabric_device_retain(base);
  *out = exe;
  return HRX_OK;
}

hrx_fabric_executable_t* hrx_host_device_find_kernel(
    hrx_host_device_t* device, uint64_t kernel_object,
    const hrx_fabric_kernel_t** out_kernel) {
  *out_kernel = NULL;
  hrx_fabric_executable_t* found = NULL;
  pthread_mutex_lock(&device->mutex);
  for (size_t e = 0; e < device->executable_count && !found; ++e) {
    hrx_fabric_executable_t* exe = device->executables[e];
    for (uint32_t k = 0; k < exe->kernel_count; ++k) {
      if ((uint64_t)(uintptr_t)&exe->kernels[k] == kernel_object) {
        hrx_fabric_executable_retain(exe);
        *out_kernel = &exe->kernels[k];
        found = exe;
        break;
      }
    }
  }
  pthread_mutex_unlock(&device->mutex);
  return found;
}

void hrx_host_device_forget_executable(hrx_host_device_t* device,
                                       hrx_fabric_executable_t* executable) {
  pthread_mutex_lock(&device->mutex);
  for (size_t e = 0; e < device->executable_count; ++e) {
    if (device->executables[e] == executable) {
      device->executables[e] =
          device->executables[--device->executable_count];
      break;
    }
  }
  pthread_mutex_unlock(&device->mutex);
}
