/* Provider-independent device entry points: validate, then dispatch
 * through the provider's vtable. */
#include "fabric_internal.h"

void hrx_fabric_device_retain(hrx_fabric_device_t* device) {
  if (device) atomic_fetch_add_explicit(&device->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_fabric_device_release(hrx_fabric_device_t* device) {
  if (device && atomic_fetch_sub_explicit(&device->ref_count, 1,
                                          memory_order_acq_rel) == 1) {
    device->vtable->destroy(device);
  }
}

const hrx_fabric_device_properties_t* hrx_fabric_device_properties(
    const hrx_fabric_device_t* device) {
  return &device->properties;
}

hrx_status_t hrx_fabric_memory_allocate(hrx_fabric_device_t* device,
                                        uint64_t size,
                                        hrx_fabric_visibility_t visibility,
                                        hrx_fabric_memory_t* out_memory) {
  return hrx_fabric_memory_allocate_flags(device, size, visibility,
                                          HRX_FABRIC_MEMORY_ZEROED,
                                          out_memory);
}

hrx_status_t hrx_fabric_memory_allocate_flags(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, uint32_t flags,
    hrx_fabric_memory_t* out_memory) {
  *out_memory = (hrx_fabric_memory_t){0};
  if (size == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "allocations must be at least one byte");
  }
  if ((unsigned)visibility > HRX_FABRIC_VISIBILITY_HOST_COHERENT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown visibility %d", (int)visibility);
  }
  if (flags & ~(uint32_t)HRX_FABRIC_MEMORY_UNINITIALIZED) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown memory flags 0x%x", flags);
  }
  return device->vtable->memory_allocate(device, size, visibility, flags,
                                         out_memory);
}

void hrx_fabric_memory_free(hrx_fabric_device_t* device,
                            hrx_fabric_memory_t* memory) {
  if (!memory || !memory->device_address) return;
  device->vtable->memory_free(device, memory);
  *memory = (hrx_fabric_memory_t){0};
}

hrx_status_t hrx_fabric_memory_export_dmabuf(hrx_fabric_device_t* device,
                                             const hrx_fabric_memory_t* memory,
                                             int* out_fd) {
  *out_fd = -1;
  if (!memory || !memory->device_address) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "no allocation to export as a dma-buf");
  }
  if (!device->vtable->memory_export_dmabuf) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "%s cannot export memory as a dma-buf",
                           device->properties.name);
  }
  return device->vtable->memory_export_dmabuf(device, memory, out_fd);
}

hrx_status_t hrx_fabric_executable_load(
    hrx_fabric_device_t* device, const void* bytes, size_t length,
    hrx_fabric_executable_t** out_executable) {
  *out_executable = NULL;
  if (!bytes || length == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object is empty");
  }
  return device->vtable->executable_load(device, bytes, length,
                                         out_executable);
}

hrx_status_t hrx_fabric_queue_create(hrx_fabric_device_t* device,
                                     uint32_t packet_count,
                                     hrx_fabric_queue_t** out_queue) {
  hrx_fabric_queue_options_t options = {
      .struct_size = sizeof(options), .packet_count = packet_count};
  return hrx_fabric_queue_create_with_options(device, &options, out_queue);
}

hrx_status_t hrx_fabric_queue_create_with_options(
    hrx_fabric_device_t* device,
    const hrx_fabric_queue_options_t* caller_options,
    hrx_fabric_queue_t** out_queue) {
  *out_queue = NULL;
  hrx_fabric_queue_options_t local;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_fabric_queue_options_t,
                                      maximum_private_bytes, caller_options,
                                      &local));
  const hrx_fabric_queue_options_t* options = &local;
  uint32_t packet_count = options->packet_count;
  if (packet_count < 2 || packet_count > 65536 ||
      (packet_count & (packet_count - 1)) != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "queue size %u is not a power of two in [2, 65536]",
                           packet_count);
  }
  if (options->maximum_private_bytes > HRX_FABRIC_MAX_PRIVATE_BYTES) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "maximum_private_bytes %llu is above %u per "
                           "work-item (the wave size field of "
                           "COMPUTE_TMPRING_SIZE)",
                           (unsigned long long)options->maximum_private_bytes,
                           HRX_FABRIC_MAX_PRIVATE_BYTES);
  }
  return device->vtable->queue_create(device, packet_count,
                                      options->maximum_private_bytes,
                                      out_queue);
}

const char* hrx_fabric_version(void) { return HRX_FABRIC_VERSION; }

hrx_status_t hrx_fabric_device_signal_create(hrx_fabric_device_t* device,
                                             int64_t initial_value,
                                             hrx_fabric_signal_t** out_signal) {
  *out_signal = NULL;
  if (device->vtable->signal_create) {
    return device->vtable->signal_create(device, initial_value, out_signal);
  }
  return hrx_fabric_signal_create(initial_value, device->allocator,
                                  out_signal);
}
