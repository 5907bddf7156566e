/* vector.bitfield.extract{u,s} and vector.bitunpack{u,s} on the host ISA.
 *
 * Both read the source lanes as one little-endian bit stream: a bitfield
 * of lane j starts at bit j * lane_bits + offset, an unpacked field j at
 * j * width. Each result lane gathers the (at most a few) source lanes its
 * field overlaps, zero-extended to 64 bits and shifted into place, masks
 * the field and sign-extends it for the s variants. */
#include <string.h>

#include "host_backend_internal.h"
#include "op_table.h"

/* The first failure sticks; later steps are no-ops (see host_math.c). */
typedef struct hbits_t {
  hb_t* b;
  bool ok;
} hbits_t;

static uint32_t hbits_emit(hbits_t* h, uint8_t op, uint8_t type, uint8_t aux,
                           uint32_t x, uint32_t y, uint32_t imm) {
  uint32_t regs[] = {x, y};
  uint32_t out = LOOM_NONE;
  h->ok = h->ok &&
          hb_new_vreg(h->b, hb_all_scalar(h->b, regs, 2), 1, &out) &&
          hb_emit(h->b, op, type, aux, out, x, y, LOOM_NONE, imm);
  return h->ok ? out : LOOM_NONE;
}

static uint32_t hbits_k(hbits_t* h, uint64_t value) {
  uint32_t out = LOOM_NONE;
  h->ok = h->ok && hb_constant(h->b, true, value, &out);
  return out;
}

static uint32_t hbits_i64(hbits_t* h, uint8_t op, uint32_t x, uint32_t y) {
  return hbits_emit(h, op, HRX_HOST_TYPE_I64, 0, x, y, 0);
}

bool hb_is_bits(const loom_op_t* op) {
  return loom_op_defs[op->opcode].shape == LOOM_SHAPE_BITS;
}

bool hb_lower_bits(hb_t* b, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  loom_type_kind_t from = LOOM_TYPE(b->m, op->type).element;
  loom_type_kind_t to = LOOM_TYPE(b->m, op->type2).element;
  uint32_t lane_bits = loom_type_bit_width(from);
  bool is_signed = def->name[strlen(def->name) - 1] == 's';
  uint32_t width = def->attrs ? (uint32_t)op->attrs[LOOM_ATTR_WIDTH]
                              : op->enum_value;
  uint32_t src = 0;
  if (!hb_operand(b, op, 0, &src)) return false;
  uint32_t result = op->results_start;
  uint32_t lanes = hb_width(b, op->type2);
  if (!hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, &src, 1), lanes,
                   &b->vreg[result])) {
    return false;
  }
  hbits_t h = {.b = b, .ok = true};
  for (uint32_t j = 0; j < lanes && h.ok; ++j) {
    uint64_t start = def->attrs ? (uint64_t)j * lane_bits +
                                      (uint64_t)op->attrs[LOOM_ATTR_OFFSET]
                                : (uint64_t)j * width;
    uint32_t field = hbits_k(&h, 0);
    for (uint64_t k = start / lane_bits; k <= (start + width - 1) / lane_bits;
         ++k) {
      uint32_t part = hbits_emit(&h, HRX_HOST_OP_CVT, HRX_HOST_TYPE_I64,
                                 hb_host_type(from), src + (uint32_t)k,
                                 LOOM_NONE, HRX_HOST_CVT_ZEXT);
      uint64_t at = k * lane_bits;
      if (at > start) {
        part = hbits_i64(&h, HRX_HOST_OP_ISHL, part, hbits_k(&h, at - start));
      } else if (at < start) {
        part = hbits_i64(&h, HRX_HOST_OP_ISHRU, part,
                         hbits_k(&h, start - at));
      }
      field = hbits_i64(&h, HRX_HOST_OP_IOR, field, part);
    }
    if (width < 64) {
      field = hbits_i64(&h, HRX_HOST_OP_IAND, field,
                        hbits_k(&h, (UINT64_C(1) << width) - 1));
      if (is_signed) {
        uint32_t spare = hbits_k(&h, 64 - width);
        field = hbits_i64(&h, HRX_HOST_OP_ISHRS,
                          hbits_i64(&h, HRX_HOST_OP_ISHL, field, spare),
                          spare);
      }
    }
    /* Registers hold lanes sign-extended from their type. */
    h.ok = h.ok && hb_emit(b, HRX_HOST_OP_CVT, hb_host_type(to),
                           HRX_HOST_TYPE_I64, b->vreg[result] + j, field,
                           LOOM_NONE, LOOM_NONE, HRX_HOST_CVT_SEXT);
  }
  return h.ok;
}
