/* CREATE_QUEUE and DESTROY_QUEUE: the checks kfd_queue_acquire_buffers()
 * makes (hardware.md §1), with the driver's EINVAL for any of them, and
 * the queue's doorbell slot. With the model's mutex held. */
#include <errno.h>
#include <stdatomic.h>

#include "kfd_model_internal.h"

/* A doorbell the caller never rang: processing runs up to doorbell + 1,
 * which wraps to packet 0. */
#define KFD_MODEL_DOORBELL_IDLE UINT64_MAX

static bool mapped(const hrx_kfd_model_t* m, uint64_t address,
                   uint64_t size) {
  return address != 0 && kfd_model_find_mapped(m, address, size) != NULL;
}

/* The buffers the CP would use must be GPU-mapped BOs of the sizes the
 * node dictates; the ring's mapping must be exactly ring_size. */
static bool buffers_valid(const hrx_kfd_model_t* m,
                          const hrx_kfd_create_queue_args_t* args) {
  const kfd_model_allocation_t* ring =
      kfd_model_find_mapped(m, args->ring_base_address, args->ring_size);
  uint64_t cwsr_bo = (args->ctx_save_restore_size + m->debug_memory_size +
                      KFD_MODEL_PAGE - 1) /
                     KFD_MODEL_PAGE * KFD_MODEL_PAGE;
  return ring != NULL && ring->va == args->ring_base_address &&
         ring->size == args->ring_size &&
         args->read_pointer_address % 8 == 0 &&
         args->write_pointer_address % 8 == 0 &&
         mapped(m, args->read_pointer_address, 8) &&
         mapped(m, args->write_pointer_address, 8) &&
         args->eop_buffer_size == m->eop_size &&
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
  /* PM4 and SDMA queues are the next slice's. */
  if (args->queue_type != HRX_KFD_QUEUE_TYPE_COMPUTE_AQL) return -EINVAL;
  if (!buffers_valid(m, args)) return -EINVAL;
  for (uint32_t i = 0; i < KFD_MODEL_MAX_QUEUES; ++i) {
    kfd_model_queue_t* q = &m->queues[i];
    if (q->used) continue;
    *q = (kfd_model_queue_t){
        .used = true,
        .id = i,
        .ring = args->ring_base_address,
        .ring_size = size,
        .read_pointer = args->read_pointer_address,
        .write_pointer = args->write_pointer_address,
        .doorbell_index = i,
        .generation = ++m->next_generation,
        /* The queue starts at the index its read pointer holds (0 for a
         * new ring), so a runtime can re-create a queue over a ring it
         * keeps using. */
        .read_index = atomic_load_explicit(
            (_Atomic uint64_t*)(uintptr_t)args->read_pointer_address,
            memory_order_acquire),
    };
    atomic_store_explicit(&m->preempt[i], false, memory_order_release);
    atomic_store_explicit(&m->doorbells[i],
                          KFD_MODEL_DOORBELL_IDLE, memory_order_release);
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
