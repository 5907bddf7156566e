/* AQL queues of the kfd provider: a ring in GPU memory that the command
 * processor (or the KFD model's packet processor) drains, created with
 * CREATE_QUEUE.
 *
 * Buffers (hardware.md §1-3): the ring; a page holding the amd_queue_t,
 * whose write_dispatch_id (56) and read_dispatch_id (128) are the queue's
 * write and read pointers and whose queue_inactive_signal (192) the packet
 * processor sets to an error code when the queue stops on a fault; the EOP
 * and context-save buffers at the node's sizes; the doorbell, mapped from
 * the kfd fd; and a kernarg area with one slot per packet.
 *
 * Publication. Producers fill a slot's body in place; before the header
 * is stored, prepare() makes the packet runnable by hardware: a dispatch's
 * kernarg segment is copied into the slot's kernarg area with the code
 * object v5 hidden arguments (block counts, group sizes, remainders, grid
 * dimensions) filled from the packet, and HRX's copy/fill agent packets
 * become dispatches of the blit kernels. Ringing stores the last reserved
 * index to the doorbell; the processor waits at a slot whose header is
 * still INVALID, so unpublished reservations are safe.
 *
 * A stopped queue never runs another packet. The device's event thread
 * (hrx_kfd_queue_check) turns it into a fault report for the packet at the
 * read index and completes every published packet after it as faulted;
 * later publications on the queue complete as faulted at once. Event
 * markers (barriers without dependencies) complete as if they had run:
 * a barrier on another queue waiting for one would otherwise wait forever
 * (the packet processor only counts a dependency at 0 as met). Restarting
 * (hrx_fabric_queue_restart) replaces the stopped hardware queue with a
 * new one over the same ring, at the write index. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amdgpu_object.h"
#include "kfd_blit.h"
#include "kfd_device.h"
#include "kfd_ioctl.h"

/* Work-items one blit dispatch launches at most; the kernels loop. */
#define HRX_KFD_BLIT_MAX_GRID (1u << 20)
#define HRX_KFD_AMD_QUEUE_WRITE 56u
#define HRX_KFD_AMD_QUEUE_READ 128u
#define HRX_KFD_AMD_QUEUE_INACTIVE 192u
/* compute_tmpring_size, then scratch_backing_memory_location (160),
 * _byte_size (168) and scratch_wave64_lane_byte_size (176). */
#define HRX_KFD_AMD_QUEUE_TMPRING 140u
#define HRX_KFD_AMD_QUEUE_SCRATCH 160u
#define HRX_KFD_DRAIN_POLL_US 200u

struct hrx_kfd_queue_t {
  hrx_fabric_queue_t base; /* first */
  hrx_kfd_device_t* device;
  /* scratch: device memory for private segments, allocated at creation
   * (size 0 without maximum_private_bytes). */
  hrx_fabric_memory_t ring, control, eop, cwsr, kernargs, scratch;
  hrx_fabric_signal_t* inactive;
  uint32_t queue_id;
  bool created;
  void* doorbell_page;
  _Atomic(_Atomic uint64_t*) doorbell;
  /* Doorbell pages of hardware queues a cancel reset replaced: producers
   * may still store to them, so they stay mapped until the queue goes. */
  void** old_doorbells;
  size_t old_doorbell_count, old_doorbell_capacity;
  /* Packets below this index were dropped by a reset: publishing one
   * (reserved before the reset) completes it as cancelled. */
  _Atomic uint64_t restart;
  /* Set once the queue stopped on a fault (guarded by the device mutex
   * for the report; read without it on publication). */
  _Atomic bool dead;
  hrx_fabric_fault_t fault; /* the report later packets repeat */
  /* Once the queue is dead the packet processor never moves its read
   * pointer again; the queue then reports this instead, every published
   * packet counted as retired (failed), so producers can drain. */
  _Atomic uint64_t retired;
};

static uint8_t* hrx_kfd_control(hrx_kfd_queue_t* q, size_t offset) {
  return (uint8_t*)q->control.host_pointer + offset;
}

/*===------------------------------------------------------------------===*/
/* Publication                                                             */
/*===------------------------------------------------------------------===*/

static void hrx_kfd_put(uint8_t* kernarg, uint32_t offset, uint32_t size,
                        uint64_t value) {
  memcpy(kernarg + offset, &value, size < 8 ? size : 8);
}

void hrx_kfd_hidden_args(const hrx_amdgpu_kernel_t* k,
                                const hrx_aql_dispatch_packet_t* p,
                                uint8_t* kernarg) {
  uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  uint32_t group[3] = {p->workgroup_size_x, p->workgroup_size_y,
                       p->workgroup_size_z};
  uint32_t dims = (p->setup & 3u) ? (p->setup & 3u) : 1u;
  for (uint32_t i = 0; i < k->arg_count; ++i) {
    const hrx_amdgpu_arg_t* a = &k->args[i];
    uint64_t value = 0;
    if (a->kind >= HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X &&
        a->kind <= HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z) {
      uint32_t d = a->kind - HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X;
      value = group[d] ? grid[d] / group[d] : 0;
    } else if (a->kind >= HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X &&
               a->kind <= HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z) {
      value = group[a->kind - HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X];
    } else if (a->kind >= HRX_AMDGPU_ARG_HIDDEN_REMAINDER_X &&
               a->kind <= HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Z) {
      uint32_t d = a->kind - HRX_AMDGPU_ARG_HIDDEN_REMAINDER_X;
      value = group[d] ? grid[d] % group[d] : 0;
    } else if (a->kind == HRX_AMDGPU_ARG_HIDDEN_GRID_DIMS) {
      value = dims;
    } else if (a->kind != HRX_AMDGPU_ARG_HIDDEN_OTHER) {
      continue; /* explicit: the producer's bytes stand */
    }
    hrx_kfd_put(kernarg, a->offset, a->size, value);
  }
}

static uint8_t* hrx_kfd_kernarg_slot(hrx_kfd_queue_t* q, uint64_t index) {
  return (uint8_t*)q->kernargs.host_pointer +
         (index & (q->base.size - 1)) * HRX_KFD_KERNARG_SLOT;
}

static void hrx_kfd_prepare_dispatch(hrx_kfd_queue_t* q, uint64_t index,
                                     hrx_aql_dispatch_packet_t* p) {
  const hrx_fabric_kernel_t* kernel =
      hrx_kfd_find_kernel_locked(q->device, p->kernel_object);
  /* An unknown kernel object goes to the GPU as it is, to fault there the
   * way hardware reports a bad descriptor. */
  if (!kernel || kernel->kernarg_size > HRX_KFD_KERNARG_SLOT) return;
  uint8_t* slot = hrx_kfd_kernarg_slot(q, index);
  memset(slot, 0, kernel->kernarg_size);
  if (p->kernarg_address && kernel->kernarg_size) {
    memcpy(slot, (const void*)(uintptr_t)p->kernarg_address,
           kernel->kernarg_size);
  }
  hrx_kfd_hidden_args(kernel->amdgpu, p, slot);
  p->kernarg_address = (uint64_t)(uintptr_t)slot;
}

/* Rewrites a copy or fill agent packet into a blit dispatch. */
static void hrx_kfd_prepare_agent(hrx_kfd_queue_t* q, uint64_t index,
                                  hrx_aql_packet_t* slot, uint16_t* header,
                                  uint16_t* setup) {
  const hrx_aql_agent_packet_t agent = slot->agent;
  uint64_t dst = agent.arg[0], src = agent.arg[1], bytes = agent.arg[2];
  const uint64_t* objects = q->device->blit_objects;
  uint64_t object, count;
  /* The operation travels in the setup half-word, stored with the
   * header (the body in the slot starts at byte 4). */
  if (*setup == HRX_AQL_AGENT_FILL) {
    object = objects[HRX_KFD_BLIT_FILL];
    count = bytes / 4;
  } else if (*setup != HRX_AQL_AGENT_COPY) {
    return; /* not ours to translate: the processor refuses it */
  } else if ((dst | src | bytes) % 16 == 0) {
    object = objects[HRX_KFD_BLIT_B128];
    count = bytes / 16;
  } else if ((dst | src | bytes) % 4 == 0) {
    object = objects[HRX_KFD_BLIT_B32];
    count = bytes / 4;
  } else {
    object = objects[HRX_KFD_BLIT_B8];
    count = bytes;
  }
  uint64_t grid = count < HRX_KFD_BLIT_MAX_GRID ? count : HRX_KFD_BLIT_MAX_GRID;
  if (grid == 0) grid = 1;
  hrx_kfd_blit_args_t args = {.dst = dst, .source = src, .count = count,
                              .stride = grid,
                              .workgroup_size = HRX_KFD_BLIT_WORKGROUP};
  uint8_t* kernarg = hrx_kfd_kernarg_slot(q, index);
  memcpy(kernarg, &args, sizeof(args));
  uint64_t completion = agent.completion_signal;
  hrx_aql_dispatch_packet_t* p = &slot->dispatch;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = HRX_KFD_BLIT_WORKGROUP;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = (uint32_t)grid;
  p->grid_size_y = p->grid_size_z = 1;
  p->kernel_object = object;
  p->kernarg_address = (uint64_t)(uintptr_t)kernarg;
  p->completion_signal = completion;
  *header = (uint16_t)((*header & ~HRX_AQL_HEADER_TYPE_MASK) |
                       HRX_AQL_PACKET_KERNEL_DISPATCH);
  *setup = 1;
}

/* An event marker: a barrier that waits for nothing, so completing it
 * touches no memory and orders nothing but what came before it. */
static bool hrx_kfd_is_marker(const hrx_aql_packet_t* slot, uint16_t type) {
  if (type != HRX_AQL_PACKET_BARRIER_AND && type != HRX_AQL_PACKET_BARRIER_OR) {
    return false;
  }
  for (int i = 0; i < 5; ++i) {
    if (slot->barrier.dep_signal[i]) return false;
  }
  return true;
}

/* Completes a packet that can never run (its queue stopped): as faulted,
 * or, for an event marker, as if it had run (see the top of the file). */
static void hrx_kfd_fail_packet(hrx_kfd_queue_t* q, uint64_t signal,
                                bool marker) {
  if (!signal) return;
  if (!marker) {
    hrx_fabric_fault_t fault = q->fault;
    fault.completion_signal = signal;
    hrx_fabric_queue_record_fault(&q->base, &fault);
  }
  /* A waiter may release the signal as soon as it reads the new value. */
  hrx_fabric_signal_t* s = hrx_fabric_signal_from_handle(signal);
  hrx_fabric_signal_retain(s);
  if (marker) {
    hrx_fabric_signal_subtract(s, 1);
  } else {
    hrx_fabric_signal_store(s, HRX_FABRIC_SIGNAL_FAULTED);
  }
  hrx_fabric_signal_release(s);
}

/* What a fault report calls a packet: its kernel, or its kind. With the
 * device mutex held. */
static const char* hrx_kfd_packet_name(hrx_kfd_device_t* d,
                                       const hrx_aql_packet_t* packet,
                                       uint16_t type) {
  if (type == HRX_AQL_PACKET_AGENT) return "(agent packet)";
  if (type != HRX_AQL_PACKET_KERNEL_DISPATCH) return "(barrier packet)";
  for (int i = 0; i < HRX_KFD_BLIT_COUNT; ++i) {
    if (packet->dispatch.kernel_object == d->blit_objects[i]) {
      return i == HRX_KFD_BLIT_FILL ? "(fill)" : "(copy)";
    }
  }
  const hrx_fabric_kernel_t* k =
      hrx_kfd_find_kernel_locked(d, packet->dispatch.kernel_object);
  return k ? k->name : "(unknown kernel object)";
}

/* Whether every signal |packet| names is one this device's packet
 * processor can reach (a GPU-mapped, 64-byte aligned amd_signal_t). With
 * the device mutex held. */
static bool hrx_kfd_signals_reachable(hrx_kfd_device_t* d,
                                      const hrx_aql_packet_t* packet,
                                      uint16_t type) {
  uint64_t handles[6] = {packet->dispatch.completion_signal};
  size_t count = 1;
  if (type == HRX_AQL_PACKET_BARRIER_AND || type == HRX_AQL_PACKET_BARRIER_OR) {
    for (int i = 0; i < 5; ++i) handles[count++] = packet->barrier.dep_signal[i];
  }
  for (size_t i = 0; i < count; ++i) {
    if (handles[i] != 0 &&
        (handles[i] % 64 != 0 ||
         !hrx_kfd_memory_contains_locked(d, handles[i], 64))) {
      return false;
    }
  }
  return true;
}

/* Publishes slot |index| under the device mutex, so a fault or a cancel
 * (which take it too) sees every packet either stored or not yet
 * prepared: a packet for a stopped queue, or one reserved before a reset,
 * completes as failed and its header is never stored. */
static void hrx_kfd_queue_publish_slot(hrx_fabric_queue_t* base,
                                       uint64_t index, uint16_t header,
                                       uint16_t setup) {
  hrx_kfd_queue_t* q = (hrx_kfd_queue_t*)base;
  hrx_kfd_device_t* d = q->device;
  hrx_aql_packet_t* slot = hrx_fabric_queue_slot(base, index);
  uint16_t type = header & HRX_AQL_HEADER_TYPE_MASK;
  pthread_mutex_lock(&d->mutex);
  bool dead = atomic_load_explicit(&q->dead, memory_order_acquire);
  if (dead || index < atomic_load(&q->restart)) {
    hrx_kfd_fail_packet(q, slot->dispatch.completion_signal,
                        hrx_kfd_is_marker(slot, type));
    if (dead && atomic_load(&q->retired) < index + 1) {
      atomic_store(&q->retired, index + 1);
    }
  } else if (!hrx_kfd_signals_reachable(d, slot, type)) {
    /* The packet processor could not complete it: refuse it here. */
    hrx_fabric_fault_t fault = {.kind = HRX_FABRIC_FAULT_BAD_PACKET};
    snprintf(fault.kernel, sizeof(fault.kernel), "%s",
             hrx_kfd_packet_name(d, slot, type));
    snprintf(fault.detail, sizeof(fault.detail), "%s",
             "a signal of the packet is not in this GPU's memory (create "
             "signals for a GPU's queues with "
             "hrx_fabric_device_signal_create)");
    hrx_fabric_fault_t saved = q->fault;
    q->fault = fault;
    hrx_kfd_fail_packet(q, slot->dispatch.completion_signal, false);
    q->fault = saved;
    /* An empty barrier keeps the ring's order without touching memory. */
    memset((uint8_t*)slot + 4, 0, sizeof(*slot) - 4);
    hrx_fabric_queue_store_header(
        base, index,
        (uint16_t)((header & ~HRX_AQL_HEADER_TYPE_MASK) |
                   HRX_AQL_PACKET_BARRIER_AND),
        0);
  } else {
    if (type == HRX_AQL_PACKET_KERNEL_DISPATCH) {
      hrx_kfd_prepare_dispatch(q, index, &slot->dispatch);
    } else if (type == HRX_AQL_PACKET_AGENT) {
      hrx_kfd_prepare_agent(q, index, slot, &header, &setup);
    }
    hrx_fabric_queue_store_header(base, index, header, setup);
  }
  pthread_mutex_unlock(&d->mutex);
}

static void hrx_kfd_queue_ring(hrx_fabric_queue_t* base) {
  hrx_kfd_queue_t* q = (hrx_kfd_queue_t*)base;
  uint64_t write = atomic_load_explicit(&base->write_index,
                                        memory_order_acquire);
  if (write == 0) return;
  atomic_store_explicit(
      (_Atomic uint64_t*)hrx_kfd_control(q, HRX_KFD_AMD_QUEUE_WRITE), write,
      memory_order_release);
  atomic_store_explicit(atomic_load(&q->doorbell), write - 1,
                        memory_order_release);
}

/*===------------------------------------------------------------------===*/
/* Faults                                                                  */
/*===------------------------------------------------------------------===*/

/* What the queue's error says, and whatever the driver (or model) can
 * tell about it. */
static void hrx_kfd_describe(hrx_kfd_queue_t* q, int64_t error,
                             const hrx_aql_packet_t* packet) {
  hrx_kfd_device_t* d = q->device;
  hrx_fabric_fault_t* f = &q->fault;
  memset(f, 0, sizeof(*f));
  f->kind = error == HRX_KFD_QUEUE_ERROR_MEMORY
                ? HRX_FABRIC_FAULT_OUT_OF_BOUNDS
                : error == HRX_KFD_QUEUE_ERROR_PACKET
                      ? HRX_FABRIC_FAULT_BAD_PACKET
                      : HRX_FABRIC_FAULT_GPU_EXCEPTION;
  uint16_t type = packet->dispatch.header & HRX_AQL_HEADER_TYPE_MASK;
  snprintf(f->kernel, sizeof(f->kernel), "%s",
           hrx_kfd_packet_name(d, packet, type));
  if (d->sys.describe_queue_fault) {
    d->sys.describe_queue_fault(d->sys.context, q->queue_id, f->detail,
                                sizeof(f->detail), &f->address);
  }
  if (!f->detail[0]) {
    snprintf(f->detail, sizeof(f->detail), "queue %u stopped with error "
             "0x%llx", q->queue_id, (unsigned long long)error);
  }
}

static uint16_t hrx_kfd_slot_type(const hrx_aql_packet_t* slot) {
  return __atomic_load_n(&slot->dispatch.header, __ATOMIC_ACQUIRE) &
         HRX_AQL_HEADER_TYPE_MASK;
}

/* Completes every published packet in [read, write) as failed with
 * q->fault (its kernel field set per packet when |name_each|) and clears
 * its header, so no packet processor runs it. Slots still INVALID are
 * failed by their publication. With the device mutex held. */
static void hrx_kfd_fail_held(hrx_kfd_queue_t* q, uint64_t read,
                              uint64_t write, bool name_each) {
  for (uint64_t i = read; i < write; ++i) {
    hrx_aql_packet_t* slot = hrx_fabric_queue_slot(&q->base, i);
    uint16_t type = hrx_kfd_slot_type(slot);
    if (type == HRX_AQL_PACKET_INVALID) continue;
    if (name_each) {
      snprintf(q->fault.kernel, sizeof(q->fault.kernel), "%s",
               hrx_kfd_packet_name(q->device, slot, type));
    }
    hrx_kfd_fail_packet(q, slot->dispatch.completion_signal,
                        hrx_kfd_is_marker(slot, type));
    __atomic_store_n(&slot->dispatch.header, HRX_AQL_PACKET_INVALID,
                     __ATOMIC_RELEASE);
  }
}

void hrx_kfd_queue_check(hrx_kfd_queue_t* q) {
  if (atomic_load_explicit(&q->dead, memory_order_acquire)) return;
  int64_t error = hrx_fabric_signal_load(q->inactive);
  if (error == 0) return;
  uint64_t read = hrx_fabric_queue_read_index(&q->base);
  uint64_t write = hrx_fabric_queue_write_index(&q->base);
  hrx_aql_packet_t first;
  memcpy(&first, hrx_fabric_queue_slot(&q->base, read), sizeof(first));
  hrx_kfd_describe(q, error, &first);
  /* Dead first: from here on publications fail at once (under the mutex
   * this holds), so the scan below sees every stored packet. */
  atomic_store(&q->retired, write);
  __atomic_store_n(&q->base.read_index, &q->retired, __ATOMIC_RELEASE);
  atomic_store_explicit(&q->dead, true, memory_order_release);
  hrx_kfd_fail_held(q, read, write, false);
}

/* Scratch for |private_bytes| per work-item on every wave slot of the GPU,
 * described in the amd_queue_t as ROCr describes it (hardware.md §3;
 * libamdf docs/gpu.md gives the size): the command processor programs
 * each wave's scratch base from it. */
static hrx_status_t hrx_kfd_queue_scratch(hrx_kfd_queue_t* q,
                                          uint64_t private_bytes) {
  if (private_bytes == 0) return HRX_OK;
  const hrx_kfd_node_t* node = &q->device->node;
  uint64_t engines = node->simd_arrays_per_engine
                         ? node->array_count / node->simd_arrays_per_engine
                         : 1;
  if (engines == 0) engines = 1;
  uint64_t slots = node->max_slots_scratch_cu ? node->max_slots_scratch_cu
                                              : node->max_waves_per_simd *
                                                    node->simd_per_cu;
  uint64_t waves = (node->cu_count + engines - 1) / engines * engines * slots;
  uint64_t wave_bytes = (private_bytes * 64 + 1023) & ~UINT64_C(1023);
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      q->device, waves * wave_bytes, 0, false, &q->scratch));
  uint8_t* c = hrx_kfd_control(q, 0);
  /* COMPUTE_TMPRING_SIZE: WAVES [11:0] per shader engine, WAVESIZE
   * [24:12] in 256-byte units. */
  uint32_t tmpring =
      (uint32_t)((wave_bytes / 256) << 12) | (uint32_t)(waves / engines);
  uint64_t location = q->scratch.device_address;
  uint64_t size = q->scratch.size;
  uint32_t lane_bytes = (uint32_t)(wave_bytes / 64);
  memcpy(c + HRX_KFD_AMD_QUEUE_TMPRING, &tmpring, 4);
  memcpy(c + HRX_KFD_AMD_QUEUE_SCRATCH, &location, 8);
  memcpy(c + HRX_KFD_AMD_QUEUE_SCRATCH + 8, &size, 8);
  memcpy(c + HRX_KFD_AMD_QUEUE_SCRATCH + 16, &lane_bytes, 4);
  q->base.private_bytes = private_bytes;
  return HRX_OK;
}

static hrx_status_t hrx_kfd_queue_open(hrx_kfd_queue_t* q,
                                       uint32_t packet_count);

/* Destroys the hardware queue and creates a new one over the same ring,
 * starting at |write|: slots below it that are published later fail
 * (q->fault). The old doorbell page stays mapped: producers may still
 * store to it. With the device mutex held. */
static hrx_status_t hrx_kfd_queue_replace(hrx_kfd_queue_t* q,
                                          uint64_t write) {
  hrx_kfd_device_t* d = q->device;
  hrx_status_t status = hrx_allocator_grow_array(
      d->base.allocator, sizeof(void*), q->old_doorbell_count + 1,
      &q->old_doorbell_capacity, (void**)&q->old_doorbells);
  if (status == HRX_OK) {
    q->old_doorbells[q->old_doorbell_count++] = q->doorbell_page;
    q->doorbell_page = NULL;
    status = hrx_kfd_hw_queue_close(d, q->queue_id);
    q->created = status != HRX_OK;
  }
  atomic_store(&q->restart, write);
  atomic_store((_Atomic uint64_t*)hrx_kfd_control(q, HRX_KFD_AMD_QUEUE_READ),
               write);
  atomic_store((_Atomic uint64_t*)hrx_kfd_control(q, HRX_KFD_AMD_QUEUE_WRITE),
               write);
  hrx_fabric_signal_store(q->inactive, 0);
  if (status == HRX_OK) status = hrx_kfd_queue_open(q, q->base.size);
  return status;
}

/* Stops the hardware queue, ends everything it held as cancelled, and
 * starts a new hardware queue over the same ring at the write index. With
 * the device mutex held. */
static void hrx_kfd_queue_reset(hrx_kfd_queue_t* q) {
  uint64_t read = hrx_fabric_queue_read_index(&q->base);
  uint64_t write = hrx_fabric_queue_write_index(&q->base);
  memset(&q->fault, 0, sizeof(q->fault));
  q->fault.kind = HRX_FABRIC_FAULT_CANCELLED;
  snprintf(q->fault.detail, sizeof(q->fault.detail), "%s",
           "the hardware queue was reset to stop cancelled work; every "
           "packet it held was dropped");
  hrx_kfd_fail_held(q, read, write, true);
  snprintf(q->fault.kernel, sizeof(q->fault.kernel), "%s",
           "(reserved before a queue reset)");
  hrx_status_t status = hrx_kfd_queue_replace(q, write);
  if (status != HRX_OK) {
    /* No hardware queue: the queue is dead, its packets fail at once. */
    snprintf(q->fault.detail, sizeof(q->fault.detail),
             "the hardware queue could not be re-created after a cancel: %s",
             hrx_status_message(status));
    hrx_status_free(status);
    atomic_store(&q->retired, write);
    __atomic_store_n(&q->base.read_index, &q->retired, __ATOMIC_RELEASE);
    atomic_store_explicit(&q->dead, true, memory_order_release);
  }
}

/* hrx_fabric_queue_restart: a stopped queue has failed everything
 * published on it (hrx_kfd_queue_check, publication), so a new hardware
 * queue takes over at the write index. */
static hrx_status_t hrx_kfd_queue_restart(hrx_fabric_queue_t* base) {
  hrx_kfd_queue_t* q = (hrx_kfd_queue_t*)base;
  hrx_kfd_device_t* d = q->device;
  pthread_mutex_lock(&d->mutex);
  if (!atomic_load_explicit(&q->dead, memory_order_acquire)) {
    pthread_mutex_unlock(&d->mutex);
    return HRX_OK;
  }
  uint64_t write = hrx_fabric_queue_write_index(base);
  /* Late publications of slots reserved while it was stopped repeat the
   * fault that stopped it. */
  snprintf(q->fault.kernel, sizeof(q->fault.kernel), "%s",
           "(reserved before a queue restart)");
  hrx_status_t status = hrx_kfd_queue_replace(q, write);
  if (status == HRX_OK) {
    __atomic_store_n(&base->read_index,
                     (_Atomic uint64_t*)hrx_kfd_control(
                         q, HRX_KFD_AMD_QUEUE_READ),
                     __ATOMIC_RELEASE);
    atomic_store_explicit(&q->dead, false, memory_order_release);
  } else {
    /* Still stopped: every slot up to here counts as retired (failed). */
    if (atomic_load(&q->retired) < write) atomic_store(&q->retired, write);
    status = hrx_status_annotate(status, "restarting queue %u after a fault",
                                 q->queue_id);
  }
  pthread_mutex_unlock(&d->mutex);
  return status;
}

void hrx_kfd_queue_cancel(hrx_kfd_queue_t* q, uint64_t signal) {
  if (atomic_load_explicit(&q->dead, memory_order_acquire)) return;
  uint64_t read = hrx_fabric_queue_read_index(&q->base);
  uint64_t write = hrx_fabric_queue_write_index(&q->base);
  for (uint64_t i = read; i < write; ++i) {
    hrx_aql_packet_t* slot = hrx_fabric_queue_slot(&q->base, i);
    if (hrx_kfd_slot_type(slot) != HRX_AQL_PACKET_INVALID &&
        slot->dispatch.completion_signal == signal) {
      hrx_kfd_queue_reset(q);
      return;
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Hardware queues of every family                                         */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_kfd_queue_context_allocate(hrx_kfd_device_t* d,
                                            hrx_fabric_memory_t* out_eop,
                                            hrx_fabric_memory_t* out_cwsr) {
  hrx_kfd_queue_sizes_t sizes;
  hrx_kfd_queue_sizes(&d->node, &sizes);
  uint64_t xcc = d->node.num_xcc ? d->node.num_xcc : 1;
  HRX_RETURN_IF_ERROR(
      hrx_kfd_memory_allocate_flags(d, sizes.eop, 0, true, out_eop));
  return hrx_kfd_memory_allocate_flags(
      d, (sizes.cwsr + sizes.debug_memory) * xcc, 0, false, out_cwsr);
}

hrx_status_t hrx_kfd_hw_queue_close(hrx_kfd_device_t* d, uint32_t queue_id) {
  hrx_kfd_destroy_queue_args_t args = {.queue_id = queue_id};
  return hrx_kfd_device_ioctl(d, HRX_KFD_IOC_DESTROY_QUEUE,
                              "AMDKFD_IOC_DESTROY_QUEUE", &args);
}

void hrx_kfd_doorbell_unmap(hrx_kfd_device_t* d, void* page) {
  if (page) d->sys.munmap(d->sys.context, page, HRX_KFD_DOORBELL_MAP);
}

hrx_status_t hrx_kfd_hw_queue_open(hrx_kfd_device_t* d,
                                   const hrx_kfd_queue_plan_t* plan,
                                   hrx_kfd_hw_queue_t* out) {
  hrx_kfd_create_queue_args_t args = {
      .ring_base_address = plan->ring,
      .write_pointer_address = plan->write_pointer,
      .read_pointer_address = plan->read_pointer,
      .ring_size = (uint32_t)plan->ring_bytes,
      .gpu_id = d->node.gpu_id,
      .queue_type = plan->type,
      .queue_percentage = 100,
      .queue_priority = 7,
  };
  if (plan->eop) {
    hrx_kfd_queue_sizes_t sizes;
    hrx_kfd_queue_sizes(&d->node, &sizes);
    args.eop_buffer_address = plan->eop->device_address;
    args.eop_buffer_size = sizes.eop;
    args.ctx_save_restore_address = plan->cwsr->device_address;
    args.ctx_save_restore_size = (uint32_t)sizes.cwsr;
    args.ctl_stack_size = (uint32_t)sizes.ctl_stack;
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_device_ioctl(d, HRX_KFD_IOC_CREATE_QUEUE,
                                           "AMDKFD_IOC_CREATE_QUEUE", &args));
  uint64_t page = args.doorbell_offset & ~(uint64_t)(HRX_KFD_DOORBELL_MAP - 1);
  void* mapped = NULL;
  int rc = d->sys.mmap(d->sys.context, NULL, HRX_KFD_DOORBELL_MAP,
                       PROT_READ | PROT_WRITE, MAP_SHARED, d->kfd_fd,
                       (off_t)page, &mapped);
  if (rc < 0) {
    hrx_status_free(hrx_kfd_hw_queue_close(d, args.queue_id));
    return hrx_status_from_errno(-rc, "cannot map the doorbell of queue %u",
                                 args.queue_id);
  }
  *out = (hrx_kfd_hw_queue_t){
      .queue_id = args.queue_id,
      .doorbell_page = mapped,
      .doorbell = (_Atomic uint64_t*)((uint8_t*)mapped +
                                      (args.doorbell_offset - page)),
  };
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Creation                                                                */
/*===------------------------------------------------------------------===*/

static void hrx_kfd_queue_untrack(hrx_kfd_queue_t* q) {
  hrx_kfd_device_t* d = q->device;
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->queue_count; ++i) {
    if (d->queues[i] != q) continue;
    d->queues[i] = d->queues[--d->queue_count];
    break;
  }
  pthread_mutex_unlock(&d->mutex);
}

static void hrx_kfd_queue_free(hrx_kfd_queue_t* q) {
  hrx_kfd_device_t* d = q->device;
  hrx_kfd_doorbell_unmap(d, q->doorbell_page);
  for (size_t i = 0; i < q->old_doorbell_count; ++i) {
    hrx_kfd_doorbell_unmap(d, q->old_doorbells[i]);
  }
  hrx_allocator_free(d->base.allocator, q->old_doorbells);
  if (q->created) hrx_status_free(hrx_kfd_hw_queue_close(d, q->queue_id));
  hrx_fabric_memory_t* buffers[] = {&q->scratch, &q->kernargs, &q->cwsr,
                                    &q->eop, &q->control, &q->ring};
  for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); ++i) {
    if (buffers[i]->device_address) hrx_kfd_memory_free(&d->base, buffers[i]);
  }
  hrx_fabric_signal_release(q->inactive);
  /* deinit may drop the last device reference: free with a copy. */
  hrx_allocator_t allocator = d->base.allocator;
  if (q->base.vtable) hrx_fabric_queue_deinit(&q->base);
  hrx_allocator_free(allocator, q);
}

/* Waits for every published packet, then destroys the queue. A stopped
 * queue has nothing left to wait for. */
static void hrx_kfd_queue_destroy(hrx_fabric_queue_t* base) {
  hrx_kfd_queue_t* q = (hrx_kfd_queue_t*)base;
  hrx_kfd_queue_untrack(q);
  /* Packets without a completion signal mail no event: poll. */
  while (!atomic_load_explicit(&q->dead, memory_order_acquire) &&
         hrx_fabric_signal_load(q->inactive) == 0 &&
         hrx_fabric_queue_read_index(base) <
             hrx_fabric_queue_write_index(base)) {
    usleep(HRX_KFD_DRAIN_POLL_US);
  }
  hrx_kfd_queue_free(q);
}

static const hrx_fabric_queue_vtable_t hrx_kfd_queue_vtable = {
    .destroy = hrx_kfd_queue_destroy,
    .publish_slot = hrx_kfd_queue_publish_slot,
    .ring = hrx_kfd_queue_ring,
    .restart = hrx_kfd_queue_restart,
    .ring_always = true,
};

static hrx_status_t hrx_kfd_queue_buffers(hrx_kfd_queue_t* q,
                                          uint32_t packet_count) {
  hrx_kfd_device_t* d = q->device;
  const uint32_t uncached = HRX_KFD_ALLOC_COHERENT | HRX_KFD_ALLOC_UNCACHED;
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      d, (uint64_t)packet_count * sizeof(hrx_aql_packet_t), uncached, false,
      &q->ring));
  HRX_RETURN_IF_ERROR(
      hrx_kfd_memory_allocate_flags(d, HRX_KFD_PAGE, uncached, true,
                                    &q->control));
  HRX_RETURN_IF_ERROR(hrx_kfd_queue_context_allocate(d, &q->eop, &q->cwsr));
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      d, (uint64_t)packet_count * HRX_KFD_KERNARG_SLOT, 0, false,
      &q->kernargs));
  return hrx_kfd_signal_create(&d->base, 0, &q->inactive);
}

/* The amd_queue_t fields a packet processor reads (hardware.md §3). */
static void hrx_kfd_queue_describe(hrx_kfd_queue_t* q, uint32_t packet_count) {
  uint8_t* c = hrx_kfd_control(q, 0);
  uint32_t type = 0; /* HSA_QUEUE_TYPE_MULTIPLE */
  uint64_t ring = q->ring.device_address;
  uint64_t inactive = hrx_fabric_signal_handle(q->inactive);
  uint32_t read_offset = HRX_KFD_AMD_QUEUE_READ;
  memcpy(c + 0, &type, 4);
  memcpy(c + 8, &ring, 8);
  memcpy(c + 24, &packet_count, 4);
  memcpy(c + 136, &read_offset, 4);
  memcpy(c + HRX_KFD_AMD_QUEUE_INACTIVE, &inactive, 8);
}

static hrx_status_t hrx_kfd_queue_open(hrx_kfd_queue_t* q,
                                       uint32_t packet_count) {
  const hrx_kfd_queue_plan_t plan = {
      .type = HRX_KFD_QUEUE_TYPE_COMPUTE_AQL,
      .ring = q->ring.device_address,
      .ring_bytes = (uint64_t)packet_count * sizeof(hrx_aql_packet_t),
      .read_pointer = q->control.device_address + HRX_KFD_AMD_QUEUE_READ,
      .write_pointer = q->control.device_address + HRX_KFD_AMD_QUEUE_WRITE,
      .eop = &q->eop,
      .cwsr = &q->cwsr,
  };
  hrx_kfd_hw_queue_t hw;
  HRX_RETURN_IF_ERROR(hrx_kfd_hw_queue_open(q->device, &plan, &hw));
  q->created = true;
  q->queue_id = hw.queue_id;
  q->doorbell_page = hw.doorbell_page;
  atomic_store(&q->doorbell, hw.doorbell);
  return HRX_OK;
}

hrx_status_t hrx_kfd_queue_create(hrx_fabric_device_t* base,
                                  uint32_t packet_count,
                                  uint64_t maximum_private_bytes,
                                  hrx_fabric_queue_t** out_queue) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base);
  /* The ring is a buffer object of its own, and the driver wants the BO
   * to be exactly ring_size: at least a page of packets. */
  if (packet_count < HRX_KFD_PAGE / sizeof(hrx_aql_packet_t)) {
    packet_count = HRX_KFD_PAGE / sizeof(hrx_aql_packet_t);
  }
  hrx_kfd_queue_t* q = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(base->allocator, sizeof(*q), (void**)&q));
  memset(q, 0, sizeof(*q));
  q->device = d;
  hrx_status_t status = hrx_kfd_queue_buffers(q, packet_count);
  if (status == HRX_OK) {
    hrx_fabric_queue_init(
        &q->base, &hrx_kfd_queue_vtable, base, q->ring.host_pointer,
        packet_count,
        (_Atomic uint64_t*)hrx_kfd_control(q, HRX_KFD_AMD_QUEUE_READ));
    hrx_kfd_queue_describe(q, packet_count);
    status = hrx_kfd_queue_scratch(q, maximum_private_bytes);
  }
  if (status == HRX_OK) {
    status = hrx_kfd_queue_open(q, packet_count);
  }
  if (status == HRX_OK) {
    pthread_mutex_lock(&d->mutex);
    status = hrx_allocator_grow_array(base->allocator, sizeof(hrx_kfd_queue_t*),
                                      d->queue_count + 1, &d->queue_capacity,
                                      (void**)&d->queues);
    if (status == HRX_OK) d->queues[d->queue_count++] = q;
    pthread_mutex_unlock(&d->mutex);
  }
  if (status != HRX_OK) {
    hrx_kfd_queue_free(q);
    return status;
  }
  *out_queue = &q->base;
  return HRX_OK;
}
