/* Public PM4 compute queues (hrx/fabric/pm4.h): a kfd device's PM4 user
 * queue behind the device-neutral API; every other device answers
 * UNAVAILABLE. */
#include "hrx/fabric/pm4.h"

#include "kfd_pm4_compute.h"

/* 16 K dwords of packets: about 300 dispatches in flight. */
#define HRX_PM4_QUEUE_RING (64u * 1024u)
/* Dispatches whose fence has not passed, at most (1 MiB of kernargs). */
#define HRX_PM4_QUEUE_KERNARG_SLOTS 512u

struct hrx_fabric_pm4_queue_s {
  hrx_fabric_device_t* device; /* retained */
  hrx_kfd_pm4_compute_t* compute;
};

hrx_status_t hrx_fabric_pm4_queue_create(hrx_fabric_device_t* device,
                                         hrx_fabric_pm4_queue_t** out_queue) {
  *out_queue = NULL;
  if (!device) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no device");
  }
  hrx_kfd_device_t* kfd = hrx_kfd_device_cast(device);
  if (!kfd) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "%s has no PM4 command processor; its compute "
                           "queues take AQL packets (hrx_fabric_queue_create)",
                           hrx_fabric_device_properties(device)->name);
  }
  hrx_fabric_pm4_queue_t* q = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(device->allocator, sizeof(*q), (void**)&q));
  hrx_status_t status = hrx_kfd_pm4_compute_create(
      kfd, HRX_PM4_QUEUE_RING, HRX_PM4_QUEUE_KERNARG_SLOTS, &q->compute);
  if (status != HRX_OK) {
    hrx_allocator_free(device->allocator, q);
    return status;
  }
  q->device = device;
  hrx_fabric_device_retain(device);
  *out_queue = q;
  return HRX_OK;
}

static void hrx_fabric_pm4_queue_free(hrx_fabric_pm4_queue_t* q) {
  hrx_fabric_device_t* device = q->device;
  hrx_allocator_free(device->allocator, q);
  hrx_fabric_device_release(device);
}

hrx_status_t hrx_fabric_pm4_queue_destroy(hrx_fabric_pm4_queue_t* q) {
  if (!q) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_compute_destroy(q->compute));
  hrx_fabric_pm4_queue_free(q);
  return HRX_OK;
}

void hrx_fabric_pm4_queue_abort(hrx_fabric_pm4_queue_t* q) {
  if (!q) return;
  hrx_kfd_pm4_compute_teardown(q->compute);
  hrx_fabric_pm4_queue_free(q);
}

const char* hrx_fabric_pm4_queue_name(const hrx_fabric_pm4_queue_t* q) {
  return hrx_kfd_user_queue_name(hrx_kfd_pm4_compute_queue(q->compute));
}

hrx_status_t hrx_fabric_pm4_dispatch(hrx_fabric_pm4_queue_t* q,
                                     const hrx_aql_dispatch_packet_t* packet) {
  if (!packet) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s: no packet",
                           hrx_fabric_pm4_queue_name(q));
  }
  return hrx_kfd_pm4_compute_dispatch(q->compute, packet);
}

hrx_status_t hrx_fabric_pm4_copy(hrx_fabric_pm4_queue_t* q,
                                 uint64_t destination, uint64_t source,
                                 uint64_t bytes) {
  return hrx_kfd_pm4_compute_copy(q->compute, destination, source, bytes);
}

hrx_status_t hrx_fabric_pm4_fill(hrx_fabric_pm4_queue_t* q,
                                 uint64_t destination, uint32_t pattern,
                                 uint64_t bytes) {
  return hrx_kfd_pm4_compute_fill(q->compute, destination, pattern, bytes);
}

hrx_status_t hrx_fabric_pm4_submit(hrx_fabric_pm4_queue_t* q,
                                   uint64_t* out_fence) {
  *out_fence = 0;
  return hrx_kfd_pm4_compute_submit(q->compute, out_fence);
}

uint64_t hrx_fabric_pm4_completed(hrx_fabric_pm4_queue_t* q) {
  return hrx_kfd_user_queue_completed(hrx_kfd_pm4_compute_queue(q->compute));
}

hrx_status_t hrx_fabric_pm4_wait(hrx_fabric_pm4_queue_t* q, uint64_t fence,
                                 uint64_t timeout_ns) {
  return hrx_kfd_user_queue_wait(hrx_kfd_pm4_compute_queue(q->compute), fence,
                                 timeout_ns);
}

hrx_status_t hrx_fabric_pm4_queue_check(hrx_fabric_pm4_queue_t* q) {
  return hrx_kfd_user_queue_check(hrx_kfd_pm4_compute_queue(q->compute));
}
