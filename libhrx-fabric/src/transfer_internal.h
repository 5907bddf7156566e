/* Transfer queues behind hrx/fabric/transfer.h: what a provider's queue
 * implements (kfd_transfer.c: an SDMA user queue; host_transfer.c: host
 * memory operations). transfer.c validates every argument first, so the
 * entries below see ranges inside one allocation and byte counts > 0.
 * Private to the fabric. */
#ifndef HRX_FABRIC_TRANSFER_INTERNAL_H_
#define HRX_FABRIC_TRANSFER_INTERNAL_H_

#include "fabric_internal.h"

typedef struct hrx_fabric_transfer_vtable_t {
  /* Whether [address, address + bytes) lies inside one allocation of the
   * queue's device. */
  bool (*contains)(hrx_fabric_transfer_queue_t* queue, uint64_t address,
                   uint64_t bytes);
  hrx_status_t (*copy)(hrx_fabric_transfer_queue_t* queue,
                       uint64_t destination, uint64_t source, uint64_t bytes);
  hrx_status_t (*fill)(hrx_fabric_transfer_queue_t* queue,
                       uint64_t destination, uint32_t pattern,
                       uint64_t bytes);
  hrx_status_t (*wait_memory)(hrx_fabric_transfer_queue_t* queue,
                              uint64_t address, uint32_t value,
                              uint32_t mask);
  hrx_status_t (*submit)(hrx_fabric_transfer_queue_t* queue,
                         uint64_t* out_fence);
  uint64_t (*completed)(hrx_fabric_transfer_queue_t* queue);
  hrx_status_t (*wait)(hrx_fabric_transfer_queue_t* queue, uint64_t fence,
                       uint64_t timeout_ns);
  hrx_status_t (*check)(hrx_fabric_transfer_queue_t* queue);
  const char* (*name)(const hrx_fabric_transfer_queue_t* queue);
  /* BUSY (nothing freed) while work is in flight. */
  hrx_status_t (*destroy)(hrx_fabric_transfer_queue_t* queue);
  void (*abort)(hrx_fabric_transfer_queue_t* queue);
} hrx_fabric_transfer_vtable_t;

/* Providers embed this first. */
struct hrx_fabric_transfer_queue_s {
  const hrx_fabric_transfer_vtable_t* vtable;
  hrx_fabric_device_t* device; /* retained by transfer.c */
};

hrx_status_t hrx_host_transfer_create(hrx_fabric_device_t* device,
                                      hrx_fabric_transfer_queue_t** out);
hrx_status_t hrx_kfd_transfer_create(hrx_fabric_device_t* device,
                                     hrx_fabric_transfer_queue_t** out);

/* Polls |reached| for a few microseconds, then sleeps between polls with
 * a growing backoff until it holds (OK) or |timeout_ns| passes
 * (DEADLINE_EXCEEDED, for the caller to annotate with what it awaited).
 * While sleeping it asks |stopped| (may be NULL) and returns its failure
 * at once. */
hrx_status_t hrx_fabric_poll_until(bool (*reached)(void* context),
                                   hrx_status_t (*stopped)(void* context),
                                   void* context, uint64_t timeout_ns);

#endif /* HRX_FABRIC_TRANSFER_INTERNAL_H_ */
