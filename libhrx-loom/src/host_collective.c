/* Workgroup collectives on the host backend, composed from host ISA
 * instructions: the ISA reduces within a wave, and workgroup memory
 * carries each wave's partial result to the others.
 *
 * kernel.workgroup.reduce<k> %x, for every element of %x:
 *   1. every wave reduces its active lanes (REDUCE);
 *   2. barrier (earlier readers of the slots, in a loop, are done);
 *      lane 0 of wave s stores the partial in slot s;
 *   3. barrier; lanes 0 .. n-1 of every wave load slots 0 .. n-1 (n waves)
 *      and reduce them, lane 0's total goes to every lane (SHUFFLE).
 * Step 3 needs a lane per wave: the host device's workgroups hold at most
 * 1024 work-items in waves of 32 or 64 lanes, so n <= 32. The slots are a
 * workgroup-memory region of the op's own, like an alloca's, sized as
 * launch programs count it (op_table.h).
 */
#include "host_backend_internal.h"
#include "op_table.h"

bool hb_geometry(hb_t* b, uint8_t op, uint8_t dim, uint32_t* out) {
  return hb_new_vreg(b, true, 1, out) &&
         hb_emit(b, op, HRX_HOST_TYPE_I64, dim, *out, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

bool hb_constant(hb_t* b, bool scalar, uint64_t value, uint32_t* out) {
  return hb_new_vreg(b, scalar, 1, out) && hb_const(b, value, *out);
}

/* The number of waves of the workgroup: ceil(x * y * z / lanes). */
static bool hb_wave_count(hb_t* b, uint32_t* out) {
  uint32_t size[3], lanes = 0, one = 0, items = 0, rounded = 0;
  for (uint8_t d = 0; d < 3; ++d) {
    if (!hb_geometry(b, HRX_HOST_OP_WORKGROUP_SIZE, d, &size[d])) return false;
  }
  return hb_geometry(b, HRX_HOST_OP_SUBGROUP_SIZE, 0, &lanes) &&
         hb_constant(b, true, 1, &one) &&
         hb_binary(b, HRX_HOST_OP_IMUL, HRX_HOST_TYPE_I64, 0, size[0],
                   size[1], &items) &&
         hb_binary(b, HRX_HOST_OP_IMUL, HRX_HOST_TYPE_I64, 0, items, size[2],
                   &items) &&
         hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, items, lanes,
                   &rounded) &&
         hb_binary(b, HRX_HOST_OP_ISUB, HRX_HOST_TYPE_I64, 0, rounded, one,
                   &rounded) &&
         hb_binary(b, HRX_HOST_OP_IDIVU, HRX_HOST_TYPE_I64, 0, rounded, lanes,
                   out);
}

/* A pointer to slot |slot| * |width| + |element| of the region at |base|. */
static bool hb_slot(hb_t* b, uint32_t base, uint32_t slot, uint32_t width,
                    uint32_t element, uint32_t* out) {
  uint32_t stride = 0, offset = 0, index = 0;
  if (!hb_constant(b, true, width, &stride) ||
      !hb_constant(b, true, element, &offset)) {
    return false;
  }
  uint32_t regs[] = {slot};
  if (!hb_new_vreg(b, hb_all_scalar(b, regs, 1), 1, &index) ||
      !hb_emit(b, HRX_HOST_OP_IMADD, HRX_HOST_TYPE_I64, 0, index, slot,
               stride, offset, 0)) {
    return false;
  }
  uint32_t ptr_regs[] = {base, index};
  return hb_new_vreg(b, hb_all_scalar(b, ptr_regs, 2), 1, out) &&
         hb_emit(b, HRX_HOST_OP_PTR_ADD, HRX_HOST_TYPE_I64, 0, *out, base,
                 index, LOOM_NONE, LOOM_WORKGROUP_REDUCE_SLOT_BYTES);
}

/* Opens a divergent region for the lanes where |cond| holds. */
static bool hb_if(hb_t* b, const loom_op_t* op, uint32_t cond,
                  uint32_t* out_branch) {
  if (!hb_enter_divergent(b, op)) return false;
  *out_branch = b->insns.count;
  return hb_emit(b, HRX_HOST_OP_IF, HRX_HOST_TYPE_I1, 0, LOOM_NONE, cond,
                 LOOM_NONE, LOOM_NONE, 0);
}

static bool hb_endif(hb_t* b, uint32_t branch) {
  LOOM_AT(b->insns, hb_insn_t, branch).insn.imm = b->insns.count;
  b->mask_depth--;
  return hb_emit(b, HRX_HOST_OP_ENDIF, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

static bool hb_barrier(hb_t* b) {
  return hb_emit(b, HRX_HOST_OP_BARRIER, 0, 0, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, LOOM_NONE, 0);
}

/* Reserves |bytes| of workgroup memory at slot alignment; |out| holds its
 * address. */
static bool hb_region(hb_t* b, const loom_op_t* op, uint64_t bytes,
                      uint32_t* out) {
  uint64_t align = LOOM_WORKGROUP_REDUCE_SLOT_BYTES;
  uint64_t start = ((uint64_t)b->local_size + align - 1) & ~(align - 1);
  if (start + bytes > (64u << 20)) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "workgroup memory exceeds 64 MiB");
  }
  b->local_size = (uint32_t)(start + bytes);
  return hb_constant(
      b, true, ((uint64_t)HRX_HOST_SLOT_LOCAL << HRX_HOST_PTR_SHIFT) | start,
      out);
}

bool hb_lower_workgroup_reduce(hb_t* b, const loom_op_t* op) {
  uint32_t result = op->results_start;
  const loom_type_t* t = &LOOM_TYPE(b->m, op->type);
  uint8_t type = hb_host_type(t->kind == LOOM_TYPE_VECTOR ? t->element
                                                          : t->kind);
  uint8_t kind = (uint8_t)op->enum_value;
  uint32_t width = hb_width(b, op->type);
  uint32_t src = 0, base = 0, partial = 0, total = 0, wave = 0, lane = 0;
  uint32_t zero = 0, waves = 0, first = 0, live = 0, branch = 0;
  if (!hb_operand(b, op, 0, &src) ||
      !hb_region(b, op,
                 (uint64_t)LOOM_WORKGROUP_REDUCE_SLOTS * width *
                     LOOM_WORKGROUP_REDUCE_SLOT_BYTES,
                 &base) ||
      !hb_new_vreg(b, false, width, &partial) ||
      !hb_new_vreg(b, false, width, &total) ||
      !hb_new_vreg(b, false, width, &b->vreg[result])) {
    return false;
  }
  for (uint32_t e = 0; e < width; ++e) {
    if (!hb_emit(b, HRX_HOST_OP_REDUCE, type, kind, partial + e, src + e,
                 LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  if (!hb_geometry(b, HRX_HOST_OP_SUBGROUP_ID, 0, &wave) ||
      !hb_new_vreg(b, false, 1, &lane) ||
      !hb_emit(b, HRX_HOST_OP_LANE_ID, HRX_HOST_TYPE_I64, 0, lane, LOOM_NONE,
               LOOM_NONE, LOOM_NONE, 0) ||
      !hb_constant(b, true, 0, &zero) || !hb_wave_count(b, &waves) ||
      !hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_EQ,
                 lane, zero, &first) ||
      !hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_ULT,
                 lane, waves, &live)) {
    return false;
  }
  if (!hb_barrier(b) || !hb_if(b, op, first, &branch)) return false;
  for (uint32_t e = 0; e < width; ++e) {
    uint32_t ptr = 0;
    if (!hb_slot(b, base, wave, width, e, &ptr) ||
        !hb_emit(b, HRX_HOST_OP_STORE, type, 0, LOOM_NONE, ptr, partial + e,
                 LOOM_NONE, 0)) {
      return false;
    }
  }
  if (!hb_endif(b, branch) || !hb_barrier(b) ||
      !hb_if(b, op, live, &branch)) {
    return false;
  }
  for (uint32_t e = 0; e < width; ++e) {
    uint32_t ptr = 0;
    if (!hb_slot(b, base, lane, width, e, &ptr) ||
        !hb_emit(b, HRX_HOST_OP_LOAD, type, 0, partial + e, ptr, LOOM_NONE,
                 LOOM_NONE, 0) ||
        !hb_emit(b, HRX_HOST_OP_REDUCE, type, kind, total + e, partial + e,
                 LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  if (!hb_endif(b, branch)) return false;
  for (uint32_t e = 0; e < width; ++e) {
    if (!hb_emit(b, HRX_HOST_OP_SHUFFLE, type, HRX_HOST_SHUFFLE_INDEX,
                 b->vreg[result] + e, total + e, zero, zero, 0)) {
      return false;
    }
  }
  return true;
}
