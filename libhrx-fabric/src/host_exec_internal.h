/* The host executor's shared state (private to libhrx-fabric):
 * host_executor.c holds dispatch setup, the workgroup loop and the
 * reference interpreter (one host-ISA instruction at a time, every
 * semantic of host_isa.h); host_exec_fast.c translates a kernel once into
 * instructions specialised by operation, type and operand file and runs
 * them in tight lane loops, handing every case its fast paths do not
 * cover (and every fault) back to the reference step, so both give the
 * same results and the same fault reports. */
#ifndef HRX_FABRIC_HOST_EXEC_INTERNAL_H_
#define HRX_FABRIC_HOST_EXEC_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fabric_internal.h"
#include "host_numeric.h"

enum { WAVE_RUN = 0, WAVE_BARRIER = 1, WAVE_DONE = 2, WAVE_FAULT = 3 };

/* A wave's registers are one block: vreg_count x lanes V registers, then
 * sreg_count S registers (s == v + vreg_count * lanes). */
typedef struct hrx_wave_t {
  uint32_t pc;
  uint32_t state;
  uint32_t depth;
  uint64_t exec;
  uint64_t live; /* the lanes that hold work-items */
  uint64_t* v;
  uint64_t* s;
  uint64_t stack[HRX_HOST_MAX_MASK_DEPTH];
} hrx_wave_t;

/* Race-check shadow of one 4-byte granule of local memory: who wrote and
 * who read it in barrier interval |epoch| (an older epoch means nobody). */
typedef struct hrx_race_cell_t {
  uint32_t epoch;
  uint16_t writer; /* work-item, or HRX_RACE_NONE */
  uint16_t reader; /* work-item, HRX_RACE_NONE or HRX_RACE_MANY */
  uint32_t write_pc;
  uint32_t read_pc;
  uint8_t write_bytes; /* widths of those accesses, for reports */
  uint8_t read_bytes;
} hrx_race_cell_t;

#define HRX_RACE_NONE 0xFFFFu
#define HRX_RACE_MANY 0xFFFEu

typedef struct hrx_group_t {
  hrx_host_dispatch_t* dispatch;
  const hrx_fabric_kernel_t* kernel;
  uint32_t id[3];
  uint32_t wave; /* the wave running now: findings name its work-items */
  uint32_t lanes;
  uint64_t full;
  uint8_t* local;
  uint32_t local_size;
  uint8_t* private_memory; /* every work-item's private memory */
  uint64_t private_size;
  hrx_race_cell_t* race; /* per local granule when race checking, or NULL */
  uint32_t epoch;        /* barrier intervals so far, from 1 */
  bool race_check;       /* HRX_HOST_KERNEL_RACE_CHECK: barriers checked too */
} hrx_group_t;

/*===------------------------------------------------------------------===*/
/* Faults                                                                  */
/*===------------------------------------------------------------------===*/

/* Records |fault| as the dispatch's fault unless one was recorded. */
void hrx_fault_here(hrx_host_dispatch_t* d, hrx_fabric_fault_t fault);

/* A fault at instruction |pc|, lane |lane| of the running wave of |g|'s
 * workgroup; callers add what their kind reports. */
static inline hrx_fabric_fault_t hrx_fault_at(const hrx_group_t* g,
                                              hrx_fabric_fault_kind_t kind,
                                              uint32_t pc, uint32_t lane) {
  return (hrx_fabric_fault_t){.kind = kind, .pc = pc, .lane = lane,
                              .workgroup = {g->id[0], g->id[1], g->id[2]},
                              .work_item = g->wave * g->lanes + lane};
}

/* A sanitizer finding (hrx/fabric/sanitizer.h). In report mode it becomes
 * a report (|other_bytes|: the width of a race's earlier access) and the
 * caller goes on with the lane's access skipped or its unchecked result:
 * true. Otherwise it is the dispatch's fault and the wave stops: false. */
bool hrx_finding(hrx_group_t* g, hrx_fabric_fault_t fault,
                 uint32_t other_bytes);

/* Whether findings are reported rather than trapped. */
static inline bool hrx_reporting(const hrx_group_t* g) {
  return g->dispatch->reports != NULL;
}

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

/* The slot a load or store last resolved: lanes of one instruction
 * nearly always share it, so most lanes need only the bounds test. */
typedef struct hrx_window_t {
  uint64_t slot;
  uint8_t* base;
  uint64_t size;
} hrx_window_t;

#define HRX_WINDOW_NONE {.slot = UINT64_MAX}

/* The host address of |bytes| at pointer |ptr|, or NULL after an
 * UNBOUND_POINTER or OUT_OF_BOUNDS finding at |pc|, |lane| (hrx_finding:
 * in report mode the lane's access is skipped). */
uint8_t* hrx_resolve(hrx_group_t* g, uint64_t ptr, uint32_t bytes,
                     bool write, uint32_t pc, uint32_t lane,
                     hrx_window_t* out);

static inline uint8_t* hrx_resolve_in(hrx_group_t* g, hrx_window_t* window,
                                      uint64_t ptr, uint32_t bytes,
                                      bool write, uint32_t pc,
                                      uint32_t lane) {
  uint64_t offset = ptr & HRX_HOST_OFFSET_MASK;
  if ((ptr >> HRX_HOST_PTR_SHIFT) == window->slot && offset <= window->size &&
      window->size - offset >= bytes) {
    return window->base + offset;
  }
  return hrx_resolve(g, ptr, bytes, write, pc, lane, window);
}

/* Fixed-size loads: a variable-length memcpy into a zeroed 8-byte
 * temporary makes the CPU reload a partly written word, a store-forwarding
 * stall on every lane of every load. */
static inline uint64_t hrx_read_bits(const uint8_t* at, uint32_t bytes) {
  switch (bytes) {
    case 1: return *at;
    case 2: {
      uint16_t v;
      memcpy(&v, at, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, at, 4);
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, at, 8);
      return v;
    }
  }
}

static inline void hrx_write_bits(uint8_t* at, uint32_t bytes,
                                  uint64_t value) {
  switch (bytes) {
    case 1: *at = (uint8_t)value; break;
    case 2: {
      uint16_t v = (uint16_t)value;
      memcpy(at, &v, 2);
      break;
    }
    case 4: {
      uint32_t v = (uint32_t)value;
      memcpy(at, &v, 4);
      break;
    }
    default: memcpy(at, &value, 8); break;
  }
}

static inline uint64_t hrx_load_value(const uint8_t* at, uint8_t type) {
  uint64_t raw = hrx_read_bits(at, hrx_type_bytes(type));
  return type <= HRX_HOST_TYPE_I64 ? hrx_norm(raw, type) : raw;
}

/* The extent of slot |slot| (a binding or local memory); false for a
 * slot the dispatch does not have. */
static inline bool hrx_slot_extent(const hrx_group_t* g, uint64_t slot,
                                   uint8_t** base, uint64_t* size) {
  if (slot == HRX_HOST_SLOT_LOCAL) {
    *base = g->local;
    *size = g->local_size;
    return true;
  }
  if (slot == HRX_HOST_SLOT_PRIVATE) {
    *base = g->private_memory;
    *size = g->private_size;
    return true;
  }
  if (slot < g->dispatch->slot_count) {
    *base = g->dispatch->slots[slot].base;
    *size = g->dispatch->slots[slot].size;
    return true;
  }
  return false;
}

/* PTR_ADD: a pointer whose offset would leave [0, 2^48) becomes the
 * poison pointer of its slot (offset HRX_HOST_OFFSET_MASK, past every
 * allocation), which stays poison through further steps; so does an index
 * of HRX_HOST_INDEX_POISON. See host_isa.h, Address arithmetic. */
static inline uint64_t hrx_ptr_add(uint64_t ptr, int64_t index,
                                   int64_t scale) {
  uint64_t slot = ptr & ~HRX_HOST_OFFSET_MASK;
  int64_t offset = (int64_t)(ptr & HRX_HOST_OFFSET_MASK);
  int64_t bytes, next;
  if (offset == (int64_t)HRX_HOST_OFFSET_MASK ||
      __builtin_mul_overflow(index, scale, &bytes) ||
      __builtin_add_overflow(offset, bytes, &next) || next < 0 ||
      next > (int64_t)HRX_HOST_OFFSET_MASK) {
    next = (int64_t)HRX_HOST_OFFSET_MASK;
  }
  return slot | (uint64_t)next;
}

/*===------------------------------------------------------------------===*/
/* Control                                                                 */
/*===------------------------------------------------------------------===*/

/* The lanes of |w| whose condition register |a| (an S register when
 * |scalar|) is nonzero. */
static inline uint64_t hrx_cond_bits(const hrx_group_t* g, const hrx_wave_t* w,
                                     bool scalar, uint32_t a) {
  if (scalar) return w->s[a] ? g->full : 0;
  const uint64_t* v = &w->v[(size_t)a * g->lanes];
  uint64_t mask = 0;
  for (uint32_t l = 0; l < g->lanes; ++l) {
    mask |= (uint64_t)(v[l] != 0) << l;
  }
  return mask;
}

/* Cancellation (hrx_fabric_signal_cancel) is polled where a wave could
 * run forever: at backward jumps and barriers. */
static inline bool hrx_cancelled(hrx_group_t* g, uint32_t pc) {
  const _Atomic bool* flag = g->dispatch->cancel;
  if (!flag || !atomic_load_explicit(flag, memory_order_relaxed)) return false;
  hrx_fault_here(g->dispatch,
                 hrx_fault_at(g, HRX_FABRIC_FAULT_CANCELLED, pc, 0));
  return true;
}

/*===------------------------------------------------------------------===*/
/* Interpreters                                                            */
/*===------------------------------------------------------------------===*/

/* The reference interpreter: runs the instruction at w->pc (advancing
 * it) with every semantic of host_isa.h. Returns WAVE_RUN to go on, or
 * the state the wave stops in. */
uint32_t hrx_host_step(hrx_group_t* g, hrx_wave_t* w, uint32_t wave_index);

/* A kernel translated for the fast interpreter (host_exec_fast.c). */
typedef struct hrx_host_program_t hrx_host_program_t;

/* The calling thread's translation of |g|'s kernel for dispatch |d|,
 * made on first use and kept for the thread; NULL when the fast
 * interpreter is off (HRX_HOST_INTERPRETER=reference) or out of memory,
 * and the reference interpreter runs. */
const hrx_host_program_t* hrx_host_program_for(const hrx_host_dispatch_t* d);

/* Runs wave |w| of |g| with |program| until it stops; returns its state
 * (as hrx_host_step). */
uint32_t hrx_host_run_wave_fast(hrx_group_t* g, hrx_wave_t* w,
                                uint32_t wave_index,
                                const hrx_host_program_t* program);

#endif /* HRX_FABRIC_HOST_EXEC_INTERNAL_H_ */
