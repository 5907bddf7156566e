/* Vector ALU of the gfx11 model (VOP1, VOP2, VOPC, VOP3, VOP3SD, VOPD), one
 * wave32 lane at a time under EXEC. Opcodes are in the VOP3 numbering
 * (VOPC 0-255, VOP2 256+, VOP1 384+); semantics follow the RDNA3 ISA
 * guide. f32 arithmetic is the host's IEEE arithmetic rounded to nearest
 * even; the wave's MODE then decides whether denormal sources and results
 * of the arithmetic ops are kept or flushed to zero (gfx11_mode.c). */
#include <math.h>
#include <string.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

static bool unsupported(gfx11_wave_t* wave, uint32_t op) {
  return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                     "vector opcode 0x%x is not modelled", op);
}

/* Ops whose sources are f32 and so take the abs/neg modifiers. */
static bool float_sources(uint32_t op) {
  switch (op) {
    case GFX11_V_CNDMASK_B32: case GFX11_V_ADD_F32: case GFX11_V_SUB_F32:
    case GFX11_V_MUL_F32:
    case GFX11_V_MIN_F32: case GFX11_V_MAX_F32: case GFX11_V_FMAC_F32:
    case GFX11_V_FMA_F32:
    case GFX11_V_CVT_U32_F32: case GFX11_V_RCP_F32: case GFX11_V_RCP_IFLAG_F32:
    case GFX11_V_FLOOR_F32: case GFX11_V_MED3_F32: case GFX11_V_MAXMIN_F32:
    case GFX11_V_MINMAX_F32: case GFX11_V_RNDNE_F32:
    case GFX11_V_MIN3_F32: case GFX11_V_MAX3_F32:
    case GFX11_V_FMAMK_F32: case GFX11_V_FMAAK_F32:
    case GFX11_V_EXP_F32: case GFX11_V_LOG_F32: case GFX11_V_RSQ_F32:
    case GFX11_V_SQRT_F32: case GFX11_V_SIN_F32: case GFX11_V_COS_F32:
    case GFX11_V_DIV_SCALE_F32: case GFX11_V_DIV_FMAS_F32:
    case GFX11_V_DIV_FIXUP_F32:
    case GFX11_V_SUBREV_F32: case GFX11_V_CVT_I32_F32: case GFX11_V_TRUNC_F32:
    case GFX11_V_CEIL_F32: case GFX11_V_LDEXP_F32:
      return true;
    default:
      return op >= 0x10 && op <= 0x1F;  /* f32 compares */
  }
}

/* Ops whose result is f32 and so takes omod and clamp. */
static bool float_result(uint32_t op) {
  switch (op) {
    case GFX11_V_ADD_F32: case GFX11_V_SUB_F32: case GFX11_V_MUL_F32:
    case GFX11_V_MIN_F32:
    case GFX11_V_MAX_F32: case GFX11_V_FMAC_F32: case GFX11_V_FMA_F32:
    case GFX11_V_CVT_F32_U32: case GFX11_V_CVT_F32_I32:
    case GFX11_V_RNDNE_F32: case GFX11_V_FMAMK_F32: case GFX11_V_FMAAK_F32:
    case GFX11_V_RCP_F32: case GFX11_V_RCP_IFLAG_F32:
    case GFX11_V_CVT_F32_UBYTE0:
    case GFX11_V_FLOOR_F32: case GFX11_V_MED3_F32: case GFX11_V_MAXMIN_F32:
    case GFX11_V_MINMAX_F32: case GFX11_V_MIN3_F32: case GFX11_V_MAX3_F32:
    case GFX11_V_EXP_F32: case GFX11_V_LOG_F32: case GFX11_V_RSQ_F32:
    case GFX11_V_SQRT_F32: case GFX11_V_SIN_F32: case GFX11_V_COS_F32:
    case GFX11_V_DIV_FMAS_F32: case GFX11_V_DIV_FIXUP_F32:
    case GFX11_V_SUBREV_F32: case GFX11_V_TRUNC_F32: case GFX11_V_CEIL_F32:
    case GFX11_V_LDEXP_F32:
      return true;
    default:
      return false;
  }
}

static bool uses_src2(uint32_t op) {
  switch (op) {
    case GFX11_V_CNDMASK_B32: case GFX11_V_FMA_F32: case GFX11_V_ADD3_U32:
    case GFX11_V_ADD_CO_CI_U32:
    case GFX11_V_SUB_CO_CI_U32: case GFX11_V_SUBREV_CO_CI_U32:
    case GFX11_V_MAD_U32_U24: case GFX11_V_MAD_I32_I24:
    case GFX11_V_BFE_U32: case GFX11_V_MED3_F32: case GFX11_V_LSHL_ADD_U32:
    case GFX11_V_MAXMIN_F32: case GFX11_V_MINMAX_F32: case GFX11_V_MAX3_I32:
    case GFX11_V_MIN3_F32: case GFX11_V_MAX3_F32: case GFX11_V_MIN3_I32:
    case GFX11_V_MIN3_U32: case GFX11_V_MAX3_U32: case GFX11_V_MED3_I32:
    case GFX11_V_MED3_U32:
    case GFX11_V_DIV_SCALE_F32:
    case GFX11_V_DIV_FMAS_F32: case GFX11_V_DIV_FIXUP_F32:
    case GFX11_V_BFE_I32: case GFX11_V_BFI_B32: case GFX11_V_ALIGNBIT_B32:
    case GFX11_V_XOR3_B32: case GFX11_V_PERM_B32: case GFX11_V_XAD_U32:
    case GFX11_V_LSHL_OR_B32: case GFX11_V_AND_OR_B32: case GFX11_V_OR3_B32:
      return true;
    default:
      return false;
  }
}

static uint32_t apply_input_modifiers(uint32_t value, uint32_t abs,
                                      uint32_t neg, int index) {
  if (abs >> index & 1) value &= 0x7FFFFFFFu;
  if (neg >> index & 1) value ^= 0x80000000u;
  return value;
}

static uint32_t apply_output_modifiers(const gfx11_inst_t* inst,
                                       uint32_t value) {
  static const float omod_scale[4] = {1.0f, 2.0f, 4.0f, 0.5f};
  float f = hrx_f32(value);
  if (inst->omod) f *= omod_scale[inst->omod];
  if (inst->clamp) f = isnan(f) ? 0.0f : fminf(fmaxf(f, 0.0f), 1.0f);
  return hrx_f32_bits(f);
}

/* One lane of a 32-bit op; |c| is src2 (for v_cndmask the lane mask, for
 * v_fmac the old destination). False for an op this table lacks. */
static bool alu32(uint32_t op, uint32_t a, uint32_t b, uint32_t c,
                  uint32_t lane, uint32_t* out) {
  switch (op) {
    case GFX11_V_CNDMASK_B32: *out = (c >> lane & 1) ? b : a; return true;
    case GFX11_V_ADD_F32:
      *out = hrx_f32_bits(hrx_f32(a) + hrx_f32(b)); return true;
    case GFX11_V_SUB_F32:
      *out = hrx_f32_bits(hrx_f32(a) - hrx_f32(b)); return true;
    case GFX11_V_SUBREV_F32:
      *out = hrx_f32_bits(hrx_f32(b) - hrx_f32(a)); return true;
    case GFX11_V_MUL_F32:
      *out = hrx_f32_bits(hrx_f32(a) * hrx_f32(b)); return true;
    case GFX11_V_MIN_U32: *out = a < b ? a : b; return true;
    case GFX11_V_MAX_U32: *out = a > b ? a : b; return true;
    case GFX11_V_MIN_I32: *out = (int32_t)a < (int32_t)b ? a : b; return true;
    case GFX11_V_MAX_I32: *out = (int32_t)a > (int32_t)b ? a : b; return true;
    case GFX11_V_LSHLREV_B32: *out = b << (a & 31); return true;
    case GFX11_V_LSHRREV_B32: *out = b >> (a & 31); return true;
    case GFX11_V_ASHRREV_I32:
      *out = (b >> (a & 31)) | ((b >> 31) ? ~(~0u >> (a & 31)) : 0);
      return true;
    case GFX11_V_AND_B32: *out = a & b; return true;
    case GFX11_V_OR_B32: *out = a | b; return true;
    case GFX11_V_XOR_B32: *out = a ^ b; return true;
    case GFX11_V_ADD_NC_U32: *out = a + b; return true;
    case GFX11_V_SUB_NC_U32: *out = a - b; return true;
    case GFX11_V_SUBREV_NC_U32: *out = b - a; return true;
    case GFX11_V_FMAC_F32:
      *out = hrx_f32_bits(fmaf(hrx_f32(a), hrx_f32(b), hrx_f32(c)));
      return true;
    case GFX11_V_FMA_F32:
      *out = hrx_f32_bits(fmaf(hrx_f32(a), hrx_f32(b), hrx_f32(c)));
      return true;
    case GFX11_V_MOV_B32: *out = a; return true;
    case GFX11_V_CVT_F32_U32: *out = hrx_f32_bits((float)a); return true;
    /* i32 to f32, rounded to nearest even (the MODE rounding modelled). */
    case GFX11_V_CVT_F32_I32:
      *out = hrx_f32_bits((float)(int32_t)a); return true;
    /* v_rndne_f32: round to the nearest integer, ties to even. The ISA's
     * pseudocode (floor(S0 + 0.5), less 1 when floor(S0) is even and the
     * fraction exactly 0.5) read in exact arithmetic is IEEE
     * roundToIntegralTiesToEven, which nearbyintf computes exactly under
     * the host's default round-to-nearest-even; the sign of a zero result
     * (-0.5 gives -0) follows IEEE, a point the pseudocode leaves open.
     * NaN stays NaN and infinities pass through. */
    case GFX11_V_RNDNE_F32:
      *out = hrx_f32_bits(nearbyintf(hrx_f32(a))); return true;
    case GFX11_V_MAX3_I32: {  /* the signed maximum of the three */
      int32_t m = (int32_t)a > (int32_t)b ? (int32_t)a : (int32_t)b;
      *out = (uint32_t)((int32_t)c > m ? (int32_t)c : m);
      return true;
    }
    case GFX11_V_MIN3_I32: {
      int32_t m = (int32_t)a < (int32_t)b ? (int32_t)a : (int32_t)b;
      *out = (uint32_t)((int32_t)c < m ? (int32_t)c : m);
      return true;
    }
    case GFX11_V_MIN3_U32: {
      uint32_t m = a < b ? a : b;
      *out = c < m ? c : m;
      return true;
    }
    case GFX11_V_MAX3_U32: {
      uint32_t m = a > b ? a : b;
      *out = c > m ? c : m;
      return true;
    }
    /* The median: the larger of min(a, b) and min(max(a, b), c). */
    case GFX11_V_MED3_I32: {
      int32_t x = (int32_t)a, y = (int32_t)b, z = (int32_t)c;
      int32_t lo = x < y ? x : y, hi = x > y ? x : y;
      int32_t m = hi < z ? hi : z;
      *out = (uint32_t)(lo > m ? lo : m);
      return true;
    }
    case GFX11_V_MED3_U32: {
      uint32_t lo = a < b ? a : b, hi = a > b ? a : b;
      uint32_t m = hi < c ? hi : c;
      *out = lo > m ? lo : m;
      return true;
    }
    case GFX11_V_CVT_U32_F32: *out = gfx11_cvt_u32_f32(hrx_f32(a)); return true;
    case GFX11_V_CVT_I32_F32: *out = gfx11_cvt_i32_f32(hrx_f32(a)); return true;
    case GFX11_V_TRUNC_F32:
      *out = hrx_f32_bits(truncf(hrx_f32(a))); return true;
    case GFX11_V_CEIL_F32: *out = hrx_f32_bits(ceilf(hrx_f32(a))); return true;
    /* S0 * 2^S1 (S1 a signed integer), exactly rounded: ldexpf scales
     * into and out of the denormal range with one rounding. */
    case GFX11_V_LDEXP_F32:
      *out = hrx_f32_bits(ldexpf(hrx_f32(a), (int32_t)b)); return true;
    /* The hardware reciprocal is within 1 ULP of 1/x; this model returns
     * the correctly rounded quotient, which is one of the values it may
     * give. The compiler's integer division corrects for either. */
    case GFX11_V_RCP_F32: case GFX11_V_RCP_IFLAG_F32:
      *out = hrx_f32_bits(1.0f / hrx_f32(a));
      return true;
    /* v_sqrt_f32, v_rsq_f32, v_exp_f32 (2^x) and v_log_f32 (log2) are
     * approximations of about 1 ULP in hardware. The model computes them
     * more precisely than that: sqrtf and the reciprocal square root
     * through double are correctly rounded, exp2f and log2f are within
     * glibc's documented 1 ULP. A comparison against hardware results
     * must allow the hardware's bound plus 1 ULP; exactly representable
     * results (the instruction tests': sqrt 16, 2^3, log2 8) are exact
     * on both. */
    case GFX11_V_SQRT_F32: *out = hrx_f32_bits(sqrtf(hrx_f32(a))); return true;
    case GFX11_V_RSQ_F32:
      *out = hrx_f32_bits((float)(1.0 / sqrt((double)hrx_f32(a))));
      return true;
    case GFX11_V_EXP_F32: *out = hrx_f32_bits(exp2f(hrx_f32(a))); return true;
    case GFX11_V_LOG_F32: *out = hrx_f32_bits(log2f(hrx_f32(a))); return true;
    case GFX11_V_SIN_F32: *out = gfx11_sin_turns_f32(a, false); return true;
    case GFX11_V_COS_F32: *out = gfx11_sin_turns_f32(a, true); return true;
    case GFX11_V_ADD3_U32: *out = a + b + c; return true;
    case GFX11_V_CVT_F32_UBYTE0:
      *out = hrx_f32_bits((float)(a & 0xFF)); return true;
    case GFX11_V_FLOOR_F32:
      *out = hrx_f32_bits(floorf(hrx_f32(a))); return true;
    case GFX11_V_MAD_U32_U24:
      *out = (a & 0xFFFFFF) * (b & 0xFFFFFF) + c;
      return true;
    case GFX11_V_MAD_I32_I24: {
      /* Signed 24-bit operands; the low 32 bits of the sum. */
      int64_t x = (int32_t)(a << 8) >> 8, y = (int32_t)(b << 8) >> 8;
      *out = (uint32_t)(x * y) + c;
      return true;
    }
    case GFX11_V_BFE_U32:
      *out = (a >> (b & 31)) & (uint32_t)((1ull << (c & 31)) - 1);
      return true;
    case GFX11_V_LSHL_ADD_U32: *out = (a << (b & 31)) + c; return true;
    case GFX11_V_MBCNT_LO_U32_B32:
      *out = (uint32_t)__builtin_popcount(a & ((1u << lane) - 1u)) + b;
      return true;
    case GFX11_V_DIV_FIXUP_F32:
      *out = gfx11_div_fixup_f32(a, b, c); return true;
    case GFX11_V_MUL_LO_U32: *out = a * b; return true;
    case GFX11_V_MUL_HI_U32:
      *out = (uint32_t)(((uint64_t)a * b) >> 32); return true;
    default: return gfx11_bit_op(op, a, b, c, out);
  }
}

/* Compare condition |cond| (0..7: F LT EQ LE GT NE GE T) on ordered keys. */
static bool int_condition(uint32_t cond, uint64_t a, uint64_t b) {
  switch (cond) {
    case 0: return false;
    case 1: return a < b;
    case 2: return a == b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a != b;
    case 6: return a >= b;
    default: return true;
  }
}

/* f32 conditions 0..15: F LT EQ LE GT LG GE O U NGE NLG NGT NLE NEQ NLT T;
 * the N forms are true when unordered. */
static bool float_condition(uint32_t cond, float a, float b) {
  bool unordered = isnan(a) || isnan(b);
  if (cond == 0) return false;
  if (cond == 15) return true;
  if (cond == 7) return !unordered;
  if (cond == 8) return unordered;
  /* NGE NLG NGT NLE NEQ NLT (9..14) negate GE LG GT LE EQ LT (6..1). */
  bool negate = cond > 8;
  uint32_t base = negate ? 15 - cond : cond;
  bool r = false;
  switch (base) {
    case 1: r = a < b; break;
    case 2: r = a == b; break;
    case 3: r = a <= b; break;
    case 4: r = a > b; break;
    case 5: r = a < b || a > b; break;
    default: r = a >= b; break;
  }
  return negate ? !r : r;
}

/* One lane of an integer compare (i16/u16 48-63, i32/u32 64-79, i64/u64
 * 80-95). 16-bit operands are halves, as f16 ones are. */
static bool int_compare_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                             uint32_t op, uint32_t lane) {
  bool wide = op >= 0x50;
  bool is_signed = (op & 0x18) == 0x00 || (op & 0x18) == 0x10;
  uint64_t a, b, sign;
  if (op < 0x40) {
    a = gfx11_read_f16_source(wave, inst, 0, lane);
    b = gfx11_read_f16_source(wave, inst, 1, lane);
    sign = 1ull << 15;
  } else if (wide) {
    a = gfx11_read64_int(wave, inst, inst->src[0], lane, is_signed);
    b = gfx11_read64_int(wave, inst, inst->src[1], lane, is_signed);
    sign = 1ull << 63;
  } else {
    a = gfx11_read32(wave, inst, inst->src[0], lane);
    b = gfx11_read32(wave, inst, inst->src[1], lane);
    sign = 1ull << 31;
  }
  /* Flipping the sign bit maps signed order onto unsigned order. */
  if (is_signed) {
    a ^= sign;
    b ^= sign;
  }
  return int_condition(op & 7, a, b);
}

/* One lane of a float compare: f16 (0-15) or f32 (16-31). Every f16 value
 * is exact as an f32, so both compare as f32. */
static bool float_compare_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                               uint32_t op, uint32_t lane) {
  float x[2];
  for (int i = 0; i < 2; ++i) {
    if (op < 0x10) {
      x[i] = gfx11_f16_to_f32(gfx11_read_f16_source(wave, inst, i, lane));
    } else {
      uint32_t v = gfx11_read32(wave, inst, inst->src[i], lane);
      x[i] = hrx_f32(apply_input_modifiers(v, inst->abs, inst->neg, i));
    }
  }
  return float_condition(op & 0xF, x[0], x[1]);
}

/* v_cmp_class_f16 and v_cmp_class_f32 (+128: cmpx). */
enum { CMP_CLASS_F16 = 0x7D, CMP_CLASS_F32 = 0x7E };

/* The bit of a v_cmp_class mask that names |value|'s class (IEEE
 * layout of |exponent| and |mantissa| bits): 0 signalling NaN, 1 quiet
 * NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
 * 8 +normal, 9 +inf. Denormals are classed as such whatever MODE says. */
static uint32_t class_bit(uint32_t value, int exponent, int mantissa) {
  uint32_t fraction = value & ((1u << mantissa) - 1);
  uint32_t biased = value >> mantissa & ((1u << exponent) - 1);
  bool negative = value >> (exponent + mantissa) & 1;
  if (biased == (1u << exponent) - 1) {
    if (fraction) return fraction >> (mantissa - 1) & 1;
    return negative ? 2 : 9;
  }
  if (biased == 0) {
    if (!fraction) return negative ? 5 : 6;
    return negative ? 4 : 7;
  }
  return negative ? 3 : 8;
}

/* One lane of v_cmp_class: is S0's class among those S1's bits name? */
static bool class_compare_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                               uint32_t op, uint32_t lane) {
  uint32_t bit;
  if (op == CMP_CLASS_F16) {
    bit = class_bit(gfx11_read_f16_source(wave, inst, 0, lane), 5, 10);
  } else {
    uint32_t v = gfx11_read32(wave, inst, inst->src[0], lane);
    bit = class_bit(apply_input_modifiers(v, inst->abs, inst->neg, 0), 8, 23);
  }
  return gfx11_read32(wave, inst, inst->src[1], lane) >> bit & 1;
}

static bool exec_compare(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t op = inst->op & 0x7F;
  bool writes_exec = inst->op & 0x80;  /* v_cmpx_* */
  bool is_float = op <= 0x1F;
  bool is_class = op == CMP_CLASS_F16 || op == CMP_CLASS_F32;
  if (!is_float && !is_class && (op < 0x30 || op > 0x5F)) {
    return unsupported(wave, inst->op);
  }
  /* Only float sources take modifiers: S0 of a class test, not its mask. */
  uint32_t float_inputs = is_float ? 3 : is_class ? 1 : 0;
  if ((inst->abs | inst->neg) & ~float_inputs) {
    return unsupported(wave, inst->op);
  }
  /* opsel picks 16-bit halves; 32-bit compares have none to pick. */
  bool halves =
      op < 0x10 || op == CMP_CLASS_F16 || (op >= 0x30 && op < 0x40);
  if (!halves && inst->opsel) return unsupported(wave, inst->op);
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t mask = 0;
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    bool r = is_class   ? class_compare_lane(wave, inst, op, lane)
             : is_float ? float_compare_lane(wave, inst, op, lane)
                        : int_compare_lane(wave, inst, op, lane);
    mask |= (uint32_t)r << lane;
  }
  if (wave->faulted) return false;
  /* Inactive lanes read as 0 in the result mask. */
  if (writes_exec) {
    wave->sgpr[GFX11_EXEC_LO] = mask;
  } else {
    gfx11_write_sgpr(wave, inst->sdst, mask);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool is_shift64(uint32_t op) {
  return op == GFX11_V_LSHLREV_B64 || op == GFX11_V_LSHRREV_B64 ||
         op == GFX11_V_ASHRREV_I64;
}

/* Ops with a carry (VOP2 e32 writes VCC; VOP3SD writes sdst) or a 64-bit
 * result. */
static bool exec_wide(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t carry_in = 0;
  if (uses_src2(inst->op)) {
    carry_in = gfx11_read32(wave, inst, inst->src[2], 0);
  }
  uint32_t carry_out = 0;
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    uint32_t a = gfx11_read32(wave, inst, inst->src[0], lane);
    uint64_t result;
    if (is_shift64(inst->op)) {
      /* A literal S1 is zero-extended to 64 bits for the B64 shifts (an
       * unsigned operand type, which LLVM prints and folds as the
       * zero-extended value) and sign-extended for v_ashrrev_i64. */
      bool is_signed = inst->op == GFX11_V_ASHRREV_I64;
      uint64_t value =
          gfx11_read64_int(wave, inst, inst->src[1], lane, is_signed);
      uint32_t shift = a & 63;
      if (inst->op == GFX11_V_LSHLREV_B64) {
        result = value << shift;
      } else if (is_signed && (value >> 63)) {
        result = ~(~value >> shift);  /* arithmetic, without UB */
      } else {
        result = value >> shift;
      }
    } else if (inst->op == GFX11_V_MAD_U64_U32 ||
               inst->op == GFX11_V_MAD_I64_I32) {
      uint32_t b = gfx11_read32(wave, inst, inst->src[1], lane);
      uint64_t c = gfx11_read64(wave, inst->src[2], lane);
      uint64_t product = inst->op == GFX11_V_MAD_U64_U32
                             ? (uint64_t)a * b
                             : (uint64_t)((int64_t)(int32_t)a * (int32_t)b);
      result = product + c;
      /* The carry out is the unsigned (or signed) overflow of the sum. */
      bool overflow = inst->op == GFX11_V_MAD_U64_U32
                          ? result < c
                          : (~(product ^ c) & (product ^ result)) >> 63;
      carry_out |= (uint32_t)overflow << lane;
    } else {
      uint64_t x = a;
      uint64_t y = gfx11_read32(wave, inst, inst->src[1], lane);
      uint64_t cin = uses_src2(inst->op) ? (carry_in >> lane & 1) : 0;
      bool reverse =
          inst->op == GFX11_V_SUBREV_CO_U32 ||
          inst->op == GFX11_V_SUBREV_CO_CI_U32;
      if (reverse) {
        uint64_t t = x;
        x = y;
        y = t;
      }
      bool add = inst->op == GFX11_V_ADD_CO_U32 ||
                 inst->op == GFX11_V_ADD_CO_CI_U32;
      /* For subtraction the carry out is the borrow. */
      uint64_t r = add ? x + y + cin : x - y - cin;
      carry_out |= (uint32_t)(add ? r >> 32 : y + cin > x) << lane;
      result = (uint32_t)r;
    }
    gfx11_write_vgpr(wave, inst->dst, lane, (uint32_t)result);
    if (is_shift64(inst->op) || inst->op == GFX11_V_MAD_U64_U32 ||
        inst->op == GFX11_V_MAD_I64_I32) {
      gfx11_write_vgpr(wave, inst->dst + 1, lane, (uint32_t)(result >> 32));
    }
  }
  if (!is_shift64(inst->op)) {
    gfx11_write_sgpr(wave, inst->sdst, carry_out);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool is_wide(uint32_t op) {
  return op == GFX11_V_ADD_CO_CI_U32 || op == GFX11_V_SUB_CO_CI_U32 ||
         op == GFX11_V_SUBREV_CO_CI_U32 || op == GFX11_V_ADD_CO_U32 ||
         op == GFX11_V_SUB_CO_U32 ||
         op == GFX11_V_SUBREV_CO_U32 || op == GFX11_V_MAD_U64_U32 ||
         op == GFX11_V_MAD_I64_I32 || is_shift64(op);
}

static bool exec_readfirstlane(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t lane = exec ? (uint32_t)__builtin_ctz(exec) : 0;
  uint32_t value = gfx11_read32(wave, inst, inst->src[0], lane);
  /* The VOP1 destination field names an SGPR here. */
  gfx11_write_sgpr(wave, inst->dst - GFX11_VGPR0, value);
  wave->pc += inst->size;
  return !wave->faulted;
}

/* v_readlane_b32 copies one lane (S1 mod 32, whatever EXEC says) to an
 * SGPR; v_writelane_b32 writes an SGPR value into one lane's VGPR. */
static bool exec_lane_select(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t lane = gfx11_read32(wave, inst, inst->src[1], 0) % GFX11_LANES;
  if (inst->op == GFX11_V_READLANE_B32) {
    uint32_t value = gfx11_read32(wave, inst, inst->src[0], lane);
    gfx11_write_sgpr(wave, inst->dst - GFX11_VGPR0, value);
  } else {
    uint32_t value = gfx11_read32(wave, inst, inst->src[0], 0);
    gfx11_write_vgpr(wave, inst->dst, lane, value);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

/* v_med3_f32 as the ISA's pseudocode has it: with a NaN source the
 * v_min3_f32 of the three, else the v_max_f32 of the two sources other
 * than the (numerically) largest. */
static uint32_t med3(uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  if (isnan(hrx_f32(a)) || isnan(hrx_f32(b)) || isnan(hrx_f32(c))) {
    return gfx11_min_f32(gfx11_min_f32(a, b, ieee), c, ieee);
  }
  float hi = hrx_f32(gfx11_max_f32(gfx11_max_f32(a, b, ieee), c, ieee));
  if (hi == hrx_f32(a)) return gfx11_max_f32(b, c, ieee);
  if (hi == hrx_f32(b)) return gfx11_max_f32(a, c, ieee);
  return gfx11_max_f32(a, b, ieee);
}

/* The f32 selections, whose NaN rules depend on MODE.IEEE. False for
 * other ops. */
static bool select32(uint32_t op, const uint32_t* v, bool ieee,
                     uint32_t* out) {
  switch (op) {
    case GFX11_V_MIN_F32: *out = gfx11_min_f32(v[0], v[1], ieee); return true;
    case GFX11_V_MAX_F32: *out = gfx11_max_f32(v[0], v[1], ieee); return true;
    case GFX11_V_MED3_F32: *out = med3(v[0], v[1], v[2], ieee); return true;
    case GFX11_V_MIN3_F32:
      *out = gfx11_min_f32(gfx11_min_f32(v[0], v[1], ieee), v[2], ieee);
      return true;
    case GFX11_V_MAX3_F32:
      *out = gfx11_max_f32(gfx11_max_f32(v[0], v[1], ieee), v[2], ieee);
      return true;
    case GFX11_V_MAXMIN_F32:  /* v_min_f32(v_max_f32(S0, S1), S2) */
      *out = gfx11_min_f32(gfx11_max_f32(v[0], v[1], ieee), v[2], ieee);
      return true;
    case GFX11_V_MINMAX_F32:  /* v_max_f32(v_min_f32(S0, S1), S2) */
      *out = gfx11_max_f32(gfx11_min_f32(v[0], v[1], ieee), v[2], ieee);
      return true;
    default: return false;
  }
}

/* The f32 ops whose denormal sources and results MODE.FP_DENORM governs:
 * the arithmetic, not moves, conversions from integers or compares. The
 * transcendental approximations are left as they are (see alu32). */
static bool denorm_sensitive(uint32_t op) {
  switch (op) {
    case GFX11_V_ADD_F32: case GFX11_V_SUB_F32: case GFX11_V_MUL_F32:
    case GFX11_V_FMAC_F32: case GFX11_V_FMA_F32: case GFX11_V_MIN_F32:
    case GFX11_V_MAX_F32: case GFX11_V_MED3_F32: case GFX11_V_MAXMIN_F32:
    case GFX11_V_MINMAX_F32: case GFX11_V_FLOOR_F32: case GFX11_V_RNDNE_F32:
    case GFX11_V_MIN3_F32: case GFX11_V_MAX3_F32:
    case GFX11_V_FMAMK_F32: case GFX11_V_FMAAK_F32:
    case GFX11_V_DIV_FMAS_F32: case GFX11_V_SUBREV_F32: case GFX11_V_TRUNC_F32:
    case GFX11_V_CEIL_F32: case GFX11_V_LDEXP_F32:
      return true;
    default:
      return false;
  }
}

/* Reads one lane's sources of a 32-bit op, modifiers applied, and flushes
 * denormal sources and result as MODE asks (after the output modifiers,
 * so the stored value is what the flush sees). */
static bool lane32(gfx11_wave_t* wave, const gfx11_inst_t* inst, uint32_t op,
                   uint32_t dst, const uint32_t* src, uint32_t mask_c,
                   uint32_t lane, uint32_t* out) {
  uint32_t v[3] = {0, 0, 0};
  int count = uses_src2(op) && op != GFX11_V_CNDMASK_B32 ? 3 : 2;
  bool flush = denorm_sensitive(op);
  bool keep_in = wave->mode & GFX11_MODE_F32_DENORM_IN;
  /* v_ldexp_f32's S1 is the integer exponent: no modifier, no flush. */
  int floats = op == GFX11_V_LDEXP_F32 ? 1 : count;
  for (int i = 0; i < count; ++i) {
    v[i] = gfx11_read32(wave, inst, src[i], lane);
    if (i >= floats) continue;
    if (float_sources(op)) {
      v[i] = apply_input_modifiers(v[i], inst->abs, inst->neg, i);
    }
    if (flush) v[i] = gfx11_flush_f32(v[i], keep_in);
  }
  if (op == GFX11_V_CNDMASK_B32) v[2] = mask_c;
  if (op == GFX11_V_FMAC_F32) {
    v[2] = gfx11_flush_f32(gfx11_read32(wave, inst, dst, lane), keep_in);
  }
  if (op == GFX11_V_FMAMK_F32 || op == GFX11_V_FMAAK_F32) {
    /* The constant K is the instruction's literal: v_fmamk_f32 is
     * fma(S0, K, S1), v_fmaak_f32 fma(S0, S1, K), one rounding. */
    float k = hrx_f32(gfx11_flush_f32(inst->literal, keep_in));
    float x = hrx_f32(v[0]), y = hrx_f32(v[1]);
    *out = hrx_f32_bits(op == GFX11_V_FMAMK_F32 ? fmaf(x, k, y)
                                                : fmaf(x, y, k));
  } else if (op == GFX11_V_DIV_FMAS_F32) {
    /* Its lane condition is VCC, whatever the encoding's sources. */
    *out = gfx11_div_fmas_f32(v[0], v[1], v[2], mask_c >> lane & 1);
  } else if (!select32(op, v, wave->mode & GFX11_MODE_IEEE, out) &&
             !alu32(op, v[0], v[1], v[2], lane, out)) {
    return false;
  }
  if (float_result(op) && inst->e64) *out = apply_output_modifiers(inst, *out);
  if (flush) {
    *out = gfx11_flush_f32(*out, wave->mode & GFX11_MODE_F32_DENORM_OUT);
  }
  return true;
}

/* v_div_scale_f32 (VOP3SD): the scaled value to the VGPR, the lanes
 * whose quotient needs post-scaling to the scalar destination. */
static bool exec_div_scale(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t vcc = 0;
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    uint32_t v[3];
    for (int i = 0; i < 3; ++i) {
      v[i] = apply_input_modifiers(
          gfx11_read32(wave, inst, inst->src[i], lane), 0, inst->neg, i);
    }
    bool scale = false;
    uint32_t result = gfx11_div_scale_f32(v[0], v[1], v[2], &scale);
    vcc |= (uint32_t)scale << lane;
    gfx11_write_vgpr(wave, inst->dst, lane, result);
  }
  gfx11_write_sgpr(wave, inst->sdst, vcc);
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool exec_vop(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t op = inst->op;
  if (gfx11_is_half_op(op)) return gfx11_exec_half(wave, inst);
  if (op < 0x100) {
    /* A compare's result is a mask: no output modifiers apply. */
    if (inst->omod || inst->clamp) return unsupported(wave, op);
    return exec_compare(wave, inst);
  }
  if (inst->opsel) return unsupported(wave, op);
  if (!float_sources(op) && (inst->abs || inst->neg)) {
    return unsupported(wave, op);
  }
  if (!float_result(op) && (inst->omod || inst->clamp)) {
    return unsupported(wave, op);
  }
  if (is_wide(op)) return exec_wide(wave, inst);
  if (op == GFX11_V_DIV_SCALE_F32) return exec_div_scale(wave, inst);
  if (op == GFX11_V_READFIRSTLANE_B32) return exec_readfirstlane(wave, inst);
  if (op == GFX11_V_READLANE_B32 || op == GFX11_V_WRITELANE_B32) {
    return exec_lane_select(wave, inst);
  }
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t mask = op == GFX11_V_CNDMASK_B32
                      ? gfx11_read32(wave, inst, inst->src[2], 0)
                  : op == GFX11_V_DIV_FMAS_F32 ? wave->sgpr[GFX11_VCC_LO]
                                               : 0;
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    uint32_t result;
    if (!lane32(wave, inst, op, inst->dst, inst->src, mask, lane, &result)) {
      return unsupported(wave, op);
    }
    gfx11_write_vgpr(wave, inst->dst, lane, result);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

/* VOPD opcodes (X and Y share 0..13; 16..18 are Y only) in VOP3 numbers;
 * 0 marks those this model lacks (mul_dx9_zero, the dot2 forms). */
uint32_t gfx11_vopd_op(uint32_t op, bool is_y) {
  static const uint32_t table[19] = {
      [0] = GFX11_V_FMAC_F32, [1] = GFX11_V_FMAAK_F32, [2] = GFX11_V_FMAMK_F32,
      [3] = GFX11_V_MUL_F32,  [4] = GFX11_V_ADD_F32,  [5] = GFX11_V_SUB_F32,
      [6] = GFX11_V_SUBREV_F32, [8] = GFX11_V_MOV_B32,
      [9] = GFX11_V_CNDMASK_B32,
      [10] = GFX11_V_MAX_F32, [11] = GFX11_V_MIN_F32, [16] = GFX11_V_ADD_NC_U32,
      [17] = GFX11_V_LSHLREV_B32, [18] = GFX11_V_AND_B32};
  if (op >= 19 || (!is_y && op >= 16)) return 0;
  return table[op];
}

/* Both halves read their sources before either writes, as the two
 * operations issue together. */
static bool exec_vopd(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t op_x = gfx11_vopd_op(inst->op, false);
  uint32_t op_y = gfx11_vopd_op(inst->op_y, true);
  if (!op_x) return unsupported(wave, inst->op);
  if (!op_y) return unsupported(wave, inst->op_y);
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t vcc = wave->sgpr[GFX11_VCC_LO];
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    uint32_t x, y;
    if (!lane32(wave, inst, op_x, inst->dst, inst->src, vcc, lane, &x) ||
        !lane32(wave, inst, op_y, inst->dst_y, inst->src_y, vcc, lane, &y)) {
      return unsupported(wave, inst->op);
    }
    gfx11_write_vgpr(wave, inst->dst, lane, x);
    gfx11_write_vgpr(wave, inst->dst_y, lane, y);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

bool gfx11_exec_vector(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->encoding == GFX11_VOPD) return exec_vopd(wave, inst);
  if (inst->encoding == GFX11_VOP3P) return gfx11_exec_vop3p(wave, inst);
  return exec_vop(wave, inst);
}
