/* Fault cells: the report of the fault that failed one stream timeline,
 * taken once from the queue's fault list by whichever holder asks first
 * (the stream, or an event recorded on it, from any thread) and kept for
 * all of them. */
#include <string.h>

#include "gpu_internal.h"

hrx_status_t hrx_gpu_fault_cell_create(hrx_allocator_t allocator,
                                       hrx_fabric_queue_t* queue,
                                       const hrx_fabric_signal_t* timeline,
                                       hrx_gpu_fault_cell_t** out_cell) {
  hrx_gpu_fault_cell_t* cell = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*cell), (void**)&cell));
  memset(cell, 0, sizeof(*cell));
  atomic_init(&cell->ref_count, 1);
  cell->allocator = allocator;
  pthread_mutex_init(&cell->mutex, NULL);
  cell->queue = queue;
  cell->signal = hrx_fabric_signal_handle(timeline);
  *out_cell = cell;
  return HRX_OK;
}

void hrx_gpu_fault_cell_retain(hrx_gpu_fault_cell_t* cell) {
  atomic_fetch_add_explicit(&cell->ref_count, 1, memory_order_relaxed);
}

void hrx_gpu_fault_cell_release(hrx_gpu_fault_cell_t* cell) {
  if (!cell || atomic_fetch_sub_explicit(&cell->ref_count, 1,
                                         memory_order_acq_rel) != 1) {
    return;
  }
  pthread_mutex_destroy(&cell->mutex);
  hrx_allocator_free(cell->allocator, cell);
}

void hrx_gpu_fault_cell_read(hrx_gpu_fault_cell_t* cell,
                             hrx_fabric_fault_t* out_fault) {
  pthread_mutex_lock(&cell->mutex);
  if (!cell->taken) {
    cell->taken = true;
    cell->fault.struct_size = sizeof(cell->fault);
    hrx_status_t taken = hrx_fabric_queue_take_fault_for(
        cell->queue, cell->signal, &cell->fault);
    if (taken != HRX_OK) {
      /* Queues record the report before the signal reads faulted; none
       * means a packet the queue refused outright. */
      hrx_status_free(taken);
      memset(&cell->fault, 0, sizeof(cell->fault));
      cell->fault.struct_size = sizeof(cell->fault);
      cell->fault.kind = HRX_FABRIC_FAULT_BAD_PACKET;
    }
  }
  *out_fault = cell->fault;
  pthread_mutex_unlock(&cell->mutex);
}
