/* RDNA3's wave32 matrix multiply-accumulate, D = A x B + C on 16x16x16
 * tiles: v_wmma_f32_16x16x16_f16 and _bf16 (VOP3P opcodes 64 and 65).
 *
 * Register layout (RDNA3 ISA guide, "Wave Matrix Multiply Accumulate"):
 * A and B take 8 VGPRs, two 16-bit values each, element k of a lane in
 * VGPR k / 2, low half for even k. Lane l holds row l % 16 of A and column
 * l % 16 of B; lanes 16..31 must repeat lanes 0..15, and the model reads
 * lanes 0..15. C and D take 8 VGPRs of f32: VGPR i of lane l is row
 * 2i + l / 16, column l % 16.
 *
 * The guide leaves the order and precision of the sum to the hardware. The
 * model adds the products in k order to C with one rounding each: a
 * product of two f16 or bf16 values is exact in f32, so each step is a
 * fused multiply-add. Kernels are checked against this within a bound
 * (tests/kernels/check/wmma_gemm.loom uses values whose sums are exact in
 * any order). Denormal inputs are kept; no MODE bit applies. */
#include <math.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

#define WMMA_DIM 16u

static float wmma_source(uint32_t raw, uint32_t k, bool bf16) {
  uint16_t half = (uint16_t)(k & 1 ? raw >> 16 : raw);
  return bf16 ? hrx_bf16_to_f32(half) : hrx_f16_to_f32(half);
}

bool gfx11_exec_wmma(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  /* Negation, clamping and half selects change the operands in ways
   * LLVM does not emit for these; refuse rather than guess. */
  if (inst->neg || inst->neg_hi || inst->clamp || inst->opsel) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "v_wmma with neg, clamp or op_sel is not modelled");
  }
  if (wave->sgpr[GFX11_EXEC_LO] != UINT32_MAX) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "v_wmma needs every lane of the wave active");
  }
  bool bf16 = inst->op == GFX11_V_WMMA_F32_16X16X16_BF16;
  float a[WMMA_DIM][WMMA_DIM], b[WMMA_DIM][WMMA_DIM];
  for (uint32_t r = 0; r < WMMA_DIM; ++r) {
    for (uint32_t k = 0; k < WMMA_DIM; ++k) {
      uint32_t ra = gfx11_read32(wave, inst, inst->src[0] + k / 2, r);
      uint32_t rb = gfx11_read32(wave, inst, inst->src[1] + k / 2, r);
      a[r][k] = wmma_source(ra, k, bf16);
      b[k][r] = wmma_source(rb, k, bf16);
    }
  }
  /* All of C is read before any of D is written: they may overlap. */
  float d[WMMA_DIM / 2][GFX11_LANES];
  for (uint32_t i = 0; i < WMMA_DIM / 2; ++i) {
    for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
      uint32_t row = 2 * i + lane / WMMA_DIM, column = lane % WMMA_DIM;
      float sum = hrx_f32(gfx11_read32(wave, inst, inst->src[2] + i, lane));
      for (uint32_t k = 0; k < WMMA_DIM; ++k) {
        sum = fmaf(a[row][k], b[k][column], sum);
      }
      d[i][lane] = sum;
    }
  }
  if (wave->faulted) return false;
  for (uint32_t i = 0; i < WMMA_DIM / 2; ++i) {
    for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
      gfx11_write_vgpr(wave, inst->dst + i, lane, hrx_f32_bits(d[i][lane]));
    }
  }
  wave->pc += inst->size;
  return true;
}
