/* The host executor: runs host-ISA kernels one workgroup at a time, each
 * workgroup as a set of waves that interleave at barriers. The reference
 * interpreter (hrx_host_step) is here; waves normally run on the fast
 * interpreter (host_exec_fast.c), which hands it what it does not cover. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_exec_internal.h"

/*===------------------------------------------------------------------===*/
/* Dispatch setup                                                          */
/*===------------------------------------------------------------------===*/

void hrx_fault_here(hrx_host_dispatch_t* d, hrx_fabric_fault_t fault) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&d->faulted, &expected, 1)) {
    snprintf(fault.kernel, sizeof(fault.kernel), "%s", d->kernel->name);
    d->fault = fault;
  }
}

/* |flat|'s access record: the work-item's (x, y, z) in the workgroup. */
static hrx_fabric_sanitizer_access_t hrx_access_of(
    const hrx_host_dispatch_t* d, uint32_t pc, uint32_t bytes, uint32_t lane,
    uint32_t flat, bool write) {
  hrx_fabric_sanitizer_access_t a = {.pc = pc, .bytes = bytes, .lane = lane,
                                     .work_item = flat, .write = write};
  if (flat == 0xFFFFu) {
    /* A race's "several readers" (hrx_fabric_fault_t.other_work_item). */
    a.lane = a.work_item = HRX_FABRIC_SANITIZER_SEVERAL;
    for (int i = 0; i < 3; ++i) a.work_item_id[i] = a.work_item;
    return a;
  }
  uint32_t sx = d->workgroup_size[0], sy = d->workgroup_size[1];
  a.work_item_id[0] = flat % sx;
  a.work_item_id[1] = flat / sx % sy;
  a.work_item_id[2] = flat / (sx * sy);
  return a;
}

bool hrx_finding(hrx_group_t* g, hrx_fabric_fault_t fault,
                 uint32_t other_bytes) {
  hrx_host_dispatch_t* d = g->dispatch;
  if (!d->reports) {
    hrx_fault_here(d, fault);
    return false;
  }
  hrx_fabric_sanitizer_report_t r = {
      .struct_size = sizeof(r),
      .kind = fault.kind,
      .workgroup = {fault.workgroup[0], fault.workgroup[1],
                    fault.workgroup[2]},
      .slot = fault.slot,
      .offset = fault.offset,
      .allocation_size = fault.allocation_size,
      .access = hrx_access_of(d, fault.pc, fault.access_bytes, fault.lane,
                              fault.work_item, fault.write),
      .assertion = fault.assertion,
      .value = fault.value};
  snprintf(r.kernel, sizeof(r.kernel), "%s", d->kernel->name);
  bool memory = fault.kind == HRX_FABRIC_FAULT_OUT_OF_BOUNDS ||
                fault.kind == HRX_FABRIC_FAULT_MISALIGNED;
  if (memory && fault.slot < d->slot_count) {
    r.address = (uint64_t)(uintptr_t)d->slots[fault.slot].base + fault.offset;
    r.allocation_size = d->slots[fault.slot].size;
  }
  if (fault.kind == HRX_FABRIC_FAULT_DATA_RACE) {
    /* The earlier access's lane is its work-item's lane in its wave. */
    uint32_t item = fault.other_work_item;
    r.other = hrx_access_of(d, fault.other_pc, other_bytes,
                            item % g->lanes, item, fault.other_write);
  }
  hrx_fabric_report_channel_push(d->reports, &r);
  return true;
}

bool hrx_host_dispatch_prepare(hrx_host_device_t* device,
                               const hrx_aql_dispatch_packet_t* p,
                               const hrx_fabric_kernel_t* kernel,
                               hrx_host_dispatch_t* d) {
  static _Atomic uint64_t serials;
  d->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
  d->kernel = kernel;
  d->kernarg = (const uint8_t*)(uintptr_t)p->kernarg_address;
  uint16_t sizes[3] = {p->workgroup_size_x, p->workgroup_size_y,
                       p->workgroup_size_z};
  uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  uint32_t dims = p->setup & HRX_AQL_SETUP_DIMENSIONS_MASK;
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if ((uint32_t)i >= dims) {
      sizes[i] = sizes[i] ? sizes[i] : 1;
      grid[i] = grid[i] ? grid[i] : 1;
    }
    d->workgroup_size[i] = sizes[i];
    d->grid[i] = grid[i];
    threads *= sizes[i];
    d->workgroup_count[i] = sizes[i] ? (grid[i] + sizes[i] - 1) / sizes[i] : 0;
  }
  hrx_fabric_fault_t fault = {.kind = HRX_FABRIC_FAULT_BAD_LAUNCH};
  if (dims == 0 || threads == 0 || threads > 1024 ||
      (kernel->kernarg_size && !d->kernarg) ||
      p->group_segment_size < kernel->group_segment_size) {
    hrx_fault_here(d, fault);
    return false;
  }
  d->group_segment_size = p->group_segment_size;
  uint32_t slot = 0;
  for (uint32_t a = 0; a < kernel->arg_count; ++a) {
    if (kernel->args[a].kind != HRX_FABRIC_ARG_BUFFER) continue;
    uint64_t address;
    memcpy(&address, d->kernarg + kernel->args[a].offset, 8);
    hrx_host_allocation_t allocation;
    if (!hrx_host_device_resolve(device, address, &allocation)) {
      fault.kind = HRX_FABRIC_FAULT_UNBOUND_POINTER;
      fault.slot = slot;
      fault.address = address;
      hrx_fault_here(d, fault);
      return false;
    }
    /* The binding starts at the argument's address (a view may begin
     * inside an allocation) and ends with the allocation. */
    d->slots[slot].base = (uint8_t*)(uintptr_t)address;
    d->slots[slot].size = allocation.size - (address - allocation.base);
    ++slot;
  }
  d->slot_count = slot;
  return true;
}

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

uint8_t* hrx_resolve(hrx_group_t* g, uint64_t ptr, uint32_t bytes,
                     bool write, uint32_t pc, uint32_t lane,
                     hrx_window_t* out) {
  uint64_t slot = ptr >> HRX_HOST_PTR_SHIFT;
  uint64_t offset = ptr & HRX_HOST_OFFSET_MASK;
  uint8_t* base;
  uint64_t size;
  if (!hrx_slot_extent(g, slot, &base, &size)) {
    hrx_fabric_fault_t fault =
        hrx_fault_at(g, HRX_FABRIC_FAULT_UNBOUND_POINTER, pc, lane);
    fault.slot = (uint32_t)slot;
    fault.offset = offset;
    fault.access_bytes = bytes;
    fault.write = write;
    hrx_finding(g, fault, 0);
    return NULL;
  }
  if (offset > size || size - offset < bytes) {
    hrx_fabric_fault_t fault =
        hrx_fault_at(g, HRX_FABRIC_FAULT_OUT_OF_BOUNDS, pc, lane);
    fault.slot = (uint32_t)slot;
    fault.offset = offset;
    fault.access_bytes = bytes;
    fault.allocation_size = size;
    fault.address = (uint64_t)(uintptr_t)base;
    fault.write = write;
    hrx_finding(g, fault, 0);
    return NULL;
  }
  *out = (hrx_window_t){.slot = slot, .base = base, .size = size};
  return base + offset;
}

/* Records a plain access of local memory by |item| and reports a race
 * when another work-item touched the same granule in this barrier
 * interval and one of the two writes: once per access, however many
 * granules conflict. False when that ends the dispatch (trap). */
static bool hrx_race_access(hrx_group_t* g, uint64_t ptr, uint32_t bytes,
                            bool write, uint32_t pc, uint32_t lane,
                            uint32_t item) {
  if ((ptr >> HRX_HOST_PTR_SHIFT) != HRX_HOST_SLOT_LOCAL) return true;
  uint64_t offset = ptr & HRX_HOST_OFFSET_MASK;
  bool reported = false;
  for (uint64_t at = offset / 4; at <= (offset + bytes - 1) / 4; ++at) {
    hrx_race_cell_t* c = &g->race[at];
    if (c->epoch != g->epoch) {
      *c = (hrx_race_cell_t){.epoch = g->epoch, .writer = HRX_RACE_NONE,
                             .reader = HRX_RACE_NONE};
    }
    bool conflict = false, other_write = false;
    uint32_t other = 0, other_pc = 0, other_bytes = 0;
    if (c->writer != HRX_RACE_NONE && c->writer != item) {
      conflict = other_write = true;
      other = c->writer;
      other_pc = c->write_pc;
      other_bytes = c->write_bytes;
    } else if (write && c->reader != HRX_RACE_NONE && c->reader != item) {
      conflict = true;
      other = c->reader == HRX_RACE_MANY ? 0xFFFFu : c->reader;
      other_pc = c->read_pc;
      other_bytes = c->read_bytes;
    }
    if (conflict && !reported) {
      reported = true;
      hrx_fabric_fault_t fault =
          hrx_fault_at(g, HRX_FABRIC_FAULT_DATA_RACE, pc, lane);
      fault.slot = HRX_HOST_SLOT_LOCAL;
      fault.offset = offset;
      fault.access_bytes = bytes;
      fault.work_item = item;
      fault.write = write;
      fault.other_pc = other_pc;
      fault.other_work_item = other;
      fault.other_write = other_write;
      if (!hrx_finding(g, fault, other_bytes)) return false;
    }
    if (write) {
      c->writer = (uint16_t)item;
      c->write_pc = pc;
      c->write_bytes = (uint8_t)bytes;
    } else {
      c->reader = c->reader == HRX_RACE_NONE || c->reader == item
                      ? (uint16_t)item
                      : (uint16_t)HRX_RACE_MANY;
      c->read_pc = pc;
      c->read_bytes = (uint8_t)bytes;
    }
  }
  return true;
}

/* A misaligned atomic at pointer |ptr|. */
static hrx_fabric_fault_t hrx_misaligned(const hrx_group_t* g, uint64_t ptr,
                                         uint32_t bytes, bool write,
                                         uint32_t pc, uint32_t lane) {
  hrx_fabric_fault_t f = hrx_fault_at(g, HRX_FABRIC_FAULT_MISALIGNED, pc, lane);
  f.slot = (uint32_t)(ptr >> HRX_HOST_PTR_SHIFT);
  f.offset = ptr & HRX_HOST_OFFSET_MASK;
  f.access_bytes = bytes;
  f.write = write;
  return f;
}

static int hrx_order(uint32_t ordering) {
  switch (ordering) {
    case HRX_HOST_ORDER_ACQUIRE: return __ATOMIC_ACQUIRE;
    case HRX_HOST_ORDER_RELEASE: return __ATOMIC_RELEASE;
    case HRX_HOST_ORDER_ACQ_REL: return __ATOMIC_ACQ_REL;
    case HRX_HOST_ORDER_SEQ_CST: return __ATOMIC_SEQ_CST;
    default: return __ATOMIC_RELAXED;
  }
}

static int hrx_load_order(uint32_t ordering) {
  int order = hrx_order(ordering);
  return order == __ATOMIC_RELEASE || order == __ATOMIC_ACQ_REL
             ? __ATOMIC_ACQUIRE : order;
}

static int hrx_store_order(uint32_t ordering) {
  int order = hrx_order(ordering);
  return order == __ATOMIC_ACQUIRE || order == __ATOMIC_ACQ_REL
             ? __ATOMIC_RELEASE : order;
}

/* Combines two register values of |type| (reductions and atomics). */
static uint64_t hrx_combine(uint32_t kind, uint8_t type, uint64_t a,
                            uint64_t b) {
  bool is_f64 = type == HRX_HOST_TYPE_F64;
  switch ((hrx_host_combine_t)kind) {
    case HRX_HOST_COMBINE_ADDI: return hrx_norm(a + b, type);
    case HRX_HOST_COMBINE_MULI: return hrx_norm(a * b, type);
    case HRX_HOST_COMBINE_ANDI: return a & b;
    case HRX_HOST_COMBINE_ORI: return a | b;
    case HRX_HOST_COMBINE_XORI: return hrx_norm(a ^ b, type);
    case HRX_HOST_COMBINE_MAXSI: return (int64_t)a > (int64_t)b ? a : b;
    case HRX_HOST_COMBINE_MINSI: return (int64_t)a < (int64_t)b ? a : b;
    case HRX_HOST_COMBINE_MAXUI:
      return hrx_unsigned(a, type) > hrx_unsigned(b, type) ? a : b;
    case HRX_HOST_COMBINE_MINUI:
      return hrx_unsigned(a, type) < hrx_unsigned(b, type) ? a : b;
    case HRX_HOST_COMBINE_XCHG: return b;
    case HRX_HOST_COMBINE_ADDF:
      return is_f64 ? hrx_from_f64(hrx_f64(a) + hrx_f64(b))
                    : hrx_store_f(type, hrx_load_f(type, a) +
                                            hrx_load_f(type, b));
    case HRX_HOST_COMBINE_MULF:
      return is_f64 ? hrx_from_f64(hrx_f64(a) * hrx_f64(b))
                    : hrx_store_f(type, hrx_load_f(type, a) *
                                            hrx_load_f(type, b));
    case HRX_HOST_COMBINE_MAXNUMF:
      return is_f64 ? hrx_from_f64(fmax(hrx_f64(a), hrx_f64(b)))
                    : hrx_store_f(type, fmaxf(hrx_load_f(type, a),
                                              hrx_load_f(type, b)));
    case HRX_HOST_COMBINE_MINNUMF:
      return is_f64 ? hrx_from_f64(fmin(hrx_f64(a), hrx_f64(b)))
                    : hrx_store_f(type, fminf(hrx_load_f(type, a),
                                              hrx_load_f(type, b)));
    default: return b;
  }
}

/* Atomic read-modify-write on 4- or 8-byte memory; returns the old value.
 * Integer add/and/or/xor/xchg map to native atomics, the rest to CAS. */
static uint64_t hrx_atomic_rmw(uint8_t* at, uint8_t type, uint32_t kind,
                               uint64_t operand, int order) {
  uint32_t bytes = hrx_type_bytes(type);
  if (bytes == 4) {
    uint32_t* p = (uint32_t*)at;
    uint32_t b = (uint32_t)operand;
    switch (kind) {
      case HRX_HOST_COMBINE_ADDI: return __atomic_fetch_add(p, b, order);
      case HRX_HOST_COMBINE_ANDI: return __atomic_fetch_and(p, b, order);
      case HRX_HOST_COMBINE_ORI: return __atomic_fetch_or(p, b, order);
      case HRX_HOST_COMBINE_XORI: return __atomic_fetch_xor(p, b, order);
      case HRX_HOST_COMBINE_XCHG: return __atomic_exchange_n(p, b, order);
      default: break;
    }
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    for (;;) {
      uint32_t next = (uint32_t)hrx_combine(kind, type, hrx_norm(old, type),
                                            hrx_norm(operand, type));
      if (__atomic_compare_exchange_n(p, &old, next, true, order,
                                      __ATOMIC_RELAXED)) {
        return old;
      }
    }
  }
  uint64_t* p = (uint64_t*)at;
  switch (kind) {
    case HRX_HOST_COMBINE_ADDI: return __atomic_fetch_add(p, operand, order);
    case HRX_HOST_COMBINE_ANDI: return __atomic_fetch_and(p, operand, order);
    case HRX_HOST_COMBINE_ORI: return __atomic_fetch_or(p, operand, order);
    case HRX_HOST_COMBINE_XORI: return __atomic_fetch_xor(p, operand, order);
    case HRX_HOST_COMBINE_XCHG: return __atomic_exchange_n(p, operand, order);
    default: break;
  }
  uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t next = hrx_combine(kind, type, old, operand);
    if (__atomic_compare_exchange_n(p, &old, next, true, order,
                                    __ATOMIC_RELAXED)) {
      return old;
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Scalar semantics                                                        */
/*===------------------------------------------------------------------===*/

static bool hrx_icmp(uint32_t predicate, uint8_t type, uint64_t a,
                     uint64_t b) {
  int64_t sa = (int64_t)a, sb = (int64_t)b;
  uint64_t ua = hrx_unsigned(a, type), ub = hrx_unsigned(b, type);
  switch ((hrx_host_icmp_t)predicate) {
    case HRX_HOST_ICMP_EQ: return ua == ub;
    case HRX_HOST_ICMP_NE: return ua != ub;
    case HRX_HOST_ICMP_SLT: return sa < sb;
    case HRX_HOST_ICMP_SLE: return sa <= sb;
    case HRX_HOST_ICMP_SGT: return sa > sb;
    case HRX_HOST_ICMP_SGE: return sa >= sb;
    case HRX_HOST_ICMP_ULT: return ua < ub;
    case HRX_HOST_ICMP_ULE: return ua <= ub;
    case HRX_HOST_ICMP_UGT: return ua > ub;
    default: return ua >= ub;
  }
}

static bool hrx_fcmp(uint32_t predicate, double a, double b) {
  bool unordered = isnan(a) || isnan(b);
  switch ((hrx_host_fcmp_t)predicate) {
    case HRX_HOST_FCMP_OEQ: return !unordered && a == b;
    case HRX_HOST_FCMP_OGT: return !unordered && a > b;
    case HRX_HOST_FCMP_OGE: return !unordered && a >= b;
    case HRX_HOST_FCMP_OLT: return !unordered && a < b;
    case HRX_HOST_FCMP_OLE: return !unordered && a <= b;
    case HRX_HOST_FCMP_ONE: return !unordered && a != b;
    case HRX_HOST_FCMP_ORD: return !unordered;
    case HRX_HOST_FCMP_UEQ: return unordered || a == b;
    case HRX_HOST_FCMP_UGT: return unordered || a > b;
    case HRX_HOST_FCMP_UGE: return unordered || a >= b;
    case HRX_HOST_FCMP_ULT: return unordered || a < b;
    case HRX_HOST_FCMP_ULE: return unordered || a <= b;
    case HRX_HOST_FCMP_UNE: return unordered || a != b;
    default: return unordered;
  }
}

static double hrx_as_double(uint8_t type, uint64_t v) {
  return type == HRX_HOST_TYPE_F64 ? hrx_f64(v) : (double)hrx_load_f(type, v);
}

static uint64_t hrx_from_double(uint8_t type, double d) {
  return type == HRX_HOST_TYPE_F64 ? hrx_from_f64(d)
                                   : hrx_store_f(type, (float)d);
}

/* Float to integer: toward zero, saturating, NaN -> 0. */
static uint64_t hrx_ftoi(double d, uint8_t to, bool is_signed) {
  uint32_t bits = hrx_type_bits(to);
  if (isnan(d)) return 0;
  d = trunc(d);
  if (is_signed) {
    double lo = bits >= 64 ? -9223372036854775808.0 : -ldexp(1.0, (int)bits - 1);
    double hi = bits >= 64 ? 9223372036854775807.0 : ldexp(1.0, (int)bits - 1) - 1;
    if (d <= lo) return hrx_norm((uint64_t)(int64_t)lo, to);
    if (d >= hi) return hrx_norm(bits >= 64 ? (uint64_t)INT64_MAX
                                            : (uint64_t)(int64_t)hi, to);
    return hrx_norm((uint64_t)(int64_t)d, to);
  }
  if (d <= 0) return 0;
  double hi = bits >= 64 ? 18446744073709551615.0 : ldexp(1.0, (int)bits) - 1;
  if (d >= hi) return hrx_norm(bits >= 64 ? UINT64_MAX : (uint64_t)hi, to);
  return hrx_norm((uint64_t)d, to);
}

static uint64_t hrx_convert(uint32_t kind, uint8_t from, uint8_t to,
                            uint64_t v) {
  switch ((hrx_host_cvt_t)kind) {
    case HRX_HOST_CVT_SEXT: return hrx_norm(v, to);
    case HRX_HOST_CVT_ZEXT: return hrx_norm(hrx_unsigned(v, from), to);
    case HRX_HOST_CVT_FEXT:
    case HRX_HOST_CVT_FTRUNC:
      if (from == HRX_HOST_TYPE_F64 || to == HRX_HOST_TYPE_F64) {
        return hrx_from_double(to, hrx_as_double(from, v));
      }
      return hrx_store_f(to, hrx_load_f(from, v));
    case HRX_HOST_CVT_SITOF:
      if (to == HRX_HOST_TYPE_F64) return hrx_from_f64((double)(int64_t)v);
      return hrx_store_f(to, (float)(int64_t)v);
    case HRX_HOST_CVT_UITOF:
      if (to == HRX_HOST_TYPE_F64) {
        return hrx_from_f64((double)hrx_unsigned(v, from));
      }
      return hrx_store_f(to, (float)hrx_unsigned(v, from));
    case HRX_HOST_CVT_FTOSI: return hrx_ftoi(hrx_as_double(from, v), to, true);
    case HRX_HOST_CVT_FTOUI: return hrx_ftoi(hrx_as_double(from, v), to, false);
    case HRX_HOST_CVT_BITCAST: {
      uint64_t bits = hrx_unsigned(v, from);
      return to <= HRX_HOST_TYPE_I64 ? hrx_norm(bits, to) : bits;
    }
    default: return v;
  }
}

/*===------------------------------------------------------------------===*/
/* The interpreter                                                         */
/*===------------------------------------------------------------------===*/

/* Runs |BODY| for each lane that executes this instruction: once (l = 0)
 * for a scalar destination, else for every active lane. */
#define HRX_LANES(...)                                              \
  do {                                                               \
    if (dst_scalar) {                                                \
      const uint32_t l = 0;                                          \
      __VA_ARGS__;                                                          \
    } else if (w->exec == g->full) {                                 \
      for (uint32_t l = 0; l < L; ++l) {                             \
        __VA_ARGS__;                                                        \
      }                                                              \
    } else {                                                         \
      for (uint64_t m_ = w->exec; m_; m_ &= m_ - 1) {                \
        const uint32_t l = (uint32_t)__builtin_ctzll(m_);            \
        __VA_ARGS__;                                                        \
      }                                                              \
    }                                                                \
  } while (0)

#define A (pa[l * sa])
#define B (pb[l * sb])
#define C (pc_[l * sc])
#define D (pd[l])

/* Float ops: f32 natively, f64 natively, f16/bf16 through f32. */
#define HRX_FLOAT1(F32, F64)                                              \
  do {                                                                    \
    if (type == HRX_HOST_TYPE_F32) {                                      \
      HRX_LANES({ float x = hrx_f32(A); D = hrx_from_f32(F32); });       \
    } else if (type == HRX_HOST_TYPE_F64) {                               \
      HRX_LANES({ double x = hrx_f64(A); D = hrx_from_f64(F64); });      \
    } else {                                                              \
      HRX_LANES({                                                         \
        float x = hrx_load_f(type, A);                                    \
        D = hrx_store_f(type, F32);                                       \
      });                                                                 \
    }                                                                     \
  } while (0)

#define HRX_FLOAT2(F32, F64)                                              \
  do {                                                                    \
    if (type == HRX_HOST_TYPE_F32) {                                      \
      HRX_LANES({                                                         \
        float x = hrx_f32(A), y = hrx_f32(B);                             \
        D = hrx_from_f32(F32);                                            \
      });                                                                 \
    } else if (type == HRX_HOST_TYPE_F64) {                               \
      HRX_LANES({                                                         \
        double x = hrx_f64(A), y = hrx_f64(B);                            \
        D = hrx_from_f64(F64);                                            \
      });                                                                 \
    } else {                                                              \
      HRX_LANES({                                                         \
        float x = hrx_load_f(type, A), y = hrx_load_f(type, B);          \
        D = hrx_store_f(type, F32);                                       \
      });                                                                 \
    }                                                                     \
  } while (0)

static bool hrx_push(hrx_group_t* g, hrx_wave_t* w, uint32_t pc) {
  if (w->depth == HRX_HOST_MAX_MASK_DEPTH) {
    hrx_fault_here(g->dispatch,
                   hrx_fault_at(g, HRX_FABRIC_FAULT_BAD_LAUNCH, pc, 0));
    return false;
  }
  w->stack[w->depth++] = w->exec;
  return true;
}

static bool hrx_pop(hrx_group_t* g, hrx_wave_t* w, uint32_t pc) {
  if (w->depth == 0) {
    hrx_fault_here(g->dispatch,
                   hrx_fault_at(g, HRX_FABRIC_FAULT_BAD_LAUNCH, pc, 0));
    return false;
  }
  w->exec = w->stack[--w->depth];
  return true;
}

/* The lanes of |w| whose condition register is nonzero. */
static uint64_t hrx_cond_mask(const hrx_group_t* g, const hrx_wave_t* w,
                              const hrx_host_insn_t* i) {
  return hrx_cond_bits(g, w, (i->flags & HRX_HOST_FLAG_A_SCALAR) != 0, i->a);
}

/* Moves |w| to |target|; false (faulted) when a backward jump finds the
 * dispatch cancelled. */
static inline bool hrx_jump(hrx_group_t* g, hrx_wave_t* w, uint32_t target,
                            uint32_t pc) {
  if (target <= pc && hrx_cancelled(g, pc)) return false;
  w->pc = target;
  return true;
}

/* Race sanitizer: the work-items of |missing| (lanes of wave |wave|) do
 * not reach the barrier at |pc|. False when that ends the dispatch; in
 * report mode the barrier then releases the waves that reach it. */
static bool hrx_barrier_fault(hrx_group_t* g, uint32_t pc, uint32_t wave,
                              uint64_t missing) {
  uint32_t lane = (uint32_t)__builtin_ctzll(missing);
  hrx_fabric_fault_t f =
      hrx_fault_at(g, HRX_FABRIC_FAULT_BARRIER_DIVERGENCE, pc, lane);
  f.work_item = wave * g->lanes + lane;
  return hrx_finding(g, f, 0);
}

/* Race sanitizer, after a round of waves ended with some at a barrier:
 * every wave must wait at that same barrier (none finished, none at
 * another); the first that does not is the finding. */
static bool hrx_barrier_joined(hrx_group_t* g, const hrx_wave_t* waves,
                               uint32_t count) {
  uint32_t at = UINT32_MAX;
  for (uint32_t w = 0; w < count && at == UINT32_MAX; ++w) {
    if (waves[w].state == WAVE_BARRIER) at = waves[w].pc - 1;
  }
  for (uint32_t w = 0; w < count; ++w) {
    if (waves[w].state != WAVE_BARRIER || waves[w].pc - 1 != at) {
      return hrx_barrier_fault(g, at, w, waves[w].live);
    }
  }
  return true;
}

uint32_t hrx_host_step(hrx_group_t* g, hrx_wave_t* w, uint32_t wave_index) {
  const hrx_fabric_kernel_t* k = g->kernel;
  const hrx_host_insn_t* code = k->insns;
  const uint32_t L = g->lanes;
  hrx_host_dispatch_t* dispatch = g->dispatch;
  uint64_t temp[HRX_HOST_MAX_LANES];
  if (w->pc >= k->insn_count) return WAVE_DONE;
  uint32_t pc = w->pc++;
  const hrx_host_insn_t* i = &code[pc];
  const uint8_t type = i->type;
  const bool dst_scalar = (i->flags & HRX_HOST_FLAG_DST_SCALAR) != 0;
  uint64_t* pd = dst_scalar ? &w->s[i->dst] : &w->v[(size_t)i->dst * L];
  const uint64_t* pa = (i->flags & HRX_HOST_FLAG_A_SCALAR)
                           ? &w->s[i->a] : &w->v[(size_t)i->a * L];
  const uint64_t* pb = (i->flags & HRX_HOST_FLAG_B_SCALAR)
                           ? &w->s[i->b] : &w->v[(size_t)i->b * L];
  const uint64_t* pc_ = (i->flags & HRX_HOST_FLAG_C_SCALAR)
                            ? &w->s[i->c] : &w->v[(size_t)i->c * L];
  const size_t sa = (i->flags & HRX_HOST_FLAG_A_SCALAR) ? 0 : 1;
  const size_t sb = (i->flags & HRX_HOST_FLAG_B_SCALAR) ? 0 : 1;
  const size_t sc = (i->flags & HRX_HOST_FLAG_C_SCALAR) ? 0 : 1;
  switch ((hrx_host_op_t)i->op) {
    case HRX_HOST_OP_NOP: break;
    case HRX_HOST_OP_MOV: HRX_LANES(D = A); break;
    case HRX_HOST_OP_CONST: {
      uint64_t value = k->constants[i->imm];
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_ARG: {
      uint64_t value = hrx_load_value(dispatch->kernarg + i->imm, type);
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_BINDING: {
      uint64_t value = (uint64_t)i->imm << HRX_HOST_PTR_SHIFT;
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_IADD:
    case HRX_HOST_OP_ISUB:
    case HRX_HOST_OP_IMUL:
    case HRX_HOST_OP_IMADD:
      if (i->flags & HRX_HOST_FLAG_ADDRESS) {
        HRX_LANES(D = (uint64_t)hrx_host_index_madd((int64_t)A, (int64_t)B,
                                                      (int64_t)C));
      } else if (i->flags & HRX_HOST_FLAG_CHECKED) {
        /* The operation sanitizer: signed overflow of the type; a
         * reported lane keeps the wrapped result. */
        bool ok = true;
        HRX_LANES({
          int64_t x = (int64_t)A, y = (int64_t)B, r = 0;
          bool o = i->op == HRX_HOST_OP_IADD ? __builtin_add_overflow(x, y, &r)
                   : i->op == HRX_HOST_OP_ISUB
                       ? __builtin_sub_overflow(x, y, &r)
                       : __builtin_mul_overflow(x, y, &r);
          if (!o && i->op == HRX_HOST_OP_IMADD) {
            o = __builtin_add_overflow(r, (int64_t)C, &r);
          }
          if (ok && (o || (int64_t)hrx_norm((uint64_t)r, type) != r)) {
            ok = hrx_finding(
                g, hrx_fault_at(g, HRX_FABRIC_FAULT_INTEGER_OVERFLOW, pc, l),
                0);
          }
          D = hrx_norm((uint64_t)r, type);
        });
        if (!ok) return WAVE_FAULT;
      } else if (i->op == HRX_HOST_OP_IADD) {
        HRX_LANES(D = hrx_norm(A + B, type));
      } else if (i->op == HRX_HOST_OP_ISUB) {
        HRX_LANES(D = hrx_norm(A - B, type));
      } else if (i->op == HRX_HOST_OP_IMUL) {
        HRX_LANES(D = hrx_norm(A * B, type));
      } else {
        HRX_LANES(D = hrx_norm(A * B + C, type));
      }
      break;
    case HRX_HOST_OP_IDIVS:
    case HRX_HOST_OP_IDIVU:
    case HRX_HOST_OP_IREMS:
    case HRX_HOST_OP_IREMU: {
      /* A reported division by zero gives 0. */
      bool ok = true;
      HRX_LANES({
        uint64_t x = A, y = B;
        if (hrx_unsigned(y, type) == 0) {
          if (ok) {
            ok = hrx_finding(
                g, hrx_fault_at(g, HRX_FABRIC_FAULT_DIVIDE_BY_ZERO, pc, l), 0);
          }
          D = 0;
        } else if (i->op == HRX_HOST_OP_IDIVU) {
          D = hrx_norm(hrx_unsigned(x, type) / hrx_unsigned(y, type), type);
        } else if (i->op == HRX_HOST_OP_IREMU) {
          D = hrx_norm(hrx_unsigned(x, type) % hrx_unsigned(y, type), type);
        } else if ((int64_t)y == -1) {
          /* INT_MIN / -1 wraps; x % -1 is 0. */
          D = i->op == HRX_HOST_OP_IDIVS ? hrx_norm(0 - x, type) : 0;
        } else if (i->op == HRX_HOST_OP_IDIVS) {
          D = hrx_norm((uint64_t)((int64_t)x / (int64_t)y), type);
        } else {
          D = hrx_norm((uint64_t)((int64_t)x % (int64_t)y), type);
        }
      });
      if (!ok) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_IMINS:
      HRX_LANES(D = (int64_t)A < (int64_t)B ? A : B);
      break;
    case HRX_HOST_OP_IMAXS:
      HRX_LANES(D = (int64_t)A > (int64_t)B ? A : B);
      break;
    case HRX_HOST_OP_IMINU:
      HRX_LANES(D = hrx_unsigned(A, type) < hrx_unsigned(B, type) ? A : B);
      break;
    case HRX_HOST_OP_IMAXU:
      HRX_LANES(D = hrx_unsigned(A, type) > hrx_unsigned(B, type) ? A : B);
      break;
    case HRX_HOST_OP_IAND: HRX_LANES(D = A & B); break;
    case HRX_HOST_OP_IOR: HRX_LANES(D = A | B); break;
    case HRX_HOST_OP_IXOR: HRX_LANES(D = hrx_norm(A ^ B, type)); break;
    case HRX_HOST_OP_ISHL:
    case HRX_HOST_OP_ISHRU:
    case HRX_HOST_OP_ISHRS: {
      uint32_t bits = hrx_type_bits(type);
      if (i->flags & HRX_HOST_FLAG_CHECKED) {
        /* The operation sanitizer: an amount of at least the width (a
         * reported lane gets the unchecked result below). */
        bool ok = true;
        HRX_LANES({
          if (ok && hrx_unsigned(B, type) >= bits) {
            hrx_fabric_fault_t f =
                hrx_fault_at(g, HRX_FABRIC_FAULT_BAD_SHIFT, pc, l);
            f.access_bytes = hrx_type_bytes(type);
            f.value = (int64_t)hrx_unsigned(B, type);
            ok = hrx_finding(g, f, 0);
          }
        });
        if (!ok) return WAVE_FAULT;
      }
      HRX_LANES({
        uint64_t amount = hrx_unsigned(B, type);
        uint64_t x = A;
        if (i->op == HRX_HOST_OP_ISHL) {
          D = amount >= bits ? 0 : hrx_norm(x << amount, type);
        } else if (i->op == HRX_HOST_OP_ISHRU) {
          D = amount >= bits ? 0
                             : hrx_norm(hrx_unsigned(x, type) >> amount,
                                        type);
        } else {
          D = amount >= bits ? ((int64_t)x < 0 ? hrx_norm(~UINT64_C(0), type)
                                               : 0)
                             : (uint64_t)((int64_t)x >> amount);
        }
      });
      break;
    }
    case HRX_HOST_OP_FADD: HRX_FLOAT2(x + y, x + y); break;
    case HRX_HOST_OP_FSUB: HRX_FLOAT2(x - y, x - y); break;
    case HRX_HOST_OP_FMUL: HRX_FLOAT2(x * y, x * y); break;
    case HRX_HOST_OP_FDIV: HRX_FLOAT2(x / y, x / y); break;
    case HRX_HOST_OP_FMIN: HRX_FLOAT2(fminf(x, y), fmin(x, y)); break;
    case HRX_HOST_OP_FMAX: HRX_FLOAT2(fmaxf(x, y), fmax(x, y)); break;
    case HRX_HOST_OP_FFMA:
      if (type == HRX_HOST_TYPE_F32) {
        HRX_LANES(D = hrx_from_f32(fmaf(hrx_f32(A), hrx_f32(B),
                                        hrx_f32(C))));
      } else if (type == HRX_HOST_TYPE_F64) {
        HRX_LANES(D = hrx_from_f64(fma(hrx_f64(A), hrx_f64(B),
                                       hrx_f64(C))));
      } else {
        HRX_LANES(D = hrx_store_f(type, fmaf(hrx_load_f(type, A),
                                             hrx_load_f(type, B),
                                             hrx_load_f(type, C))));
      }
      break;
    case HRX_HOST_OP_FNEG: HRX_FLOAT1(-x, -x); break;
    case HRX_HOST_OP_FABS: HRX_FLOAT1(fabsf(x), fabs(x)); break;
    case HRX_HOST_OP_FFLOOR: HRX_FLOAT1(floorf(x), floor(x)); break;
    case HRX_HOST_OP_FCEIL: HRX_FLOAT1(ceilf(x), ceil(x)); break;
    case HRX_HOST_OP_FTRUNC: HRX_FLOAT1(truncf(x), trunc(x)); break;
    case HRX_HOST_OP_FROUNDEVEN:
      HRX_FLOAT1(nearbyintf(x), nearbyint(x));
      break;
    case HRX_HOST_OP_FSQRT: HRX_FLOAT1(sqrtf(x), sqrt(x)); break;
    case HRX_HOST_OP_FRSQRT: HRX_FLOAT1(1.0f / sqrtf(x), 1.0 / sqrt(x)); break;
    case HRX_HOST_OP_FEXP: HRX_FLOAT1(expf(x), exp(x)); break;
    case HRX_HOST_OP_FLOG: HRX_FLOAT1(logf(x), log(x)); break;
    case HRX_HOST_OP_FTANH: HRX_FLOAT1(tanhf(x), tanh(x)); break;
    case HRX_HOST_OP_ICMP:
      /* The predicate picks the loop, not each lane's comparison. */
      switch ((hrx_host_icmp_t)i->aux) {
        case HRX_HOST_ICMP_SLT: HRX_LANES(D = (int64_t)A < (int64_t)B); break;
        case HRX_HOST_ICMP_SGE:
          HRX_LANES(D = (int64_t)A >= (int64_t)B);
          break;
        case HRX_HOST_ICMP_ULT:
          HRX_LANES(D = hrx_unsigned(A, type) < hrx_unsigned(B, type));
          break;
        case HRX_HOST_ICMP_EQ:
          HRX_LANES(D = hrx_unsigned(A, type) == hrx_unsigned(B, type));
          break;
        default: HRX_LANES(D = hrx_icmp(i->aux, type, A, B)); break;
      }
      break;
    case HRX_HOST_OP_FCMP:
      HRX_LANES(D = hrx_fcmp(i->aux, hrx_as_double(type, A),
                             hrx_as_double(type, B)));
      break;
    case HRX_HOST_OP_SELECT: HRX_LANES(D = A ? B : C); break;
    case HRX_HOST_OP_CVT:
      if (i->imm == HRX_HOST_CVT_SEXT) {
        HRX_LANES(D = hrx_norm(A, type));
      } else if (i->imm == HRX_HOST_CVT_ZEXT) {
        HRX_LANES(D = hrx_norm(hrx_unsigned(A, i->aux), type));
      } else {
        HRX_LANES(D = hrx_convert(i->imm, i->aux, type, A));
      }
      break;
    case HRX_HOST_OP_WORKITEM_ID: {
      /* Divide once for lane 0, then step (x, y, z) lane by lane: a
       * 64-bit division per lane dominated index-heavy kernels. */
      const uint32_t* size = dispatch->workgroup_size;
      uint64_t flat = (uint64_t)wave_index * L;
      uint64_t x = flat % size[0], y = flat / size[0] % size[1],
               z = flat / ((uint64_t)size[0] * size[1]);
      for (uint32_t l = 0; l < L; ++l) {
        temp[l] = i->aux == 0 ? x : i->aux == 1 ? y : z;
        if (++x == size[0]) {
          x = 0;
          if (++y == size[1]) {
            y = 0;
            ++z;
          }
        }
      }
      HRX_LANES(D = temp[l]);
      break;
    }
    case HRX_HOST_OP_WORKGROUP_ID: {
      uint64_t value = g->id[i->aux];
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_WORKGROUP_SIZE: {
      uint64_t value = dispatch->workgroup_size[i->aux];
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_WORKGROUP_COUNT: {
      uint64_t value = dispatch->workgroup_count[i->aux];
      HRX_LANES(D = value);
      break;
    }
    case HRX_HOST_OP_SUBGROUP_ID: HRX_LANES(D = wave_index); break;
    case HRX_HOST_OP_LANE_ID: HRX_LANES(D = l); break;
    case HRX_HOST_OP_SUBGROUP_SIZE: HRX_LANES(D = L); break;
    case HRX_HOST_OP_PTR_ADD: {
      const int64_t scale = (int64_t)i->imm;
      HRX_LANES(D = hrx_ptr_add(A, (int64_t)B, scale));
      break;
    }
    case HRX_HOST_OP_LOAD: {
      uint32_t bytes = hrx_type_bytes(type);
      bool ok = true;
      hrx_window_t window = HRX_WINDOW_NONE;
      /* A uniform load runs once for the wave: its findings name the
       * lowest active lane, the work-item that would have made it. */
      const uint32_t lowest =
          w->exec ? (uint32_t)__builtin_ctzll(w->exec) : 0;
      HRX_LANES({
        const uint32_t lane = dst_scalar ? lowest : l;
        if (ok) {
          const uint8_t* at =
              hrx_resolve_in(g, &window, A, bytes, false, pc, lane);
          if (!at) {
            ok = hrx_reporting(g);
            D = 0; /* a reported lane reads 0, as robust buffers do */
          } else if (!g->race ||
                     hrx_race_access(g, A, bytes, false, pc, lane,
                                     wave_index * L + lane)) {
            D = hrx_load_value(at, type);
          } else {
            ok = false;
          }
        }
      });
      if (!ok) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_STORE:
    case HRX_HOST_OP_ATOMIC_STORE: {
      uint32_t bytes = hrx_type_bytes(type);
      bool atomic = i->op == HRX_HOST_OP_ATOMIC_STORE;
      bool ok = true;
      /* Stores with uniform operands write once for the wave, as its
       * lowest active lane. */
      const bool uniform = sa == 0 && sb == 0;
      const uint64_t once = w->exec ? w->exec & (0 - w->exec) : 1;
      hrx_window_t window = HRX_WINDOW_NONE;
      for (uint64_t m = uniform ? once : w->exec; m && ok; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctzll(m);
        uint8_t* at = hrx_resolve_in(g, &window, A, bytes, true, pc, l);
        if (!at) {
          ok = hrx_reporting(g); /* a reported lane's store is dropped */
        } else if (!atomic && g->race &&
                   !hrx_race_access(g, A, bytes, true, pc, l,
                                    wave_index * L + l)) {
          ok = false;
        } else if (atomic && (uintptr_t)at % bytes) {
          ok = hrx_finding(g, hrx_misaligned(g, A, bytes, true, pc, l), 0);
        } else if (atomic && bytes == 4) {
          __atomic_store_n((uint32_t*)at, (uint32_t)B,
                           hrx_store_order(i->imm));
        } else if (atomic && bytes == 8) {
          __atomic_store_n((uint64_t*)at, B, hrx_store_order(i->imm));
        } else {
          hrx_write_bits(at, bytes, B);
        }
      }
      if (!ok) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_ATOMIC_LOAD:
    case HRX_HOST_OP_ATOMIC_RMW: {
      uint32_t bytes = hrx_type_bytes(type);
      bool ok = true;
      hrx_window_t window = HRX_WINDOW_NONE;
      const bool write = i->op == HRX_HOST_OP_ATOMIC_RMW;
      HRX_LANES({
        uint8_t* at =
            ok ? hrx_resolve_in(g, &window, A, bytes, write, pc, l) : NULL;
        if (!at) {
          /* A reported lane's atomic is dropped and reads 0. */
          ok = ok && hrx_reporting(g);
          D = 0;
        } else if ((uintptr_t)at % bytes || (bytes != 4 && bytes != 8)) {
          ok = hrx_finding(g, hrx_misaligned(g, A, bytes, write, pc, l), 0);
          D = 0;
        } else if (i->op == HRX_HOST_OP_ATOMIC_LOAD) {
          uint64_t raw = bytes == 4
              ? __atomic_load_n((uint32_t*)at, hrx_load_order(i->imm))
              : __atomic_load_n((uint64_t*)at, hrx_load_order(i->imm));
          D = type <= HRX_HOST_TYPE_I64 ? hrx_norm(raw, type) : raw;
        } else {
          uint64_t old = hrx_atomic_rmw(at, type, i->aux, B,
                                        hrx_order(i->imm));
          D = type <= HRX_HOST_TYPE_I64 ? hrx_norm(old, type) : old;
        }
      });
      if (!ok) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_FENCE:
      __atomic_thread_fence(hrx_order(i->imm));
      break;
    case HRX_HOST_OP_SHUFFLE:
    case HRX_HOST_OP_SHUFFLE_OK: {
      for (uint32_t l = 0; l < L; ++l) {
        if (!((w->exec >> l) & 1)) continue;
        int64_t offset = (int64_t)B;
        int64_t width = (int64_t)C;
        if (width <= 0 || width > (int64_t)L) width = L;
        int64_t local = l % width, base = (int64_t)l - local, source;
        switch (i->aux) {
          case HRX_HOST_SHUFFLE_XOR: source = local ^ offset; break;
          case HRX_HOST_SHUFFLE_UP: source = local - offset; break;
          case HRX_HOST_SHUFFLE_DOWN: source = local + offset; break;
          default: source = offset; break;
        }
        bool valid = source >= 0 && source < width;
        if (i->op == HRX_HOST_OP_SHUFFLE_OK) {
          temp[l] = valid;
        } else {
          temp[l] = valid ? pa[(size_t)(base + source) * sa] : A;
        }
      }
      for (uint64_t m = w->exec; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctzll(m);
        pd[l] = temp[l];
      }
      break;
    }
    case HRX_HOST_OP_REDUCE: {
      uint32_t cluster = i->imm && i->imm <= L ? i->imm : L;
      for (uint32_t start = 0; start < L; start += cluster) {
        bool any = false;
        uint64_t total = 0;
        for (uint32_t l = start; l < start + cluster && l < L; ++l) {
          if (!((w->exec >> l) & 1)) continue;
          total = any ? hrx_combine(i->aux, type, total, A) : A;
          any = true;
        }
        for (uint32_t l = start; l < start + cluster && l < L; ++l) {
          if ((w->exec >> l) & 1) temp[l] = total;
        }
      }
      for (uint64_t m = w->exec; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctzll(m);
        pd[l] = temp[l];
      }
      break;
    }
    case HRX_HOST_OP_BARRIER:
      if (hrx_cancelled(g, pc)) return WAVE_FAULT;
      if (g->race_check && w->exec != w->live &&
          !hrx_barrier_fault(g, pc, wave_index, w->live & ~w->exec)) {
        return WAVE_FAULT;
      }
      return WAVE_BARRIER;
    case HRX_HOST_OP_JMP:
      if (!hrx_jump(g, w, i->imm, pc)) return WAVE_FAULT;
      break;
    case HRX_HOST_OP_BRZ:
    case HRX_HOST_OP_BRNZ:
      if ((w->s[i->a] != 0) == (i->op == HRX_HOST_OP_BRNZ) &&
          !hrx_jump(g, w, i->imm, pc)) {
        return WAVE_FAULT;
      }
      break;
    case HRX_HOST_OP_IF: {
      uint64_t cond = hrx_cond_mask(g, w, i);
      if (!hrx_push(g, w, pc)) return WAVE_FAULT;
      w->exec &= cond;
      if (!w->exec && !hrx_jump(g, w, i->imm, pc)) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_ELSE: {
      if (w->depth == 0) {
        hrx_pop(g, w, pc);
        return WAVE_FAULT;
      }
      uint64_t cond = hrx_cond_mask(g, w, i);
      w->exec = w->stack[w->depth - 1] & ~cond;
      if (!w->exec && !hrx_jump(g, w, i->imm, pc)) return WAVE_FAULT;
      break;
    }
    case HRX_HOST_OP_ENDIF:
      if (!hrx_pop(g, w, pc)) return WAVE_FAULT;
      break;
    case HRX_HOST_OP_LOOP_BEGIN:
      if (!hrx_push(g, w, pc)) return WAVE_FAULT;
      break;
    case HRX_HOST_OP_LOOP_TEST: {
      w->exec &= hrx_cond_mask(g, w, i);
      if (!w->exec) {
        if (!hrx_pop(g, w, pc) || !hrx_jump(g, w, i->imm, pc)) {
          return WAVE_FAULT;
        }
      }
      break;
    }
    case HRX_HOST_OP_RET: return WAVE_DONE;
    case HRX_HOST_OP_COMBINE:
      HRX_LANES(D = hrx_combine(i->aux, type, A, B));
      break;
    case HRX_HOST_OP_ASSERT: {
      bool ok = true;
      HRX_LANES({
        if (ok && !A) {
          hrx_fabric_fault_t f =
              hrx_fault_at(g, HRX_FABRIC_FAULT_ASSERTION, pc, l);
          f.assertion = i->aux;
          f.value = (int64_t)B;
          ok = hrx_finding(g, f, 0);
        }
      });
      if (!ok) return WAVE_FAULT;
      break;
    }
    default: {
      hrx_fabric_fault_t f = {.kind = HRX_FABRIC_FAULT_BAD_LAUNCH, .pc = pc};
      hrx_fault_here(dispatch, f);
      return WAVE_FAULT;
    }
  }
  return WAVE_RUN;
}

#undef A
#undef B
#undef C
#undef D

/*===------------------------------------------------------------------===*/
/* Workgroups                                                              */
/*===------------------------------------------------------------------===*/

/* The reference interpreter over a whole wave. */
static uint32_t hrx_run_wave(hrx_group_t* g, hrx_wave_t* w,
                             uint32_t wave_index) {
  for (;;) {
    uint32_t state = hrx_host_step(g, w, wave_index);
    if (state != WAVE_RUN) return state;
  }
}

void hrx_host_run_workgroup(void* context, uint64_t workgroup,
                            hrx_host_scratch_t* scratch) {
  hrx_host_dispatch_t* d = context;
  if (atomic_load_explicit(&d->faulted, memory_order_relaxed)) return;
  const hrx_fabric_kernel_t* k = d->kernel;
  hrx_group_t g = {.dispatch = d, .kernel = k, .lanes = k->subgroup_size,
                   .race_check = (k->flags & HRX_HOST_KERNEL_RACE_CHECK) != 0};
  g.full = g.lanes == 64 ? ~UINT64_C(0) : (UINT64_C(1) << g.lanes) - 1;
  uint64_t cx = d->workgroup_count[0], cy = d->workgroup_count[1];
  g.id[0] = (uint32_t)(workgroup % cx);
  g.id[1] = (uint32_t)(workgroup / cx % cy);
  g.id[2] = (uint32_t)(workgroup / (cx * cy));
  if (hrx_cancelled(&g, 0)) return; /* the rest of the grid is skipped */
  const hrx_host_program_t* program = hrx_host_program_for(d);
  uint32_t threads =
      d->workgroup_size[0] * d->workgroup_size[1] * d->workgroup_size[2];
  uint32_t waves = (threads + g.lanes - 1) / g.lanes;
  size_t per_wave = sizeof(hrx_wave_t) +
                    ((size_t)k->vreg_count * g.lanes + k->sreg_count) * 8;
  size_t local_bytes = ((size_t)d->group_segment_size + 15) & ~(size_t)15;
  size_t race_cells = (k->flags & HRX_HOST_KERNEL_RACE_CHECK)
                          ? ((size_t)d->group_segment_size + 3) / 4
                          : 0;
  size_t private_bytes =
      ((size_t)threads * k->private_segment_size + 15) & ~(size_t)15;
  size_t bytes = waves * per_wave + local_bytes + private_bytes +
                 race_cells * sizeof(hrx_race_cell_t) + 64;
  if (!hrx_host_scratch_reserve(scratch, bytes)) {
    hrx_fault_here(d, hrx_fault_at(&g, HRX_FABRIC_FAULT_BAD_LAUNCH, 0, 0));
    return;
  }
  uint8_t* cursor = scratch->data;
  hrx_wave_t* wave_states = (hrx_wave_t*)cursor;
  cursor += waves * sizeof(hrx_wave_t);
  for (uint32_t w = 0; w < waves; ++w) {
    hrx_wave_t* wave = &wave_states[w];
    wave->pc = 0;
    wave->state = WAVE_RUN;
    wave->depth = 0;
    uint32_t live = threads - w * g.lanes;
    wave->exec = live >= g.lanes ? g.full : (UINT64_C(1) << live) - 1;
    wave->live = wave->exec;
    wave->v = (uint64_t*)cursor;
    cursor += (size_t)k->vreg_count * g.lanes * 8;
    wave->s = (uint64_t*)cursor;
    cursor += (size_t)k->sreg_count * 8;
  }
  g.local = cursor;
  g.local_size = d->group_segment_size;
  /* Local memory starts zeroed so runs are reproducible. */
  memset(g.local, 0, g.local_size);
  g.private_memory = cursor + local_bytes;
  g.private_size = (uint64_t)threads * k->private_segment_size;
  memset(g.private_memory, 0, g.private_size);
  if (race_cells) {
    g.race = (hrx_race_cell_t*)(cursor + local_bytes + private_bytes);
    memset(g.race, 0, race_cells * sizeof(hrx_race_cell_t));
    g.epoch = 1;
  }

  for (;;) {
    bool any_running = false, any_waiting = false;
    for (uint32_t w = 0; w < waves; ++w) {
      hrx_wave_t* wave = &wave_states[w];
      if (wave->state != WAVE_RUN) continue;
      g.wave = w;
      wave->state = program ? hrx_host_run_wave_fast(&g, wave, w, program)
                            : hrx_run_wave(&g, wave, w);
      if (wave->state == WAVE_FAULT) return;
      if (atomic_load_explicit(&d->faulted, memory_order_relaxed)) return;
      any_running = true;
    }
    for (uint32_t w = 0; w < waves && !any_waiting; ++w) {
      any_waiting = wave_states[w].state == WAVE_BARRIER;
    }
    if (any_waiting && g.race_check &&
        !hrx_barrier_joined(&g, wave_states, waves)) {
      return;
    }
    for (uint32_t w = 0; w < waves; ++w) {
      if (wave_states[w].state == WAVE_BARRIER) wave_states[w].state = WAVE_RUN;
    }
    g.epoch++; /* accesses on either side of a barrier are ordered */
    if (!any_waiting || !any_running) return;
  }
}
