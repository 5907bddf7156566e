/* PM4 compute (kfd_pm4_compute.h): kernel descriptors turned into SH
 * register writes, the kernarg arena, CP DMA copies and fills. */
#include "kfd_pm4_compute.h"

#include <string.h>

#include "pm4_packets.h"

/* Kernel descriptor fields (hardware.md §3). */
#define KD_GROUP_SEGMENT 0u
#define KD_PRIVATE_SEGMENT 4u
#define KD_ENTRY_OFFSET 16u
#define KD_RSRC3 44u
#define KD_RSRC1 48u
#define KD_RSRC2 52u
#define KD_PROPERTIES 56u
/* kernel_code_properties: the user SGPRs each enable bit adds, in the
 * order the hardware loads them, and the wave size. */
#define KD_KERNARG_PTR (1u << 3)
#define KD_WAVE32 (1u << 10)
static const uint32_t user_sgprs_per_bit[7] = {4, 2, 2, 2, 2, 2, 1};
static const char* const user_sgpr_names[7] = {
    "the private segment buffer", "the dispatch pointer",
    "the queue pointer",          "the kernarg pointer",
    "the dispatch id",            "flat scratch",
    "the private segment size"};
/* gfx11 gives a workgroup at most 64 KiB of LDS. */
#define LDS_MAX_BYTES 65536u
/* CP DMA moves at most this many bytes per packet (a power of two under
 * the 26-bit BYTE_COUNT). */
#define DMA_CHUNK (UINT32_C(1) << 25)
/* Before each command: CS_PARTIAL_FLUSH; before a dispatch also the
 * acquire. */
#define FLUSH_DWORDS HRX_PM4_EVENT_WRITE_DWORDS
#define ACQUIRE_DWORDS HRX_PM4_ACQUIRE_MEM_DWORDS
/* What submit appends before the fence: flush and write back. */
#define TAIL_DWORDS (FLUSH_DWORDS + ACQUIRE_DWORDS)
#define GCR_ACQUIRE                                                    \
  (HRX_PM4_GCR_GLI_INV_ALL | HRX_PM4_GCR_GLK_INV | HRX_PM4_GCR_GLV_INV | \
   HRX_PM4_GCR_GL1_INV | HRX_PM4_GCR_GL2_INV)
#define GCR_RELEASE (HRX_PM4_GCR_GLM_WB | HRX_PM4_GCR_GL2_WB)

static uint32_t kd_u32(const uint8_t* kd, uint32_t offset) {
  uint32_t value;
  memcpy(&value, kd + offset, sizeof(value));
  return value;
}

static hrx_status_t unimplemented(const char* name, const char* what) {
  return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                         "kernel '%s' asks for %s, which PM4 dispatch does "
                         "not program (it loads only the kernarg pointer "
                         "into user SGPRs and sets up no scratch)",
                         name, what);
}

/* The user SGPRs the descriptor enables: the kernarg pointer alone or
 * nothing, and as many as RSRC2 loads. */
static hrx_status_t check_user_sgprs(const char* name, uint32_t properties,
                                     uint32_t rsrc2, bool* out_kernarg) {
  uint32_t count = 0;
  for (uint32_t bit = 0; bit < 7; ++bit) {
    if (!(properties & (1u << bit))) continue;
    if ((1u << bit) != KD_KERNARG_PTR) {
      return unimplemented(name, user_sgpr_names[bit]);
    }
    count += user_sgprs_per_bit[bit];
  }
  uint32_t loaded = rsrc2 >> HRX_PM4_RSRC2_USER_SGPR_SHIFT &
                    HRX_PM4_RSRC2_USER_SGPR_MASK;
  if (loaded != count) {
    /* More than the enabled ones means arguments preloaded into SGPRs. */
    return unimplemented(name, "kernarg preloading (more user SGPRs than "
                               "its enable bits name)");
  }
  *out_kernarg = count != 0;
  return HRX_OK;
}

/* Appends SET_SH_REG of |count| registers from |reg| at |*at|. */
static hrx_status_t put_sh(uint32_t reg, const uint32_t* values,
                           uint32_t count, uint32_t* dwords, size_t capacity,
                           size_t* at) {
  size_t written = 0;
  HRX_RETURN_IF_ERROR(hrx_pm4_set_sh_reg(reg, values, count, dwords + *at,
                                         capacity - *at, &written));
  *at += written;
  return HRX_OK;
}

/* RSRC2 with LDS_SIZE covering |group_bytes|. */
static uint32_t rsrc2_with_lds(uint32_t rsrc2, uint32_t group_bytes) {
  uint32_t granules = (group_bytes + HRX_PM4_LDS_GRANULE_BYTES - 1) /
                      HRX_PM4_LDS_GRANULE_BYTES;
  uint32_t field = rsrc2 >> HRX_PM4_RSRC2_LDS_SIZE_SHIFT &
                   HRX_PM4_RSRC2_LDS_SIZE_MASK;
  if (field > granules) granules = field;
  return (rsrc2 & ~(HRX_PM4_RSRC2_LDS_SIZE_MASK
                    << HRX_PM4_RSRC2_LDS_SIZE_SHIFT)) |
         granules << HRX_PM4_RSRC2_LDS_SIZE_SHIFT;
}

hrx_status_t hrx_kfd_pm4_encode_dispatch(
    const uint8_t* kd, uint64_t object, const hrx_aql_dispatch_packet_t* p,
    uint64_t kernarg, const char* name, uint32_t* dwords, size_t capacity,
    size_t* out_count) {
  *out_count = 0;
  const uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  const uint32_t group[3] = {p->workgroup_size_x, p->workgroup_size_y,
                             p->workgroup_size_z};
  for (int i = 0; i < 3; ++i) {
    if (group[i] == 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "kernel '%s': workgroup size %d is 0", name, i);
    }
  }
  uint32_t properties = kd_u32(kd, KD_PROPERTIES) & 0xFFFFu;
  uint32_t rsrc2 = kd_u32(kd, KD_RSRC2);
  bool kernarg_sgprs = false;
  HRX_RETURN_IF_ERROR(check_user_sgprs(name, properties, rsrc2,
                                       &kernarg_sgprs));
  if ((rsrc2 & HRX_PM4_RSRC2_SCRATCH_EN) ||
      kd_u32(kd, KD_PRIVATE_SEGMENT) != 0 || p->private_segment_size != 0) {
    return unimplemented(name, "scratch (private segment memory)");
  }
  uint32_t lds = kd_u32(kd, KD_GROUP_SEGMENT);
  if (p->group_segment_size > lds) lds = p->group_segment_size;
  if (lds > LDS_MAX_BYTES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' needs %u bytes of workgroup memory; "
                           "gfx11 gives a workgroup at most %u",
                           name, lds, LDS_MAX_BYTES);
  }
  int64_t entry_offset;
  memcpy(&entry_offset, kd + KD_ENTRY_OFFSET, sizeof(entry_offset));
  uint64_t entry = object + (uint64_t)entry_offset;
  if (entry % 256 != 0 || entry >> 48 != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s': code entry 0x%llx is not a 256-byte "
                           "aligned 48-bit address",
                           name, (unsigned long long)entry);
  }
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return HRX_OK;

  bool partial = false;
  uint32_t threads[3], counts[3];
  for (int i = 0; i < 3; ++i) {
    uint32_t rest = grid[i] % group[i];
    partial |= rest != 0;
    threads[i] = group[i] | rest << HRX_PM4_NUM_THREAD_PARTIAL_SHIFT;
    counts[i] = grid[i] / group[i];
  }
  uint32_t initiator = HRX_PM4_INITIATOR_COMPUTE_SHADER_EN;
  if (properties & KD_WAVE32) initiator |= HRX_PM4_INITIATOR_CS_W32_EN;
  if (partial) {
    /* Thread counts: the CP sizes the last group of each dimension from
     * NUM_THREAD_PARTIAL. */
    initiator |= HRX_PM4_INITIATOR_USE_THREAD_DIMENSIONS;
    memcpy(counts, grid, sizeof(counts));
  }
  const uint32_t start[3] = {0, 0, 0};
  const uint32_t program[2] = {
      (uint32_t)(entry >> HRX_PM4_PGM_ADDRESS_SHIFT),
      (uint32_t)(entry >> (32 + HRX_PM4_PGM_ADDRESS_SHIFT)) &
          HRX_PM4_PGM_HI_MASK};
  const uint32_t resources[2] = {kd_u32(kd, KD_RSRC1),
                                 rsrc2_with_lds(rsrc2, lds)};
  const uint32_t rsrc3 = kd_u32(kd, KD_RSRC3);
  const uint32_t zero = 0;
  const uint32_t user_data[2] = {(uint32_t)kernarg,
                                 (uint32_t)(kernarg >> 32)};
  size_t at = 0;
  HRX_RETURN_IF_ERROR(
      put_sh(HRX_PM4_COMPUTE_START_X, start, 3, dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(put_sh(HRX_PM4_COMPUTE_NUM_THREAD_X, threads, 3,
                             dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(
      put_sh(HRX_PM4_COMPUTE_PGM_LO, program, 2, dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(put_sh(HRX_PM4_COMPUTE_PGM_RSRC1, resources, 2,
                             dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(
      put_sh(HRX_PM4_COMPUTE_PGM_RSRC3, &rsrc3, 1, dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(put_sh(HRX_PM4_COMPUTE_RESOURCE_LIMITS, &zero, 1,
                             dwords, capacity, &at));
  HRX_RETURN_IF_ERROR(
      put_sh(HRX_PM4_COMPUTE_TMPRING_SIZE, &zero, 1, dwords, capacity, &at));
  if (kernarg_sgprs) {
    HRX_RETURN_IF_ERROR(put_sh(HRX_PM4_COMPUTE_USER_DATA_0, user_data, 2,
                               dwords, capacity, &at));
  }
  size_t written = 0;
  HRX_RETURN_IF_ERROR(hrx_pm4_dispatch_direct(
      counts, initiator, dwords + at, capacity - at, &written));
  *out_count = at + written;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* The queue                                                               */
/*===------------------------------------------------------------------===*/

struct hrx_kfd_pm4_compute_t {
  hrx_kfd_device_t* device;
  hrx_kfd_user_queue_t* queue;
  hrx_fabric_memory_t kernargs; /* slots of HRX_KFD_KERNARG_SLOT bytes */
  uint32_t slot_count;
  uint64_t next_slot; /* monotonic; slot = next_slot % slot_count */
  /* Per slot: the fence after which it is free again (0: never used). */
  uint64_t* slot_fences;
};

hrx_kfd_user_queue_t* hrx_kfd_pm4_compute_queue(hrx_kfd_pm4_compute_t* c) {
  return c->queue;
}

void hrx_kfd_pm4_compute_teardown(hrx_kfd_pm4_compute_t* c) {
  hrx_kfd_device_t* d = c->device;
  if (c->queue) hrx_kfd_user_queue_teardown(c->queue);
  if (c->kernargs.device_address) hrx_kfd_memory_free(&d->base, &c->kernargs);
  hrx_allocator_free(d->base.allocator, c->slot_fences);
  hrx_allocator_free(d->base.allocator, c);
}

hrx_status_t hrx_kfd_pm4_compute_create(hrx_kfd_device_t* d,
                                        uint32_t ring_bytes,
                                        uint32_t kernarg_slots,
                                        hrx_kfd_pm4_compute_t** out) {
  *out = NULL;
  if (kernarg_slots == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a PM4 compute queue needs at least one kernarg "
                           "slot");
  }
  hrx_kfd_pm4_compute_t* c = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(d->base.allocator, sizeof(*c), (void**)&c));
  memset(c, 0, sizeof(*c));
  c->device = d;
  c->slot_count = kernarg_slots;
  hrx_status_t status = hrx_allocator_malloc_array(
      d->base.allocator, kernarg_slots, sizeof(uint64_t),
      (void**)&c->slot_fences);
  if (status == HRX_OK) {
    memset(c->slot_fences, 0, kernarg_slots * sizeof(uint64_t));
    status = hrx_kfd_memory_allocate_flags(
        d, (uint64_t)kernarg_slots * HRX_KFD_KERNARG_SLOT, 0, false,
        &c->kernargs);
  }
  if (status == HRX_OK) {
    status = hrx_kfd_user_queue_create(d, HRX_KFD_USER_PM4, ring_bytes,
                                       &c->queue);
  }
  if (status != HRX_OK) {
    hrx_kfd_pm4_compute_teardown(c);
    return status;
  }
  *out = c;
  return HRX_OK;
}

hrx_status_t hrx_kfd_pm4_compute_destroy(hrx_kfd_pm4_compute_t* c) {
  /* The queue refuses while work runs; the arena goes only with it. */
  HRX_RETURN_IF_ERROR(hrx_kfd_user_queue_destroy(c->queue));
  c->queue = NULL;
  hrx_kfd_pm4_compute_teardown(c);
  return HRX_OK;
}

/* RESOURCE_EXHAUSTED unless |count| dwords fit with room kept for the
 * batch's tail, so submit() never fails for lack of room. */
static hrx_status_t hrx_kfd_pm4_room(hrx_kfd_pm4_compute_t* c,
                                     uint64_t count) {
  uint64_t room = hrx_kfd_user_queue_room(c->queue);
  if (count + TAIL_DWORDS <= room) return HRX_OK;
  return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                         "%s: no room for %llu dwords (%llu free); submit "
                         "and wait on a fence first",
                         hrx_kfd_user_queue_name(c->queue),
                         (unsigned long long)count,
                         (unsigned long long)room);
}

/* The flush, and for a dispatch the acquire, that open a command. */
static size_t hrx_kfd_pm4_prologue(bool acquire, uint32_t* dwords) {
  size_t count = 0, written = 0;
  /* Fixed, valid fields into a buffer sized for them: cannot fail. */
  hrx_status_free(hrx_pm4_event_write(HRX_PM4_EVENT_CS_PARTIAL_FLUSH,
                                      HRX_PM4_EVENT_INDEX_PARTIAL_FLUSH,
                                      dwords, FLUSH_DWORDS, &written));
  count += written;
  if (acquire) {
    hrx_status_free(hrx_pm4_acquire_mem(GCR_ACQUIRE, dwords + count,
                                        ACQUIRE_DWORDS, &written));
    count += written;
  }
  return count;
}

hrx_status_t hrx_kfd_pm4_compute_dispatch(hrx_kfd_pm4_compute_t* c,
                                          const hrx_aql_dispatch_packet_t* p) {
  hrx_kfd_device_t* d = c->device;
  const hrx_fabric_kernel_t* kernel = hrx_kfd_find_kernel(d, p->kernel_object);
  if (!kernel) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: kernel object 0x%llx is no kernel loaded on "
                           "this device",
                           hrx_kfd_user_queue_name(c->queue),
                           (unsigned long long)p->kernel_object);
  }
  if (kernel->kernarg_size > HRX_KFD_KERNARG_SLOT) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "kernel '%s' takes %u kernarg bytes, more than a "
                           "PM4 kernarg slot's %u",
                           kernel->name, kernel->kernarg_size,
                           HRX_KFD_KERNARG_SLOT);
  }
  uint32_t slot = (uint32_t)(c->next_slot % c->slot_count);
  uint64_t busy_until = c->slot_fences[slot];
  if (busy_until > hrx_kfd_user_queue_completed(c->queue)) {
    return hrx_make_status(
        HRX_STATUS_RESOURCE_EXHAUSTED,
        "%s: all %u kernarg slots are in use until fence %llu; %s",
        hrx_kfd_user_queue_name(c->queue), c->slot_count,
        (unsigned long long)busy_until,
        busy_until > hrx_kfd_user_queue_submitted(c->queue)
            ? "submit and wait on it first"
            : "wait on it first");
  }
  uint8_t* kernarg = (uint8_t*)c->kernargs.host_pointer +
                     (uint64_t)slot * HRX_KFD_KERNARG_SLOT;
  uint64_t kernarg_address = c->kernargs.device_address +
                             (uint64_t)slot * HRX_KFD_KERNARG_SLOT;
  uint32_t dwords[FLUSH_DWORDS + ACQUIRE_DWORDS +
                  HRX_KFD_PM4_DISPATCH_MAX_DWORDS];
  size_t count = hrx_kfd_pm4_prologue(true, dwords);
  size_t body = 0;
  hrx_status_t status = hrx_kfd_pm4_encode_dispatch(
      (const uint8_t*)(uintptr_t)p->kernel_object, p->kernel_object, p,
      kernarg_address, kernel->name, dwords + count,
      HRX_KFD_PM4_DISPATCH_MAX_DWORDS, &body);
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "%s",
                               hrx_kfd_user_queue_name(c->queue));
  }
  if (body == 0) return HRX_OK; /* an empty grid */
  count += body;
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_room(c, count));
  /* The slot is free (its fence passed) and unclaimed until tagged. */
  memset(kernarg, 0, kernel->kernarg_size);
  if (p->kernarg_address && kernel->kernarg_size) {
    memcpy(kernarg, (const void*)(uintptr_t)p->kernarg_address,
           kernel->kernarg_size);
  }
  hrx_kfd_hidden_args(kernel->amdgpu, p, kernarg);
  HRX_RETURN_IF_ERROR(
      hrx_kfd_user_queue_append(c->queue, dwords, (uint32_t)count));
  c->slot_fences[slot] = hrx_kfd_user_queue_submitted(c->queue) + 1;
  c->next_slot++;
  return HRX_OK;
}

/* INVALID_ARGUMENT unless [address, +bytes) lies in one allocation. */
static hrx_status_t hrx_kfd_pm4_check_range(hrx_kfd_pm4_compute_t* c,
                                            const char* what,
                                            uint64_t address,
                                            uint64_t bytes) {
  hrx_kfd_device_t* d = c->device;
  pthread_mutex_lock(&d->mutex);
  bool inside = hrx_kfd_memory_contains_locked(d, address, bytes);
  pthread_mutex_unlock(&d->mutex);
  if (inside) return HRX_OK;
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "%s: %s [0x%llx, +%llu) is not inside one "
                         "allocation of this device",
                         hrx_kfd_user_queue_name(c->queue), what,
                         (unsigned long long)address,
                         (unsigned long long)bytes);
}

/* Appends CP DMA packets covering |bytes|, after one flush. */
static hrx_status_t hrx_kfd_pm4_dma(hrx_kfd_pm4_compute_t* c,
                                    hrx_pm4_dma_t dma, uint64_t bytes) {
  uint64_t chunks = (bytes + DMA_CHUNK - 1) / DMA_CHUNK;
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_room(
      c, FLUSH_DWORDS + chunks * HRX_PM4_DMA_DATA_DWORDS));
  uint32_t dwords[FLUSH_DWORDS > HRX_PM4_DMA_DATA_DWORDS
                      ? FLUSH_DWORDS
                      : HRX_PM4_DMA_DATA_DWORDS];
  size_t count = hrx_kfd_pm4_prologue(false, dwords);
  HRX_RETURN_IF_ERROR(
      hrx_kfd_user_queue_append(c->queue, dwords, (uint32_t)count));
  for (uint64_t done = 0; done < bytes; done += DMA_CHUNK) {
    hrx_pm4_dma_t part = dma;
    part.byte_count = (uint32_t)(bytes - done < DMA_CHUNK ? bytes - done
                                                          : DMA_CHUNK);
    part.destination += done;
    if (!part.fill) part.source += done;
    HRX_RETURN_IF_ERROR(hrx_pm4_dma_data(&part, dwords,
                                         HRX_PM4_DMA_DATA_DWORDS, &count));
    /* The room was checked for every chunk above. */
    HRX_RETURN_IF_ERROR(
        hrx_kfd_user_queue_append(c->queue, dwords, (uint32_t)count));
  }
  return HRX_OK;
}

hrx_status_t hrx_kfd_pm4_compute_copy(hrx_kfd_pm4_compute_t* c,
                                      uint64_t destination, uint64_t source,
                                      uint64_t bytes) {
  if (bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s: empty copy",
                           hrx_kfd_user_queue_name(c->queue));
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_check_range(c, "copy source", source,
                                              bytes));
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_check_range(c, "copy destination",
                                              destination, bytes));
  if (source < destination + bytes && destination < source + bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: copy ranges overlap",
                           hrx_kfd_user_queue_name(c->queue));
  }
  hrx_pm4_dma_t dma = {.source = source, .destination = destination};
  return hrx_kfd_pm4_dma(c, dma, bytes);
}

hrx_status_t hrx_kfd_pm4_compute_fill(hrx_kfd_pm4_compute_t* c,
                                      uint64_t destination, uint32_t pattern,
                                      uint64_t bytes) {
  if (bytes == 0 || bytes % 4 != 0 || destination % 4 != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: a fill needs a nonzero multiple of 4 bytes "
                           "at a 4-byte aligned address (got %llu at "
                           "0x%llx)",
                           hrx_kfd_user_queue_name(c->queue),
                           (unsigned long long)bytes,
                           (unsigned long long)destination);
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_pm4_check_range(c, "fill destination",
                                              destination, bytes));
  hrx_pm4_dma_t dma = {.destination = destination, .fill = true,
                       .fill_value = pattern};
  return hrx_kfd_pm4_dma(c, dma, bytes);
}

hrx_status_t hrx_kfd_pm4_compute_submit(hrx_kfd_pm4_compute_t* c,
                                        uint64_t* out_fence) {
  uint32_t dwords[TAIL_DWORDS];
  size_t count = hrx_kfd_pm4_prologue(false, dwords), written = 0;
  hrx_status_free(hrx_pm4_acquire_mem(GCR_RELEASE, dwords + count,
                                      ACQUIRE_DWORDS, &written));
  count += written;
  /* Every command kept room for this. */
  HRX_RETURN_IF_ERROR(
      hrx_kfd_user_queue_append(c->queue, dwords, (uint32_t)count));
  return hrx_kfd_user_queue_submit(c->queue, out_fence);
}
