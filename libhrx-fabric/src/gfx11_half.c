/* 16-bit vector ops of the gfx11 model: f16 VOP1/VOP2/VOP3 ops, the
 * VOP3-only u16 add, sub, mul and shifts (LLVM builds i8 vectors and
 * private byte arrays with them), v_pack_b32_f16, and the packed VOP3P
 * ops that work on both halves of each register at once.
 *
 * gfx11 names the halves of a VGPR: in the VOP1/VOP2 forms bit 7 of a
 * 16-bit operand's register number picks the high half of v[n & 127]
 * (LLVM 19 emits only v0-v127 there), in VOP3 opsel bit i picks it for
 * source i and bit 3 for the destination. A 16-bit result replaces its
 * half and keeps the other. Float inline constants of f16 operands are
 * f16 values. Arithmetic is exactly rounded (gfx11_float.c); MODE's f16
 * denormal field decides whether denormal sources and results are kept
 * or flushed to zero of their sign (gfx11_mode.c). */
#include <string.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

enum { F16_ONE = 0x3C00, F16_SIGN = 0x8000 };

typedef struct half_ref_t {
  uint32_t code;
  bool high;
} half_ref_t;

bool gfx11_is_half_op(uint32_t op) {
  switch (op) {
    case GFX11_V_ADD_F16: case GFX11_V_MUL_F16: case GFX11_V_FMAC_F16:
    case GFX11_V_CVT_F16_F32: case GFX11_V_CVT_F32_F16: case GFX11_V_FMA_F16:
    case GFX11_V_LSHLREV_B16: case GFX11_V_LSHRREV_B16:
    case GFX11_V_ASHRREV_I16: case GFX11_V_ADD_NC_U16:
    case GFX11_V_SUB_NC_U16: case GFX11_V_MUL_LO_U16:
    case GFX11_V_PACK_B32_F16:
      return true;
    default:
      return false;
  }
}

static bool unsupported(gfx11_wave_t* wave, const char* encoding,
                        uint32_t op) {
  return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                     "%s opcode 0x%x is not modelled with these modifiers",
                     encoding, op);
}

/* Operand |index| (0-2 sources, 3 the destination) as a 16-bit half. */
static half_ref_t half_ref(const gfx11_inst_t* inst, uint32_t code,
                           int index) {
  if (inst->e64) return (half_ref_t){code, (inst->opsel >> index & 1) != 0};
  if (code >= GFX11_VGPR0 && code - GFX11_VGPR0 >= 128) {
    return (half_ref_t){code - 128, true};
  }
  return (half_ref_t){code, false};
}

static uint16_t read_half(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          half_ref_t ref, uint32_t lane) {
  uint32_t value = gfx11_read32_f16(wave, inst, ref.code, lane);
  return (uint16_t)(ref.high ? value >> 16 : value);
}

static uint16_t modifiers16(const gfx11_inst_t* inst, uint16_t value,
                            int index) {
  if (inst->abs >> index & 1) value &= 0x7FFF;
  if (inst->neg >> index & 1) value ^= F16_SIGN;
  return value;
}

uint16_t gfx11_read_f16_source(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                               int index, uint32_t lane) {
  half_ref_t ref = half_ref(inst, inst->src[index], index);
  return modifiers16(inst, read_half(wave, inst, ref, lane), index);
}

static void write_half(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                       half_ref_t ref, uint32_t lane, uint16_t value) {
  uint32_t old = gfx11_read32(wave, inst, ref.code, lane);
  uint32_t merged = ref.high ? (old & 0xFFFFu) | (uint32_t)value << 16
                             : (old & 0xFFFF0000u) | value;
  gfx11_write_vgpr(wave, ref.code, lane, merged);
}

/* clamp: NaN and negatives (-0 too) to +0, above 1.0 to 1.0. */
static uint16_t clamp_f16(uint16_t value) {
  bool nan = (value & 0x7C00) == 0x7C00 && (value & 0x3FF);
  if (nan || (value & F16_SIGN)) return 0;
  return value > F16_ONE ? F16_ONE : value;
}

static uint32_t clamp_f32(uint32_t bits) {
  float f = hrx_f32(bits);
  if (!(f > 0.0f)) return 0;  /* NaN, negatives and zeros */
  return f > 1.0f ? 0x3F800000u : bits;
}

static bool keep_f16_in(const gfx11_wave_t* wave) {
  return wave->mode & GFX11_MODE_F16_DENORM_IN;
}

static bool keep_f16_out(const gfx11_wave_t* wave) {
  return wave->mode & GFX11_MODE_F16_DENORM_OUT;
}

/* v_cvt_f16_f32: the f32 source obeys the f32 denormal mode, the result
 * the f16 one. */
static void cvt_f16_f32_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                             half_ref_t dst, uint32_t lane) {
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], lane);
  if (inst->abs & 1) a &= 0x7FFFFFFFu;
  if (inst->neg & 1) a ^= 0x80000000u;
  a = gfx11_flush_f32(a, wave->mode & GFX11_MODE_F32_DENORM_IN);
  uint16_t r = gfx11_f16_from_f32(hrx_f32(a));
  if (inst->clamp) r = clamp_f16(r);
  write_half(wave, inst, dst, lane, gfx11_flush_f16(r, keep_f16_out(wave)));
}

/* A 17-bit sum or difference as 16 bits: wrapped, or with clamp
 * saturated to the signed or unsigned range. */
static uint16_t saturate16(int32_t value, bool is_signed, bool clamp) {
  int32_t lo = is_signed ? INT16_MIN : 0;
  int32_t hi = is_signed ? INT16_MAX : UINT16_MAX;
  if (clamp && value < lo) return (uint16_t)lo;
  if (clamp && value > hi) return (uint16_t)hi;
  return (uint16_t)value;
}

/* S1 >> (S0 & 15) with copies of S1's sign bit shifted in, written
 * without a signed shift. */
static uint16_t ashr16(uint16_t shift, uint16_t value) {
  uint32_t extended = value & 0x8000 ? 0xFFFF0000u | value : value;
  return (uint16_t)(extended >> (shift & 15));
}

/* One half of a packed integer op; shifts take the amount from S0 and
 * the value from S1, as the 32-bit "rev" shifts do. */
static uint16_t packed_int(uint32_t op, uint16_t a, uint16_t b, bool clamp) {
  int32_t sa = (int16_t)a, sb = (int16_t)b;
  switch (op) {
    case GFX11_V_PK_MUL_LO_U16: return (uint16_t)((uint32_t)a * b);
    case GFX11_V_PK_ADD_I16: return saturate16(sa + sb, true, clamp);
    case GFX11_V_PK_SUB_I16: return saturate16(sa - sb, true, clamp);
    case GFX11_V_PK_ADD_U16: return saturate16((int32_t)a + b, false, clamp);
    case GFX11_V_PK_SUB_U16: return saturate16((int32_t)a - b, false, clamp);
    case GFX11_V_PK_LSHLREV_B16: return (uint16_t)((uint32_t)b << (a & 15));
    case GFX11_V_PK_LSHRREV_B16: return (uint16_t)(b >> (a & 15));
    case GFX11_V_PK_ASHRREV_I16: return ashr16(a, b);
    case GFX11_V_PK_MAX_I16: return sa > sb ? a : b;
    case GFX11_V_PK_MIN_I16: return sa < sb ? a : b;
    case GFX11_V_PK_MAX_U16: return a > b ? a : b;
    default: return a < b ? a : b;  /* v_pk_min_u16 */
  }
}

/* The packed op one half of which a VOP3 u16 op is; 0 for the others. */
static uint32_t int16_as_packed(uint32_t op) {
  switch (op) {
    case GFX11_V_LSHLREV_B16: return GFX11_V_PK_LSHLREV_B16;
    case GFX11_V_LSHRREV_B16: return GFX11_V_PK_LSHRREV_B16;
    case GFX11_V_ASHRREV_I16: return GFX11_V_PK_ASHRREV_I16;
    case GFX11_V_ADD_NC_U16: return GFX11_V_PK_ADD_U16;
    case GFX11_V_SUB_NC_U16: return GFX11_V_PK_SUB_U16;
    case GFX11_V_MUL_LO_U16: return GFX11_V_PK_MUL_LO_U16;
    default: return 0;
  }
}

/* v_lshlrev_b16, v_lshrrev_b16, v_ashrrev_i16 (S1 shifted by S0 & 15),
 * v_add_nc_u16 and v_sub_nc_u16 (saturating with clamp), v_mul_lo_u16:
 * one half of the packed op; the operands are integers, so inline
 * constants are too. */
static void int16_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                       half_ref_t dst, uint32_t lane) {
  uint16_t v[2];
  for (int i = 0; i < 2; ++i) {
    half_ref_t ref = half_ref(inst, inst->src[i], i);
    uint32_t raw = gfx11_read32(wave, inst, ref.code, lane);
    v[i] = (uint16_t)(ref.high ? raw >> 16 : raw);
  }
  write_half(wave, inst, dst, lane,
             packed_int(int16_as_packed(inst->op), v[0], v[1], inst->clamp));
}

/* v_pack_b32_f16: source 0 into the low half, source 1 into the high
 * half (each with its opsel half and modifiers), one 32-bit write. */
static void pack_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                      uint32_t lane) {
  uint16_t lo = gfx11_flush_f16(gfx11_read_f16_source(wave, inst, 0, lane),
                                keep_f16_in(wave));
  uint16_t hi = gfx11_flush_f16(gfx11_read_f16_source(wave, inst, 1, lane),
                                keep_f16_in(wave));
  gfx11_write_vgpr(wave, inst->dst, lane, (uint32_t)hi << 16 | lo);
}

/* One lane of an f16 VOP1/VOP2/VOP3 op or a u16 VOP3 one. */
static void half_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                      uint32_t lane) {
  if (inst->op == GFX11_V_PACK_B32_F16) {
    pack_lane(wave, inst, lane);
    return;
  }
  half_ref_t dst = half_ref(inst, inst->dst, 3);
  if (inst->op == GFX11_V_CVT_F16_F32) {
    cvt_f16_f32_lane(wave, inst, dst, lane);
    return;
  }
  if (int16_as_packed(inst->op)) {
    int16_lane(wave, inst, dst, lane);
    return;
  }
  uint16_t v[3] = {0, 0, 0};
  int count = inst->op == GFX11_V_CVT_F32_F16 ? 1
              : inst->op == GFX11_V_FMA_F16   ? 3
                                              : 2;
  for (int i = 0; i < count; ++i) {
    v[i] = gfx11_flush_f16(gfx11_read_f16_source(wave, inst, i, lane),
                           keep_f16_in(wave));
  }
  if (inst->op == GFX11_V_CVT_F32_F16) {
    /* Every f16 is a normal f32: only the source can be flushed. */
    uint32_t r = hrx_f32_bits(gfx11_f16_to_f32(v[0]));
    gfx11_write_vgpr(wave, inst->dst, lane, inst->clamp ? clamp_f32(r) : r);
    return;
  }
  uint16_t r;
  switch (inst->op) {
    case GFX11_V_ADD_F16: r = gfx11_add_f16(v[0], v[1]); break;
    case GFX11_V_MUL_F16: r = gfx11_mul_f16(v[0], v[1]); break;
    case GFX11_V_FMAC_F16:
      r = gfx11_fma_f16(v[0], v[1],
                        gfx11_flush_f16(read_half(wave, inst, dst, lane),
                                        keep_f16_in(wave)));
      break;
    default: r = gfx11_fma_f16(v[0], v[1], v[2]); break;  /* v_fma_f16 */
  }
  if (inst->clamp) r = clamp_f16(r);
  write_half(wave, inst, dst, lane, gfx11_flush_f16(r, keep_f16_out(wave)));
}

bool gfx11_exec_half(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  /* Output scaling of f16 results is not modelled; integer ops take no
   * float modifiers, and only add and sub a clamp. */
  uint32_t packed = int16_as_packed(inst->op);
  bool clamps = packed == GFX11_V_PK_ADD_U16 || packed == GFX11_V_PK_SUB_U16;
  if (inst->omod ||
      (packed && (inst->abs || inst->neg || (inst->clamp && !clamps))) ||
      (inst->op == GFX11_V_PACK_B32_F16 && inst->clamp)) {
    return unsupported(wave, "VOP3", inst->op);
  }
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  for (uint32_t lane = 0; lane < GFX11_LANES && !wave->faulted; ++lane) {
    if (exec >> lane & 1) half_lane(wave, inst, lane);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool vop3p_is_float(uint32_t op) {
  return op == GFX11_V_PK_FMA_F16 || op == GFX11_V_PK_ADD_F16 ||
         op == GFX11_V_PK_MUL_F16 || op == GFX11_V_PK_MIN_F16 ||
         op == GFX11_V_PK_MAX_F16;
}

/* One half of a packed f16 op on its three (selected, negated) sources,
 * denormals flushed as MODE asks. */
static uint16_t packed_float(const gfx11_wave_t* wave, uint32_t op,
                             const uint16_t* source, bool clamp) {
  uint16_t v[3];
  for (int i = 0; i < 3; ++i) {
    v[i] = gfx11_flush_f16(source[i], keep_f16_in(wave));
  }
  bool ieee = wave->mode & GFX11_MODE_IEEE;
  uint16_t r;
  switch (op) {
    case GFX11_V_PK_FMA_F16: r = gfx11_fma_f16(v[0], v[1], v[2]); break;
    case GFX11_V_PK_ADD_F16: r = gfx11_add_f16(v[0], v[1]); break;
    case GFX11_V_PK_MUL_F16: r = gfx11_mul_f16(v[0], v[1]); break;
    case GFX11_V_PK_MIN_F16: r = gfx11_min_f16(v[0], v[1], ieee); break;
    default: r = gfx11_max_f16(v[0], v[1], ieee); break;
  }
  if (clamp) r = clamp_f16(r);
  return gfx11_flush_f16(r, keep_f16_out(wave));
}

static uint16_t packed_half(const gfx11_wave_t* wave, uint32_t op,
                            const uint16_t* v, bool clamp) {
  if (vop3p_is_float(op)) return packed_float(wave, op, v, clamp);
  return packed_int(op, v[0], v[1], clamp);
}

/* Integer ops take no neg modifiers; clamp saturates only the sums and
 * differences. */
static bool vop3p_supported(const gfx11_inst_t* inst) {
  if (vop3p_is_float(inst->op)) return true;
  if (inst->neg || inst->neg_hi) return false;
  switch (inst->op) {
    case GFX11_V_PK_ADD_I16: case GFX11_V_PK_SUB_I16:
    case GFX11_V_PK_ADD_U16: case GFX11_V_PK_SUB_U16:
      return true;
    case GFX11_V_PK_MUL_LO_U16: case GFX11_V_PK_LSHLREV_B16:
    case GFX11_V_PK_LSHRREV_B16: case GFX11_V_PK_ASHRREV_I16:
    case GFX11_V_PK_MAX_I16: case GFX11_V_PK_MIN_I16:
    case GFX11_V_PK_MAX_U16: case GFX11_V_PK_MIN_U16:
      return !inst->clamp;
    default:
      return false;
  }
}

/* Source i of the low result is half opsel[i] of the register, of the
 * high result half opsel_hi[i]; neg and neg_hi negate them. */
static void vop3p_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                       uint32_t lane) {
  bool is_float = vop3p_is_float(inst->op);
  int count = inst->op == GFX11_V_PK_FMA_F16 ? 3 : 2;
  uint16_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int i = 0; i < count; ++i) {
    uint32_t raw = is_float ? gfx11_read32_f16(wave, inst, inst->src[i], lane)
                            : gfx11_read32(wave, inst, inst->src[i], lane);
    lo[i] = (uint16_t)(inst->opsel >> i & 1 ? raw >> 16 : raw);
    hi[i] = (uint16_t)(inst->opsel_hi >> i & 1 ? raw >> 16 : raw);
    if (inst->neg >> i & 1) lo[i] ^= F16_SIGN;
    if (inst->neg_hi >> i & 1) hi[i] ^= F16_SIGN;
  }
  uint32_t result =
      packed_half(wave, inst->op, lo, inst->clamp) |
      (uint32_t)packed_half(wave, inst->op, hi, inst->clamp) << 16;
  gfx11_write_vgpr(wave, inst->dst, lane, result);
}

bool gfx11_exec_vop3p(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (gfx11_is_wmma(inst->op)) return gfx11_exec_wmma(wave, inst);
  if (!vop3p_supported(inst)) return unsupported(wave, "VOP3P", inst->op);
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  for (uint32_t lane = 0; lane < GFX11_LANES && !wave->faulted; ++lane) {
    if (exec >> lane & 1) vop3p_lane(wave, inst, lane);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}
