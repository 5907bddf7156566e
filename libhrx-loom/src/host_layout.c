/* Register layout ops on the host ISA. A vector value is one register
 * per lane, so moving lanes is one register copy per result lane from
 * the source lane vector_layout.c maps it to (sources end to end). */
#include "host_backend_internal.h"
#include "vector_layout.h"

bool hb_lower_layout(hb_t* b, const loom_op_t* op) {
  uint32_t sources[LOOM_LAYOUT_MAX_SOURCES] = {0};
  uint32_t count = loom_layout_sources(op);
  for (uint32_t i = 0; i < count; ++i) {
    if (!hb_operand(b, op, i, &sources[i])) return false;
  }
  uint32_t lanes = hb_width(b, op->type2);
  uint32_t width = hb_width(b, op->type);
  for (uint32_t r = 0; r < loom_layout_results(op); ++r) {
    uint32_t result = op->results_start + r;
    if (!hb_new_vreg(b,
                     b->uniform[result] &&
                         hb_all_scalar(b, sources, (int)count),
                     lanes, &b->vreg[result])) {
      return false;
    }
    for (uint32_t k = 0; k < lanes; ++k) {
      uint32_t lane = loom_layout_source_lane(b->m, op, r, k);
      uint32_t from = sources[lane / width] + lane % width;
      if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                   b->vreg[result] + k, from, LOOM_NONE, LOOM_NONE, 0)) {
        return false;
      }
    }
  }
  return true;
}

/* The raw bits of register |reg| of kind |kind|, zero-extended to 64. */
static bool hb_raw_bits(hb_t* b, loom_type_kind_t kind, uint32_t reg,
                        uint32_t* out) {
  return hb_new_vreg(b, hb_all_scalar(b, &reg, 1), 1, out) &&
         hb_emit(b, HRX_HOST_OP_CVT, HRX_HOST_TYPE_I64, hb_host_type(kind),
                 *out, reg, LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_BITCAST);
}

/* |x| <op> the constant |value|, in a new register. */
static bool hb_with_constant(hb_t* b, uint8_t op, uint32_t x, uint64_t value,
                             uint32_t* out) {
  uint32_t constant = 0;
  return hb_constant(b, true, value, &constant) &&
         hb_binary(b, op, HRX_HOST_TYPE_I64, 0, x, constant, out);
}

/* vector.bitcast: result lane k holds bits [k * wr, (k + 1) * wr) of the
 * source lanes laid end to end, lane 0 lowest. A wider result lane ORs
 * its source lanes in shifted; a narrower one shifts and masks its part
 * of one source lane. */
bool hb_lower_vector_bitcast(hb_t* b, const loom_op_t* op) {
  uint32_t src = 0;
  if (!hb_operand(b, op, 0, &src)) return false;
  loom_type_kind_t from = LOOM_TYPE(b->m, op->type).element;
  loom_type_kind_t to = LOOM_TYPE(b->m, op->type2).element;
  uint32_t ws = loom_type_bit_width(from), wr = loom_type_bit_width(to);
  uint32_t result = op->results_start;
  uint32_t lanes = hb_width(b, op->type2);
  if (!hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, &src, 1), lanes,
                   &b->vreg[result])) {
    return false;
  }
  for (uint32_t k = 0; k < lanes; ++k) {
    uint32_t bits = 0;
    if (wr >= ws) {
      for (uint32_t j = 0; j < wr / ws; ++j) {
        uint32_t part = 0;
        if (!hb_raw_bits(b, from, src + k * (wr / ws) + j, &part)) {
          return false;
        }
        if (j && (!hb_with_constant(b, HRX_HOST_OP_ISHL, part, j * ws,
                                    &part) ||
                  !hb_binary(b, HRX_HOST_OP_IOR, HRX_HOST_TYPE_I64, 0, bits,
                             part, &part))) {
          return false;
        }
        bits = part;
      }
    } else {
      uint32_t per = ws / wr;
      if (!hb_raw_bits(b, from, src + k / per, &bits) ||
          !hb_with_constant(b, HRX_HOST_OP_ISHRU, bits, (k % per) * wr,
                            &bits) ||
          !hb_with_constant(b, HRX_HOST_OP_IAND, bits,
                            (UINT64_C(1) << wr) - 1, &bits)) {
        return false;
      }
    }
    if (!hb_emit(b, HRX_HOST_OP_CVT, hb_host_type(to), HRX_HOST_TYPE_I64,
                 b->vreg[result] + k, bits, LOOM_NONE, LOOM_NONE,
                 HRX_HOST_CVT_BITCAST)) {
      return false;
    }
  }
  return true;
}
