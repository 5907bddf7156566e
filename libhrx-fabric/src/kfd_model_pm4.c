/* The KFD model's PM4 command processor for compute queues (KFD queue type
 * COMPUTE): packets run one at a time from the ring, or from the indirect
 * buffer an INDIRECT_BUFFER packet started, with the model's mutex held.
 *
 * What each packet does here (pm4_packets.h has the layouts):
 * - SET_SH_REG writes the queue's SH register file; DISPATCH_DIRECT runs
 *   the kernel those registers describe on the gfx11 executor.
 * - WRITE_DATA, RELEASE_MEM and DMA_DATA write memory as the CP would once
 *   the work before them is done (dispatches here finish before the next
 *   packet starts); RELEASE_MEM's interrupt sets the KFD event its
 *   context id names, as the driver's interrupt handler does.
 * - WAIT_REG_MEM(64) leaves the queue parked on the packet until its
 *   compare holds, whoever writes the value (the host, another queue).
 * - ACQUIRE_MEM and EVENT_WRITE CS_PARTIAL_FLUSH order nothing the model
 *   has not already ordered: their fields are checked, then they retire.
 * A packet that is malformed, reserved, or names memory outside every
 * mapped allocation stops the queue with a fault naming the packet; a
 * packet the CP knows but the model does not stops it as UNSUPPORTED. */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "kfd_model_internal.h"

/* Kernel descriptor fields (hardware.md §3) the executor reads. */
#define KFD_MODEL_KD_GROUP_SEGMENT 0u
#define KFD_MODEL_KD_ENTRY_OFFSET 16u
#define KFD_MODEL_KD_RSRC3 44u
#define KFD_MODEL_KD_RSRC1 48u
#define KFD_MODEL_KD_RSRC2 52u
#define KFD_MODEL_KD_PROPERTIES 56u
#define KFD_MODEL_KD_KERNARG_PTR (1u << 3)
#define KFD_MODEL_KD_WAVE32 (1u << 10)
/* The executor's user SGPR layouts: none, or the kernarg pointer. */
#define KFD_MODEL_KERNARG_SGPRS 2u

typedef enum pm4_result_t {
  PM4_RETIRE, /* done: the read index moves past it */
  PM4_WAIT,   /* not yet: run it again later */
  PM4_STOP,   /* the queue moved without retiring (faulted, or an IB began) */
} pm4_result_t;

/* The packet at the read index (of the IB when one runs). */
typedef struct pm4_packet_t {
  uint64_t address; /* of its header, for fault reports */
  uint32_t header;
  uint32_t opcode;
  uint32_t length; /* dwords, header included */
} pm4_packet_t;

/* Dword |i| of the current packet (0: the header). */
static uint32_t dword(const kfd_model_queue_t* q, uint32_t i) {
  if (!q->pm4.in_ib) return kfd_model_ring_dword(q, i);
  uint64_t at = q->pm4.ib_base + (uint64_t)(q->pm4.ib_position + i) * 4;
  return atomic_load_explicit((const _Atomic uint32_t*)(uintptr_t)at,
                              memory_order_relaxed);
}

static uint64_t dword_pair(const kfd_model_queue_t* q, uint32_t i) {
  return dword(q, i) | (uint64_t)dword(q, i + 1) << 32;
}

/* Stops the queue on |p| with a reason that names the packet. */
static pm4_result_t packet_fault(kfd_model_queue_t* q, const pm4_packet_t* p,
                                 hrx_gfx11_fault_kind_t kind,
                                 const char* why) {
  kfd_model_set_fault(q, kind, 0, "PM4 packet 0x%08x (opcode 0x%02x) at "
                      "0x%llx%s: %s", p->header, p->opcode,
                      (unsigned long long)p->address,
                      q->pm4.in_ib ? " in an indirect buffer" : "", why);
  q->fault.pc = p->address;
  q->bad_packet = true;
  return PM4_STOP;
}

static pm4_result_t malformed(kfd_model_queue_t* q, const pm4_packet_t* p,
                              const char* why) {
  return packet_fault(q, p, HRX_GFX11_FAULT_UNDECODABLE, why);
}

static pm4_result_t unsupported(kfd_model_queue_t* q, const pm4_packet_t* p,
                                const char* why) {
  return packet_fault(q, p, HRX_GFX11_FAULT_UNSUPPORTED, why);
}

/* A memory operand of |p|: the pointer, or NULL after a fault. */
static void* operand(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                     const pm4_packet_t* p, uint64_t address, uint64_t size,
                     uint64_t alignment) {
  return kfd_model_gpu_pointer(m, q, address, size, alignment,
                               "PM4 packet operand", p->address);
}

int kfd_model_compare(uint32_t function, uint64_t value, uint64_t reference) {
  switch (function) {
    case HRX_PM4_COMPARE_ALWAYS: return 1;
    case HRX_PM4_COMPARE_LESS: return value < reference;
    case HRX_PM4_COMPARE_LESS_EQUAL: return value <= reference;
    case HRX_PM4_COMPARE_EQUAL: return value == reference;
    case HRX_PM4_COMPARE_NOT_EQUAL: return value != reference;
    case HRX_PM4_COMPARE_GREATER_EQUAL: return value >= reference;
    case HRX_PM4_COMPARE_GREATER: return value > reference;
    default: return -1;
  }
}

static uint32_t sh(const kfd_model_queue_t* q, uint32_t reg) {
  return q->pm4.sh[reg - HRX_PM4_SH_REG_START];
}

static pm4_result_t set_sh_reg(kfd_model_queue_t* q, const pm4_packet_t* p) {
  if (p->length < HRX_PM4_SET_SH_REG_FIXED_DWORDS + 1) {
    return malformed(q, p, "SET_SH_REG without values");
  }
  uint32_t offset = dword(q, 1);
  uint32_t count = p->length - HRX_PM4_SET_SH_REG_FIXED_DWORDS;
  if (offset >= HRX_PM4_SH_REG_COUNT ||
      count > HRX_PM4_SH_REG_COUNT - offset) {
    return malformed(q, p, "registers past the SH window");
  }
  for (uint32_t i = 0; i < count; ++i) {
    q->pm4.sh[offset + i] = dword(q, HRX_PM4_SET_SH_REG_FIXED_DWORDS + i);
  }
  return PM4_RETIRE;
}

static void put_u32(uint8_t* descriptor, uint32_t offset, uint32_t value) {
  memcpy(descriptor + offset, &value, sizeof(value));
}

/* The descriptor the executor reads, from the COMPUTE_* registers: the
 * entry (PGM_LO/HI), RSRC1/2/3 as programmed, LDS from RSRC2, and user
 * SGPRs 0-1 as the kernarg pointer when RSRC2 asks for two (the executor
 * loads no other layout). */
static pm4_result_t build_descriptor(kfd_model_queue_t* q,
                                     const pm4_packet_t* p,
                                     uint64_t* out_kernarg) {
  uint32_t rsrc2 = sh(q, HRX_PM4_COMPUTE_PGM_RSRC2);
  uint32_t user_sgprs = rsrc2 >> HRX_PM4_RSRC2_USER_SGPR_SHIFT &
                        HRX_PM4_RSRC2_USER_SGPR_MASK;
  if (user_sgprs != 0 && user_sgprs != KFD_MODEL_KERNARG_SGPRS) {
    return unsupported(q, p,
                       "the executor loads 0 or 2 user SGPRs (the kernarg "
                       "pointer in COMPUTE_USER_DATA_0/1)");
  }
  uint64_t entry = ((uint64_t)(sh(q, HRX_PM4_COMPUTE_PGM_HI) &
                               HRX_PM4_PGM_HI_MASK)
                        << 32 |
                    sh(q, HRX_PM4_COMPUTE_PGM_LO))
                   << HRX_PM4_PGM_ADDRESS_SHIFT;
  uint8_t* kd = q->pm4.descriptor;
  memset(kd, 0, sizeof(q->pm4.descriptor));
  put_u32(kd, KFD_MODEL_KD_GROUP_SEGMENT,
          (rsrc2 >> HRX_PM4_RSRC2_LDS_SIZE_SHIFT & HRX_PM4_RSRC2_LDS_SIZE_MASK) *
              HRX_PM4_LDS_GRANULE_BYTES);
  uint64_t offset = entry - (uint64_t)(uintptr_t)kd;
  memcpy(kd + KFD_MODEL_KD_ENTRY_OFFSET, &offset, sizeof(offset));
  put_u32(kd, KFD_MODEL_KD_RSRC3, sh(q, HRX_PM4_COMPUTE_PGM_RSRC3));
  put_u32(kd, KFD_MODEL_KD_RSRC1, sh(q, HRX_PM4_COMPUTE_PGM_RSRC1));
  put_u32(kd, KFD_MODEL_KD_RSRC2, rsrc2);
  put_u32(kd, KFD_MODEL_KD_PROPERTIES,
          KFD_MODEL_KD_WAVE32 |
              (user_sgprs ? KFD_MODEL_KD_KERNARG_PTR : 0u));
  uint64_t low = sh(q, HRX_PM4_COMPUTE_USER_DATA_0);
  uint64_t high = sh(q, HRX_PM4_COMPUTE_USER_DATA_0 + 1);
  *out_kernarg = user_sgprs ? low | high << 32 : 0;
  return PM4_RETIRE;
}

static pm4_result_t dispatch_direct(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                    const pm4_packet_t* p) {
  uint32_t initiator = dword(q, 4);
  if (!(initiator & HRX_PM4_INITIATOR_COMPUTE_SHADER_EN)) {
    return malformed(q, p, "COMPUTE_SHADER_EN clear");
  }
  if (!(initiator & HRX_PM4_INITIATOR_CS_W32_EN)) {
    return unsupported(q, p, "wave64 dispatch (the executor runs wave32)");
  }
  hrx_gfx11_dispatch_t d = {0};
  bool start_at_0 = initiator & HRX_PM4_INITIATOR_FORCE_START_AT_000;
  bool threads = initiator & HRX_PM4_INITIATOR_USE_THREAD_DIMENSIONS;
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t dim = dword(q, 1 + i);
    /* An empty grid launches nothing. */
    if (dim == 0) return PM4_RETIRE;
    if (!start_at_0 && sh(q, HRX_PM4_COMPUTE_START_X + i) != 0) {
      return unsupported(q, p, "COMPUTE_START_* other than 0");
    }
    d.workgroup[i] = sh(q, HRX_PM4_COMPUTE_NUM_THREAD_X + i) &
                     HRX_PM4_NUM_THREAD_FULL_MASK;
    if (d.workgroup[i] == 0) return malformed(q, p, "COMPUTE_NUM_THREAD_* 0");
    uint64_t items = threads ? dim : (uint64_t)dim * d.workgroup[i];
    if (items > UINT32_MAX) {
      return unsupported(q, p, "a grid of 2^32 or more work-items");
    }
    d.grid[i] = (uint32_t)items;
  }
  pm4_result_t built = build_descriptor(q, p, &d.kernarg);
  if (built != PM4_RETIRE) return built;
  d.kernel_descriptor = (uint64_t)(uintptr_t)q->pm4.descriptor;
  hrx_gfx11_range_t descriptor = {d.kernel_descriptor,
                                  sizeof(q->pm4.descriptor)};
  return kfd_model_run_dispatch(m, q, &d, descriptor) ? PM4_RETIRE : PM4_STOP;
}

static pm4_result_t write_data(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                               const pm4_packet_t* p) {
  if (p->length < HRX_PM4_WRITE_DATA_FIXED_DWORDS + 1) {
    return malformed(q, p, "WRITE_DATA without data");
  }
  uint32_t control = dword(q, 1);
  uint32_t dst = control >> HRX_PM4_WRITE_DATA_DST_SEL_SHIFT &
                 HRX_PM4_WRITE_DATA_DST_SEL_MASK;
  if (dst != HRX_PM4_WRITE_DATA_DST_MEMORY &&
      dst != HRX_PM4_WRITE_DATA_DST_MEMORY_SYNC &&
      dst != HRX_PM4_WRITE_DATA_DST_TC_L2) {
    return unsupported(q, p, "WRITE_DATA to anything but memory");
  }
  uint32_t count = p->length - HRX_PM4_WRITE_DATA_FIXED_DWORDS;
  bool one_address = control & HRX_PM4_WRITE_DATA_ONE_ADDR;
  _Atomic uint32_t* target =
      operand(m, q, p, dword_pair(q, 2), one_address ? 4 : 4ull * count, 4);
  if (target == NULL) return PM4_STOP;
  for (uint32_t i = 0; i < count; ++i) {
    atomic_store_explicit(&target[one_address ? 0 : i],
                          dword(q, HRX_PM4_WRITE_DATA_FIXED_DWORDS + i),
                          memory_order_release);
  }
  return PM4_RETIRE;
}

static pm4_result_t wait_reg_mem(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                 const pm4_packet_t* p, bool wide) {
  uint32_t control = dword(q, 1);
  if ((control >> HRX_PM4_WAIT_MEM_SPACE_SHIFT &
       HRX_PM4_WAIT_MEM_SPACE_MASK) != HRX_PM4_WAIT_MEM_SPACE_MEMORY ||
      (control >> HRX_PM4_WAIT_OPERATION_SHIFT &
       HRX_PM4_WAIT_OPERATION_MASK) != 0) {
    return unsupported(q, p, "a wait on a register or a write-wait-write");
  }
  uint64_t size = wide ? 8 : 4;
  void* word = operand(m, q, p, dword_pair(q, 2), size, size);
  if (word == NULL) return PM4_STOP;
  uint64_t reference = wide ? dword_pair(q, 4) : dword(q, 4);
  uint64_t mask = wide ? dword_pair(q, 6) : dword(q, 5);
  uint64_t value =
      wide ? atomic_load_explicit((_Atomic uint64_t*)word,
                                  memory_order_acquire)
           : atomic_load_explicit((_Atomic uint32_t*)word,
                                  memory_order_acquire);
  int holds = kfd_model_compare(control & HRX_PM4_WAIT_FUNCTION_MASK,
                                value & mask, reference);
  if (holds < 0) return malformed(q, p, "reserved compare function 7");
  return holds ? PM4_RETIRE : PM4_WAIT;
}

static uint64_t clock_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static pm4_result_t release_mem(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                const pm4_packet_t* p) {
  uint32_t event = dword(q, 1);
  uint32_t type = event & HRX_PM4_EVENT_TYPE_MASK;
  if ((event >> HRX_PM4_EVENT_INDEX_SHIFT & HRX_PM4_EVENT_INDEX_MASK) !=
          HRX_PM4_EVENT_INDEX_END_OF_PIPE ||
      (type != HRX_PM4_EVENT_CACHE_FLUSH_TS &&
       type != HRX_PM4_EVENT_CACHE_FLUSH_AND_INV_TS &&
       type != HRX_PM4_EVENT_BOTTOM_OF_PIPE_TS)) {
    return unsupported(q, p, "a release other than an end-of-pipe "
                             "timestamp event");
  }
  uint32_t select = dword(q, 2);
  uint32_t data = select >> HRX_PM4_RELEASE_MEM_DATA_SEL_SHIFT &
                  HRX_PM4_RELEASE_MEM_DATA_SEL_MASK;
  uint32_t interrupt = select >> HRX_PM4_RELEASE_MEM_INT_SEL_SHIFT &
                       HRX_PM4_RELEASE_MEM_INT_SEL_MASK;
  if ((select >> HRX_PM4_RELEASE_MEM_DST_SEL_SHIFT &
       HRX_PM4_RELEASE_MEM_DST_SEL_MASK) > 1) {
    return unsupported(q, p, "a release to a queue register");
  }
  if (data > HRX_PM4_DATA_SYSTEM_CLOCK ||
      interrupt > HRX_PM4_INT_DATA_AFTER_WRITE_CONFIRM) {
    return unsupported(q, p, "DATA_SEL or INT_SEL the model lacks");
  }
  if (data != HRX_PM4_DATA_NONE) {
    uint64_t size = data == HRX_PM4_DATA_32 ? 4 : 8;
    void* target = operand(m, q, p, dword_pair(q, 3), size, size);
    if (target == NULL) return PM4_STOP;
    uint64_t value = data == HRX_PM4_DATA_32 || data == HRX_PM4_DATA_64
                         ? dword_pair(q, 5)
                         : clock_ns();
    if (size == 4) {
      atomic_store_explicit((_Atomic uint32_t*)target, (uint32_t)value,
                            memory_order_release);
    } else {
      atomic_store_explicit((_Atomic uint64_t*)target, value,
                            memory_order_release);
    }
  }
  if (interrupt == HRX_PM4_INT_ONLY ||
      interrupt == HRX_PM4_INT_AFTER_WRITE_CONFIRM) {
    kfd_model_signal_event(m, dword(q, 7));
  }
  return PM4_RETIRE;
}

static pm4_result_t acquire_mem(kfd_model_queue_t* q, const pm4_packet_t* p) {
  if ((dword(q, 3) & ~HRX_PM4_ACQUIRE_MEM_SIZE_HI_MASK) != 0 ||
      (dword(q, 5) & ~HRX_PM4_ACQUIRE_MEM_BASE_HI_MASK) != 0 ||
      (dword(q, 7) & ~HRX_PM4_ACQUIRE_MEM_GCR_CNTL_MASK) != 0) {
    return malformed(q, p, "reserved bits set in ACQUIRE_MEM");
  }
  return PM4_RETIRE;
}

static pm4_result_t event_write(kfd_model_queue_t* q, const pm4_packet_t* p) {
  uint32_t event = p->length == HRX_PM4_EVENT_WRITE_DWORDS ? dword(q, 1) : 0;
  if (p->length != HRX_PM4_EVENT_WRITE_DWORDS ||
      (event & HRX_PM4_EVENT_TYPE_MASK) != HRX_PM4_EVENT_CS_PARTIAL_FLUSH ||
      (event >> HRX_PM4_EVENT_INDEX_SHIFT & HRX_PM4_EVENT_INDEX_MASK) !=
          HRX_PM4_EVENT_INDEX_PARTIAL_FLUSH) {
    return unsupported(q, p, "an EVENT_WRITE other than CS_PARTIAL_FLUSH");
  }
  return PM4_RETIRE;
}

static pm4_result_t indirect_buffer(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                    const pm4_packet_t* p) {
  if (q->pm4.in_ib) return unsupported(q, p, "an indirect buffer in one");
  uint32_t control = dword(q, 3);
  if (!(control & HRX_PM4_IB_VALID)) return malformed(q, p, "VALID clear");
  if (control & HRX_PM4_IB_CHAIN) return unsupported(q, p, "chained IB");
  uint32_t size = control & HRX_PM4_IB_SIZE_MASK;
  if (size == 0) return malformed(q, p, "an empty indirect buffer");
  uint64_t base = dword(q, 1) |
                  (uint64_t)(dword(q, 2) & HRX_PM4_IB_BASE_HI_MASK) << 32;
  if (operand(m, q, p, base, 4ull * size, 4) == NULL) return PM4_STOP;
  q->pm4.in_ib = true;
  q->pm4.ib_base = base;
  q->pm4.ib_dwords = size;
  q->pm4.ib_position = 0;
  return PM4_STOP;
}

static pm4_result_t dma_data(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                             const pm4_packet_t* p) {
  uint32_t control = dword(q, 1);
  uint32_t command = dword(q, 6);
  uint32_t src = control >> HRX_PM4_DMA_SRC_SEL_SHIFT & HRX_PM4_DMA_SEL_MASK;
  uint32_t dst = control >> HRX_PM4_DMA_DST_SEL_SHIFT & HRX_PM4_DMA_SEL_MASK;
  if ((src != HRX_PM4_DMA_SEL_ADDRESS && src != HRX_PM4_DMA_SEL_L2 &&
       src != HRX_PM4_DMA_SRC_DATA) ||
      (dst != HRX_PM4_DMA_SEL_ADDRESS && dst != HRX_PM4_DMA_SEL_L2) ||
      (command & HRX_PM4_DMA_COMMAND_FLAGS_MASK) != 0) {
    return unsupported(q, p, "DMA_DATA other than memory to memory");
  }
  uint32_t count = command & HRX_PM4_DMA_BYTE_COUNT_MASK;
  if (count == 0) return PM4_RETIRE;
  bool fill = src == HRX_PM4_DMA_SRC_DATA;
  if (fill && count % 4 != 0) return malformed(q, p, "a fill of part dwords");
  uint8_t* target = operand(m, q, p, dword_pair(q, 4), count, fill ? 4 : 1);
  if (target == NULL) return PM4_STOP;
  if (fill) {
    uint32_t value = dword(q, 2);
    for (uint32_t at = 0; at < count; at += 4) memcpy(target + at, &value, 4);
    return PM4_RETIRE;
  }
  const uint8_t* source = operand(m, q, p, dword_pair(q, 2), count, 1);
  if (source == NULL) return PM4_STOP;
  memmove(target, source, count);
  return PM4_RETIRE;
}

/* The length of a fixed-size packet; 0 for the others. */
static uint32_t fixed_length(uint32_t opcode) {
  switch (opcode) {
    case HRX_PM4_DISPATCH_DIRECT: return HRX_PM4_DISPATCH_DIRECT_DWORDS;
    case HRX_PM4_WAIT_REG_MEM: return HRX_PM4_WAIT_REG_MEM_DWORDS;
    case HRX_PM4_WAIT_REG_MEM64: return HRX_PM4_WAIT_REG_MEM64_DWORDS;
    case HRX_PM4_RELEASE_MEM: return HRX_PM4_RELEASE_MEM_DWORDS;
    case HRX_PM4_ACQUIRE_MEM: return HRX_PM4_ACQUIRE_MEM_DWORDS;
    case HRX_PM4_INDIRECT_BUFFER: return HRX_PM4_INDIRECT_BUFFER_DWORDS;
    case HRX_PM4_DMA_DATA: return HRX_PM4_DMA_DATA_DWORDS;
    default: return 0;
  }
}

static pm4_result_t execute(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            const pm4_packet_t* p) {
  if (p->header >> HRX_PM4_TYPE_SHIFT == HRX_PM4_TYPE2) return PM4_RETIRE;
  uint32_t length = fixed_length(p->opcode);
  if (length != 0 && p->length != length) {
    return malformed(q, p, "packet length wrong for its opcode");
  }
  switch (p->opcode) {
    case HRX_PM4_NOP: return PM4_RETIRE;
    case HRX_PM4_SET_SH_REG: return set_sh_reg(q, p);
    case HRX_PM4_DISPATCH_DIRECT: return dispatch_direct(m, q, p);
    case HRX_PM4_WRITE_DATA: return write_data(m, q, p);
    case HRX_PM4_WAIT_REG_MEM: return wait_reg_mem(m, q, p, false);
    case HRX_PM4_WAIT_REG_MEM64: return wait_reg_mem(m, q, p, true);
    case HRX_PM4_RELEASE_MEM: return release_mem(m, q, p);
    case HRX_PM4_ACQUIRE_MEM: return acquire_mem(q, p);
    case HRX_PM4_EVENT_WRITE: return event_write(q, p);
    case HRX_PM4_INDIRECT_BUFFER: return indirect_buffer(m, q, p);
    case HRX_PM4_DMA_DATA: return dma_data(m, q, p);
    default: return unsupported(q, p, "opcode not modelled");
  }
}

/* The packet at the read index into |p|: 1; 0 while it is not (wholly)
 * published; -1 when the queue faulted. */
static int next_packet(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                       pm4_packet_t* p) {
  uint64_t available;
  if (q->pm4.in_ib) {
    /* The IB may have been unmapped since it began. */
    uint64_t bytes = 4ull * q->pm4.ib_dwords;
    if (kfd_model_gpu_pointer(m, q, q->pm4.ib_base, bytes, 4,
                              "indirect buffer", q->pm4.ib_base) == NULL) {
      return -1;
    }
    available = q->pm4.ib_dwords - q->pm4.ib_position;
    p->address = q->pm4.ib_base + 4ull * q->pm4.ib_position;
  } else {
    if (!kfd_model_ring_pending(m, q, &available)) return -1;
    if (available == 0) return 0;
    p->address = q->ring + q->read_index * 4 % q->ring_size;
  }
  p->header = dword(q, 0);
  p->opcode = p->header >> HRX_PM4_OPCODE_SHIFT & HRX_PM4_OPCODE_MASK;
  uint32_t type = p->header >> HRX_PM4_TYPE_SHIFT;
  uint32_t count = p->header >> HRX_PM4_COUNT_SHIFT & HRX_PM4_COUNT_MASK;
  if (type == HRX_PM4_TYPE2) {
    p->length = 1;
  } else if (type != HRX_PM4_TYPE3) {
    p->length = 1;
    malformed(q, p, "type-0/1 register writes are not for user queues");
    return -1;
  } else if (p->header & HRX_PM4_PREDICATE) {
    p->length = 1;
    unsupported(q, p, "predicated packet");
    return -1;
  } else {
    bool filler = p->opcode == HRX_PM4_NOP &&
                  count == HRX_PM4_NOP_ONE_DWORD_COUNT;
    p->length = filler ? 1 : count + 2;
  }
  if (p->length <= available) return 1;
  if (q->pm4.in_ib) {
    malformed(q, p, "packet runs past the end of its indirect buffer");
    return -1;
  }
  if (p->length > q->ring_size / 4) {
    malformed(q, p, "packet longer than the ring");
    return -1;
  }
  return 0;
}

bool kfd_model_pm4_step(hrx_kfd_model_t* m, kfd_model_queue_t* q) {
  pm4_packet_t p;
  int found = next_packet(m, q, &p);
  if (found <= 0) return found < 0;
  uint64_t generation = q->generation;
  pm4_result_t result = execute(m, q, &p);
  /* A dispatch drops the mutex: the queue may be gone or stopped. */
  if (!q->used || q->generation != generation) return true;
  if (result == PM4_WAIT) return false;
  if (result == PM4_STOP) return true;
  if (!q->pm4.in_ib) {
    kfd_model_ring_retire(m, q, p.length);
    return true;
  }
  q->pm4.ib_position += p.length;
  if (q->pm4.ib_position == q->pm4.ib_dwords) {
    q->pm4.in_ib = false;
    kfd_model_ring_retire(m, q, HRX_PM4_INDIRECT_BUFFER_DWORDS);
  }
  return true;
}
