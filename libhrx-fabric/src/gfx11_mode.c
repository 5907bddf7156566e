/* The wave's MODE register (hardware register 1) in the gfx11 model: its
 * start value from the kernel descriptor's COMPUTE_PGM_RSRC1, the scalar
 * instructions that change it (s_denorm_mode, s_round_mode, s_setreg_b32,
 * s_setreg_imm32_b32) or read it (s_getreg_b32), and the denormal flushing
 * its FP_DENORM fields ask of f32 and f16 arithmetic.
 *
 * Each 2-bit FP_DENORM field (f32 at bits 4-5, f16 and f64 at 6-7) keeps
 * input denormals when its bit 0 is set and output denormals when its bit
 * 1 is set (AMDGPUUsage's FLOAT_DENORM_MODE values: 0 flushes sources and
 * results, 1 results only, 2 sources only, 3 nothing). A flushed denormal
 * becomes zero of the same sign. Only round-to-nearest-even (FP_ROUND 0)
 * is modelled. */
#include "gfx11_internal.h"

enum {
  /* COMPUTE_PGM_RSRC1 fields (AMDGPUUsage, AMDHSAKernelDescriptor.h). */
  RSRC1_FLOAT_MODE_SHIFT = 12,  /* round 32, round 16_64, denorm 32, 16_64 */
  RSRC1_DX10_CLAMP = 1u << 21,
  RSRC1_IEEE_MODE = 1u << 23,
  /* s_setreg/s_getreg's SIMM16: id [5:0], offset [10:6], size - 1
   * [15:11]. */
  HWREG_MODE = 1,
};

uint32_t gfx11_mode_from_rsrc1(uint32_t rsrc1) {
  uint32_t mode = rsrc1 >> RSRC1_FLOAT_MODE_SHIFT & 0xFF;
  if (rsrc1 & RSRC1_DX10_CLAMP) mode |= GFX11_MODE_DX10_CLAMP;
  if (rsrc1 & RSRC1_IEEE_MODE) mode |= GFX11_MODE_IEEE;
  return mode;
}

/* Stores |mode| unless it asks for a rounding this model lacks. */
static bool set_mode(gfx11_wave_t* wave, uint32_t mode) {
  if (mode & GFX11_MODE_ROUND_MASK) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "MODE rounding 0x%x is not modelled (round to "
                       "nearest even only)", mode & GFX11_MODE_ROUND_MASK);
  }
  wave->mode = mode;
  return true;
}

bool gfx11_denorm_mode(gfx11_wave_t* wave, uint32_t imm) {
  uint32_t mode = wave->mode & ~GFX11_MODE_DENORM_MASK;
  return set_mode(wave, mode | (imm & 0xF) << 4);
}

bool gfx11_round_mode(gfx11_wave_t* wave, uint32_t imm) {
  return set_mode(wave, (wave->mode & ~GFX11_MODE_ROUND_MASK) | (imm & 0xF));
}

/* The field mask of hwreg operand |simm16| within the register; false
 * (and a fault) for a register other than MODE. */
static bool mode_field(gfx11_wave_t* wave, uint32_t simm16,
                       uint32_t* out_offset, uint32_t* out_mask) {
  uint32_t id = simm16 & 0x3F;
  uint32_t offset = simm16 >> 6 & 0x1F;
  uint32_t size = (simm16 >> 11 & 0x1F) + 1;
  if (id != HWREG_MODE) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "hardware register %u is not modelled (MODE only)",
                       id);
  }
  uint64_t ones = (1ull << size) - 1;
  *out_offset = offset;
  *out_mask = (uint32_t)(ones << offset);
  return true;
}

bool gfx11_setreg(gfx11_wave_t* wave, uint32_t simm16, uint32_t value) {
  uint32_t offset = 0, mask = 0;
  if (!mode_field(wave, simm16, &offset, &mask)) return false;
  return set_mode(wave, (wave->mode & ~mask) | (value << offset & mask));
}

bool gfx11_getreg(gfx11_wave_t* wave, uint32_t simm16, uint32_t* out_value) {
  uint32_t offset = 0, mask = 0;
  if (!mode_field(wave, simm16, &offset, &mask)) return false;
  *out_value = (wave->mode & mask) >> offset;
  return true;
}

uint32_t gfx11_flush_f32(uint32_t bits, bool keep) {
  bool denormal = (bits & 0x7F800000u) == 0 && (bits & 0x007FFFFFu);
  return denormal && !keep ? bits & 0x80000000u : bits;
}

uint16_t gfx11_flush_f16(uint16_t bits, bool keep) {
  bool denormal = (bits & 0x7C00) == 0 && (bits & 0x03FF);
  return denormal && !keep ? (uint16_t)(bits & 0x8000) : bits;
}
