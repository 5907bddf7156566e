/* RDNA3's wave32 matrix multiply-accumulate, D = A x B + C on 16x16x16
 * tiles (VOP3P opcodes 64-69): v_wmma_f32_16x16x16_{f16,bf16},
 * v_wmma_f16_16x16x16_f16, v_wmma_bf16_16x16x16_bf16 and
 * v_wmma_i32_16x16x16_{iu8,iu4}.
 *
 * Register layout (RDNA3 ISA guide, "Wave Matrix Multiply Accumulate"):
 * lane l holds row l % 16 of A and column l % 16 of B; lanes 16..31 must
 * repeat lanes 0..15, and the model reads lanes 0..15. Element k of a
 * lane's A or B sits at bit (k * width) % 32 of VGPR k * width / 32: eight
 * VGPRs of 16-bit values, four of 8-bit, two of 4-bit. C and D take eight
 * VGPRs: VGPR i of lane l is row 2i + l / 16, column l % 16. A 16-bit C or
 * D uses one half of each VGPR, the high one when op_sel[2] is set; the
 * other half of D keeps what it held, so that two 16-bit accumulators can
 * share the registers (LLVM relies on this: reviews.llvm.org/D158059
 * packs two results with op_sel:[0,0,1] and keeps these two-address).
 *
 * The guide leaves the order and precision of float sums to the hardware.
 * The model adds the products in k order to C with one rounding each: a
 * product of two f16 or bf16 values is exact in f32, so each step is a
 * fused multiply-add. A 16-bit result is that f32 sum rounded once to
 * nearest even, the host device's definition of vector.mma; kernels are
 * checked against this within a bound or with values whose sums are exact
 * in any order. Denormal inputs are kept; no MODE bit applies.
 *
 * Integer forms: neg_lo[0] and neg_lo[1] say that A and B are signed
 * (unsigned otherwise); the sum of C and the products is exact and wraps
 * to 32 bits, or with clamp saturates to the signed 32-bit range. */
#include <math.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

#define WMMA_DIM 16u

typedef enum wmma_kind_e {
  WMMA_F16,
  WMMA_BF16,
  WMMA_F32,
  WMMA_I32,
  WMMA_IU8,
  WMMA_IU4,
} wmma_kind_t;

typedef struct wmma_form_t {
  wmma_kind_t source, result;
  uint32_t source_bits;
} wmma_form_t;

static bool wmma_form(uint32_t op, wmma_form_t* out) {
  switch (op) {
    case GFX11_V_WMMA_F32_16X16X16_F16:
      *out = (wmma_form_t){WMMA_F16, WMMA_F32, 16};
      return true;
    case GFX11_V_WMMA_F32_16X16X16_BF16:
      *out = (wmma_form_t){WMMA_BF16, WMMA_F32, 16};
      return true;
    case GFX11_V_WMMA_F16_16X16X16_F16:
      *out = (wmma_form_t){WMMA_F16, WMMA_F16, 16};
      return true;
    case GFX11_V_WMMA_BF16_16X16X16_BF16:
      *out = (wmma_form_t){WMMA_BF16, WMMA_BF16, 16};
      return true;
    case GFX11_V_WMMA_I32_16X16X16_IU8:
      *out = (wmma_form_t){WMMA_IU8, WMMA_I32, 8};
      return true;
    case GFX11_V_WMMA_I32_16X16X16_IU4:
      *out = (wmma_form_t){WMMA_IU4, WMMA_I32, 4};
      return true;
    default:
      return false;
  }
}

bool gfx11_is_wmma(uint32_t op) {
  wmma_form_t form;
  return wmma_form(op, &form);
}

/* Element k of a lane's A or B, from the VGPRs starting at |base|: a
 * float for the 16-bit forms, an integer otherwise. */
static double wmma_source(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          const wmma_form_t* form, uint32_t base,
                          uint32_t lane, uint32_t k, bool is_signed) {
  uint32_t bit = k * form->source_bits;
  uint32_t raw = gfx11_read32(wave, inst, base + bit / 32, lane);
  uint32_t field = raw >> bit % 32 & ((1u << form->source_bits) - 1);
  switch (form->source) {
    case WMMA_F16:
      return hrx_f16_to_f32((uint16_t)field);
    case WMMA_BF16:
      return hrx_bf16_to_f32((uint16_t)field);
    default: {
      uint32_t sign = 1u << (form->source_bits - 1);
      return is_signed && field & sign ? (double)field - 2.0 * sign
                                       : (double)field;
    }
  }
}

/* Which modifiers a form takes: op_sel[2] for 16-bit results, neg_lo[0:1]
 * (signedness) and clamp for the integer ones; LLVM emits no others. */
static bool wmma_modifiers_ok(const gfx11_inst_t* inst,
                              const wmma_form_t* form) {
  bool half = form->result == WMMA_F16 || form->result == WMMA_BF16;
  bool integer = form->result == WMMA_I32;
  uint32_t opsel = half ? inst->opsel & ~4u : inst->opsel;
  uint32_t neg = integer ? inst->neg & ~3u : inst->neg;
  return !opsel && !neg && !inst->neg_hi && (integer || !inst->clamp);
}

/* D for one element: C (already read) plus the products of row |row| of
 * A and column |column| of B. */
static uint32_t wmma_element(const wmma_form_t* form,
                             const gfx11_inst_t* inst, uint32_t c_bits,
                             double a[WMMA_DIM][WMMA_DIM],
                             double b[WMMA_DIM][WMMA_DIM], uint32_t row,
                             uint32_t column) {
  if (form->result == WMMA_I32) {
    /* |sum| stays below 2^31 + 16 * 2^16: exact in an int64_t. */
    int64_t sum = (int32_t)c_bits;
    for (uint32_t k = 0; k < WMMA_DIM; ++k) {
      sum += (int64_t)a[row][k] * (int64_t)b[k][column];
    }
    if (inst->clamp) {
      sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
    }
    return (uint32_t)sum;
  }
  float sum = form->result == WMMA_F32 ? hrx_f32(c_bits)
              : form->result == WMMA_F16 ? hrx_f16_to_f32((uint16_t)c_bits)
                                         : hrx_bf16_to_f32((uint16_t)c_bits);
  for (uint32_t k = 0; k < WMMA_DIM; ++k) {
    sum = fmaf((float)a[row][k], (float)b[k][column], sum);
  }
  if (form->result == WMMA_F16) return hrx_f32_to_f16(sum);
  if (form->result == WMMA_BF16) return hrx_f32_to_bf16(sum);
  return hrx_f32_bits(sum);
}

bool gfx11_exec_wmma(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  wmma_form_t form;
  if (!wmma_form(inst->op, &form)) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "VOP3P opcode %u is not a v_wmma", inst->op);
  }
  /* Other modifiers change the operands in ways LLVM does not emit for
   * these; refuse rather than guess. */
  if (!wmma_modifiers_ok(inst, &form)) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "v_wmma with these neg, clamp or op_sel bits is not "
                       "modelled");
  }
  if (wave->sgpr[GFX11_EXEC_LO] != UINT32_MAX) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "v_wmma needs every lane of the wave active");
  }
  double a[WMMA_DIM][WMMA_DIM], b[WMMA_DIM][WMMA_DIM];
  for (uint32_t r = 0; r < WMMA_DIM; ++r) {
    for (uint32_t k = 0; k < WMMA_DIM; ++k) {
      a[r][k] = wmma_source(wave, inst, &form, inst->src[0], r, k,
                            inst->neg & 1);
      b[k][r] = wmma_source(wave, inst, &form, inst->src[1], r, k,
                            inst->neg & 2);
    }
  }
  /* A 16-bit C and D use the half op_sel[2] picks. */
  bool half = form.result == WMMA_F16 || form.result == WMMA_BF16;
  uint32_t shift = half && inst->opsel & 4 ? 16 : 0;
  /* All of C is read before any of D is written: they may overlap. */
  uint32_t d[WMMA_DIM / 2][GFX11_LANES];
  for (uint32_t i = 0; i < WMMA_DIM / 2; ++i) {
    for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
      uint32_t row = 2 * i + lane / WMMA_DIM, column = lane % WMMA_DIM;
      uint32_t c = gfx11_read32(wave, inst, inst->src[2] + i, lane) >> shift;
      d[i][lane] = wmma_element(&form, inst, c, a, b, row, column);
    }
  }
  if (wave->faulted) return false;
  for (uint32_t i = 0; i < WMMA_DIM / 2; ++i) {
    for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
      uint32_t value = d[i][lane];
      if (half) {
        uint32_t old = gfx11_read32(wave, inst, inst->dst + i, lane);
        value = (old & ~(0xFFFFu << shift)) | (value & 0xFFFFu) << shift;
      }
      gfx11_write_vgpr(wave, inst->dst + i, lane, value);
    }
  }
  wave->pc += inst->size;
  return true;
}
