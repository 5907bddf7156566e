/* CREATE_QUEUE and DESTROY_QUEUE: the checks set_queue_properties_from_user()
 * and kfd_queue_acquire_buffers() make (hardware.md §1) with the driver's
 * errnos, and the queue's doorbell slot; and the ring walk PM4 and SDMA
 * queues share. With the model's mutex held.
 *
 * A new PM4 or SDMA queue starts at ring dword 0 with write index 0, as a
 * fresh MQD does; its doorbell then carries the producer's growing write
 * index (dwords for PM4, bytes for SDMA). */
#include <errno.h>
#include <stdatomic.h>

#include "kfd_model_internal.h"

/* An AQL doorbell the caller never rang: processing runs up to
 * doorbell + 1, which wraps to packet 0. */
#define KFD_MODEL_DOORBELL_IDLE UINT64_MAX
/* The kernel's ENOTSUPP (not in userspace errno.h), which CREATE_QUEUE
 * answers for a queue type it does not know. */
#define KFD_MODEL_ENOTSUPP 524

static bool mapped(const hrx_kfd_model_t* m, uint64_t address,
                   uint64_t size) {
  return address != 0 && kfd_model_find_mapped(m, address, size) != NULL;
}

/* The buffers the queue would use must be GPU-mapped BOs of the sizes
 * the node dictates; the ring's mapping must be exactly ring_size. Only
 * compute queues (PM4 and AQL) need the EOP buffer and the CWSR area. */
static bool buffers_valid(const hrx_kfd_model_t* m,
                          const hrx_kfd_create_queue_args_t* args) {
  const kfd_model_allocation_t* ring =
      kfd_model_find_mapped(m, args->ring_base_address, args->ring_size);
  uint64_t cwsr_bo = (args->ctx_save_restore_size + m->debug_memory_size +
                      KFD_MODEL_PAGE - 1) /
                     KFD_MODEL_PAGE * KFD_MODEL_PAGE;
  bool common = ring != NULL && ring->va == args->ring_base_address &&
                ring->size == args->ring_size &&
                args->read_pointer_address % 8 == 0 &&
                args->write_pointer_address % 8 == 0 &&
                mapped(m, args->read_pointer_address, 8) &&
                mapped(m, args->write_pointer_address, 8);
  if (args->queue_type == HRX_KFD_QUEUE_TYPE_SDMA ||
      args->queue_type == HRX_KFD_QUEUE_TYPE_SDMA_XGMI) {
    return common;
  }
  return common && args->eop_buffer_size == m->eop_size &&
         mapped(m, args->eop_buffer_address, args->eop_buffer_size) &&
         args->ctl_stack_size == m->ctl_stack_size &&
         args->ctx_save_restore_size >= m->cwsr_size &&
         mapped(m, args->ctx_save_restore_address, cwsr_bo);
}

int kfd_model_create_queue(hrx_kfd_model_t* m,
                           hrx_kfd_create_queue_args_t* args) {
  uint32_t size = args->ring_size;
  if (!m->vm_acquired || args->gpu_id != m->gpu_id ||
      args->queue_percentage > 100 || args->queue_priority > 15 ||
      size == 0 || (size & (size - 1)) != 0) {
    return -EINVAL;
  }
  uint32_t type = args->queue_type;
  if (type != HRX_KFD_QUEUE_TYPE_COMPUTE && type != HRX_KFD_QUEUE_TYPE_SDMA &&
      type != HRX_KFD_QUEUE_TYPE_COMPUTE_AQL &&
      type != HRX_KFD_QUEUE_TYPE_SDMA_XGMI) {
    return -KFD_MODEL_ENOTSUPP;
  }
  if (!buffers_valid(m, args)) return -EINVAL;
  /* The APU has no XGMI SDMA engines: the driver finds none free. */
  if (type == HRX_KFD_QUEUE_TYPE_SDMA_XGMI) return -ENOMEM;
  if (type == HRX_KFD_QUEUE_TYPE_SDMA) {
    uint32_t sdma = 0;
    for (uint32_t i = 0; i < KFD_MODEL_MAX_QUEUES; ++i) {
      sdma += m->queues[i].used && m->queues[i].type == type;
    }
    if (sdma >= m->sdma_queues) return -ENOMEM;
  }
  bool aql = type == HRX_KFD_QUEUE_TYPE_COMPUTE_AQL;
  for (uint32_t i = 0; i < KFD_MODEL_MAX_QUEUES; ++i) {
    kfd_model_queue_t* q = &m->queues[i];
    if (q->used) continue;
    *q = (kfd_model_queue_t){
        .used = true,
        .id = i,
        .type = type,
        .ring = args->ring_base_address,
        .ring_size = size,
        .read_pointer = args->read_pointer_address,
        .write_pointer = args->write_pointer_address,
        .doorbell_index = i,
        .generation = ++m->next_generation,
        /* An AQL queue starts at the index its read pointer holds (0 for
         * a new ring), so a runtime can re-create a queue over a ring it
         * keeps using. */
        .read_index = aql ? atomic_load_explicit(
                                (_Atomic uint64_t*)(uintptr_t)
                                    args->read_pointer_address,
                                memory_order_acquire)
                          : 0,
    };
    atomic_store_explicit(&m->preempt[i], false, memory_order_release);
    atomic_store_explicit(&m->doorbells[i],
                          aql ? KFD_MODEL_DOORBELL_IDLE : 0,
                          memory_order_release);
    args->queue_id = i;
    args->doorbell_offset = KFD_MODEL_DOORBELL_OFFSET + i * 8u;
    return 0;
  }
  return -ENOMEM;
}

int kfd_model_destroy_queue(hrx_kfd_model_t* m,
                            const hrx_kfd_destroy_queue_args_t* args) {
  if (args->queue_id >= KFD_MODEL_MAX_QUEUES ||
      !m->queues[args->queue_id].used) {
    return -EINVAL;
  }
  /* As the driver does, return once the queue's waves are gone: the
   * preempt flag stops a running dispatch within a few instructions. */
  while (m->running_queue == (int)args->queue_id) {
    pthread_cond_wait(&m->changed, &m->mutex);
  }
  if (!m->queues[args->queue_id].used) return -EINVAL;
  m->queues[args->queue_id] = (kfd_model_queue_t){0};
  atomic_store_explicit(&m->preempt[args->queue_id], false,
                        memory_order_release);
  atomic_store_explicit(&m->doorbells[args->queue_id],
                        KFD_MODEL_DOORBELL_IDLE, memory_order_release);
  return 0;
}

static uint64_t ring_dwords(const kfd_model_queue_t* q) {
  return q->ring_size / sizeof(uint32_t);
}

bool kfd_model_ring_pending(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            uint64_t* out_dwords) {
  /* The ring may have been unmapped under a live queue. */
  if (kfd_model_find_mapped(m, q->ring, q->ring_size) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, q->ring,
                        "ring no longer GPU-mapped");
    return false;
  }
  uint64_t write = atomic_load_explicit(&m->doorbells[q->doorbell_index],
                                        memory_order_acquire);
  if (q->type == HRX_KFD_QUEUE_TYPE_SDMA) {
    if (write % sizeof(uint32_t) != 0) {
      kfd_model_set_fault(q, HRX_GFX11_FAULT_UNDECODABLE, 0,
                          "SDMA write index %llu is not a whole dword",
                          (unsigned long long)write);
      return false;
    }
    write /= sizeof(uint32_t);
  }
  *out_dwords = 0;
  if (write <= q->read_index) return true;
  if (write - q->read_index > ring_dwords(q)) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_UNDECODABLE, 0,
                        "write index (dword %llu) more than a ring of %llu "
                        "dwords past the read index (dword %llu)",
                        (unsigned long long)write,
                        (unsigned long long)ring_dwords(q),
                        (unsigned long long)q->read_index);
    return false;
  }
  *out_dwords = write - q->read_index;
  return true;
}

uint32_t kfd_model_ring_dword(const kfd_model_queue_t* q, uint64_t index) {
  uint64_t slot = (q->read_index + index) % ring_dwords(q);
  return atomic_load_explicit(
      (const _Atomic uint32_t*)(uintptr_t)(q->ring + slot * 4),
      memory_order_relaxed);
}

void kfd_model_ring_retire(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                           uint64_t dwords) {
  q->read_index += dwords;
  /* The engines report a wrapped offset: dwords (PM4), bytes (SDMA). */
  uint64_t wrapped = q->read_index % ring_dwords(q);
  if (q->type == HRX_KFD_QUEUE_TYPE_SDMA) wrapped *= sizeof(uint32_t);
  if (kfd_model_find_mapped(m, q->read_pointer, 8) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, q->read_pointer,
                        "read pointer no longer GPU-mapped");
    return;
  }
  atomic_store_explicit((_Atomic uint64_t*)(uintptr_t)q->read_pointer,
                        wrapped, memory_order_release);
}
