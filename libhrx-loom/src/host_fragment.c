/* Matrix fragments on the host ISA (fragment.h has the layout).
 *
 * A fragment is a vector, so one register per element, each holding that
 * element for every lane of the wave. Loads and stores address element e
 * of lane l at the origin plus the layout's coordinate. vector.mma reads
 * the lhs row each result element needs from the lane holding it with an
 * index shuffle (a lane's rhs column and accumulator column are its own)
 * and accumulates in f32 with fused multiply-adds in k order, starting
 * from the accumulator: a product of two f16 or bf16 values is exact in
 * f32, so each step is the exactly rounded sum of the previous one and
 * the next product. A 16-bit accumulator is widened to f32 first and the
 * sum rounded back once. i8 sources accumulate exactly in i64 and wrap
 * (or saturate) to the i32 accumulator at the end.
 */
#include "fragment.h"
#include "host_backend_internal.h"

static const char* const hf_ops[] = {"vector.fragment", "vector.fragment.load",
                                     "vector.fragment.store", "vector.mma"};

bool hb_is_fragment(const loom_op_t* op) {
  for (size_t i = 0; i < sizeof(hf_ops) / sizeof(hf_ops[0]); ++i) {
    if (hb_is(op, hf_ops[i])) return true;
  }
  return false;
}

/* The layout is written for waves of 32 lanes and 16 x 16 tiles; the
 * shape operands must be known by now (constants or configuration). */
static bool hf_check(hb_t* b, const loom_op_t* op) {
  if (b->subgroup_size != LOOM_FRAGMENT_LANES) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s needs subgroups of %u lanes; this kernel's have %u",
                    hb_op_name(op), LOOM_FRAGMENT_LANES, b->subgroup_size);
  }
  if (hb_is(op, "vector.mma")) return true;
  for (uint32_t i = op->operand_count - 2; i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(b->m, op, i);
    bool known = loom_operand_is_static(operand) || b->known[operand];
    int64_t extent = !known                            ? -1
                     : loom_operand_is_static(operand) ? LOOM_STATIC(b->m, operand)
                                                       : b->const_value[operand];
    if (extent != LOOM_FRAGMENT_DIM) {
      return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "%s: the fragment shape must be 16 x 16 when the "
                      "kernel is compiled (%s)", hb_op_name(op),
                      known ? "it is not" : "it is not a known constant");
    }
  }
  return true;
}

/* Registers of lane % 16 and lane / 16, indexed by LOOM_FRAGMENT_LANE_*
 * (NONE stays LOOM_NONE). */
static bool hf_lane_terms(hb_t* b, uint32_t terms[3]) {
  const uint8_t i64 = HRX_HOST_TYPE_I64;
  uint32_t lane = 0, mask = 0, shift = 0;
  terms[LOOM_FRAGMENT_LANE_NONE] = LOOM_NONE;
  return hb_new_vreg(b, false, 1, &lane) &&
         hb_emit(b, HRX_HOST_OP_LANE_ID, i64, 0, lane, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0) &&
         hb_constant(b, true, LOOM_FRAGMENT_DIM - 1, &mask) &&
         hb_constant(b, true, 4, &shift) &&
         hb_binary(b, HRX_HOST_OP_IAND, i64, 0, lane, mask,
                   &terms[LOOM_FRAGMENT_LANE_LOW]) &&
         hb_binary(b, HRX_HOST_OP_ISHRU, i64, 0, lane, shift,
                   &terms[LOOM_FRAGMENT_LANE_HIGH]);
}

/* |x| + |offset| (no register when offset is 0). */
static bool hf_add(hb_t* b, uint32_t x, uint32_t offset, uint32_t* out) {
  uint32_t constant = 0;
  if (offset == 0) {
    *out = x;
    return true;
  }
  return hb_constant(b, true, offset, &constant) &&
         hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, x, constant, out);
}

/* Pointers to every element of |role|'s fragment in this lane: view
 * operand |view_operand|, origin indices after it. */
static bool hf_pointers(hb_t* b, const loom_op_t* op, uint32_t view_operand,
                        loom_type_id_t view, uint32_t role, uint32_t* ptrs) {
  loom_fragment_layout_t layout = loom_fragment_layout(role);
  uint32_t terms[3], row = 0, column = 0;
  if (!hf_lane_terms(b, terms) ||
      !hb_operand(b, op, view_operand + 1, &row) ||
      !hb_operand(b, op, view_operand + 2, &column)) {
    return false;
  }
  if (terms[layout.row_lane] != LOOM_NONE &&
      !hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, row,
                 terms[layout.row_lane], &row)) {
    return false;
  }
  if (terms[layout.column_lane] != LOOM_NONE &&
      !hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, column,
                 terms[layout.column_lane], &column)) {
    return false;
  }
  for (uint32_t e = 0; e < layout.elements; ++e) {
    uint32_t at[2];
    if (!hf_add(b, row, layout.row_step * e, &at[0]) ||
        !hf_add(b, column, layout.column_step * e, &at[1]) ||
        !hb_element_address(b, op, view_operand, view, at, &ptrs[e])) {
      return false;
    }
  }
  return true;
}

static bool hf_load(hb_t* b, const loom_op_t* op) {
  uint32_t ptrs[LOOM_FRAGMENT_DIM];
  uint32_t result = op->results_start;
  loom_fragment_layout_t layout = loom_fragment_layout(op->enum_value);
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  if (!hf_pointers(b, op, 0, op->type, op->enum_value, ptrs) ||
      !hb_new_vreg(b, false, layout.elements, &b->vreg[result])) {
    return false;
  }
  for (uint32_t e = 0; e < layout.elements; ++e) {
    if (!hb_emit(b, HRX_HOST_OP_LOAD, type, 0, b->vreg[result] + e, ptrs[e],
                 LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

/* In lhs and rhs fragments lanes 16..31 repeat lanes 0..15: only lanes
 * 0..15 store them, so each element is written once. */
static bool hf_store(hb_t* b, const loom_op_t* op) {
  uint32_t ptrs[LOOM_FRAGMENT_DIM], value = 0;
  loom_fragment_layout_t layout = loom_fragment_layout(op->enum_value);
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type2).element);
  if (!hb_operand(b, op, 0, &value) ||
      !hf_pointers(b, op, 1, op->type2, op->enum_value, ptrs)) {
    return false;
  }
  bool repeats = loom_fragment_repeats(op->enum_value);
  uint32_t branch = 0;
  if (repeats) {
    uint32_t lane = 0, half = 0, low = 0;
    if (!hb_new_vreg(b, false, 1, &lane) ||
        !hb_emit(b, HRX_HOST_OP_LANE_ID, HRX_HOST_TYPE_I64, 0, lane,
                 LOOM_NONE, LOOM_NONE, LOOM_NONE, 0) ||
        !hb_constant(b, true, LOOM_FRAGMENT_DIM, &half) ||
        !hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_ULT,
                   lane, half, &low) ||
        !hb_enter_divergent(b, op)) {
      return false;
    }
    branch = hb_pos(b);
    if (!hb_emit(b, HRX_HOST_OP_IF, HRX_HOST_TYPE_I1, 0, LOOM_NONE, low,
                 LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  for (uint32_t e = 0; e < layout.elements; ++e) {
    if (!hb_emit(b, HRX_HOST_OP_STORE, type, 0, LOOM_NONE, ptrs[e], value + e,
                 LOOM_NONE, 0)) {
      return false;
    }
  }
  if (!repeats) return true;
  hb_patch(b, branch, hb_pos(b));
  b->mask_depth--;
  return hb_emit(b, HRX_HOST_OP_ENDIF, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

/* How vector.mma computes for its element types: in |work| (f32 or i64)
 * from sources and accumulator converted by |widen|. */
typedef struct hf_mma_form_t {
  uint8_t source, accumulator, work;
  uint8_t widen;     /* hrx_host_cvt_t from source or accumulator to work */
  uint8_t multiply;  /* FFMA or IMADD */
} hf_mma_form_t;

static hf_mma_form_t hf_mma_form(hb_t* b, const loom_op_t* op) {
  hf_mma_form_t f = {
      .source = hb_host_type(LOOM_TYPE(b->m, op->type).element),
      .accumulator = hb_host_type(LOOM_TYPE(b->m, op->type2).element)};
  bool integer = f.source == HRX_HOST_TYPE_I8;
  f.work = integer ? HRX_HOST_TYPE_I64 : HRX_HOST_TYPE_F32;
  f.widen = integer ? HRX_HOST_CVT_SEXT : HRX_HOST_CVT_FEXT;
  f.multiply = integer ? HRX_HOST_OP_IMADD : HRX_HOST_OP_FFMA;
  return f;
}

/* |x| of the accumulator's type from the work type (which differ): rounded
 * once to nearest even for 16-bit floats, wrapped or (saturate) clamped
 * to i32 for integers. */
static bool hf_mma_narrow(hb_t* b, const loom_op_t* op,
                          const hf_mma_form_t* f, uint32_t x, uint32_t dst) {
  if (f->work == HRX_HOST_TYPE_F32) {
    return hb_emit(b, HRX_HOST_OP_CVT, f->accumulator, f->work, dst, x,
                   LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_FTRUNC);
  }
  if (op->flags) {
    uint32_t high = 0, low = 0;
    if (!hb_constant(b, true, (uint64_t)INT32_MAX, &high) ||
        !hb_constant(b, true, (uint64_t)(int64_t)INT32_MIN, &low) ||
        !hb_binary(b, HRX_HOST_OP_IMINS, f->work, 0, x, high, &x) ||
        !hb_binary(b, HRX_HOST_OP_IMAXS, f->work, 0, x, low, &x)) {
      return false;
    }
  }
  return hb_emit(b, HRX_HOST_OP_CVT, f->accumulator, f->work, dst, x,
                 LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_SEXT);
}

/* D[row][column] = C[row][column] + sum over k of A[row][k] * B[k][column]
 * for this lane's column and the rows of its accumulator elements. */
static bool hf_mma(hb_t* b, const loom_op_t* op) {
  /* Every lane reads the others' rows, as the hardware's WMMA needs all
   * lanes: lanes masked off by divergent control would hand over stale
   * registers. */
  if (b->mask_depth) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "vector.mma under control flow that differs between "
                    "lanes: every lane of the subgroup must take part");
  }
  hf_mma_form_t f = hf_mma_form(b, op);
  uint32_t lhs = 0, rhs = 0, acc = 0, terms[3], width = 0;
  uint32_t a[LOOM_FRAGMENT_DIM], bk[LOOM_FRAGMENT_DIM];
  uint32_t result = op->results_start;
  if (!hb_operand(b, op, 0, &lhs) || !hb_operand(b, op, 1, &rhs) ||
      !hb_operand(b, op, 2, &acc) || !hf_lane_terms(b, terms) ||
      !hb_constant(b, true, LOOM_FRAGMENT_LANES, &width)) {
    return false;
  }
  for (uint32_t k = 0; k < LOOM_FRAGMENT_DIM; ++k) {
    if (!hb_emit_value(b, HRX_HOST_OP_CVT, f.work, f.source, lhs + k, LOOM_NONE,
                       LOOM_NONE, f.widen, &a[k]) ||
        !hb_emit_value(b, HRX_HOST_OP_CVT, f.work, f.source, rhs + k, LOOM_NONE,
                       LOOM_NONE, f.widen, &bk[k])) {
      return false;
    }
  }
  loom_fragment_layout_t layout = loom_fragment_layout(LOOM_FRAGMENT_RESULT);
  if (!hb_new_vreg(b, false, layout.elements, &b->vreg[result])) return false;
  for (uint32_t e = 0; e < layout.elements; ++e) {
    /* Row r of A is element k of lane r (and r + 16). */
    uint32_t row = 0, sum = acc + e;
    if (!hf_add(b, terms[layout.row_lane], layout.row_step * e, &row)) {
      return false;
    }
    /* An accumulator of the work type takes the last step directly. */
    bool direct = f.accumulator == f.work;
    if (!direct && !hb_emit_value(b, HRX_HOST_OP_CVT, f.work, f.accumulator,
                                  sum, LOOM_NONE, LOOM_NONE, f.widen, &sum)) {
      return false;
    }
    for (uint32_t k = 0; k < LOOM_FRAGMENT_DIM; ++k) {
      uint32_t x = 0, next = b->vreg[result] + e;
      if (!hb_emit_value(b, HRX_HOST_OP_SHUFFLE, f.work, HRX_HOST_SHUFFLE_INDEX,
                         a[k], row, width, 0, &x) ||
          ((k + 1 < LOOM_FRAGMENT_DIM || !direct) &&
           !hb_new_vreg(b, false, 1, &next)) ||
          !hb_emit(b, f.multiply, f.work, 0, next, x, bk[k], sum, 0)) {
        return false;
      }
      sum = next;
    }
    if (!direct && !hf_mma_narrow(b, op, &f, sum, b->vreg[result] + e)) {
      return false;
    }
  }
  return true;
}

bool hb_lower_fragment(hb_t* b, const loom_op_t* op) {
  if (!hf_check(b, op)) return false;
  if (hb_is(op, "vector.fragment")) {
    /* Fragment facts change nothing in the registers. */
    return hb_operand(b, op, 0, &b->vreg[op->results_start]);
  }
  if (hb_is(op, "vector.fragment.load")) return hf_load(b, op);
  if (hb_is(op, "vector.fragment.store")) return hf_store(b, op);
  return hf_mma(b, op);
}
