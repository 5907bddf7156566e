/* Transfer queues: argument checks shared by every provider, dispatch to
 * the device's implementation, and the fence wait's poll-then-sleep. */
#include <time.h>

#include "kfd_device.h"
#include "transfer_internal.h"

/* A wait polls this long before it sleeps: most transfers end sooner. */
#define HRX_TRANSFER_SPIN_NS 20000u
#define HRX_TRANSFER_NAP_MIN_NS 2000u
#define HRX_TRANSFER_NAP_MAX_NS 1000000u

hrx_status_t hrx_fabric_poll_until(bool (*reached)(void* context),
                                   hrx_status_t (*stopped)(void* context),
                                   void* context, uint64_t timeout_ns) {
  uint64_t start = hrx_clock_monotonic_ns();
  uint64_t nap = HRX_TRANSFER_NAP_MIN_NS;
  for (;;) {
    if (reached(context)) return HRX_OK;
    uint64_t waited = hrx_clock_monotonic_ns() - start;
    if (waited < HRX_TRANSFER_SPIN_NS) continue;
    if (stopped) HRX_RETURN_IF_ERROR(stopped(context));
    if (timeout_ns != HRX_TIMEOUT_INFINITE && waited >= timeout_ns) {
      return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                             "not reached within %llu ns",
                             (unsigned long long)timeout_ns);
    }
    uint64_t sleep = nap;
    if (timeout_ns != HRX_TIMEOUT_INFINITE && timeout_ns - waited < sleep) {
      sleep = timeout_ns - waited;
    }
    struct timespec t = {.tv_sec = (time_t)(sleep / 1000000000u),
                         .tv_nsec = (long)(sleep % 1000000000u)};
    nanosleep(&t, NULL);
    if (nap < HRX_TRANSFER_NAP_MAX_NS) nap *= 2;
  }
}

hrx_status_t hrx_fabric_transfer_queue_create(
    hrx_fabric_device_t* device, hrx_fabric_transfer_queue_t** out_queue) {
  if (!device || !out_queue) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "transfer queue: NULL device or out-param");
  }
  *out_queue = NULL;
  hrx_fabric_transfer_queue_t* queue = NULL;
  if (hrx_host_device_cast(device)) {
    HRX_RETURN_IF_ERROR(hrx_host_transfer_create(device, &queue));
  } else if (hrx_kfd_device_cast(device)) {
    HRX_RETURN_IF_ERROR(hrx_kfd_transfer_create(device, &queue));
  } else {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "%s has no transfer queues",
                           device->properties.name);
  }
  queue->device = device;
  hrx_fabric_device_retain(device);
  *out_queue = queue;
  return HRX_OK;
}

hrx_status_t hrx_fabric_transfer_queue_destroy(
    hrx_fabric_transfer_queue_t* queue) {
  if (!queue) return HRX_OK;
  hrx_fabric_device_t* device = queue->device;
  HRX_RETURN_IF_ERROR(queue->vtable->destroy(queue));
  hrx_fabric_device_release(device);
  return HRX_OK;
}

void hrx_fabric_transfer_queue_abort(hrx_fabric_transfer_queue_t* queue) {
  if (!queue) return;
  hrx_fabric_device_t* device = queue->device;
  queue->vtable->abort(queue);
  hrx_fabric_device_release(device);
}

const char* hrx_fabric_transfer_queue_name(
    const hrx_fabric_transfer_queue_t* queue) {
  return queue->vtable->name(queue);
}

/* [address, address + bytes) inside one allocation of the device. */
static hrx_status_t hrx_transfer_check_range(hrx_fabric_transfer_queue_t* q,
                                             const char* what,
                                             uint64_t address,
                                             uint64_t bytes) {
  if (address + bytes < address || !q->vtable->contains(q, address, bytes)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s 0x%llx (+%llu bytes) is not inside memory "
                           "allocated on %s",
                           q->vtable->name(q), what,
                           (unsigned long long)address,
                           (unsigned long long)bytes,
                           q->device->properties.name);
  }
  return HRX_OK;
}

static hrx_status_t hrx_transfer_null(const char* call) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s: NULL queue",
                         call);
}

hrx_status_t hrx_fabric_transfer_copy(hrx_fabric_transfer_queue_t* queue,
                                      uint64_t destination, uint64_t source,
                                      uint64_t bytes) {
  if (!queue) return hrx_transfer_null("hrx_fabric_transfer_copy");
  if (bytes == 0) return HRX_OK;
  HRX_RETURN_IF_ERROR(
      hrx_transfer_check_range(queue, "destination", destination, bytes));
  HRX_RETURN_IF_ERROR(
      hrx_transfer_check_range(queue, "source", source, bytes));
  if (destination < source + bytes && source < destination + bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: copy of %llu bytes from 0x%llx to 0x%llx: "
                           "the ranges overlap",
                           queue->vtable->name(queue),
                           (unsigned long long)bytes,
                           (unsigned long long)source,
                           (unsigned long long)destination);
  }
  return queue->vtable->copy(queue, destination, source, bytes);
}

hrx_status_t hrx_fabric_transfer_fill(hrx_fabric_transfer_queue_t* queue,
                                      uint64_t destination, uint32_t pattern,
                                      uint64_t bytes) {
  if (!queue) return hrx_transfer_null("hrx_fabric_transfer_fill");
  if (bytes == 0) return HRX_OK;
  HRX_RETURN_IF_ERROR(
      hrx_transfer_check_range(queue, "destination", destination, bytes));
  return queue->vtable->fill(queue, destination, pattern, bytes);
}

hrx_status_t hrx_fabric_transfer_wait_memory(
    hrx_fabric_transfer_queue_t* queue, uint64_t address, uint32_t value,
    uint32_t mask) {
  if (!queue) return hrx_transfer_null("hrx_fabric_transfer_wait_memory");
  if (address % 4 != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: wait on 0x%llx: not 4-byte aligned",
                           queue->vtable->name(queue),
                           (unsigned long long)address);
  }
  HRX_RETURN_IF_ERROR(
      hrx_transfer_check_range(queue, "awaited word", address, 4));
  return queue->vtable->wait_memory(queue, address, value, mask);
}

hrx_status_t hrx_fabric_transfer_submit(hrx_fabric_transfer_queue_t* queue,
                                        uint64_t* out_fence) {
  if (!queue || !out_fence) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "hrx_fabric_transfer_submit: NULL argument");
  }
  return queue->vtable->submit(queue, out_fence);
}

uint64_t hrx_fabric_transfer_completed(hrx_fabric_transfer_queue_t* queue) {
  return queue ? queue->vtable->completed(queue) : 0;
}

hrx_status_t hrx_fabric_transfer_wait(hrx_fabric_transfer_queue_t* queue,
                                      uint64_t fence, uint64_t timeout_ns) {
  if (!queue) return hrx_transfer_null("hrx_fabric_transfer_wait");
  return queue->vtable->wait(queue, fence, timeout_ns);
}

hrx_status_t hrx_fabric_transfer_queue_check(
    hrx_fabric_transfer_queue_t* queue) {
  if (!queue) return hrx_transfer_null("hrx_fabric_transfer_queue_check");
  return queue->vtable->check(queue);
}
