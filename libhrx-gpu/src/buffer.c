/* Buffers and views. */
#include <string.h>

#include "gpu_internal.h"

hrx_status_t hrx_gpu_buffer_create(hrx_gpu_device_t* device, uint64_t bytes,
                                   hrx_fabric_visibility_t visibility,
                                   uint32_t flags, hrx_budget_t* budget,
                                   hrx_gpu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "buffers must hold at least one byte");
  }
  hrx_fabric_allocation_profile_t profile =
      HRX_STRUCT_INIT(hrx_fabric_allocation_profile_t);
  HRX_RETURN_IF_ERROR(hrx_fabric_device_allocation_profile(
      device->fabric, visibility, &profile));
  if (budget) HRX_RETURN_IF_ERROR(hrx_budget_charge(budget, bytes));
  hrx_gpu_buffer_t* buffer = NULL;
  hrx_status_t status = hrx_allocator_malloc(device->allocator,
                                             sizeof(*buffer), (void**)&buffer);
  if (status == HRX_OK) {
    status = hrx_fabric_memory_allocate_flags(
        device->fabric, bytes, visibility, flags, &buffer->memory);
  }
  if (status != HRX_OK) {
    if (budget) hrx_status_free(hrx_budget_uncharge(budget, bytes));
    hrx_allocator_free(device->allocator, buffer);
    return status;
  }
  atomic_init(&buffer->ref_count, 1);
  buffer->pool = NULL;
  buffer->host_coherent = profile.coherent;
  buffer->device = device;
  hrx_gpu_device_retain(device);
  buffer->budget = budget;
  hrx_budget_retain(budget);
  *out_buffer = buffer;
  return HRX_OK;
}

void hrx_gpu_buffer_destroy(hrx_gpu_buffer_t* buffer) {
  hrx_gpu_device_t* device = buffer->device;
  uint64_t size = buffer->memory.size;
  hrx_fabric_memory_free(device->fabric, &buffer->memory);
  if (buffer->budget) {
    hrx_status_free(hrx_budget_uncharge(buffer->budget, size));
    hrx_budget_release(buffer->budget);
  }
  hrx_allocator_free(device->allocator, buffer);
  hrx_gpu_device_release(device);
}

void hrx_gpu_buffer_retain(hrx_gpu_buffer_t* buffer) {
  if (buffer) atomic_fetch_add_explicit(&buffer->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_gpu_buffer_release(hrx_gpu_buffer_t* buffer) {
  if (!buffer || atomic_fetch_sub_explicit(&buffer->ref_count, 1,
                                           memory_order_acq_rel) != 1) {
    return;
  }
  if (buffer->pool) {
    hrx_gpu_buffer_pool_return(buffer->pool, buffer);
  } else {
    hrx_gpu_buffer_destroy(buffer);
  }
}

uint64_t hrx_gpu_buffer_size(const hrx_gpu_buffer_t* buffer) {
  return buffer->memory.size;
}

void* hrx_gpu_buffer_host_pointer(const hrx_gpu_buffer_t* buffer) {
  return buffer->host_coherent ? buffer->memory.host_pointer : NULL;
}

hrx_fabric_visibility_t hrx_gpu_buffer_placement(
    const hrx_gpu_buffer_t* buffer) {
  return buffer->memory.visibility;
}

hrx_status_t hrx_gpu_buffer_host_access(hrx_gpu_buffer_t* buffer,
                                        uint64_t offset, uint64_t length,
                                        hrx_fabric_cache_op_t op) {
  if (buffer->host_coherent) return HRX_OK;
  return hrx_fabric_memory_cache_control(buffer->device->fabric,
                                         &buffer->memory, offset, length, op);
}

hrx_gpu_device_t* hrx_gpu_buffer_device(const hrx_gpu_buffer_t* buffer) {
  return buffer->device;
}

uint64_t hrx_gpu_buffer_device_address(const hrx_gpu_buffer_t* buffer) {
  return buffer->memory.device_address;
}

hrx_status_t hrx_gpu_buffer_visibility(
    const hrx_gpu_buffer_t* buffer,
    hrx_fabric_allocation_profile_t* out_profile) {
  return hrx_fabric_device_allocation_profile(
      buffer->device->fabric, buffer->memory.visibility, out_profile);
}

hrx_status_t hrx_gpu_buffer_export_dmabuf(hrx_gpu_buffer_t* buffer,
                                          int* out_fd) {
  return hrx_fabric_memory_export_dmabuf(buffer->device->fabric,
                                         &buffer->memory, out_fd);
}

hrx_gpu_view_t hrx_gpu_buffer_binding(hrx_gpu_buffer_t* buffer) {
  return (hrx_gpu_view_t){buffer, 0, buffer ? buffer->memory.size : 0};
}

hrx_status_t hrx_gpu_view_slice(hrx_gpu_view_t view, uint64_t offset,
                                uint64_t length, hrx_gpu_view_t* out_view) {
  *out_view = (hrx_gpu_view_t){0};
  if (!view.buffer) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "view has no buffer");
  }
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, length, &end) || end > view.length) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "slice [%llu, +%llu) is outside a %llu-byte view",
                           (unsigned long long)offset,
                           (unsigned long long)length,
                           (unsigned long long)view.length);
  }
  *out_view = (hrx_gpu_view_t){view.buffer, view.offset + offset, length};
  return HRX_OK;
}

hrx_status_t hrx_gpu_view_check(const hrx_gpu_device_t* device,
                                hrx_gpu_view_t view, const char* what) {
  if (!view.buffer) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s view has no "
                           "buffer", what);
  }
  if (view.buffer->device->fabric != device->fabric) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s view belongs to another device", what);
  }
  uint64_t end = 0;
  if (__builtin_add_overflow(view.offset, view.length, &end) ||
      end > view.buffer->memory.size) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "%s view [%llu, +%llu) is outside its %llu-byte "
                           "buffer", what, (unsigned long long)view.offset,
                           (unsigned long long)view.length,
                           (unsigned long long)view.buffer->memory.size);
  }
  return HRX_OK;
}

bool hrx_gpu_reserve_slots(hrx_allocator_t allocator, void** array,
                           size_t* capacity, size_t needed) {
  hrx_status_t status = hrx_allocator_grow_array(allocator, sizeof(void*),
                                                 needed, capacity, array);
  if (status == HRX_OK) return true;
  hrx_status_free(status);
  return false;
}
