/* Vector construction, lanewise compares and selects, and dot products
 * on the host ISA.
 *
 * A vector<N x T> value is N consecutive registers, one per lane, so each
 * op here is N scalar instructions: a compare gives one i1 register per
 * lane and vector.select reads them lane by lane. */
#include <string.h>

#include "host_backend_internal.h"
#include "op_table.h"

static const char* const hv_ops[] = {
    "vector.constant", "vector.poison",  "vector.iota",   "vector.from_elements",
    "vector.cmpi",     "vector.cmpf",    "vector.select", "vector.dotf",
    "vector.dot4i",    "vector.dot2f",   "vector.dot8i4", "vector.dot4f8"};

bool hb_is_vector_build(const loom_op_t* op) {
  for (size_t i = 0; i < sizeof(hv_ops) / sizeof(hv_ops[0]); ++i) {
    if (hb_is(op, hv_ops[i])) return true;
  }
  return false;
}

/* The result registers of |op|: uniform when its value is and every
 * operand register is scalar. */
static bool hv_define(hb_t* b, const loom_op_t* op, const uint32_t* regs,
                      uint32_t count) {
  uint32_t result = op->results_start;
  bool scalar = b->uniform[result] != 0;
  for (uint32_t i = 0; i < count && scalar; ++i) {
    scalar = hb_all_scalar(b, &regs[i], 1);
  }
  return hb_new_vreg(b, scalar, hb_width(b, op->type), &b->vreg[result]);
}

/* vector.constant: every lane holds the literal. */
static bool hv_constant(hb_t* b, const loom_op_t* op, uint32_t width) {
  loom_type_kind_t element = LOOM_TYPE(b->m, op->type).element;
  uint64_t bits = hb_literal_bits(&op->literal, element);
  if (!hv_define(b, op, NULL, 0)) return false;
  for (uint32_t k = 0; k < width; ++k) {
    if (!hb_const(b, bits, b->vreg[op->results_start] + k)) return false;
  }
  return true;
}

/* vector.iota: lane k is lane k-1 + step, i.e. base + k * step wrapping
 * in the element type as the multiply-add would. */
static bool hv_iota(hb_t* b, const loom_op_t* op, uint32_t width,
                    const uint32_t* regs) {
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  if (!hv_define(b, op, regs, 2)) return false;
  uint32_t first = b->vreg[op->results_start];
  if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0, first, regs[0],
               LOOM_NONE, LOOM_NONE, 0)) {
    return false;
  }
  for (uint32_t k = 1; k < width; ++k) {
    if (!hb_emit(b, HRX_HOST_OP_IADD, type, 0, first + k, first + k - 1,
                 regs[1], LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

/* vector.dotf: acc = fma(lhs[k], rhs[k], acc) for k in lane order. */
static bool hv_dotf(hb_t* b, const loom_op_t* op, uint32_t width,
                    const uint32_t* regs) {
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  uint32_t acc = regs[2];
  for (uint32_t k = 0; k < width; ++k) {
    if (!hb_emit_value(b, HRX_HOST_OP_FFMA, type, 0, regs[0] + k, regs[1] + k,
                       acc, 0, &acc)) {
      return false;
    }
  }
  b->vreg[op->results_start] = acc;
  return true;
}

/* Byte lane |reg| as an i32 product operand: registers hold i8 values
 * sign-extended, so unsigned ones are zero-extended first. */
static bool hv_byte(hb_t* b, uint32_t reg, bool is_unsigned, uint32_t* out) {
  if (!is_unsigned) {
    *out = reg;
    return true;
  }
  return hb_emit_value(b, HRX_HOST_OP_CVT, HRX_HOST_TYPE_I32, HRX_HOST_TYPE_I8,
                       reg, LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_ZEXT, out);
}

/* Field |k| of |bits| bits of the i32 lane in |reg| (the low field is
 * field 0), sign- or zero-extended: shifted to the top, then back. */
static bool hv_packed_field(hb_t* b, uint32_t reg, uint32_t bits, uint32_t k,
                            bool is_unsigned, uint32_t* out) {
  uint32_t left = 0, right = 0, top = 0;
  return hb_constant(b, true, 32 - bits * (k + 1), &left) &&
         hb_constant(b, true, 32 - bits, &right) &&
         hb_emit_value(b, HRX_HOST_OP_ISHL, HRX_HOST_TYPE_I32, 0, reg, left,
                       LOOM_NONE, 0, &top) &&
         hb_emit_value(b, is_unsigned ? HRX_HOST_OP_ISHRU : HRX_HOST_OP_ISHRS,
                       HRX_HOST_TYPE_I32, 0, top, right, LOOM_NONE, 0, out);
}

/* Operand |side| (0 lhs, 1 rhs) of product |k| of result lane |r|, as an
 * i32 or f32 register. dot4i and dot2f take source lanes group * r + k;
 * dot8i4 and dot4f8 take field k of source lane r. */
static bool hv_dot_operand(hb_t* b, const loom_op_t* op, const uint32_t* regs,
                           uint32_t side, uint32_t r, uint32_t k,
                           uint32_t* out) {
  uint32_t kind = op->enum_value;
  /* Signed/unsigned and E4M3/E5M2 kinds: bit 0 says the lhs is unsigned
   * (E5M2 for dot4f8), bit 1 the rhs (dot4f8's kinds 0 and 3 have an
   * E5M2 rhs). */
  bool other = side == 0 ? (kind & 1) : (kind & 2) != 0;
  if (hb_is(op, "vector.dot4i")) {
    return hv_byte(b, regs[side] + 4 * r + k, other, out);
  }
  if (hb_is(op, "vector.dot8i4")) {
    return hv_packed_field(b, regs[side] + r, 4, k, other, out);
  }
  uint32_t from = regs[side] + 2 * r + k;
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  if (hb_is(op, "vector.dot4f8")) {
    if (side == 1) other = kind == 0 || kind == 3;
    type = other ? HRX_HOST_TYPE_F8E5M2 : HRX_HOST_TYPE_F8E4M3;
    if (!hv_packed_field(b, regs[side] + r, 8, k, true, &from)) return false;
  }
  return hb_emit_value(b, HRX_HOST_OP_CVT, HRX_HOST_TYPE_F32, type, from,
                       LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_FEXT, out);
}

/* vector.dot4i / dot8i4 (wrapping i32 sums) and dot2f / dot4f8 (f32 fmas
 * in product order): result lane r = acc[r] plus its group's products. */
static bool hv_group_dot(hb_t* b, const loom_op_t* op, const uint32_t* regs) {
  bool is_float = !hb_is(op, "vector.dot4i") && !hb_is(op, "vector.dot8i4");
  uint32_t group = hb_is(op, "vector.dot2f") ? 2
                   : hb_is(op, "vector.dot8i4") ? 8 : 4;
  uint32_t lanes = hb_width(b, op->type2);
  uint32_t result = op->results_start;
  if (!hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, regs, 3), lanes,
                   &b->vreg[result])) {
    return false;
  }
  for (uint32_t r = 0; r < lanes; ++r) {
    uint32_t sum = regs[2] + r;
    for (uint32_t k = 0; k < group; ++k) {
      uint32_t x = 0, y = 0, product = 0;
      if (!hv_dot_operand(b, op, regs, 0, r, k, &x) ||
          !hv_dot_operand(b, op, regs, 1, r, k, &y)) {
        return false;
      }
      bool ok =
          is_float
              ? hb_emit_value(b, HRX_HOST_OP_FFMA, HRX_HOST_TYPE_F32, 0, x, y,
                              sum, 0, &sum)
              : hb_emit_value(b, HRX_HOST_OP_IMUL, HRX_HOST_TYPE_I32, 0, x, y,
                              LOOM_NONE, 0, &product) &&
                    hb_emit_value(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I32, 0,
                                  sum, product, LOOM_NONE, 0, &sum);
      if (!ok) return false;
    }
    if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                 b->vreg[result] + r, sum, LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

bool hb_lower_vector_build(hb_t* b, const loom_op_t* op) {
  uint32_t width = hb_width(b, op->type);
  /* vector.poison carries a zero literal (op_table.c). */
  if (hb_is(op, "vector.constant") || hb_is(op, "vector.poison")) {
    return hv_constant(b, op, width);
  }
  if (op->operand_count > 64) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "the host backend builds vectors of at most 64 lanes");
  }
  uint32_t regs[64];
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    if (!hb_operand(b, op, i, &regs[i])) return false;
  }
  if (hb_is(op, "vector.iota")) return hv_iota(b, op, width, regs);
  if (hb_is(op, "vector.dotf")) return hv_dotf(b, op, width, regs);
  if (loom_op_defs[op->opcode].shape == LOOM_SHAPE_DOT) {
    return hv_group_dot(b, op, regs);
  }
  if (!hv_define(b, op, regs, op->operand_count)) return false;
  uint32_t first = b->vreg[op->results_start];
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  for (uint32_t k = 0; k < width; ++k) {
    bool ok = true;
    if (hb_is(op, "vector.from_elements")) {
      ok = hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0, first + k,
                   regs[k], LOOM_NONE, LOOM_NONE, 0);
    } else if (hb_is(op, "vector.select")) {
      ok = hb_emit(b, HRX_HOST_OP_SELECT, type, 0, first + k, regs[0] + k,
                   regs[1] + k, regs[2] + k, 0);
    } else {
      uint8_t code =
          hb_is(op, "vector.cmpf") ? HRX_HOST_OP_FCMP : HRX_HOST_OP_ICMP;
      ok = hb_emit(b, code, type, op->enum_value, first + k, regs[0] + k,
                   regs[1] + k, LOOM_NONE, 0);
    }
    if (!ok) return false;
  }
  return true;
}
