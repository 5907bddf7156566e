/* Provider-independent queue calls: slot reservation over the ring's
 * read and write indices, publication, and the fault list. What a
 * publication wakes (a host processor thread, a hardware doorbell) is the
 * provider's, through hrx_fabric_queue_vtable_t. */
#include <string.h>

#include "fabric_internal.h"

void hrx_fabric_queue_init(hrx_fabric_queue_t* q,
                           const hrx_fabric_queue_vtable_t* vtable,
                           hrx_fabric_device_t* device, hrx_aql_packet_t* ring,
                           uint32_t size, _Atomic uint64_t* read_index) {
  q->vtable = vtable;
  q->device = device;
  hrx_fabric_device_retain(device);
  q->ring = ring;
  q->size = size;
  q->private_bytes = 0;
  atomic_init(&q->write_index, 0);
  atomic_init(&q->read_seen, 0);
  q->read_index = read_index;
  for (uint32_t i = 0; i < size; ++i) {
    memset(&ring[i], 0, sizeof(ring[i]));
    ring[i].dispatch.header = HRX_AQL_PACKET_INVALID;
  }
  pthread_mutex_init(&q->fault_mutex, NULL);
  q->fault_head = q->fault_count = 0;
}

void hrx_fabric_queue_deinit(hrx_fabric_queue_t* q) {
  pthread_mutex_destroy(&q->fault_mutex);
  hrx_fabric_device_release(q->device);
}

void hrx_fabric_queue_record_fault(hrx_fabric_queue_t* q,
                                   const hrx_fabric_fault_t* fault) {
  pthread_mutex_lock(&q->fault_mutex);
  if (q->fault_count < HRX_QUEUE_FAULTS) {
    q->faults[(q->fault_head + q->fault_count) % HRX_QUEUE_FAULTS] = *fault;
    q->fault_count++;
  }
  pthread_mutex_unlock(&q->fault_mutex);
}

void hrx_fabric_queue_destroy(hrx_fabric_queue_t* q) {
  if (q) q->vtable->destroy(q);
}

hrx_status_t hrx_fabric_queue_restart(hrx_fabric_queue_t* q) {
  if (!q) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no queue to restart");
  }
  return q->vtable->restart ? q->vtable->restart(q) : HRX_OK;
}

uint32_t hrx_fabric_queue_size(const hrx_fabric_queue_t* q) { return q->size; }

uint64_t hrx_fabric_queue_private_bytes(const hrx_fabric_queue_t* q) {
  return q->private_bytes;
}

/* The pointer itself may be switched once (a dead kfd queue), hence the
 * atomic load of it. */
static _Atomic uint64_t* hrx_queue_reader(const hrx_fabric_queue_t* q) {
  return __atomic_load_n(&((hrx_fabric_queue_t*)q)->read_index,
                         __ATOMIC_ACQUIRE);
}

uint64_t hrx_fabric_queue_read_index(const hrx_fabric_queue_t* q) {
  return atomic_load_explicit(hrx_queue_reader(q), memory_order_acquire);
}

uint64_t hrx_fabric_queue_write_index(const hrx_fabric_queue_t* q) {
  return atomic_load_explicit(&((hrx_fabric_queue_t*)q)->write_index,
                              memory_order_acquire);
}

hrx_status_t hrx_fabric_queue_reserve(hrx_fabric_queue_t* q, uint32_t count,
                                      uint64_t* out_index) {
  if (count == 0 || count > q->size) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "cannot reserve %u slots of a %u-packet queue",
                           count, q->size);
  }
  uint64_t index = atomic_load_explicit(&q->write_index, memory_order_relaxed);
  for (;;) {
    /* Acquire pairs with the release below, so a slot another producer
     * saw released is released for this one too. */
    uint64_t read = atomic_load_explicit(&q->read_seen, memory_order_acquire);
    if (index + count - read > q->size) {
      read = hrx_fabric_queue_read_index(q);
      atomic_store_explicit(&q->read_seen, read, memory_order_release);
    }
    if (index + count - read > q->size) {
      /* Producers retry this; an allocated message would cost them. */
      return hrx_status_from_code(HRX_STATUS_BUSY);
    }
    if (atomic_compare_exchange_weak_explicit(&q->write_index, &index,
                                              index + count,
                                              memory_order_acq_rel,
                                              memory_order_relaxed)) {
      *out_index = index;
      return HRX_OK;
    }
  }
}

hrx_aql_packet_t* hrx_fabric_queue_slot(hrx_fabric_queue_t* q,
                                        uint64_t index) {
  return &q->ring[index & (q->size - 1)];
}

void hrx_fabric_queue_store_header(hrx_fabric_queue_t* q, uint64_t index,
                                   uint16_t header, uint16_t setup) {
  hrx_aql_packet_t* slot = hrx_fabric_queue_slot(q, index);
  __atomic_store_n((uint32_t*)slot, (uint32_t)header | ((uint32_t)setup << 16),
                   __ATOMIC_RELEASE);
}

void hrx_fabric_queue_publish_quiet(hrx_fabric_queue_t* q, uint64_t index,
                                    uint16_t header, uint16_t setup) {
  if (q->vtable->publish_slot) {
    q->vtable->publish_slot(q, index, header, setup);
  } else {
    hrx_fabric_queue_store_header(q, index, header, setup);
  }
  if (q->vtable->ring_always) q->vtable->ring(q);
}

void hrx_fabric_queue_ring(hrx_fabric_queue_t* q) { q->vtable->ring(q); }

void hrx_fabric_queue_publish(hrx_fabric_queue_t* q, uint64_t index,
                              uint16_t header, uint16_t setup) {
  hrx_fabric_queue_publish_quiet(q, index, header, setup);
  if (!q->vtable->ring_always) hrx_fabric_queue_ring(q);
}

/* Removes the oldest fault matching |signal| (any when |any_signal|). */
static hrx_status_t hrx_queue_take(hrx_fabric_queue_t* q, bool any_signal,
                                   uint64_t signal,
                                   hrx_fabric_fault_t* out_fault) {
  /* Check the caller's struct before a report leaves the list: a bad
   * struct_size must not lose it. */
  hrx_fabric_fault_t fault = {0};
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &fault, out_fault));
  pthread_mutex_lock(&q->fault_mutex);
  bool found = false;
  for (uint32_t i = 0; i < q->fault_count && !found; ++i) {
    uint32_t at = (q->fault_head + i) % HRX_QUEUE_FAULTS;
    if (!any_signal && q->faults[at].completion_signal != signal) continue;
    fault = q->faults[at];
    /* Close the gap, keeping the others in order. */
    for (uint32_t j = i; j + 1 < q->fault_count; ++j) {
      q->faults[(q->fault_head + j) % HRX_QUEUE_FAULTS] =
          q->faults[(q->fault_head + j + 1) % HRX_QUEUE_FAULTS];
    }
    q->fault_count--;
    found = true;
  }
  pthread_mutex_unlock(&q->fault_mutex);
  if (!found) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND, "no fault recorded");
  }
  return HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &fault, out_fault);
}

hrx_status_t hrx_fabric_queue_take_fault(hrx_fabric_queue_t* q,
                                         hrx_fabric_fault_t* out_fault) {
  return hrx_queue_take(q, true, 0, out_fault);
}

hrx_status_t hrx_fabric_queue_take_fault_for(hrx_fabric_queue_t* q,
                                             uint64_t signal,
                                             hrx_fabric_fault_t* out_fault) {
  return hrx_queue_take(q, false, signal, out_fault);
}
