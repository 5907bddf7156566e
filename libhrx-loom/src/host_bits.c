/* vector.bitfield.extract{u,s}, vector.bitunpack{u,s}, vector.bitpack and
 * vector.bitfield.insert on the host ISA.
 *
 * The first three read lanes as one little-endian bit stream: a bitfield
 * of lane j starts at bit j * lane_bits + offset, an unpacked field j at
 * j * width, and packed result lane j at j * result bits of the stream of
 * the sources' low width bits. Each result lane gathers the (at most a
 * few) lanes its field overlaps, zero-extended to 64 bits and shifted into
 * place, masks the field and sign-extends it for the s variants. Insert
 * replaces a field of each base lane. */
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

/* Source lane |reg| of kind |from| zero-extended to 64 bits. */
static uint32_t hbits_zext(hbits_t* h, loom_type_kind_t from, uint32_t reg) {
  return hbits_emit(h, HRX_HOST_OP_CVT, HRX_HOST_TYPE_I64, hb_host_type(from),
                    reg, LOOM_NONE, HRX_HOST_CVT_ZEXT);
}

static uint64_t hbits_mask(uint64_t width) {
  return width < 64 ? (UINT64_C(1) << width) - 1 : ~UINT64_C(0);
}

/* Bits [start, start + width) of the stream of |count| lanes of
 * |lane_bits| from |src|, each lane contributing its low |lane_bits|
 * bits (packing: the low |width| bits of each lane, so lane_bits is the
 * field width), masked to |width| bits. */
static uint32_t hbits_gather(hbits_t* h, loom_type_kind_t from, uint32_t src,
                             uint32_t count, uint64_t lane_bits,
                             uint64_t start, uint64_t width) {
  uint32_t field = hbits_k(h, 0);
  uint64_t last = (start + width - 1) / lane_bits;
  for (uint64_t k = start / lane_bits; k <= last && k < count; ++k) {
    uint32_t part = hbits_zext(h, from, src + (uint32_t)k);
    if (lane_bits < loom_type_bit_width(from)) {
      part = hbits_i64(h, HRX_HOST_OP_IAND, part,
                       hbits_k(h, hbits_mask(lane_bits)));
    }
    uint64_t at = k * lane_bits;
    if (at > start) {
      part = hbits_i64(h, HRX_HOST_OP_ISHL, part, hbits_k(h, at - start));
    } else if (at < start) {
      part = hbits_i64(h, HRX_HOST_OP_ISHRU, part, hbits_k(h, start - at));
    }
    field = hbits_i64(h, HRX_HOST_OP_IOR, field, part);
  }
  return width < 64 ? hbits_i64(h, HRX_HOST_OP_IAND, field,
                                hbits_k(h, hbits_mask(width)))
                    : field;
}

bool hb_lower_bits(hb_t* b, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  loom_type_kind_t from = LOOM_TYPE(b->m, op->type).element;
  loom_type_kind_t to = LOOM_TYPE(b->m, op->type2).element;
  uint32_t lane_bits = loom_type_bit_width(from);
  uint32_t to_bits = loom_type_bit_width(to);
  bool is_signed = def->name[strlen(def->name) - 1] == 's';
  bool pack = strcmp(def->name, "vector.bitpack") == 0;
  bool insert = strcmp(def->name, "vector.bitfield.insert") == 0;
  uint32_t width = def->attrs ? (uint32_t)op->attrs[LOOM_ATTR_WIDTH]
                              : op->enum_value;
  uint32_t offset = def->attrs ? (uint32_t)op->attrs[LOOM_ATTR_OFFSET] : 0;
  uint32_t src[2] = {0, LOOM_NONE};
  for (uint32_t i = 0; i < op->operand_count && i < 2; ++i) {
    if (!hb_operand(b, op, i, &src[i])) return false;
  }
  uint32_t result = op->results_start;
  uint32_t lanes = hb_width(b, op->type2), count = hb_width(b, op->type);
  if (!hb_new_vreg(b,
                   b->uniform[result] &&
                       hb_all_scalar(b, src, op->operand_count),
                   lanes, &b->vreg[result])) {
    return false;
  }
  hbits_t h = {.b = b, .ok = true};
  for (uint32_t j = 0; j < lanes && h.ok; ++j) {
    uint32_t field = LOOM_NONE;
    if (pack) {
      /* Result lane j is bits [j * to_bits, ..) of the packed stream. */
      field = hbits_gather(&h, from, src[0], count, width,
                           (uint64_t)j * to_bits, to_bits);
    } else if (insert) {
      /* base & ~(mask << offset) | (field & mask) << offset */
      uint64_t mask = hbits_mask(width) << offset;
      uint32_t bits = hbits_i64(
          &h, HRX_HOST_OP_ISHL,
          hbits_i64(&h, HRX_HOST_OP_IAND, hbits_zext(&h, from, src[0] + j),
                    hbits_k(&h, hbits_mask(width))),
          hbits_k(&h, offset));
      uint32_t kept = hbits_i64(&h, HRX_HOST_OP_IAND,
                                hbits_zext(&h, to, src[1] + j),
                                hbits_k(&h, ~mask));
      field = hbits_i64(&h, HRX_HOST_OP_IOR, kept, bits);
    } else {
      uint64_t start = def->attrs ? (uint64_t)j * lane_bits + offset
                                  : (uint64_t)j * width;
      field = hbits_gather(&h, from, src[0], count, lane_bits, start, width);
      if (is_signed && width < 64) {
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
