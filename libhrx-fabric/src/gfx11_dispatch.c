/* Runs a dispatch on the gfx11 model: reads the kernel descriptor, lays out
 * each wave's initial registers as the descriptor asks (the AMDGPU HSA ABI:
 * user SGPRs, then workgroup ids, work-item ids packed in v0), and runs the
 * waves of each workgroup in turn on the calling thread, switching waves at
 * s_barrier. */
#include <stdio.h>
#include <string.h>

#include "gfx11_internal.h"
#include "hrx/core/bytes.h"

/* Kernel descriptor fields (AMDGPU code object v3+ layout). */
enum {
  KD_SIZE = 64,
  KD_GROUP_SEGMENT = 0,
  KD_ENTRY_OFFSET = 16,
  KD_RSRC1 = 48,
  KD_RSRC2 = 52,
  KD_PROPERTIES = 56,
  PROP_KERNARG_PTR = 1u << 3,
  PROP_WAVE32 = 1u << 10,
  MAX_WORKGROUP_ITEMS = 1024,
  MAX_LDS_BYTES = 64 * 1024,  /* per workgroup on gfx11 */
};

typedef struct kernel_setup_t {
  uint64_t entry;
  uint32_t vgpr_count;
  uint32_t user_sgpr_count;
  bool kernarg_ptr;
  bool workgroup_id[3];
  uint32_t workitem_dims;  /* 1, 2 or 3 ids packed into v0 */
  uint32_t lds_size;       /* group_segment_fixed_size */
} kernel_setup_t;

static uint32_t kd_u32(uint64_t kd, int offset) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + offset);
  return (uint32_t)hrx_get_le(&p, 4);
}

/* Reads what the descriptor asks of the dispatcher; anything this model
 * cannot provide yet is UNIMPLEMENTED rather than silently wrong. */
static hrx_status_t read_descriptor(uint64_t kd, kernel_setup_t* out) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + KD_ENTRY_OFFSET);
  int64_t entry_offset = (int64_t)hrx_get_le(&p, 8);
  uint32_t rsrc1 = kd_u32(kd, KD_RSRC1);
  uint32_t rsrc2 = kd_u32(kd, KD_RSRC2);
  uint32_t properties = kd_u32(kd, KD_PROPERTIES) & 0xFFFFu;
  if (!(properties & PROP_WAVE32)) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model runs wave32 kernels only");
  }
  /* Bits 0-2 and 4-6: private segment buffer, dispatch ptr, queue ptr,
   * dispatch id, flat scratch init, private segment size. */
  if (properties & 0x77u) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model: kernel code properties 0x%x ask for "
                           "user SGPRs beyond the kernarg pointer",
                           properties);
  }
  /* rsrc2 bit 0: scratch; bit 10: workgroup info SGPR. */
  if (rsrc2 & ((1u << 0) | (1u << 10))) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model: rsrc2 0x%x asks for scratch or "
                           "workgroup info", rsrc2);
  }
  out->lds_size = kd_u32(kd, KD_GROUP_SEGMENT);
  if (out->lds_size > MAX_LDS_BYTES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 kernel asks for %u bytes of LDS (max %d)",
                           out->lds_size, MAX_LDS_BYTES);
  }
  out->kernarg_ptr = properties & PROP_KERNARG_PTR;
  out->user_sgpr_count = (rsrc2 >> 1) & 0x1F;
  if (out->user_sgpr_count != (out->kernarg_ptr ? 2u : 0u)) {
    /* More user SGPRs than the pointer means kernarg preloading. */
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model: %u user SGPRs (kernarg preload?)",
                           out->user_sgpr_count);
  }
  for (int i = 0; i < 3; ++i) out->workgroup_id[i] = rsrc2 >> (7 + i) & 1;
  out->workitem_dims = ((rsrc2 >> 11) & 3) + 1;
  /* Wave32 allocates VGPRs in granules of 8; the field is granules - 1. */
  out->vgpr_count = ((rsrc1 & 0x3F) + 1) * 8;
  if (out->vgpr_count > GFX11_MAX_VGPRS) out->vgpr_count = GFX11_MAX_VGPRS;
  out->entry = kd + (uint64_t)entry_offset;
  return HRX_OK;
}

typedef struct group_t {
  uint32_t id[3];
  uint32_t size[3];  /* work-items, smaller at the grid's edge */
  uint32_t items;
} group_t;

static void init_wave(gfx11_wave_t* wave, const kernel_setup_t* setup,
                      const hrx_gfx11_dispatch_t* dispatch,
                      const group_t* group, uint32_t index, uint8_t* lds,
                      hrx_gfx11_fault_t* fault) {
  memset(wave, 0, sizeof(*wave));
  wave->lds = lds;
  wave->lds_size = setup->lds_size;
  wave->memory.ranges = dispatch->ranges;
  wave->memory.range_count = dispatch->range_count;
  wave->fault = fault;
  wave->vgpr_count = setup->vgpr_count;
  wave->pc = setup->entry;
  uint32_t next = 0;
  if (setup->kernarg_ptr) {
    wave->sgpr[0] = (uint32_t)dispatch->kernarg;
    wave->sgpr[1] = (uint32_t)(dispatch->kernarg >> 32);
    next = 2;
  }
  for (int i = 0; i < 3; ++i) {
    if (setup->workgroup_id[i]) wave->sgpr[next++] = group->id[i];
  }
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    uint32_t flat = index * GFX11_LANES + lane;
    if (flat >= group->items) break;
    wave->sgpr[GFX11_EXEC_LO] |= 1u << lane;
    uint32_t x = flat % group->size[0];
    uint32_t y = flat / group->size[0] % group->size[1];
    uint32_t z = flat / (group->size[0] * group->size[1]);
    uint32_t v0 = x;
    if (setup->workitem_dims > 1) v0 |= y << 10;
    if (setup->workitem_dims > 2) v0 |= z << 20;
    wave->vgpr[0][lane] = v0;
  }
}

/* Executes one instruction. On a fault, records where it happened. */
static bool step(gfx11_wave_t* wave) {
  uint64_t pc = wave->pc;
  size_t available = 0;
  while (available < 12 &&
         gfx11_memory_mapped(&wave->memory, pc, available + 4)) {
    available += 4;
  }
  gfx11_inst_t inst = {.size = 4};
  bool ok;
  if (available == 0) {
    ok = gfx11_fault(wave, HRX_GFX11_FAULT_OUT_OF_BOUNDS, pc,
                     "instruction fetch outside the mapped ranges");
  } else if (!gfx11_decode((const uint8_t*)(uintptr_t)pc, available,
                           &inst)) {
    ok = gfx11_fault(wave, HRX_GFX11_FAULT_UNDECODABLE, 0,
                     "no gfx11 encoding matches");
    inst.size = 4;
  } else if (inst.encoding <= GFX11_SMEM) {
    ok = gfx11_exec_scalar(wave, &inst);
  } else if (inst.encoding == GFX11_GLOBAL || inst.encoding == GFX11_MUBUF) {
    ok = gfx11_exec_memory(wave, &inst);
  } else if (inst.encoding == GFX11_DS) {
    ok = gfx11_exec_lds(wave, &inst);
  } else {
    ok = gfx11_exec_vector(wave, &inst);
  }
  if (ok) return true;
  wave->fault->pc = pc;
  wave->fault->byte_count = available < inst.size ? available : inst.size;
  memcpy(wave->fault->bytes, (const void*)(uintptr_t)pc,
         wave->fault->byte_count);
  return false;
}

/* Runs |wave| until it ends, faults or reaches a barrier. */
static bool run_wave(gfx11_wave_t* wave, uint64_t* budget) {
  while (!wave->ended && !wave->at_barrier) {
    if (*budget == 0) {
      gfx11_fault(wave, HRX_GFX11_FAULT_BUDGET, 0,
                  "instruction budget exhausted");
      wave->fault->pc = wave->pc;
      return false;
    }
    --*budget;
    if (!step(wave)) return false;
  }
  return true;
}

static bool run_group(gfx11_wave_t* waves, uint32_t count, uint64_t* budgets,
                      hrx_gfx11_fault_t* fault) {
  for (;;) {
    uint32_t running = 0;
    for (uint32_t w = 0; w < count; ++w) {
      if (waves[w].ended) continue;
      if (!run_wave(&waves[w], &budgets[w])) {
        fault->wave = w;
        return false;
      }
      running += !waves[w].ended;
    }
    if (running == 0) return true;
    /* Every live wave waits at the barrier: release them together. */
    for (uint32_t w = 0; w < count; ++w) waves[w].at_barrier = false;
  }
}

static hrx_status_t check_dispatch(const hrx_gfx11_dispatch_t* d,
                                   uint32_t* out_items) {
  uint64_t items = 1;
  for (int i = 0; i < 3; ++i) {
    if (!d->grid[i] || !d->workgroup[i]) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "gfx11 dispatch with an empty dimension");
    }
    items *= d->workgroup[i];
  }
  if (items > MAX_WORKGROUP_ITEMS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 workgroup of %llu work-items exceeds %d",
                           (unsigned long long)items, MAX_WORKGROUP_ITEMS);
  }
  gfx11_memory_t memory = {d->ranges, d->range_count};
  if (!gfx11_memory_mapped(&memory, d->kernel_descriptor, KD_SIZE)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 kernel descriptor is not mapped");
  }
  *out_items = (uint32_t)items;
  return HRX_OK;
}

static hrx_status_t fault_status(const hrx_gfx11_fault_t* f) {
  char bytes[3 * sizeof(f->bytes) + 1] = "";
  /* "xx xx ..": each byte after the first takes three characters. */
  for (uint32_t i = 0, at = 0; i < f->byte_count; ++i) {
    at += (uint32_t)snprintf(bytes + at, sizeof(bytes) - at, "%s%02x",
                             i ? " " : "", f->bytes[i]);
  }
  return hrx_make_status(HRX_STATUS_ABORTED,
                         "gfx11 wave %u of workgroup (%u, %u, %u) faulted at "
                         "pc 0x%llx [%s]: %s",
                         f->wave, f->workgroup[0], f->workgroup[1],
                         f->workgroup[2], (unsigned long long)f->pc, bytes,
                         f->reason);
}

hrx_status_t hrx_gfx11_dispatch(const hrx_gfx11_dispatch_t* dispatch,
                                hrx_allocator_t allocator,
                                hrx_gfx11_fault_t* out_fault) {
  memset(out_fault, 0, sizeof(*out_fault));
  uint32_t items = 0;
  HRX_RETURN_IF_ERROR(check_dispatch(dispatch, &items));
  kernel_setup_t setup = {.entry = 0};
  HRX_RETURN_IF_ERROR(read_descriptor(dispatch->kernel_descriptor, &setup));
  uint32_t wave_count = (items + GFX11_LANES - 1) / GFX11_LANES;
  gfx11_wave_t* waves = NULL;
  uint64_t* budgets = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, wave_count, sizeof(*waves), (void**)&waves));
  uint8_t* lds = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, wave_count, sizeof(*budgets), (void**)&budgets);
  if (status == HRX_OK && setup.lds_size) {
    status = hrx_allocator_malloc(allocator, setup.lds_size, (void**)&lds);
  }
  uint32_t groups[3];
  for (int i = 0; i < 3; ++i) {
    groups[i] = (uint32_t)(((uint64_t)dispatch->grid[i] +
                            dispatch->workgroup[i] - 1) /
                           dispatch->workgroup[i]);
  }
  group_t g;
  for (g.id[2] = 0; status == HRX_OK && g.id[2] < groups[2]; ++g.id[2]) {
    for (g.id[1] = 0; status == HRX_OK && g.id[1] < groups[1]; ++g.id[1]) {
      for (g.id[0] = 0; status == HRX_OK && g.id[0] < groups[0]; ++g.id[0]) {
        g.items = 1;
        for (int i = 0; i < 3; ++i) {
          uint32_t start = g.id[i] * dispatch->workgroup[i];
          uint32_t left = dispatch->grid[i] - start;
          g.size[i] = left < dispatch->workgroup[i] ? left
                                                    : dispatch->workgroup[i];
          g.items *= g.size[i];
        }
        uint32_t count = (g.items + GFX11_LANES - 1) / GFX11_LANES;
        /* Hardware LDS starts undefined; zeroes make a kernel that reads
         * before writing deterministic here. */
        if (lds) memset(lds, 0, setup.lds_size);
        for (uint32_t w = 0; w < count; ++w) {
          init_wave(&waves[w], &setup, dispatch, &g, w, lds, out_fault);
          budgets[w] = dispatch->wave_instruction_budget;
        }
        if (!run_group(waves, count, budgets, out_fault)) {
          memcpy(out_fault->workgroup, g.id, sizeof(g.id));
          status = fault_status(out_fault);
        }
      }
    }
  }
  hrx_allocator_free(allocator, lds);
  hrx_allocator_free(allocator, budgets);
  hrx_allocator_free(allocator, waves);
  return status;
}
