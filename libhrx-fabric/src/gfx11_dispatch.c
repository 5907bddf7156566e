/* Runs a dispatch on the gfx11 model: reads the kernel descriptor, lays out
 * each wave's initial registers as the descriptor asks (the AMDGPU HSA ABI:
 * user SGPRs, then workgroup ids, work-item ids packed in v0), and runs the
 * workgroups on the calling thread or spread over worker threads, each
 * workgroup's waves on one thread, switching waves at s_barrier. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gfx11_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/device.h"

/* Kernel descriptor fields (AMDGPU code object v3+ layout). */
enum {
  KD_SIZE = 64,
  KD_GROUP_SEGMENT = 0,
  KD_PRIVATE_SEGMENT = 4,
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
  /* rsrc2 ENABLE_PRIVATE_SEGMENT: waves get scratch slots (gfx11 has
   * architected flat scratch, so no SGPR carries the setup) of
   * |wave_scratch| bytes, lanes |private_size| bytes each. */
  bool scratch;
  uint32_t private_size;
  uint64_t wave_scratch;
  uint32_t mode;           /* the waves' starting MODE register */
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
  /* rsrc2 bit 10: workgroup info SGPR. */
  if (rsrc2 & (1u << 10)) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model: rsrc2 0x%x asks for workgroup info",
                           rsrc2);
  }
  out->scratch = rsrc2 & 1u;
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
  /* Float rounding and denormal modes, DX10 clamp and IEEE mode. */
  out->mode = gfx11_mode_from_rsrc1(rsrc1);
  if (out->mode & GFX11_MODE_ROUND_MASK) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "gfx11 model: rsrc1 0x%x asks for a float rounding "
                           "other than to nearest even", rsrc1);
  }
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
                      uint8_t* scratch, hrx_gfx11_fault_t* fault) {
  memset(wave, 0, sizeof(*wave));
  wave->lds = lds;
  wave->lds_size = setup->lds_size;
  if (scratch) {
    wave->scratch = scratch + index * setup->wave_scratch;
    wave->private_size = setup->private_size;
    wave->lane_stride = (uint32_t)(setup->wave_scratch / 64);
  }
  wave->memory.ranges = dispatch->ranges;
  wave->memory.range_count = dispatch->range_count;
  wave->fault = fault;
  wave->vgpr_count = setup->vgpr_count;
  wave->pc = setup->entry;
  wave->mode = setup->mode;
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

/* Fills the fault's bytes and mnemonic from the instruction at |pc|. */
static void describe(const gfx11_memory_t* memory, uint64_t pc,
                     hrx_gfx11_fault_t* fault) {
  size_t available = 0;
  while (available < sizeof(fault->bytes) &&
         gfx11_memory_mapped(memory, pc, available + 4)) {
    available += 4;
  }
  gfx11_inst_t inst = {.size = 4};
  fault->mnemonic[0] = '\0';
  if (available && gfx11_decode((const uint8_t*)(uintptr_t)pc, available,
                                &inst)) {
    gfx11_mnemonic(&inst, fault->mnemonic, sizeof(fault->mnemonic));
  } else {
    inst.size = 4;
  }
  fault->pc = pc;
  fault->byte_count = (uint32_t)(available < inst.size ? available
                                                       : inst.size);
  memcpy(fault->bytes, (const void*)(uintptr_t)pc, fault->byte_count);
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
  } else if (inst.encoding <= GFX11_SMEM) {
    ok = gfx11_exec_scalar(wave, &inst);
  } else if (inst.encoding == GFX11_GLOBAL || inst.encoding == GFX11_MUBUF ||
             inst.encoding == GFX11_SCRATCH) {
    ok = gfx11_exec_memory(wave, &inst);
  } else if (inst.encoding == GFX11_DS) {
    ok = gfx11_exec_lds(wave, &inst);
  } else {
    ok = gfx11_exec_vector(wave, &inst);
  }
  if (ok) return true;
  describe(&wave->memory, pc, wave->fault);
  return false;
}

/* What the workers share. Workgroups are handed out by a counter; the
 * first worker whose wave faults claims the report and raises |stop|. */
typedef struct dispatch_run_t {
  const hrx_gfx11_dispatch_t* dispatch;
  kernel_setup_t setup;
  uint32_t groups[3];
  uint64_t group_count;
  uint64_t deadline_ns;  /* CLOCK_MONOTONIC; 0: no watchdog */
  _Atomic uint64_t next_group;
  _Atomic bool stop;
  _Atomic bool fault_claimed;
  hrx_gfx11_fault_t* out_fault;
} dispatch_run_t;

/* One worker's own state: a workgroup's waves and LDS, and its fault.
 * The counters written every instruction sit between the read-mostly
 * fields, away from the ends a neighbouring worker's entry may share a
 * cache line with. */
typedef struct worker_t {
  dispatch_run_t* run;
  gfx11_wave_t* waves;
  uint64_t* budgets;
  uint8_t* lds;
  uint8_t* scratch; /* the first of its waves' scratch slots, or NULL */
  hrx_gfx11_fault_t fault;
  uint32_t poll_countdown;  /* instructions left until the next poll */
  uint64_t executed;        /* wave instructions of finished workgroups */
  uint8_t spacing[64];      /* keeps the counters off the next entry's line */
  pthread_t thread;
  bool started;
} worker_t;

enum {
  /* Instructions between checks of the stop and cancel flags and the
   * clock: rare enough to cost nothing, often enough that a worker
   * stops within microseconds. */
  POLL_INSTRUCTIONS = 1024,
};

typedef enum wave_result_t {
  WAVE_RAN,      /* ended or waiting at a barrier */
  WAVE_FAULTED,  /* the fault is in worker->fault */
  WAVE_STOPPED,  /* another worker faulted */
} wave_result_t;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The periodic check: another worker's fault, the cancel flag, the
 * watchdog. The last two fault |wave| with BUDGET. */
static wave_result_t poll(worker_t* worker, gfx11_wave_t* wave) {
  dispatch_run_t* run = worker->run;
  worker->poll_countdown = POLL_INSTRUCTIONS;
  if (atomic_load_explicit(&run->stop, memory_order_relaxed)) {
    return WAVE_STOPPED;
  }
  const _Atomic bool* cancel = run->dispatch->cancel;
  if (cancel && atomic_load_explicit(cancel, memory_order_acquire)) {
    gfx11_fault(wave, HRX_GFX11_FAULT_BUDGET, 0,
                "cancelled: the dispatch's cancel flag was set");
  } else if (run->deadline_ns && now_ns() >= run->deadline_ns) {
    gfx11_fault(wave, HRX_GFX11_FAULT_BUDGET, 0,
                "watchdog: the dispatch ran past its %llu ns bound",
                (unsigned long long)run->dispatch->timeout_ns);
  } else {
    return WAVE_RAN;
  }
  describe(&wave->memory, wave->pc, wave->fault);
  return WAVE_FAULTED;
}

/* Runs |wave| until it ends, faults or reaches a barrier. */
static wave_result_t run_wave(worker_t* worker, gfx11_wave_t* wave,
                              uint64_t* budget) {
  while (!wave->ended && !wave->at_barrier) {
    if (worker->poll_countdown-- == 0) {
      wave_result_t polled = poll(worker, wave);
      if (polled != WAVE_RAN) return polled;
    }
    if (*budget == 0) {
      gfx11_fault(wave, HRX_GFX11_FAULT_BUDGET, 0,
                  "instruction budget exhausted");
      describe(&wave->memory, wave->pc, wave->fault);
      return WAVE_FAULTED;
    }
    --*budget;
    if (!step(wave)) return WAVE_FAULTED;
  }
  return WAVE_RAN;
}

static wave_result_t run_group(worker_t* worker, uint32_t count) {
  for (;;) {
    uint32_t running = 0;
    for (uint32_t w = 0; w < count; ++w) {
      gfx11_wave_t* wave = &worker->waves[w];
      if (wave->ended) continue;
      wave_result_t result = run_wave(worker, wave, &worker->budgets[w]);
      if (result == WAVE_FAULTED) worker->fault.wave = w;
      if (result != WAVE_RAN) return result;
      running += !wave->ended;
    }
    if (running == 0) return WAVE_RAN;
    /* Every live wave waits at the barrier: release them together. */
    for (uint32_t w = 0; w < count; ++w) worker->waves[w].at_barrier = false;
  }
}

/* Workgroup |index| in x-fastest order, sized at the grid's edge. */
static group_t group_at(const dispatch_run_t* run, uint64_t index) {
  const hrx_gfx11_dispatch_t* d = run->dispatch;
  group_t g;
  g.id[0] = (uint32_t)(index % run->groups[0]);
  g.id[1] = (uint32_t)(index / run->groups[0] % run->groups[1]);
  g.id[2] = (uint32_t)(index / run->groups[0] / run->groups[1]);
  g.items = 1;
  for (int i = 0; i < 3; ++i) {
    uint32_t left = d->grid[i] - g.id[i] * d->workgroup[i];
    g.size[i] = left < d->workgroup[i] ? left : d->workgroup[i];
    g.items *= g.size[i];
  }
  return g;
}

/* Publishes |worker|'s fault unless another worker's came first, and
 * tells every worker to stop. */
static void claim_fault(worker_t* worker, const group_t* g) {
  dispatch_run_t* run = worker->run;
  memcpy(worker->fault.workgroup, g->id, sizeof(g->id));
  bool expected = false;
  if (atomic_compare_exchange_strong(&run->fault_claimed, &expected, true)) {
    *run->out_fault = worker->fault;
  }
  atomic_store(&run->stop, true);
}

/* Runs workgroups until none are left or the dispatch stops. */
static void* work(void* arg) {
  worker_t* worker = arg;
  dispatch_run_t* run = worker->run;
  const kernel_setup_t* setup = &run->setup;
  while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
    uint64_t index = atomic_fetch_add(&run->next_group, 1);
    if (index >= run->group_count) break;
    group_t g = group_at(run, index);
    uint32_t count = (g.items + GFX11_LANES - 1) / GFX11_LANES;
    /* Hardware LDS starts undefined; zeroes make a kernel that reads
     * before writing deterministic here. */
    if (worker->lds) memset(worker->lds, 0, setup->lds_size);
    for (uint32_t w = 0; w < count; ++w) {
      init_wave(&worker->waves[w], setup, run->dispatch, &g, w, worker->lds,
                worker->scratch, &worker->fault);
      worker->budgets[w] = run->dispatch->wave_instruction_budget;
    }
    wave_result_t result = run_group(worker, count);
    for (uint32_t w = 0; w < count; ++w) {
      worker->executed +=
          run->dispatch->wave_instruction_budget - worker->budgets[w];
    }
    if (result == WAVE_FAULTED) claim_fault(worker, &g);
  }
  return NULL;
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
                         "pc 0x%llx %s [%s]: %s",
                         f->wave, f->workgroup[0], f->workgroup[1],
                         f->workgroup[2], (unsigned long long)f->pc,
                         f->mnemonic[0] ? f->mnemonic : "(undecodable)",
                         bytes, f->reason);
}

static void free_workers(worker_t* workers, uint32_t count,
                         hrx_allocator_t allocator) {
  for (uint32_t i = 0; workers && i < count; ++i) {
    hrx_allocator_free(allocator, workers[i].lds);
    hrx_allocator_free(allocator, workers[i].budgets);
    hrx_allocator_free(allocator, workers[i].waves);
  }
  hrx_allocator_free(allocator, workers);
}

/* Allocates |count| workers, each with room for a workgroup of
 * |wave_count| waves and its LDS. */
static hrx_status_t new_workers(dispatch_run_t* run, uint32_t count,
                                uint32_t wave_count,
                                hrx_allocator_t allocator,
                                worker_t** out_workers) {
  worker_t* workers = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, count, sizeof(*workers), (void**)&workers));
  memset(workers, 0, sizeof(*workers) * count);
  hrx_status_t status = HRX_OK;
  for (uint32_t i = 0; i < count && status == HRX_OK; ++i) {
    worker_t* w = &workers[i];
    w->run = run;
    if (run->setup.scratch) {
      w->scratch = (uint8_t*)(uintptr_t)run->dispatch->scratch +
                   (uint64_t)i * wave_count * run->setup.wave_scratch;
    }
    status = hrx_allocator_malloc_array(allocator, wave_count,
                                        sizeof(*w->waves), (void**)&w->waves);
    if (status == HRX_OK) {
      status = hrx_allocator_malloc_array(allocator, wave_count,
                                          sizeof(*w->budgets),
                                          (void**)&w->budgets);
    }
    if (status == HRX_OK && run->setup.lds_size) {
      status = hrx_allocator_malloc(allocator, run->setup.lds_size,
                                    (void**)&w->lds);
    }
  }
  if (status != HRX_OK) {
    free_workers(workers, count, allocator);
    return status;
  }
  *out_workers = workers;
  return HRX_OK;
}

/* Worker 0 is the calling thread; the others get threads of their own.
 * A thread that cannot be created leaves its share to the rest. */
static void run_workers(worker_t* workers, uint32_t count) {
  for (uint32_t i = 1; i < count; ++i) {
    workers[i].started =
        pthread_create(&workers[i].thread, NULL, work, &workers[i]) == 0;
  }
  work(&workers[0]);
  for (uint32_t i = 1; i < count; ++i) {
    if (workers[i].started) pthread_join(workers[i].thread, NULL);
  }
}

/* Sizes the waves' scratch slots and caps |threads| at the workers whose
 * workgroups of |wave_count| waves the backing memory holds at once. */
static hrx_status_t plan_scratch(const hrx_gfx11_dispatch_t* dispatch,
                                 uint32_t wave_count, kernel_setup_t* setup,
                                 uint64_t* threads) {
  uint32_t fixed = kd_u32(dispatch->kernel_descriptor, KD_PRIVATE_SEGMENT);
  setup->private_size = dispatch->private_segment_size > fixed
                            ? dispatch->private_segment_size
                            : fixed;
  if (setup->private_size > HRX_FABRIC_MAX_PRIVATE_BYTES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 dispatch: %u private bytes per work-item "
                           "(max %u)", setup->private_size,
                           HRX_FABRIC_MAX_PRIVATE_BYTES);
  }
  setup->wave_scratch =
      ((uint64_t)setup->private_size * 64 + 1023) & ~UINT64_C(1023);
  if (setup->wave_scratch == 0) setup->wave_scratch = 1024;
  uint64_t group_bytes = wave_count * setup->wave_scratch;
  uint64_t fit = dispatch->scratch ? dispatch->scratch_size / group_bytes : 0;
  if (fit == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 kernel uses private memory: a workgroup "
                           "of %u waves needs %llu bytes of scratch (%u "
                           "private bytes per work-item); the dispatch has "
                           "%llu", wave_count,
                           (unsigned long long)group_bytes,
                           setup->private_size,
                           (unsigned long long)(dispatch->scratch
                                                    ? dispatch->scratch_size
                                                    : 0));
  }
  if (*threads > fit) *threads = fit;
  return HRX_OK;
}

static hrx_status_t plan_run(const hrx_gfx11_dispatch_t* dispatch,
                             uint32_t wave_count, dispatch_run_t* run,
                             uint32_t* out_threads) {
  if (dispatch->threads > HRX_GFX11_MAX_THREADS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gfx11 dispatch asks for %u threads (max %d)",
                           dispatch->threads, HRX_GFX11_MAX_THREADS);
  }
  HRX_RETURN_IF_ERROR(read_descriptor(dispatch->kernel_descriptor,
                                      &run->setup));
  run->group_count = 1;
  for (int i = 0; i < 3; ++i) {
    run->groups[i] = (uint32_t)(((uint64_t)dispatch->grid[i] +
                                 dispatch->workgroup[i] - 1) /
                                dispatch->workgroup[i]);
    run->group_count *= run->groups[i];
  }
  uint64_t threads = dispatch->threads ? dispatch->threads : 1;
  if (threads > run->group_count) threads = run->group_count;
  if (run->setup.scratch) {
    HRX_RETURN_IF_ERROR(plan_scratch(dispatch, wave_count, &run->setup,
                                     &threads));
  }
  *out_threads = (uint32_t)threads;
  if (dispatch->timeout_ns) run->deadline_ns = now_ns() + dispatch->timeout_ns;
  return HRX_OK;
}

hrx_status_t hrx_gfx11_dispatch(const hrx_gfx11_dispatch_t* dispatch,
                                hrx_allocator_t allocator,
                                hrx_gfx11_fault_t* out_fault) {
  memset(out_fault, 0, sizeof(*out_fault));
  uint32_t items = 0;
  HRX_RETURN_IF_ERROR(check_dispatch(dispatch, &items));
  dispatch_run_t run = {.dispatch = dispatch, .out_fault = out_fault};
  atomic_init(&run.next_group, 0);
  atomic_init(&run.stop, false);
  atomic_init(&run.fault_claimed, false);
  uint32_t wave_count = (items + GFX11_LANES - 1) / GFX11_LANES;
  uint32_t threads = 0;
  HRX_RETURN_IF_ERROR(plan_run(dispatch, wave_count, &run, &threads));
  worker_t* workers = NULL;
  HRX_RETURN_IF_ERROR(
      new_workers(&run, threads, wave_count, allocator, &workers));
  run_workers(workers, threads);
  if (dispatch->executed_instructions) {
    uint64_t executed = 0;
    for (uint32_t i = 0; i < threads; ++i) executed += workers[i].executed;
    *dispatch->executed_instructions = executed;
  }
  free_workers(workers, threads, allocator);
  if (atomic_load(&run.fault_claimed)) return fault_status(out_fault);
  return HRX_OK;
}
