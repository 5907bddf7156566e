/* Elementwise ops the host ISA has no single instruction for,
 * composed from the ones it has: negi (0 - x), absi (max(x, 0 - x)),
 * fmai (x * y + z) and the divisions rounding up or down (ceildivsi,
 * ceildivui, floordivsi: the truncating quotient moved one step, as
 * llvm_lower.c's ll_rounded_divide builds them), on scalars and lane by
 * lane on vectors. All wrap at the operand width as the ISA's IADD, ISUB
 * and IMUL do: negi and absi of the minimum integer give it back, as the
 * LLVM lowering's do; the divisions fault on a zero divisor as IDIVS and
 * IDIVU do. (IMADD is not used: it poisons on overflow, for address
 * arithmetic.)
 *
 * Bit counts work on the operand zero-extended to 64 bits: ctpopi is the
 * SWAR population count; cttzi counts the set bits below the lowest set
 * one, with a sentinel bit at the operand width so that cttzi(0) is the
 * width; ctlzi smears the highest set bit down and subtracts the count
 * from the width (ctlzi(0) is the width too, as LLVM's ctlz/cttz with
 * zero defined give). Rotates take the amount modulo the width and
 * combine two shifts; the ISA's shift by the full width gives 0, so a
 * rotate by 0 keeps the value.
 *
 * copysignf, minimumf and maximumf work on the float's bits read as an
 * integer of its width (sign-extended, as the ISA keeps integers):
 * copysignf takes the sign bit and the bits above it from y; minimumf and
 * maximumf are IEEE 754-2019 minimum and maximum: a NaN operand gives a
 * NaN (x + y), equal operands give the OR (minimum: -0 of +0 and -0) or
 * the AND (maximum: +0) of their bits, otherwise fmin / fmax.
 *
 * signi is -1, 0 or 1 by selects on x < 0 and x > 0. */
#include <string.h>

#include "host_backend_internal.h"
#include "op_table.h"

static const char* const hx_names[] = {
    "scalar.negi",      "scalar.absi",      "scalar.fmai",
    "scalar.ceildivsi", "scalar.ceildivui", "scalar.floordivsi",
    "vector.negi",      "vector.absi",      "vector.fmai",
    "vector.ceildivsi", "vector.ceildivui", "vector.floordivsi",
    "scalar.ctpopi",    "scalar.ctlzi",     "scalar.cttzi",
    "scalar.rotli",     "scalar.rotri",     "vector.ctpopi",
    "vector.ctlzi",     "vector.cttzi",     "vector.rotli",
    "vector.rotri",     "scalar.copysignf", "scalar.minimumf",
    "scalar.maximumf",  "vector.copysignf", "vector.minimumf",
    "vector.maximumf",  "scalar.signi",     "vector.signi"};

bool hb_is_extra(const loom_op_t* op) {
  const char* name = loom_op_defs[op->opcode].name;
  for (size_t i = 0; i < sizeof(hx_names) / sizeof(hx_names[0]); ++i) {
    if (!strcmp(name, hx_names[i])) return true;
  }
  return false;
}

static uint32_t hx_icmp(hb_t* b, hrx_host_icmp_t pred, uint8_t type,
                        uint32_t x, uint32_t y, bool* ok) {
  uint32_t out = LOOM_NONE;
  *ok = *ok && hb_binary(b, HRX_HOST_OP_ICMP, type, (uint8_t)pred, x, y, &out);
  return out;
}

/* x / y rounded up or down (|name| without its dialect). */
static bool hx_divide(hb_t* b, const char* name, uint8_t type,
                      const uint32_t* v, uint32_t* out) {
  bool is_signed = strcmp(name, "ceildivui") != 0;
  bool floor = !strcmp(name, "floordivsi");
  uint32_t q = LOOM_NONE, r = LOOM_NONE, zero = LOOM_NONE, one = LOOM_NONE;
  uint32_t moved = LOOM_NONE;
  bool ok =
      hb_binary(b, is_signed ? HRX_HOST_OP_IDIVS : HRX_HOST_OP_IDIVU, type, 0,
                v[0], v[1], &q) &&
      hb_binary(b, is_signed ? HRX_HOST_OP_IREMS : HRX_HOST_OP_IREMU, type, 0,
                v[0], v[1], &r) &&
      hb_constant(b, true, 0, &zero) && hb_constant(b, true, 1, &one) &&
      hb_binary(b, floor ? HRX_HOST_OP_ISUB : HRX_HOST_OP_IADD, type, 0, q,
                one, &moved);
  uint32_t step = hx_icmp(b, HRX_HOST_ICMP_NE, type, r, zero, &ok);
  if (is_signed) {
    uint32_t sign = LOOM_NONE;
    ok = ok && hb_binary(b, HRX_HOST_OP_IXOR, type, 0, r, v[1], &sign);
    uint32_t side = hx_icmp(
        b, floor ? HRX_HOST_ICMP_SLT : HRX_HOST_ICMP_SGE, type, sign, zero,
        &ok);
    ok = ok && hb_binary(b, HRX_HOST_OP_IAND, HRX_HOST_TYPE_I1, 0, step, side,
                         &step);
  }
  return ok && hb_emit_value(b, HRX_HOST_OP_SELECT, type, 0, step, moved, q,
                             0, out);
}

/* The first failure sticks; later steps are no-ops (see host_math.c). */
typedef struct hx_t {
  hb_t* b;
  bool ok;
} hx_t;

static uint32_t hx_op(hx_t* h, uint8_t op, uint8_t type, uint32_t x,
                      uint32_t y) {
  uint32_t out = LOOM_NONE;
  h->ok = h->ok && hb_binary(h->b, op, type, 0, x, y, &out);
  return out;
}

static uint32_t hx_i64(hx_t* h, uint8_t op, uint32_t x, uint64_t k) {
  uint32_t c = LOOM_NONE;
  h->ok = h->ok && hb_constant(h->b, true, k, &c);
  return hx_op(h, op, HRX_HOST_TYPE_I64, x, c);
}

static uint32_t hx_cvt(hx_t* h, uint8_t to, uint8_t from, uint32_t kind,
                       uint32_t x) {
  uint32_t regs[] = {x};
  uint32_t out = LOOM_NONE;
  h->ok = h->ok &&
          hb_new_vreg(h->b, hb_all_scalar(h->b, regs, 1), 1, &out) &&
          hb_emit(h->b, HRX_HOST_OP_CVT, to, from, out, x, LOOM_NONE,
                  LOOM_NONE, kind);
  return out;
}

static uint32_t hx_popcount(hx_t* h, uint32_t v) {
  uint32_t half = hx_i64(h, HRX_HOST_OP_IAND,
                         hx_i64(h, HRX_HOST_OP_ISHRU, v, 1),
                         UINT64_C(0x5555555555555555));
  v = hx_op(h, HRX_HOST_OP_ISUB, HRX_HOST_TYPE_I64, v, half);
  uint32_t low = hx_i64(h, HRX_HOST_OP_IAND, v, UINT64_C(0x3333333333333333));
  uint32_t high = hx_i64(h, HRX_HOST_OP_IAND,
                         hx_i64(h, HRX_HOST_OP_ISHRU, v, 2),
                         UINT64_C(0x3333333333333333));
  v = hx_op(h, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, low, high);
  v = hx_i64(h, HRX_HOST_OP_IAND,
             hx_op(h, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, v,
                   hx_i64(h, HRX_HOST_OP_ISHRU, v, 4)),
             UINT64_C(0x0F0F0F0F0F0F0F0F));
  return hx_i64(h, HRX_HOST_OP_ISHRU,
                hx_i64(h, HRX_HOST_OP_IMUL, v, UINT64_C(0x0101010101010101)),
                56);
}

/* ctpopi, ctlzi, cttzi and the rotates of one lane. */
static bool hx_bits(hb_t* b, const char* name, uint8_t type,
                    const uint32_t* v, uint32_t* out) {
  hx_t h = {.b = b, .ok = true};
  uint64_t width = type == HRX_HOST_TYPE_I1 ? 1 : UINT64_C(4) << type;
  if (!strncmp(name, "rot", 3)) {
    uint32_t mask = LOOM_NONE, w = LOOM_NONE;
    h.ok = hb_constant(b, true, width - 1, &mask) &&
           hb_constant(b, true, width, &w);
    uint32_t k = hx_op(&h, HRX_HOST_OP_IAND, type, v[1], mask);
    uint32_t rest = hx_op(&h, HRX_HOST_OP_ISUB, type, w, k);
    bool left = !strcmp(name, "rotli");
    uint32_t first = hx_op(&h, left ? HRX_HOST_OP_ISHL : HRX_HOST_OP_ISHRU,
                           type, v[0], k);
    uint32_t second = hx_op(&h, left ? HRX_HOST_OP_ISHRU : HRX_HOST_OP_ISHL,
                            type, v[0], rest);
    *out = hx_op(&h, HRX_HOST_OP_IOR, type, first, second);
    return h.ok;
  }
  uint32_t x = hx_cvt(&h, HRX_HOST_TYPE_I64, type, HRX_HOST_CVT_ZEXT, v[0]);
  uint32_t count = LOOM_NONE;
  if (!strcmp(name, "ctpopi")) {
    count = hx_popcount(&h, x);
  } else if (!strcmp(name, "cttzi")) {
    if (width < 64) x = hx_i64(&h, HRX_HOST_OP_IOR, x, UINT64_C(1) << width);
    uint32_t below = hx_i64(&h, HRX_HOST_OP_ISUB, x, 1);
    uint32_t lowest_clear = hx_i64(&h, HRX_HOST_OP_IXOR, x, ~UINT64_C(0));
    count = hx_popcount(
        &h, hx_op(&h, HRX_HOST_OP_IAND, HRX_HOST_TYPE_I64, below,
                  lowest_clear));
  } else {
    for (uint64_t shift = 1; shift < 64; shift *= 2) {
      x = hx_op(&h, HRX_HOST_OP_IOR, HRX_HOST_TYPE_I64, x,
                hx_i64(&h, HRX_HOST_OP_ISHRU, x, shift));
    }
    uint32_t w = LOOM_NONE;
    h.ok = h.ok && hb_constant(b, true, width, &w);
    count = hx_op(&h, HRX_HOST_OP_ISUB, HRX_HOST_TYPE_I64, w,
                  hx_popcount(&h, x));
  }
  *out = hx_cvt(&h, type, HRX_HOST_TYPE_I64, HRX_HOST_CVT_SEXT, count);
  return h.ok;
}

/* copysignf, minimumf and maximumf of one lane. */
static bool hx_float(hb_t* b, const char* name, uint8_t type,
                     const uint32_t* v, uint32_t* out) {
  hx_t h = {.b = b, .ok = true};
  uint8_t bits_type = type == HRX_HOST_TYPE_F64   ? HRX_HOST_TYPE_I64
                      : type == HRX_HOST_TYPE_F32 ? HRX_HOST_TYPE_I32
                                                  : HRX_HOST_TYPE_I16;
  uint64_t width = UINT64_C(4) << bits_type;
  uint32_t xs = hx_cvt(&h, bits_type, type, HRX_HOST_CVT_BITCAST, v[0]);
  uint32_t ys = hx_cvt(&h, bits_type, type, HRX_HOST_CVT_BITCAST, v[1]);
  if (!strcmp(name, "copysignf")) {
    uint64_t sign = ~UINT64_C(0) << (width - 1);
    uint32_t magnitude = hx_i64(&h, HRX_HOST_OP_IAND, xs, ~sign);
    uint32_t signs = hx_i64(&h, HRX_HOST_OP_IAND, ys, sign);
    *out = hx_cvt(&h, type, bits_type, HRX_HOST_CVT_BITCAST,
                  hx_op(&h, HRX_HOST_OP_IOR, bits_type, magnitude, signs));
    return h.ok;
  }
  bool minimum = !strcmp(name, "minimumf");
  uint32_t tie = hx_cvt(
      &h, type, bits_type, HRX_HOST_CVT_BITCAST,
      hx_op(&h, minimum ? HRX_HOST_OP_IOR : HRX_HOST_OP_IAND, bits_type, xs,
            ys));
  uint32_t picked =
      hx_op(&h, minimum ? HRX_HOST_OP_FMIN : HRX_HOST_OP_FMAX, type, v[0],
            v[1]);
  uint32_t nan = hx_op(&h, HRX_HOST_OP_FADD, type, v[0], v[1]);
  uint32_t equal = LOOM_NONE, unordered = LOOM_NONE;
  h.ok = h.ok &&
         hb_binary(b, HRX_HOST_OP_FCMP, type, HRX_HOST_FCMP_OEQ, v[0], v[1],
                   &equal) &&
         hb_binary(b, HRX_HOST_OP_FCMP, type, HRX_HOST_FCMP_UNO, v[0], v[1],
                   &unordered);
  uint32_t ordered = LOOM_NONE;
  uint32_t regs[] = {equal, tie, picked};
  h.ok = h.ok && hb_new_vreg(b, hb_all_scalar(b, regs, 3), 1, &ordered) &&
         hb_emit(b, HRX_HOST_OP_SELECT, type, 0, ordered, equal, tie, picked,
                 0);
  uint32_t last[] = {unordered, nan, ordered};
  h.ok = h.ok && hb_new_vreg(b, hb_all_scalar(b, last, 3), 1, out) &&
         hb_emit(b, HRX_HOST_OP_SELECT, type, 0, *out, unordered, nan,
                 ordered, 0);
  return h.ok;
}

/* One lane: operands |v| of host type |type| into |*out|. */
static bool hx_lane(hb_t* b, const loom_op_t* op, uint8_t type,
                    const uint32_t* v, uint32_t* out) {
  const char* name = strchr(loom_op_defs[op->opcode].name, '.') + 1;
  if (!strcmp(name, "fmai")) {
    uint32_t product = LOOM_NONE;
    return hb_binary(b, HRX_HOST_OP_IMUL, type, 0, v[0], v[1], &product) &&
           hb_binary(b, HRX_HOST_OP_IADD, type, 0, product, v[2], out);
  }
  if (strstr(name, "div")) return hx_divide(b, name, type, v, out);
  if (!strcmp(name, "signi")) {
    /* (x > 0) - (x < 0) as selects; i1's only values are 0 and -1,
     * which are their own signs */
    uint32_t zero = LOOM_NONE, one = LOOM_NONE, minus = LOOM_NONE;
    bool ok = hb_constant(b, true, 0, &zero) &&
              hb_constant(b, true, 1, &one) &&
              hb_constant(b, true, UINT64_MAX, &minus);
    uint32_t below = hx_icmp(b, HRX_HOST_ICMP_SLT, type, v[0], zero, &ok);
    uint32_t above = hx_icmp(b, HRX_HOST_ICMP_SGT, type, v[0], zero, &ok);
    uint32_t low[] = {below, minus, v[0]};
    uint32_t r = LOOM_NONE;
    ok = ok && hb_new_vreg(b, hb_all_scalar(b, low, 3), 1, &r) &&
         hb_emit(b, HRX_HOST_OP_SELECT, type, 0, r, below, minus, v[0], 0);
    uint32_t high[] = {above, one, r};
    return ok && hb_new_vreg(b, hb_all_scalar(b, high, 3), 1, out) &&
           hb_emit(b, HRX_HOST_OP_SELECT, type, 0, *out, above, one, r, 0);
  }
  if (name[strlen(name) - 1] == 'f') return hx_float(b, name, type, v, out);
  if (!strncmp(name, "ct", 2) || !strncmp(name, "rot", 3)) {
    return hx_bits(b, name, type, v, out);
  }
  uint32_t zero = LOOM_NONE, negated = LOOM_NONE;
  if (!hb_constant(b, true, 0, &zero) ||
      !hb_binary(b, HRX_HOST_OP_ISUB, type, 0, zero, v[0], &negated)) {
    return false;
  }
  if (!strcmp(name, "negi")) {
    *out = negated;
    return true;
  }
  return hb_binary(b, HRX_HOST_OP_IMAXS, type, 0, v[0], negated, out);
}

bool hb_lower_extra(hb_t* b, const loom_op_t* op) {
  return hb_lower_lanewise(b, op, hx_lane);
}
