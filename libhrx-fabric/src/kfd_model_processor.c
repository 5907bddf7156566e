/* The KFD model's packet processor: one thread per model (created by
 * hrx_kfd_model_create, stopped and joined by hrx_kfd_model_destroy). A
 * doorbell store cannot be trapped, so it polls every queue's doorbell and
 * retires packets in order from the read index up to doorbell + 1 (AQL;
 * PM4 and SDMA queues run up to the doorbell's write index, in
 * kfd_model_pm4.c and kfd_model_sdma.c), one at a time, holding the
 * model's mutex while it runs one. When nothing moved it sleeps for a
 * millisecond (or until an event is set, or the model stops), so a queue
 * waiting on memory sees another queue's or the host's write within one.
 *
 * A packet whose header is still INVALID is not yet published and waits;
 * a barrier whose dependencies are unresolved waits without blocking other
 * queues. A fault (a wave's, or a packet the model cannot run) stops the
 * queue: the read index stays at the faulting packet (a bad completion
 * signal is found only after its packet retired), later packets never
 * run, and a bad address also sets the MEMORY events. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hrx/fabric/aql.h"
#include "kfd_model_internal.h"

#define KFD_MODEL_POLL_NS 1000000L

/* amd_signal_t (hardware.md §3): value at 8, event mailbox at 16, event id
 * at 24. */
#define KFD_MODEL_SIGNAL_BYTES 64u
#define KFD_MODEL_SIGNAL_VALUE 8u
#define KFD_MODEL_SIGNAL_MAILBOX 16u
#define KFD_MODEL_SIGNAL_EVENT_ID 24u
/* amd_queue_t (hardware.md §3). */
#define KFD_MODEL_AMD_QUEUE_BYTES 256u
#define KFD_MODEL_AMD_QUEUE_WRITE 56u
#define KFD_MODEL_AMD_QUEUE_INACTIVE 192u

void kfd_model_set_fault(kfd_model_queue_t* q, hrx_gfx11_fault_kind_t kind,
                         uint64_t address, const char* format, ...) {
  q->fault = (hrx_gfx11_fault_t){.kind = kind, .address = address};
  va_list args;
  va_start(args, format);
  vsnprintf(q->fault.reason, sizeof(q->fault.reason), format, args);
  va_end(args);
}

void* kfd_model_gpu_pointer(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            uint64_t address, uint64_t size,
                            uint64_t alignment, const char* what,
                            uint64_t packet) {
  if (address % alignment != 0) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_UNDECODABLE, address,
                        "%s at 0x%llx is not %llu-byte aligned", what,
                        (unsigned long long)address,
                        (unsigned long long)alignment);
  } else if (kfd_model_find_mapped(m, address, size) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, address,
                        "%s [0x%llx, +%llu) outside GPU-mapped memory", what,
                        (unsigned long long)address,
                        (unsigned long long)size);
  } else {
    return (void*)(uintptr_t)address;
  }
  q->fault.pc = packet;
  return NULL;
}

/* The signal at |handle|, or NULL (and a fault) when it is not mapped. */
static uint8_t* signal_at(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                          uint64_t handle) {
  /* amd_signal_t is 64-byte aligned; a misaligned handle is a bad
   * pointer, not a signal. */
  if (handle % KFD_MODEL_SIGNAL_BYTES != 0 ||
      kfd_model_find_mapped(m, handle, KFD_MODEL_SIGNAL_BYTES) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, handle,
                        "AQL signal misaligned or outside GPU-mapped memory");
    return NULL;
  }
  return (uint8_t*)(uintptr_t)handle;
}

/* Mails |signal|'s event when it names a mailbox. */
static void mail(hrx_kfd_model_t* m, kfd_model_queue_t* q, uint8_t* signal) {
  uint64_t mailbox;
  uint32_t event_id;
  memcpy(&mailbox, signal + KFD_MODEL_SIGNAL_MAILBOX, 8);
  memcpy(&event_id, signal + KFD_MODEL_SIGNAL_EVENT_ID, 4);
  if (mailbox == 0) return;
  if (mailbox % 8 != 0 || kfd_model_find_mapped(m, mailbox, 8) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, mailbox,
                        "event mailbox misaligned or outside GPU-mapped memory");
    return;
  }
  atomic_store_explicit((_Atomic uint64_t*)(uintptr_t)mailbox, event_id,
                        memory_order_release);
  kfd_model_signal_event(m, event_id);
}

/* Decrements the completion signal and, when it names a mailbox, writes
 * the event id there and sets the KFD event (the CP's end-of-packet
 * interrupt). */
static void complete(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                     uint64_t handle) {
  if (handle == 0) return;
  uint8_t* signal = signal_at(m, q, handle);
  if (signal == NULL) return;
  atomic_fetch_sub_explicit(
      (_Atomic int64_t*)(signal + KFD_MODEL_SIGNAL_VALUE), 1,
      memory_order_acq_rel);
  mail(m, q, signal);
}

/* The queue stopped: as the CP and trap handler do, store the error in
 * the amd_queue_t's queue_inactive_signal (at 192 of the amd_queue_t
 * whose write_dispatch_id, at 56, is the queue's write pointer) and mail
 * its event, so the runtime learns of it without polling. */
static void report_stop(hrx_kfd_model_t* m, kfd_model_queue_t* q) {
  int64_t error;
  switch (q->bad_packet ? HRX_GFX11_FAULT_NONE : q->fault.kind) {
    case HRX_GFX11_FAULT_NONE: error = HRX_KFD_QUEUE_ERROR_PACKET;
      break;
    case HRX_GFX11_FAULT_OUT_OF_BOUNDS: error = HRX_KFD_QUEUE_ERROR_MEMORY;
      break;
    case HRX_GFX11_FAULT_UNDECODABLE:
    case HRX_GFX11_FAULT_UNSUPPORTED: error = HRX_KFD_QUEUE_ERROR_ILLEGAL;
      break;
    default: error = HRX_KFD_QUEUE_ERROR_EXCEPTION;
  }
  if (q->write_pointer < KFD_MODEL_AMD_QUEUE_WRITE) return;
  uint64_t amd_queue = q->write_pointer - KFD_MODEL_AMD_QUEUE_WRITE;
  if (kfd_model_find_mapped(m, amd_queue, KFD_MODEL_AMD_QUEUE_BYTES) == NULL) {
    return;
  }
  uint64_t handle;
  memcpy(&handle, (const uint8_t*)(uintptr_t)amd_queue +
                      KFD_MODEL_AMD_QUEUE_INACTIVE, 8);
  if (handle == 0 || handle % KFD_MODEL_SIGNAL_BYTES != 0 ||
      kfd_model_find_mapped(m, handle, KFD_MODEL_SIGNAL_BYTES) == NULL) {
    return;
  }
  uint8_t* signal = (uint8_t*)(uintptr_t)handle;
  atomic_store_explicit((_Atomic int64_t*)(signal + KFD_MODEL_SIGNAL_VALUE),
                        error, memory_order_release);
  hrx_gfx11_fault_t fault = q->fault;
  mail(m, q, signal);
  q->fault = fault; /* a bad mailbox does not hide the first fault */
}

bool kfd_model_run_dispatch(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            hrx_gfx11_dispatch_t* d, hrx_gfx11_range_t extra) {
  hrx_gfx11_range_t ranges[KFD_MODEL_MAX_ALLOCATIONS + 1];
  size_t count = 0;
  for (size_t i = 0; i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    const kfd_model_allocation_t* a = &m->allocations[i];
    if (a->size != 0 && a->mapped) {
      ranges[count++] = (hrx_gfx11_range_t){a->va, a->size};
    }
  }
  if (extra.size != 0) ranges[count++] = extra;
  d->ranges = ranges;
  d->range_count = count;
  d->wave_instruction_budget = KFD_MODEL_WAVE_BUDGET;
  d->cancel = &m->preempt[q->id];
  d->threads = m->threads;
  d->timeout_ns = m->watchdog_ns;
  hrx_gfx11_fault_t fault;
  /* Without the mutex, so ioctls (allocations, other queues' doorbells,
   * a DESTROY_QUEUE that preempts this dispatch) need not wait for it. */
  uint64_t generation = q->generation;
  m->running++;
  m->running_queue = (int)q->id;
  pthread_mutex_unlock(&m->mutex);
  hrx_status_t status = hrx_gfx11_dispatch(d, m->allocator, &fault);
  pthread_mutex_lock(&m->mutex);
  m->running_queue = -1;
  if (--m->running == 0) kfd_model_release_deferred(m, 0, 0);
  pthread_cond_broadcast(&m->changed); /* a DESTROY_QUEUE may wait */
  if (!q->used || q->generation != generation) {
    /* The queue was destroyed meanwhile: nothing left to report to. */
    hrx_status_free(status);
    return false;
  }
  if (hrx_status_is_ok(status)) return true;
  if (fault.kind != HRX_GFX11_FAULT_NONE) {
    q->fault = fault;
  } else {
    /* Set-up the model lacks, or a malformed packet: no wave ran. */
    kfd_model_set_fault(q, HRX_GFX11_FAULT_UNSUPPORTED, d->kernel_descriptor,
                        "%s", hrx_status_message(status));
  }
  hrx_status_free(status);
  return false;
}

/* Private memory as the CP sets it up: a dispatch's private segment (the
 * packet's, at least the descriptor's fixed size) must fit the scratch its
 * queue's amd_queue_t describes (backing size and wave64 lane size at
 * 160..176, read_pointer being its read_dispatch_id at 128), else the
 * queue stops with a fault naming both. The waves then get their scratch
 * slots from that backing memory, backing + slot x roundup(bytes x 64,
 * 1024), as the CP programs each wave's flat scratch base. */
static bool scratch_suffices(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                             const hrx_aql_dispatch_packet_t* p,
                             hrx_gfx11_dispatch_t* d) {
  const uint8_t* kd = (const uint8_t*)(uintptr_t)p->kernel_object;
  uint32_t fixed = 0;
  memcpy(&fixed, kd + 4, 4); /* private_segment_fixed_size */
  uint64_t bytes = p->private_segment_size > fixed ? p->private_segment_size
                                                   : fixed;
  if (bytes == 0) return true;
  uint64_t amd_queue = q->read_pointer - 128;
  if (kfd_model_find_mapped(m, amd_queue, 256) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, amd_queue,
                        "amd_queue_t outside GPU-mapped memory");
    return false;
  }
  const uint8_t* c = (const uint8_t*)(uintptr_t)amd_queue;
  uint64_t backing = 0, size = 0;
  uint32_t lane_bytes = 0;
  memcpy(&backing, c + 160, 8);
  memcpy(&size, c + 168, 8);
  memcpy(&lane_bytes, c + 176, 4);
  uint64_t wave_bytes = (bytes * 64 + 1023) & ~UINT64_C(1023);
  if (backing == 0 || (uint64_t)lane_bytes * 64 < wave_bytes ||
      size < wave_bytes ||
      kfd_model_find_mapped(m, backing, size) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, backing,
                        "dispatch needs %llu private bytes per work-item "
                        "(%llu per wave); the queue's scratch holds %llu "
                        "bytes, %u per wave64 lane",
                        (unsigned long long)bytes,
                        (unsigned long long)wave_bytes,
                        (unsigned long long)size, lane_bytes);
    return false;
  }
  d->scratch = backing;
  d->scratch_size = size;
  d->private_segment_size = (uint32_t)bytes;
  return true;
}

static bool dispatch(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                     const hrx_aql_dispatch_packet_t* p) {
  if (kfd_model_find_mapped(m, p->kernel_object, 64) == NULL) {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_OUT_OF_BOUNDS, p->kernel_object,
                        "kernel descriptor outside GPU-mapped memory");
    return false;
  }
  hrx_gfx11_dispatch_t d = {
      .kernel_descriptor = p->kernel_object,
      .kernarg = p->kernarg_address,
      .grid = {p->grid_size_x, p->grid_size_y, p->grid_size_z},
      .workgroup = {p->workgroup_size_x, p->workgroup_size_y,
                    p->workgroup_size_z},
  };
  if (!scratch_suffices(m, q, p, &d)) return false;
  return kfd_model_run_dispatch(m, q, &d, (hrx_gfx11_range_t){0});
}

/* 1: the barrier's dependencies are met; 0: not yet; -1: fault. */
static int barrier_ready(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                         const hrx_aql_barrier_packet_t* p, bool any) {
  size_t deps = 0, met = 0;
  for (size_t i = 0; i < 5; ++i) {
    if (p->dep_signal[i] == 0) continue;
    uint8_t* signal = signal_at(m, q, p->dep_signal[i]);
    if (signal == NULL) return -1;
    ++deps;
    int64_t value = atomic_load_explicit(
        (_Atomic int64_t*)(signal + KFD_MODEL_SIGNAL_VALUE),
        memory_order_acquire);
    if (value == 0) ++met;
  }
  return any ? (deps == 0 || met > 0) : met == deps;
}

/* Runs the packet at the read index; true when the queue moved (a packet
 * retired or the queue faulted). */
static bool step(hrx_kfd_model_t* m, kfd_model_queue_t* q) {
  uint64_t limit = atomic_load_explicit(&m->doorbells[q->doorbell_index],
                                        memory_order_acquire) + 1;
  if (q->read_index >= limit) return false;
  uint64_t slots = q->ring_size / sizeof(hrx_aql_packet_t);
  hrx_aql_packet_t* packet =
      (hrx_aql_packet_t*)(uintptr_t)(q->ring + (q->read_index % slots) *
                                                    sizeof(hrx_aql_packet_t));
  _Atomic uint16_t* header = (_Atomic uint16_t*)&packet->dispatch.header;
  uint16_t type = atomic_load_explicit(header, memory_order_acquire) &
                  HRX_AQL_HEADER_TYPE_MASK;
  if (type == HRX_AQL_PACKET_INVALID) return false;
  bool ok;
  if (type == HRX_AQL_PACKET_KERNEL_DISPATCH) {
    ok = dispatch(m, q, &packet->dispatch);
  } else if (type == HRX_AQL_PACKET_BARRIER_AND ||
             type == HRX_AQL_PACKET_BARRIER_OR) {
    int ready = barrier_ready(m, q, &packet->barrier,
                              type == HRX_AQL_PACKET_BARRIER_OR);
    if (ready == 0) return false;
    ok = ready > 0;
  } else {
    kfd_model_set_fault(q, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                        "AQL packet type %u not modelled", type);
    q->bad_packet = true;
    ok = false;
  }
  if (!ok) return true;
  /* The completion signal sits at byte 56 of every packet type. The slot is
   * released (header INVALID, read index past it) before the signal, so a
   * producer woken by the signal finds the slot free. */
  uint64_t completion = packet->dispatch.completion_signal;
  atomic_store_explicit(header, HRX_AQL_PACKET_INVALID, memory_order_release);
  ++q->read_index;
  atomic_store_explicit((_Atomic uint64_t*)(uintptr_t)q->read_pointer,
                        q->read_index, memory_order_release);
  complete(m, q, completion);
  return true;
}

void* kfd_model_processor_main(void* model) {
  hrx_kfd_model_t* m = model;
  pthread_mutex_lock(&m->mutex);
  while (!m->stopping) {
    bool moved = false;
    for (size_t i = 0; i < KFD_MODEL_MAX_QUEUES; ++i) {
      kfd_model_queue_t* q = &m->queues[i];
      if (q->used && q->fault.kind == HRX_GFX11_FAULT_NONE) {
        bool aql = q->type == HRX_KFD_QUEUE_TYPE_COMPUTE_AQL;
        moved |= aql ? step(m, q)
                 : q->type == HRX_KFD_QUEUE_TYPE_SDMA ? kfd_model_sdma_step(m, q)
                                                      : kfd_model_pm4_step(m, q);
        /* Only an AQL queue has an amd_queue_t to report into; PM4 and
         * SDMA runtimes read the fault through describe_queue_fault. */
        if (aql && q->fault.kind != HRX_GFX11_FAULT_NONE) report_stop(m, q);
        /* A bad address is a GPU VM fault: MEMORY events report it. */
        if (q->fault.kind == HRX_GFX11_FAULT_OUT_OF_BOUNDS) {
          kfd_model_signal_memory_fault(m, q->fault.address);
        }
      }
    }
    if (moved) {
      /* Let waiting ioctls in between packets. */
      pthread_mutex_unlock(&m->mutex);
      pthread_mutex_lock(&m->mutex);
      continue;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += KFD_MODEL_POLL_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&m->changed, &m->mutex, &until);
  }
  pthread_mutex_unlock(&m->mutex);
  return NULL;
}
